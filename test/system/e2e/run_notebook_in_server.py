#!/usr/bin/python3
"""Runs a notebook in a kernel that a running Jupyter server starts, as JupyterLab does.

The kernel is started through the server's REST API (``POST {base}api/kernels``), so it is the
server's child process with exactly the environment the server gives its kernels (nothing of
this runner's). Its cells are then sent over the kernel's ZeroMQ channels from the connection
file the server wrote into its runtime directory (JupyterLab sends the same execute requests
over the server's websocket; the kernel cannot tell the difference). The outputs are stored in
the notebook with nbformat, and the kernel is shut down through the REST API again.

    run_notebook_in_server.py BASE_URL RUNTIME_DIR SOURCE.ipynb TARGET.ipynb CELL_TIMEOUT_S

The credential for the REST API (what the browser session would be) comes from the
``RUNNER_AUTHORIZATION`` environment variable of this runner; the kernel never sees it.
"""

import json
import os
import sys
import time

import nbformat
from jupyter_client import BlockingKernelClient

from runner_rest import rest  # beside this script


def main():
    base, runtime, source, target, timeout = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    nb = nbformat.read(source, as_version=4)
    kernel = rest("POST", base + "api/kernels", {"name": "python3"})
    connection_file = os.path.join(runtime, "kernel-{}.json".format(kernel["id"]))
    deadline = time.monotonic() + 30
    while not os.path.exists(connection_file) and time.monotonic() < deadline:
        time.sleep(0.05)
    client = BlockingKernelClient()
    client.load_connection_file(connection_file)
    client.start_channels()
    try:
        # The server writes the connection file before the kernel listens: ask until it answers
        # (jupyter_client's wait_for_ready gives up on a heartbeat that has not started yet).
        ready_by = time.monotonic() + 60
        while True:
            client.kernel_info()
            try:
                # Any reply: requests sent before the kernel listened are answered in order.
                if client.get_shell_msg(timeout=1)["msg_type"] == "kernel_info_reply":
                    break
            except Exception:  # queue.Empty: not up yet
                if time.monotonic() > ready_by:
                    raise RuntimeError("the kernel did not answer kernel_info within 60 s")
        # Drain the replies to the other early requests and the start's iopub messages.
        for get in (client.get_shell_msg, client.get_iopub_msg):
            while True:
                try:
                    get(timeout=0.5)
                except Exception:  # queue.Empty
                    break
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            outputs = []

            def keep(msg):
                kind = msg["msg_type"]
                if kind == "stream" and outputs and outputs[-1].get("output_type") == "stream" \
                        and outputs[-1]["name"] == msg["content"]["name"]:
                    outputs[-1]["text"] += msg["content"]["text"]
                elif kind in ("stream", "display_data", "execute_result", "error"):
                    outputs.append(nbformat.v4.output_from_msg(msg))

            reply = client.execute_interactive(cell.source, output_hook=keep, timeout=timeout, allow_stdin=False)
            cell.execution_count = reply["content"].get("execution_count")
            cell.outputs = outputs
    finally:
        client.stop_channels()
        try:
            rest("DELETE", base + "api/kernels/" + kernel["id"])
        finally:
            nbformat.write(nb, target)
    print("executed", len(nb.cells), "cells in kernel", kernel["name"])


if __name__ == "__main__":
    main()
