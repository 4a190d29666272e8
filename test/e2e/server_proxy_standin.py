"""STAND-IN for jupyter-server-proxy 4.x, for the e2e tests only.

jupyter-server-proxy cannot be installed on the test machines (no PyPI, no Debian package), so
this jupyter_server extension reproduces the behaviour of its 4.1.2 and 4.4.0 releases that was
measured on jupyter_server 1.23.3 (../../shared/spec/jupyter-environment.md) and that the
project's notebook-server-proxy ingress depends on. It is NOT jupyter-server-proxy: it says so in
every log line ("server-proxy STAND-IN"). Written from that description and from reading the
real project's handlers; no code of it is copied.

Reproduced:
- Configuration: ``ServerProxy.servers`` (a traitlets ``Dict`` on a ``Configurable`` named
  ServerProxy) from the Jupyter config, e.g. ``jupyter_server_config.json`` in
  ``JUPYTER_CONFIG_DIR``. Per entry: ``command`` (list; ``{port}``, ``{unix_socket}`` and
  ``{base_url}`` templates, as ``str.format``), ``environment`` (same templates), ``timeout``
  (seconds, default 5), ``absolute_url`` (default false), ``port`` (default: a free one),
  ``unix_socket`` (true: a socket in a private 0700 temporary directory; a string: that path),
  ``launcher_entry`` (accepted, ignored: there is no launcher on the server side).
- Routing: ``{base_url}<name>/<path>``. With ``absolute_url`` the backend gets the full path,
  else the path after ``<name>`` and ``X-Forwarded-Prefix`` / ``X-Forwarded-Context`` /
  ``X-ProxyContextPath``. The query goes on unchanged (``?token=`` included).
  ``{base_url}<name>`` without a slash redirects (after authentication) to ``<name>/``.
- Authentication: Jupyter's own, on every request, before anything else: GET/HEAD without
  credentials get 302 to the login page, other methods 403, a websocket upgrade 403. No XSRF
  check (deferred to the backend, as the real proxy does): a cookie-authenticated cross-origin
  POST reaches the backend.
- Forwarding: every request header except hop-by-hop ones (Authorization, Cookie and Host
  included); the body (buffered: tornado reads it whole); the response's status, reason,
  headers (minus Content-Length, Transfer-Encoding, Connection; Jupyter's own default headers
  are dropped) and body. GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS (tornado's methods, as
  in the real proxy; others get tornado's 405).
- Lifecycle: the backend starts on the first request for its name; readiness is ``GET /`` on
  the backend, polled until any HTTP status answers, within ``timeout`` (else the process is
  killed and the request gets 500). A backend that exits non-zero is restarted at once, without
  back-off; one that exits 0 is never restarted and every later request gets 500. The backend
  inherits the server's environment and working directory. Shutting the server down
  (SIGTERM, SIGINT, normal exit) terminates the backends.

Not reproduced: websockets (the measured proxy cannot carry them over a Unix socket with
Debian's tornado 6.2 either; here a websocket upgrade that passed authentication gets 500 on
TCP too), ``mappath``, ``request_headers_override``, ``rewrite_response``, ``new_browser_tab``,
callables in the configuration, the ``{base_url}proxy/<port>/`` arbitrary-port routes, the
``{base_url}server-proxy/api`` listing, activity tracking, streaming of large bodies.
"""

import asyncio
import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from urllib.parse import quote, urlparse, urlunparse

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import httpclient, httputil, netutil, web
from tornado.simple_httpclient import SimpleAsyncHTTPClient
from traitlets import Dict
from traitlets.config import Configurable

TAG = "[server-proxy STAND-IN]"
HOP_BY_HOP = (
    "Proxy-Connection",
    "Keep-Alive",
    "Transfer-Encoding",
    "TE",
    "Connection",
    "Trailer",
    "Upgrade",
    "Proxy-Authorization",
    "Proxy-Authenticate",
)
DROPPED_RESPONSE_HEADERS = ("Content-Length", "Transfer-Encoding", "Connection")
KNOWN_FIELDS = {"command", "environment", "timeout", "absolute_url", "port", "unix_socket", "launcher_entry"}
# Path characters sent on as they are (RFC 3986 reserved and unreserved), as the real proxy does.
SAFE_PATH = ":/?#[]@!$&'()*+,;=-._~"


def _jupyter_server_extension_points():
    return [{"module": "server_proxy_standin"}]


class ServerProxy(Configurable):
    """Same name and trait as jupyter-server-proxy's, so the same configuration applies."""

    servers = Dict(
        {},
        help="Backends to launch and proxy, by name: {name: {command, environment, timeout, "
        "absolute_url, port, unix_socket, launcher_entry}} (stand-in for jupyter-server-proxy).",
    ).tag(config=True)


class _UnixSocketResolver(netutil.Resolver):
    """Resolves every host to one Unix socket, so tornado's HTTP client can talk over it."""

    def initialize(self, socket_path):  # tornado's Configurable calls this
        self.socket_path = socket_path

    async def resolve(self, host, port, family=socket.AF_UNSPEC):
        return [(socket.AF_UNIX, self.socket_path)]

    def close(self):
        pass


class Backend:
    """One configured server: its process, how to reach it, and its supervision."""

    def __init__(self, name, entry, base_url, log):
        unknown = sorted(set(entry) - KNOWN_FIELDS)
        if unknown:
            log.warning("%s %s: fields not reproduced by the stand-in, ignored: %s", TAG, name, ", ".join(unknown))
        command = entry.get("command", [])
        if not isinstance(command, list) or not all(isinstance(c, str) for c in command):
            raise ValueError(f"{TAG} ServerProxy.servers.{name}.command must be a list of strings")
        self.name = name
        self.log = log
        self.base_url = base_url
        self.command = command
        self.environment = dict(entry.get("environment", {}))
        self.timeout = float(entry.get("timeout", 5))
        self.absolute_url = bool(entry.get("absolute_url", False))
        self.requested_port = int(entry.get("port", 0))
        unix_socket = entry.get("unix_socket", False)
        self.socket_dir = None
        self.unix_socket = None
        if unix_socket is True:
            self.socket_dir = tempfile.mkdtemp(prefix="server-proxy-standin-")  # mode 0700
            self.unix_socket = os.path.join(self.socket_dir, name)
        elif isinstance(unix_socket, str) and unix_socket:
            self.unix_socket = unix_socket
        self._port = None
        self.proc = None
        self.lock = asyncio.Lock()
        self.stopping = False
        self.restarts = 0
        self._client = None

    @property
    def port(self):
        if self.unix_socket:
            return 0
        if self._port is None:
            if self.requested_port:
                self._port = self.requested_port
            else:
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    self._port = s.getsockname()[1]
        return self._port

    @property
    def client(self):
        if self._client is None:
            resolver = _UnixSocketResolver(socket_path=self.unix_socket) if self.unix_socket else None
            self._client = SimpleAsyncHTTPClient(force_instance=True, resolver=resolver)
        return self._client

    def backend_url(self, path_and_query):
        host = "unix-socket" if self.unix_socket else f"127.0.0.1:{self.port}"
        return f"http://{host}{path_and_query}"

    def _render(self, value):
        return value.format(port=self.port, unix_socket=self.unix_socket or "", base_url=self.base_url)

    # -- process lifecycle -------------------------------------------------------------------

    async def ensure_running(self):
        """Starts the backend on first use and waits for it to answer; 500 if it cannot."""
        async with self.lock:
            if self.proc is not None or not self.command:
                return
            await self._spawn()
            if not await self._wait_ready():
                self.log.error("%s %s did not answer GET / within %s s; killing it", TAG, self.name, self.timeout)
                proc, self.proc = self.proc, None
                await _terminate(proc, kill_after=1.0)
                raise web.HTTPError(500, f"could not start {self.name} in time")

    async def _spawn(self):
        cmd = [self._render(c) for c in self.command]
        env = os.environ.copy()
        env.update({k: self._render(str(v)) for k, v in self.environment.items()})
        proc = await asyncio.create_subprocess_exec(*cmd, env=env, stdin=subprocess.DEVNULL)
        self.proc = proc
        self.log.info("%s started %s (pid %s)", TAG, self.name, proc.pid)
        asyncio.ensure_future(self._supervise(proc))

    async def _supervise(self, proc):
        code = await proc.wait()
        if self.stopping or self.proc is not proc:
            return
        if code != 0:
            # As the real proxy: restarted at once, no back-off.
            self.restarts += 1
            self.log.warning("%s %s exited with %s; restarting it at once", TAG, self.name, code)
            await self._spawn()
        else:
            # As the real proxy: never restarted; later requests fail with 500.
            self.log.warning("%s %s exited with 0; it will not be restarted", TAG, self.name)

    async def _wait_ready(self):
        deadline = time.monotonic() + self.timeout
        delay = 0.01
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                await self.client.fetch(
                    httpclient.HTTPRequest(
                        self.backend_url("/"),
                        method="GET",
                        follow_redirects=False,
                        connect_timeout=min(remaining, 1.0),
                        request_timeout=min(remaining, 2.0),
                    ),
                    raise_error=False,
                )
                return True  # any HTTP status counts
            except httpclient.HTTPClientError as error:
                if error.code != 599:
                    return True
            except (OSError, asyncio.TimeoutError):
                pass
            await asyncio.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 0.25)

    def stop_now(self):
        """Synchronous: for atexit and signal handlers."""
        self.stopping = True
        proc = self.proc
        if proc is not None and proc.returncode is None:
            try:
                os.kill(proc.pid, signal.SIGTERM)
                for _ in range(50):
                    pid, _status = os.waitpid(proc.pid, os.WNOHANG)
                    if pid:
                        break
                    time.sleep(0.1)
                else:
                    os.kill(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, ChildProcessError):
                pass
        if self.socket_dir:
            shutil.rmtree(self.socket_dir, ignore_errors=True)


async def _terminate(proc, kill_after):
    if proc is None or proc.returncode is not None:
        return
    try:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), kill_after)
    except asyncio.TimeoutError:
        proc.kill()
    except ProcessLookupError:
        pass


class AddSlashHandler(JupyterHandler):
    """``{base_url}<name>`` -> ``{base_url}<name>/`` (after authentication)."""

    @web.authenticated
    def get(self, *args):
        src = urlparse(self.request.uri)
        self.redirect(urlunparse(src._replace(path=src.path + "/")))


class StandInProxyHandler(JupyterHandler):
    """Authenticates with Jupyter, then hands the request to the backend and its answer back."""

    def initialize(self, backend):
        self.backend = backend

    def check_xsrf_cookie(self):
        # As jupyter-server-proxy: XSRF protection is left to the proxied application.
        return

    async def get(self, path):
        if self.request.headers.get("Upgrade", "").lower() == "websocket":
            if not self.current_user:
                raise web.HTTPError(403)
            self.log.warning("%s websockets are not reproduced by the stand-in", TAG)
            raise web.HTTPError(500, "websockets are not supported by the server-proxy stand-in")
        await self._forward(path)

    async def head(self, path):
        await self._forward(path)

    async def post(self, path):
        await self._forward(path)

    async def put(self, path):
        await self._forward(path)

    async def patch(self, path):
        await self._forward(path)

    async def delete(self, path):
        await self._forward(path)

    async def options(self, path):
        await self._forward(path)

    async def _forward(self, path):
        pending = self.proxy(path)  # None when authentication already answered (302/403)
        if pending is not None:
            await pending

    @web.authenticated
    def proxy(self, path):
        return self._proxy(path)

    async def _proxy(self, path):
        backend = self.backend
        if not path.startswith("/"):
            path = "/" + path
        if backend.absolute_url:
            backend_path = url_path_join(self.base_url, backend.name) + path
        else:
            backend_path = path
        backend_path = quote(backend_path, safe=SAFE_PATH)
        if self.request.query:
            backend_path += "?" + self.request.query

        headers = self.request.headers.copy()
        for name in HOP_BY_HOP:
            if name in headers:
                del headers[name]
        if not backend.absolute_url:
            context = url_path_join(self.base_url, backend.name)
            headers["X-Forwarded-Context"] = context
            headers["X-ProxyContextPath"] = context
            headers["X-Forwarded-Prefix"] = context

        body = self.request.body or None
        if body is None and self.request.method in ("POST", "PUT", "PATCH"):
            body = b""

        await backend.ensure_running()
        request = httpclient.HTTPRequest(
            backend.backend_url(backend_path),
            method=self.request.method,
            headers=headers,
            body=body,
            follow_redirects=False,
            decompress_response=False,
            allow_nonstandard_methods=True,
            connect_timeout=250.0,
            request_timeout=300.0,
        )
        try:
            response = await backend.client.fetch(request, raise_error=False)
        except httpclient.HTTPClientError as error:
            if error.code == 599:
                self.set_status(599)
                self.write(str(error))
                return
            raise
        # Other failures (refused, no socket: a backend that is gone) end as 500 from tornado.

        self.set_status(response.code, response.reason)
        self._headers = httputil.HTTPHeaders()  # the backend's headers only, not Jupyter's defaults
        for name, value in response.headers.get_all():
            if name not in DROPPED_RESPONSE_HEADERS:
                self.add_header(name, value)
        if response.body:
            self.write(response.body)


_backends = []


def _stop_all():
    for backend in _backends:
        backend.stop_now()


def _chain_signal(signum):
    previous = signal.getsignal(signum)

    def handler(sig, frame):
        _stop_all()
        if callable(previous):
            previous(sig, frame)
        elif previous == signal.SIG_DFL:
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)

    signal.signal(signum, handler)


def _load_jupyter_server_extension(serverapp):
    log = serverapp.log
    config = ServerProxy(parent=serverapp)
    base_url = serverapp.web_app.settings["base_url"]
    handlers = []
    for name, entry in sorted(config.servers.items()):
        backend = Backend(name, dict(entry), base_url, log)
        _backends.append(backend)
        handlers.append((url_path_join(base_url, name, r"(.*)"), StandInProxyHandler, {"backend": backend}))
        handlers.append((url_path_join(base_url, name), AddSlashHandler))
        log.info(
            "%s (not jupyter-server-proxy) proxies %s to %s",
            TAG,
            url_path_join(base_url, name) + "/",
            backend.unix_socket or f"port {backend.port}",
        )
    if handlers:
        serverapp.web_app.add_handlers(".*$", handlers)
        atexit.register(_stop_all)
        # The server's own SIGTERM/SIGINT handling stops its loop; end the backends first.
        for signum in (signal.SIGTERM, signal.SIGINT):
            _chain_signal(signum)
    else:
        log.info("%s loaded; no ServerProxy.servers configured", TAG)


# jupyter_server 1.x also looks for the older name.
load_jupyter_server_extension = _load_jupyter_server_extension
