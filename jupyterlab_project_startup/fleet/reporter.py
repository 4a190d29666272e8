"""The fleet reporter, run by the server extension in each user's Jupyter server under JupyterHub.

Every poll it reads the sidecar that jupyter-server-proxy launched, beside the proxy: the
diagnostics file names the Unix socket the sidecar answers on, and one GET of the startup
projection there goes through neither the hub's proxy nor Jupyter, so it is nobody's activity
and never keeps the server from the idle culler. A sidecar that is not running is reported as
such and never started. The report (report.py) goes to the fleet service on change and on the
heartbeat the service asks for, with the server's own hub token (JUPYTERHUB_API_TOKEN), which
the hub gives every server it spawns: no scope beyond the default is needed."""

import asyncio
import json
import time
from datetime import datetime, timezone

from ..checks import _pid_alive
from ..private_file import read_private_text
from .report import report_from_sidecar, same_state

FLEET_URL_ENV = "PROJECT_STARTUP_FLEET_URL"
POLL_SECONDS_ENV = "PROJECT_STARTUP_FLEET_POLL_SECONDS"
DEFAULT_POLL_SECONDS = 30
DEFAULT_HEARTBEAT_SECONDS = 300
MAX_ANSWER_BYTES = 1 << 20


async def read_unix_http(socket_path, path, timeout=5.0):
    """One HTTP/1.0 GET over a Unix socket: (status, decoded JSON body or None)."""
    reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(socket_path), timeout)
    try:
        writer.write(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n".encode("ascii"))
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(MAX_ANSWER_BYTES), timeout)
        while len(raw) < MAX_ANSWER_BYTES:
            more = await asyncio.wait_for(reader.read(MAX_ANSWER_BYTES - len(raw)), timeout)
            if not more:
                break
            raw += more
    finally:
        writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    try:
        return status, json.loads(body.decode("utf-8"))
    except ValueError:
        return status, None


async def observe_sidecar(diagnostics_file, base_url):
    """What the sidecar answers, for report_from_sidecar, without ever starting one."""
    text = read_private_text(diagnostics_file)
    record = None
    if text is not None:
        try:
            record = json.loads(text)
        except ValueError:
            record = None
    if not isinstance(record, dict):
        return ("not-started", None)
    socket_path = record.get("socket")
    alive = _pid_alive(record.get("pid"))
    if record.get("state") == "failed" and not (alive and isinstance(socket_path, str)):
        return ("failed", record.get("exitCode"))
    if not alive or not isinstance(socket_path, str):
        return ("not-started", None)
    try:
        status, body = await read_unix_http(socket_path, f"{base_url}project/startup?interface=notebook")
    except (OSError, asyncio.TimeoutError, ValueError, IndexError):
        return ("failed", None) if record.get("state") == "failed" else ("not-started", None)
    if status == 200 and isinstance(body, dict) and isinstance(body.get("phase"), str):
        return ("projection", body)
    return ("problem", body if isinstance(body, dict) else {})


class FleetReporter:
    def __init__(self, *, fleet_url, token, base_url, diagnostics_file, version, server_name, log, poll_seconds):
        self.reports_url = fleet_url.rstrip("/") + "/api/reports"
        self.token = token
        self.base_url = base_url
        self.diagnostics_file = diagnostics_file
        self.version = version
        self.server_name = server_name
        self.log = log
        self.poll_seconds = poll_seconds
        self.heartbeat = DEFAULT_HEARTBEAT_SECONDS
        self.last_sent = None
        self.last_sent_at = 0.0
        self.failing = None  # the last send failure, logged once until it changes

    async def tick(self):
        answer = await observe_sidecar(self.diagnostics_file, self.base_url)
        now = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
        report = report_from_sidecar(answer, self.version, now, self.server_name)
        if same_state(report, self.last_sent) and time.monotonic() - self.last_sent_at < self.heartbeat:
            return False
        await self.send(report)
        return True

    async def send(self, report):
        from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

        request = HTTPRequest(
            self.reports_url,
            method="POST",
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
            body=json.dumps(report),
            request_timeout=20,
        )
        try:
            answer = await AsyncHTTPClient().fetch(request)
        except HTTPClientError as error:
            self._failed(f"HTTP {error.code}")
            return
        except Exception as error:
            self._failed(error.__class__.__name__)
            return
        self.last_sent = report
        self.last_sent_at = time.monotonic()
        try:
            heartbeat = json.loads(answer.body).get("heartbeatSeconds")
        except (ValueError, AttributeError):
            heartbeat = None
        if isinstance(heartbeat, int) and heartbeat >= 2:
            self.heartbeat = heartbeat
        if self.failing is not None:
            self.log.info("jupyterlab-project-startup: the fleet service at %s takes reports again", self.reports_url)
            self.failing = None

    def _failed(self, why):
        # Sent again at the next poll; said once per cause, not on every poll.
        if why != self.failing:
            self.log.warning(
                "jupyterlab-project-startup: the fleet service at %s did not take this server's report (%s); "
                "trying again every %d s",
                self.reports_url,
                why,
                self.poll_seconds,
            )
            self.failing = why


def start_reporter(serverapp, environ, diagnostics_file, version, fleet_url):
    """Starts the reporter when this server was spawned by a hub and a fleet address is set."""
    from tornado.ioloop import IOLoop, PeriodicCallback

    token = environ.get("JUPYTERHUB_API_TOKEN")
    if not fleet_url or not token:
        return None
    try:
        poll = max(1, int(environ.get(POLL_SECONDS_ENV, DEFAULT_POLL_SECONDS)))
    except ValueError:
        poll = DEFAULT_POLL_SECONDS
    reporter = FleetReporter(
        fleet_url=fleet_url,
        token=token,
        base_url=serverapp.base_url,
        diagnostics_file=diagnostics_file,
        version=version,
        server_name=environ.get("JUPYTERHUB_SERVER_NAME", ""),
        log=serverapp.log,
        poll_seconds=poll,
    )
    busy = False

    async def run():
        nonlocal busy
        if busy:
            return
        busy = True
        try:
            await reporter.tick()
        except Exception as error:  # never a reason for the server to fail
            serverapp.log.debug("jupyterlab-project-startup: fleet report failed: %s", error.__class__.__name__)
        finally:
            busy = False

    def start():
        # On the server's running loop: the extension loads before the loop starts.
        PeriodicCallback(run, poll * 1000, jitter=0.1).start()
        IOLoop.current().add_callback(run)

    (getattr(serverapp, "io_loop", None) or IOLoop.current()).add_callback(start)
    serverapp.log.info(
        "jupyterlab-project-startup: reporting this server's setup to the fleet service at %s (checked every %d s)",
        fleet_url,
        poll,
    )
    return reporter
