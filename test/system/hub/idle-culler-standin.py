"""A stand-in for jupyterhub-idle-culler, for the hub tests only (never shipped).

The real culler is on PyPI, which this project cannot reach, and Debian does not package it. This
does what its documentation says it does, with the same inputs, so a test can show that what the
fleet view does cannot keep a server from it:

- it runs as a JupyterHub service with the culler's documented role: list:users,
  read:users:activity, read:servers, delete:servers (JUPYTERHUB_API_TOKEN, JUPYTERHUB_API_URL);
- every --cull-every seconds (and once at start) it lists the users with a ready server,
  GET /users?state=ready, page by page (Accept: application/jupyterhub-pagination+json);
- a server that is pending or not ready is left alone; a server is idle for now minus its
  last_activity (its start when it has none), and one idle for --timeout seconds or more is
  stopped with DELETE /users/NAME/server (a named one with DELETE /users/NAME/servers/SERVER);
- it logs each cull as the culler does: "Culling server NAME (inactive for HH:MM:SS)".

It culls servers only (not users), with no --max-age, as the culler does by default, and assumes
JupyterHub 1.3 or newer (the state filter), as every hub here is.

    JUPYTERHUB_API_TOKEN=... JUPYTERHUB_API_URL=http://127.0.0.1:8000/hub/api \
        python3 idle-culler-standin.py --timeout 20 --cull-every 2
"""

import argparse
import datetime
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

PAGINATION = "application/jupyterhub-pagination+json"


def log(message):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S")
    print(f"[idle-culler-standin {stamp}] {message}", file=sys.stderr, flush=True)


def parse_time(text):
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment


def hhmmss(seconds):
    seconds = int(seconds)
    return f"{seconds // 3600:02}:{seconds % 3600 // 60:02}:{seconds % 60:02}"


class Hub:
    def __init__(self, api_url, token):
        if urllib.parse.urlsplit(api_url).scheme not in ("http", "https"):
            raise SystemExit(f"JUPYTERHUB_API_URL is not an http(s) URL: {api_url!r}")
        self.api_url = api_url.rstrip("/")
        self.token = token

    def call(self, method, url, accept="application/json"):
        # Only the hub's http(s) API (checked above) and the next pages it names.
        request = urllib.request.Request(  # noqa: S310
            url,
            method=method,
            headers={"Authorization": f"token {self.token}", "Accept": accept},
        )
        with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
            body = answer.read()
            return answer.status, json.loads(body) if body else None

    def ready_users(self):
        url = f"{self.api_url}/users?state=ready"
        for _ in range(10000):
            _, page = self.call("GET", url, accept=PAGINATION)
            if isinstance(page, list):  # a hub without pagination
                yield from page
                return
            yield from page["items"]
            following = (page.get("_pagination") or {}).get("next")
            if not following:
                return
            url = urllib.parse.urljoin(url, following["url"])


def cull_once(hub, timeout):
    now = datetime.datetime.now(datetime.timezone.utc)
    for user in hub.ready_users():
        for server_name, server in (user.get("servers") or {}).items():
            label = f"{user['name']}/{server_name}" if server_name else user["name"]
            if server.get("pending") or not server.get("ready"):
                continue
            since = server.get("last_activity") or server.get("started")
            if not since:
                continue
            inactive = (now - parse_time(since)).total_seconds()
            if inactive < timeout:
                continue
            log(f"Culling server {label} (inactive for {hhmmss(inactive)})")
            name = urllib.parse.quote(user["name"], safe="")
            path = (
                f"/users/{name}/servers/{urllib.parse.quote(server_name, safe='')}"
                if server_name
                else f"/users/{name}/server"
            )
            status, _ = hub.call("DELETE", hub.api_url + path)
            if status == 202:
                log(f"Server {label} is slow to stop")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=600, help="idle seconds before a cull")
    parser.add_argument("--cull-every", type=float, default=0, help="seconds between passes (default: timeout/2)")
    options = parser.parse_args(argv)
    every = options.cull_every or options.timeout / 2
    hub = Hub(os.environ["JUPYTERHUB_API_URL"], os.environ["JUPYTERHUB_API_TOKEN"])
    log(f"culling servers idle for {options.timeout:g} s, every {every:g} s")
    while True:
        try:
            cull_once(hub, options.timeout)
        except (urllib.error.URLError, OSError, ValueError, KeyError) as error:
            log(f"pass failed: {error}")
        time.sleep(every)


if __name__ == "__main__":
    main()
