#!/usr/bin/python3
"""Runs shell commands in a JupyterLab terminal, as a person types them.

The terminal is created through the Jupyter server's REST API (``POST {base}api/terminals``), so
its shell is the server's child with the server's environment (terminado), and the commands go
over the terminal's websocket (``{base}terminals/websocket/<name>``) as JupyterLab sends
keystrokes. Each command's output is collected up to an end marker that carries its exit
status. Prints one JSON object: ``{"results": [{"command", "status", "output"}]}``.

    run_in_terminal.py BASE_URL COMMANDS.json TIMEOUT_S

The credential (what the browser session would be) comes from ``RUNNER_AUTHORIZATION``; the
terminal never sees it.
"""

import asyncio
import json
import os
import re
import secrets
import sys

from tornado import httpclient, ioloop, websocket

from runner_rest import rest  # beside this script


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


async def run(base, commands, timeout):
    terminal = rest("POST", base + "api/terminals")
    ws_url = re.sub(r"^http", "ws", base) + "terminals/websocket/" + terminal["name"]
    request = httpclient.HTTPRequest(ws_url, headers={"Authorization": os.environ["RUNNER_AUTHORIZATION"]}, connect_timeout=30)
    connection = await websocket.websocket_connect(request)
    results = []
    loop = ioloop.IOLoop.current()
    try:
        # No echo and no prompt: what comes back is the commands' output only. The first, empty
        # command swallows what the shell printed before.
        await connection.write_message(json.dumps(["stdin", "stty -echo; PS1=''; PS2=''\r"]))
        for command in [":"] + list(commands):
            token = secrets.token_hex(6)
            # printf joins the marker at run time, so an echoed command line never matches it.
            line = "{}\rprintf '%s%s:%s\\n' 'END-' '{}' \"$?\"\r".format(command.replace("\n", "\r"), token)
            await connection.write_message(json.dumps(["stdin", line]))
            pattern = re.compile("END-" + token + r":(\d+)\n")
            text = ""
            deadline = loop.time() + timeout
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise TimeoutError("no end of {!r} within {} s; output so far: {!r}".format(command, timeout, text[-2000:]))
                message = await asyncio.wait_for(connection.read_message(), timeout=remaining)
                if message is None:
                    raise RuntimeError("the terminal closed; output so far: " + repr(text[-2000:]))
                kind, *payload = json.loads(message)
                if kind == "stdout":
                    text += ANSI.sub("", payload[0])
                found = pattern.search(text)
                if found:
                    if command != ":":
                        results.append({"command": command, "status": int(found.group(1)), "output": text[: found.start()]})
                    break
    finally:
        connection.close()
        try:
            rest("DELETE", base + "api/terminals/" + terminal["name"])
        except Exception:  # the terminal may be gone already
            pass
    return results


def main():
    base, commands_file, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open(commands_file, encoding="utf-8") as f:
        commands = json.load(f)
    results = ioloop.IOLoop.current().run_sync(lambda: run(base, commands, timeout))
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
