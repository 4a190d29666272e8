"""The Jupyter REST call both e2e runners make (run_in_terminal.py, run_notebook_in_server.py),
with the credential from RUNNER_AUTHORIZATION, which the kernel or terminal never sees."""

import json
import os
import urllib.request


def rest(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": os.environ["RUNNER_AUTHORIZATION"], "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        raw = response.read()
        return json.loads(raw) if raw else None
