"""Project Startup from a notebook cell or a script, through the Jupyter server it runs under.

    from jupyterlab_project_startup import client
    client.startup()            # the projection the panel shows, for the notebook interface
    client.capabilities()       # what the platform offers
    client.initialize(confirm=True)

Every request goes to ``{base_url}project/...`` of the Jupyter server, with that server's own
token, so Jupyter authenticates it and jupyter-server-proxy passes it to the sidecar, exactly as
for the JupyterLab panel. The server is found the way a kernel can find it:

1. ``connect(url=..., token=...)``, or the variables ``PROJECT_STARTUP_JUPYTER_URL`` and
   ``PROJECT_STARTUP_JUPYTER_TOKEN`` (an explicit choice always wins);
2. on JupyterHub, the single-user server's environment: ``JUPYTERHUB_SERVICE_URL`` and
   ``JUPYTERHUB_API_TOKEN`` (the server's own token, which the single-user server accepts);
3. otherwise Jupyter's runtime files (``jpserver-<pid>.json``), but only of a server proven to be
   this user's (README, "How a client finds its Jupyter server"; the same rule as the command
   line's sidecar/src/cli/jupyter-discovery.ts): the server whose process started this kernel (its
   pid is the kernel's parent, which jupyter_client also passes as ``JPY_PARENT_PID``), or the
   only one whose root directory holds the current directory.

Requests never follow a redirect to another origin (the token would go with it) and never go
through an HTTP proxy from the environment: the token goes to the server named, and only there.

Standard library only. Failures raise ``ProjectStartupError`` carrying the problem details
(``code``, ``title``, ``detail``, ``fix``, ``status``).
"""

import html
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "Connection",
    "ProjectStartupError",
    "Result",
    "capabilities",
    "connect",
    "find_server",
    "initialize",
    "startup",
]

URL_ENV = "PROJECT_STARTUP_JUPYTER_URL"
TOKEN_ENV = "PROJECT_STARTUP_JUPYTER_TOKEN"
PROXY_PATH = "project/"
INSTALL_FIX = (
    "Ask the operator of this Jupyter server to install the package (`pip install "
    "jupyterlab-project-startup`, or `project-startup jupyter install --sys-prefix` with "
    "jupyter-server-proxy 4.1 or newer) and restart Jupyter."
)
TIMEOUT_S = 30


class ProjectStartupError(Exception):
    """A problem, as the service (or this client) reports it: RFC 9457 members plus ``fix``."""

    def __init__(self, code, title, detail, fix, status=None, problem=None):
        self.code = code
        self.title = title
        self.detail = detail
        self.fix = fix
        self.status = status
        self.problem = dict(problem) if problem else {}
        super().__init__(self._text())

    def _text(self):
        text = "{} ({}): {}".format(self.title, self.code, self.detail)
        if self.fix:
            text += " To fix: " + self.fix
        return text

    def _repr_html_(self):
        parts = [
            "<div><strong>{}</strong> <code>{}</code>".format(_e(self.title), _e(self.code)),
            "<p>{}</p>".format(_e(self.detail)),
        ]
        if self.fix:
            parts.append("<p><em>To fix:</em> {}</p>".format(_e(self.fix)))
        parts.append("</div>")
        return "".join(parts)


def _e(value):
    return html.escape("" if value is None else str(value), quote=True)


class Connection:
    """A Jupyter server: its base URL (ending in ``/``) and the token it accepts."""

    def __init__(self, url, token, source):
        try:
            parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
        except ValueError:  # such as an unclosed "[" of an IPv6 address
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ProjectStartupError(
                "jupyter-url-invalid",
                "Not a Jupyter server's address",
                "{} is not an http:// or https:// address (from {}).".format(repr(url)[:200], source),
                "Give the Jupyter server's base URL, such as client.connect(url=\"http://127.0.0.1:8888/\", token=...).",
            )
        if not url.endswith("/"):
            url += "/"
        self.url = url
        self.token = token
        #: How it was found, for a person (never the token).
        self.source = source

    def __repr__(self):
        return "Connection(url={!r}, source={!r})".format(self.url, self.source)

    @property
    def service_url(self):
        """The sidecar's prefix through jupyter-server-proxy."""
        return self.url + PROXY_PATH

    def request(self, method, path, body=None):
        """One request to ``{base_url}{path}``; returns the parsed JSON body of a 2xx answer."""
        url = urllib.parse.urljoin(self.url, path)
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = "token " + self.token
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with _OPENER.open(request, timeout=TIMEOUT_S) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            raise self._problem(error, url) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            reason = getattr(error, "reason", error)
            raise ProjectStartupError(
                "jupyter-unreachable",
                "The Jupyter server does not answer",
                "{} {} failed: {}.".format(method, url, reason),
                "Check that the Jupyter server ({}) is running; to use another one, call "
                "client.connect(url=..., token=...).".format(self.source),
            ) from None
        except ValueError:
            raise ProjectStartupError(
                "not-json",
                "The answer is not JSON",
                "{} {} did not answer with JSON.".format(method, url),
                "Check that {} is a Jupyter server's base URL.".format(self.url),
            ) from None

    def _problem(self, error, url):
        raw = b""
        try:
            raw = error.read()
        except OSError:
            pass
        problem = None
        content_type = error.headers.get("Content-Type", "") if error.headers else ""
        if "json" in content_type:
            try:
                problem = json.loads(raw.decode("utf-8"))
            except ValueError:
                problem = None
        if isinstance(problem, dict) and "code" in problem:
            # The sidecar's problem details: its own remedy, when it gives one.
            fix = problem.get("fix") or problem.get("remedy") or _fix_for(problem)
            return ProjectStartupError(
                problem.get("code"), problem.get("title", "Request refused"),
                problem.get("detail", ""), fix, error.code, problem,
            )
        if error.code == 404 and PROXY_PATH in urllib.parse.urlparse(url).path:
            return ProjectStartupError(
                "not-enabled",
                "Project Startup is not enabled on this Jupyter server",
                "The Jupyter server at {} answered 404 for {}: no Project Startup service is set up "
                "behind it.".format(self.url, url),
                INSTALL_FIX,
                404,
            )
        if error.code in (401, 403):
            return ProjectStartupError(
                "jupyter-refused",
                "The Jupyter server refused the request",
                "{} answered {} ({}); the token from {} is not accepted.".format(url, error.code, error.reason, self.source),
                "Pass the server's token: client.connect(url=..., token=...), or set {} and {}.".format(URL_ENV, TOKEN_ENV),
                error.code,
            )
        return ProjectStartupError(
            "http-{}".format(error.code),
            "The Jupyter server answered {}".format(error.code),
            "{} answered {} ({}).".format(url, error.code, error.reason),
            "The Project Startup panel in JupyterLab shows the service's diagnostics; the sidecar's "
            "log is in the Jupyter server's log.",
            error.code,
        )


def _origin(url):
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return (parts.scheme.lower(), (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(parts.scheme.lower()))


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """urllib copies every header, Authorization included, to wherever a redirect points. A
    redirect within the Jupyter server (same scheme, host and port) is followed; one to another
    origin is refused before anything is sent there."""

    max_redirections = 5

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        target = urllib.parse.urljoin(req.full_url, newurl)
        if _origin(target) != _origin(req.full_url):
            fp.close()
            raise ProjectStartupError(
                "jupyter-redirected",
                "The Jupyter server redirected to another address",
                "{} {} answered {} with a redirect to {}; the token was not sent there.".format(
                    req.get_method(), req.full_url, code, _origin_text(target)
                ),
                "Connect to the address that serves the Jupyter server itself: "
                "client.connect(url=..., token=...).",
                code,
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _origin_text(url):
    scheme, host, port = _origin(url)
    return "{}://{}:{}".format(scheme, host, port)


# No HTTP proxy from the environment: the token goes straight to the Jupyter server named.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _SameOriginRedirects)


def _fix_for(problem):
    """Where to go on when the service names no remedy of its own."""
    if problem.get("code") == "confirmation-not-allowed":
        return "Confirm where this platform asks for it: see the next action of client.startup()."
    return ""


_connection = None


def connect(url=None, token=None):
    """Use this Jupyter server from now on (``url`` is its base URL); without ``url``, find it
    again. Returns the connection."""
    global _connection
    if url is None:
        _connection = find_server()
    else:
        _connection = Connection(url, token if token is not None else "", "client.connect()")
    return _connection


def _connection_or_find():
    global _connection
    if _connection is None:
        _connection = find_server()
    return _connection


def find_server(environ=None):
    """The Jupyter server this code runs under (see the module's documentation)."""
    env = os.environ if environ is None else environ
    if env.get(URL_ENV):
        return Connection(env[URL_ENV], env.get(TOKEN_ENV, ""), "$" + URL_ENV)
    if env.get("JUPYTERHUB_API_TOKEN") and (env.get("JUPYTERHUB_SERVICE_URL") or env.get("JUPYTERHUB_SERVICE_PREFIX")):
        url = env.get("JUPYTERHUB_SERVICE_URL")
        if url:
            # A spawner bound to every address ("http://:8888/", "0.0.0.0"): connect to loopback.
            url = re.sub(r"^(https?://)(?::|0\.0\.0\.0:)", r"\g<1>127.0.0.1:", url)
            return Connection(url, env["JUPYTERHUB_API_TOKEN"], "$JUPYTERHUB_SERVICE_URL and $JUPYTERHUB_API_TOKEN")
        # Only the prefix: the running server's own address, from its runtime file.
        server = _own_server(_running_servers(env), env)
        if server is not None:
            return Connection(server["url"], env["JUPYTERHUB_API_TOKEN"], "Jupyter's runtime file and $JUPYTERHUB_API_TOKEN")
    refused = []
    servers = _running_servers(env, refused)
    server = _own_server(servers, env)
    if server is not None:
        return Connection(server["url"], server["token"], "the runtime file of the Jupyter server that started this kernel")
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    server = _server_holding(servers, cwd)
    if server is not None:
        return Connection(server["url"], server["token"], "the runtime file of the only Jupyter server serving {}".format(server["root_dir"]))
    if not servers:
        detail = "No running Jupyter server of yours was found in Jupyter's runtime files (jpserver-*.json in {}), and no JupyterHub environment is set.".format(_runtime_dir(env))
    else:
        detail = "{} Jupyter servers are running ({}); none of them started this process, and not exactly one serves {}.".format(
            len(servers), ", ".join(s["url"] for s in servers), cwd
        )
    if refused:
        detail += " Not used, so no token was sent there: {}.".format("; ".join(refused))
    raise ProjectStartupError(
        "jupyter-not-found",
        "No Jupyter server found",
        detail,
        "Run this in a notebook of the Jupyter server you mean, or name it: "
        "client.connect(url=\"http://127.0.0.1:8888/\", token=...), or set {} and {}.".format(URL_ENV, TOKEN_ENV),
    )


def _runtime_dir(env):
    """Jupyter's runtime directory, by jupyter_core's rules (as jupyterRuntimeDir in Node)."""
    if env.get("JUPYTER_RUNTIME_DIR"):
        return env["JUPYTER_RUNTIME_DIR"]
    data = env.get("JUPYTER_DATA_DIR")
    if not data:
        home = env.get("HOME") or os.path.expanduser("~")
        if sys.platform == "darwin":
            data = os.path.join(home, "Library", "Jupyter")
        elif sys.platform == "win32":
            data = os.path.join(env.get("APPDATA") or os.path.join(home, "AppData", "Roaming"), "jupyter")
        else:
            data = os.path.join(env.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share"), "jupyter")
    return os.path.join(data, "runtime")


_NOT_RUNNING = " is not running"
_START_SLACK_S = 2.0


def _jupyter_process_refusal(pid, port, file_written):
    """Why process ``pid`` is not proven to be this user's Jupyter server that wrote a runtime
    file last written at ``file_written`` (seconds) and listening on ``port``; None when it is.

    The one rule (README, "How a client finds its Jupyter server"; Node's twin is
    ``jupyterProcessRefusal`` in sidecar/src/cli/jupyter-discovery.ts):
    1. the pid's owner is this user (Linux: /proc/PID's owner; macOS: ``ps -o uid=``), since a
       plain "is it alive" (kill 0) takes another user's process (EPERM) for alive;
    2. the process started before the file was last written (Linux: /proc/PID/stat; macOS:
       ``ps -o etime=``, to the second): it is the server that wrote it, not a later process that
       got a dead server's pid. This holds for any launcher, which the command's name would not;
    3. the TCP listener on ``port`` belongs to the process, where the platform can tell (Linux:
       /proc/net/tcp{,6} and /proc/PID/fd; macOS: ``lsof`` when installed, else not checked).
    Windows can tell none of this: no runtime file is used there."""
    if sys.platform == "win32" or not hasattr(os, "getuid"):
        return "this platform cannot tell who owns a process"
    owner = _process_owner(pid)
    if owner is None:
        return "process {}{}".format(pid, _NOT_RUNNING)
    if owner != os.getuid():
        return "process {} belongs to another user (uid {})".format(pid, owner)
    started = _process_start(pid)
    if started is None:
        return "the start time of process {} cannot be read".format(pid)
    # A process start is known to 10 ms (/proc) or 1 s (ps), and a runtime directory on a network
    # file system takes its times from the file server's clock: 2 s of slack (as in Node).
    if started > file_written + _START_SLACK_S:
        return "process {} started after its runtime file was written: it is not the server that wrote it".format(pid)
    if _listener_belongs_to(pid, port) is False:
        return "process {} does not hold the listener on port {}".format(pid, port)
    return None


def _ps(field, pid):
    try:
        answer = subprocess.run(
            ["ps", "-o", field + "=", "-p", str(pid)],
            capture_output=True, timeout=2, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return answer.stdout.decode("ascii", "replace").strip() if answer.returncode == 0 else None


def _process_owner(pid):
    if sys.platform.startswith("linux"):
        try:
            return os.stat("/proc/{}".format(pid)).st_uid
        except OSError:
            return None
    out = _ps("uid", pid)
    return int(out) if out and out.isdigit() else None


def _process_start(pid):
    """When the process started, in seconds since the epoch; None when it cannot be told."""
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/{}/stat".format(pid), "rb") as f:
                stat = f.read().decode("ascii", "replace")
            with open("/proc/uptime", "rb") as f:
                uptime = float(f.read().split()[0])
            # Field 22, counted after the parenthesised command name (which may hold spaces).
            ticks = int(stat[stat.rindex(")") + 2:].split(" ")[19])
            return time.time() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))
        except (OSError, ValueError, IndexError):
            return None
    match = re.match(r"^(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)$", _ps("etime", pid) or "")
    if not match:
        return None
    days, hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return time.time() - (((days * 24 + hours) * 60 + minutes) * 60 + seconds)


def _listening_inodes(port):
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, "rb") as f:
                lines = f.read().decode("ascii", "replace").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            # local_address is HEXADDR:HEXPORT; st 0A is LISTEN; field 9 is the inode.
            try:
                if len(fields) > 9 and fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                    inodes.add(fields[9])
            except (ValueError, IndexError):
                continue
    return inodes


def _listener_belongs_to(pid, port):
    """True, False, or None where the platform cannot tell."""
    if sys.platform.startswith("linux"):
        inodes = _listening_inodes(port)
        fd_dir = "/proc/{}/fd".format(pid)
        try:
            fds = os.listdir(fd_dir)[:4096]
        except OSError:
            return False
        for fd in fds:
            try:
                link = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue  # closed meanwhile
            if link.startswith("socket:[") and link[8:-1] in inodes:
                return True
        return False
    lsof = shutil.which("lsof")
    if lsof is None:
        return None
    try:
        answer = subprocess.run(
            [lsof, "-nP", "-a", "-p", str(pid), "-iTCP:{}".format(port), "-sTCP:LISTEN", "-t"],
            capture_output=True, timeout=5, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return str(pid) in answer.stdout.decode("ascii", "replace").split()


def _running_servers(env=None, refused=None):
    """The runtime files of this user's running Jupyter servers, each proven by
    ``_jupyter_process_refusal``; a file that is unreadable, truncated, not JSON or not this
    user's own is passed over, never raised. Why a live process was refused goes to ``refused``."""
    env = os.environ if env is None else env
    refused = [] if refused is None else refused
    runtime_dir = _runtime_dir(env)
    try:
        names = sorted(n for n in os.listdir(runtime_dir) if re.match(r"^jpserver-\d+\.json$", n))[:64]
    except OSError:
        return []
    servers = []
    for name in names:
        path = os.path.join(runtime_dir, name)
        try:
            stat = os.stat(path)
            # Only what this user wrote and nobody else can change: its token goes to its address.
            if (hasattr(os, "getuid") and stat.st_uid != os.getuid()) or stat.st_mode & 0o022 or stat.st_size > 64 * 1024:
                continue
            with open(path, "rb") as f:
                info = json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(info, dict):
            continue
        url, pid = info.get("url"), info.get("pid")
        # A server on a Unix socket has no http:// address urllib can use.
        if not isinstance(url, str) or not re.match(r"^https?://", url) or info.get("sock"):
            continue
        if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
            continue
        url = re.sub(r"^(https?://)(?::|0\.0\.0\.0:)", r"\g<1>127.0.0.1:", url)
        try:
            port = urllib.parse.urlsplit(url).port or (443 if url.startswith("https") else 80)
        except ValueError:
            continue
        refusal = _jupyter_process_refusal(pid, port, stat.st_mtime)
        if refusal is not None:
            if not refusal.endswith(_NOT_RUNNING):
                refused.append("{}: {}".format(path, refusal))
            continue
        token = info.get("token")
        root = info.get("root_dir", info.get("notebook_dir"))
        servers.append({"url": url, "token": token if isinstance(token, str) else "", "pid": pid,
                        "root_dir": root if isinstance(root, str) else None, "file": path})
    return servers


def _own_server(servers, env=None):
    """The server whose process started this one: jupyter_client starts kernels as its children
    (and names it in JPY_PARENT_PID). A server's pid is unique on the machine, so two servers
    sharing a runtime directory are told apart."""
    env = os.environ if env is None else env
    parents = {os.getppid()}
    try:
        parents.add(int(env.get("JPY_PARENT_PID", "")))
    except ValueError:
        pass
    for info in servers:
        if info.get("pid") in parents:
            return info
    return None


def _server_holding(servers, directory):
    """The only server whose root directory holds ``directory`` (none when two do)."""
    holding = [
        s for s in servers
        if s["root_dir"] and (directory == s["root_dir"] or directory.startswith(s["root_dir"].rstrip(os.sep) + os.sep))
    ]
    return holding[0] if len(holding) == 1 else None


class Result(dict):
    """A JSON answer of the service (a plain dict), shown readably in a notebook."""

    def _repr_html_(self):
        return _html(self)


def _html(data):
    if "record" in data:
        action = data.get("nextAction") or {}
        return "<div><p><strong>{}</strong>; phase {}.</p><p><strong>Next:</strong> {}. {}</p></div>".format(
            _e("Initialized" if data.get("created") else "Already initialized, nothing changed"),
            _e(data.get("phase")), _e(action.get("title")), _e(action.get("detail")),
        )
    if "readinessChecks" in data or "nextAction" in data:
        return _projection_html(data)
    if "capabilities" in data:
        return _capabilities_html(data)
    return "<pre>{}</pre>".format(_e(json.dumps(data, indent=2)))


def _projection_html(p):
    action = p.get("nextAction") or {}
    out = [
        "<div>",
        "<h4>Project Startup: {}</h4>".format(_e(p.get("phase"))),
        "<p>Project <code>{}</code>, state <code>{}</code>, platform <code>{}</code>, interface <code>{}</code></p>".format(
            _e(p.get("projectPath")), _e(p.get("statePath")), _e(p.get("platform")), _e(p.get("interface"))
        ),
        "<p><strong>Next:</strong> {}. {}</p>".format(_e(action.get("title")), _e(action.get("detail"))),
    ]
    if action.get("command"):
        out.append("<p>Command: <code>{}</code></p>".format(_e(action["command"])))
    checks = p.get("readinessChecks") or []
    if checks:
        out.append("<table><thead><tr><th>Check</th><th>Status</th><th>Observed</th><th>Remedy</th></tr></thead><tbody>")
        for check in checks:
            out.append(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                    _e(check.get("title")), _e(check.get("status")), _e(check.get("observed")), _e(check.get("remedy", ""))
                )
            )
        out.append("</tbody></table>")
    out.append("</div>")
    return "".join(out)


def _capabilities_html(c):
    platform = c.get("platform") or {}
    out = ["<div><h4>Platform: {}</h4><table><tbody>".format(_e(platform.get("label") or platform.get("id")))]
    for row in c.get("capabilities") or []:
        values = ", ".join(str(v.get("label") or v.get("id")) for v in row.get("values") or [] if isinstance(v, dict))
        out.append("<tr><th>{}</th><td>{}</td></tr>".format(_e(row.get("label") or row.get("id")), _e(values)))
    out.append("</tbody></table></div>")
    return "".join(out)


def capabilities():
    """What the platform offers (``GET {base_url}project/capabilities``)."""
    return Result(_connection_or_find().request("GET", PROXY_PATH + "capabilities"))


def startup(interface="notebook"):
    """The startup projection for ``interface`` (``GET {base_url}project/startup``): the same
    answer the JupyterLab panel shows."""
    query = urllib.parse.urlencode({"interface": interface})
    return Result(_connection_or_find().request("GET", PROXY_PATH + "startup?" + query))


def initialize(confirm):
    """Creates the project's private state, as the panel's "Initialize project" does.

    ``confirm`` is your explicit confirmation: ``True`` after reading what ``startup()`` shows
    (the paths it names are then confirmed), or the ``{"projectPath": ..., "statePath": ...}``
    you read. The service applies the same rules as to any API call: where this platform takes
    the confirmation only elsewhere (for example a terminal prompt), this raises the problem,
    saying where to confirm.
    """
    if confirm is not True and not isinstance(confirm, dict):
        raise ProjectStartupError(
            "confirmation-missing",
            "Initialization needs your confirmation",
            "initialize() creates the project's private state only when you confirm it.",
            "Read client.startup() (the project and state paths it names), then call "
            "client.initialize(confirm=True).",
        )
    connection = _connection_or_find()
    projection = startup("notebook")
    action = projection.get("nextAction") or {}
    request = action.get("request")
    if isinstance(confirm, dict):
        body = {"interface": "notebook", "confirm": {"projectPath": confirm.get("projectPath"), "statePath": confirm.get("statePath")}}
        path = request["path"] if request else None
    elif request:
        body, path = request["body"], request["path"]
    elif projection.get("phase") == "ready":
        # Already initialized: the same confirmation again answers 200 with the record.
        body = {"interface": "notebook", "confirm": {"projectPath": projection.get("projectPath"), "statePath": projection.get("statePath")}}
        path = None
    else:
        raise _cannot_confirm_here(projection, action)
    if path is None:
        path = PROXY_PATH + "initialize"
    else:
        # The service gives an absolute path ({base_url}project/initialize) on this server.
        path = urllib.parse.urljoin(connection.url, path)
    return Result(connection.request("POST", path, body))


def _cannot_confirm_here(projection, action):
    """Why this notebook cannot confirm now, and where to go on: from the projection's next action."""
    phase = projection.get("phase")
    if action.get("id") == "confirm-initialization":
        code, title = "confirmation-not-allowed", "This notebook cannot confirm on this platform"
    elif phase == "unsupported-interface":
        code, title = "interface-not-offered", "This platform does not offer the notebook interface"
    else:
        code, title = "not-ready", "Not ready to initialize (phase {})".format(phase)
    detail = "{}. {}".format(action.get("title", ""), action.get("detail", "")).strip()
    ways = [
        "{}: {}".format(way.get("label"), way.get("how"))
        for way in action.get("interfaces") or []
        if isinstance(way, dict) and way.get("id") != "notebook"
    ]
    if ways:
        fix = " ".join(ways)
    elif action.get("command"):
        fix = "Run `{}`.".format(action["command"])
    else:
        fix = "Follow the next action: {}.".format(action.get("title", "see client.startup()"))
    if action.get("url"):
        fix += " Open {}".format(action["url"])
    return ProjectStartupError(code, title, detail, fix, None, {"nextAction": action, "phase": phase})
