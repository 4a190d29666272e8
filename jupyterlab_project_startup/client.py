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
   only one whose root directory holds this project: the nearest initialized project at or above
   the current directory, as the command line finds it (project_search.py), else the current
   directory.

Requests never follow a redirect to another origin (the token would go with it) and never go
through an HTTP proxy from the environment: the token goes to the server named, and only there.

Standard library only. Failures raise ``ProjectStartupError`` carrying the problem details
(``code``, ``title``, ``detail``, ``fix``, ``status``).
"""

import http.client
import json
import os
import re
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

from .discovery import _own_server, _running_servers, _runtime_dir, _server_holding
from .display import Result, _e
from .project_search import working_project

URL_ENV = "PROJECT_STARTUP_JUPYTER_URL"
TOKEN_ENV = "PROJECT_STARTUP_JUPYTER_TOKEN"  # noqa: S105 - a variable's name, not a token
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
        text = f"{self.title} ({self.code}): {self.detail}"
        if self.fix:
            text += " To fix: " + self.fix
        return text

    def _repr_html_(self):
        parts = [
            f"<div><strong>{_e(self.title)}</strong> <code>{_e(self.code)}</code>",
            f"<p>{_e(self.detail)}</p>",
        ]
        if self.fix:
            parts.append(f"<p><em>To fix:</em> {_e(self.fix)}</p>")
        parts.append("</div>")
        return "".join(parts)


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
                f"{repr(url)[:200]} is not an http:// or https:// address (from {source}).",
                'Give the Jupyter server\'s base URL, such as client.connect(url="http://127.0.0.1:8888/", token=...).',
            )
        if not url.endswith("/"):
            url += "/"
        self.url = url
        self.token = token
        #: How it was found, for a person (never the token).
        self.source = source

    def __repr__(self):
        return f"Connection(url={self.url!r}, source={self.source!r})"

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
        # Only http:// and https:// (Connection refuses any other scheme).
        request = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310
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
                f"{method} {url} failed: {reason}.",
                f"Check that the Jupyter server ({self.source}) is running; to use another one, call "
                "client.connect(url=..., token=...).",
            ) from None
        except ValueError:
            raise ProjectStartupError(
                "not-json",
                "The answer is not JSON",
                f"{method} {url} did not answer with JSON.",
                f"Check that {self.url} is a Jupyter server's base URL.",
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
                problem.get("code"),
                problem.get("title", "Request refused"),
                problem.get("detail", ""),
                fix,
                error.code,
                problem,
            )
        if error.code == 404 and PROXY_PATH in urllib.parse.urlparse(url).path:
            return ProjectStartupError(
                "not-enabled",
                "Project Startup is not enabled on this Jupyter server",
                f"The Jupyter server at {self.url} answered 404 for {url}: no Project Startup service is set up "
                "behind it.",
                INSTALL_FIX,
                404,
            )
        if error.code in (401, 403):
            return ProjectStartupError(
                "jupyter-refused",
                "The Jupyter server refused the request",
                f"{url} answered {error.code} ({error.reason}); the token from {self.source} is not accepted.",
                f"Pass the server's token: client.connect(url=..., token=...), or set {URL_ENV} and {TOKEN_ENV}.",
                error.code,
            )
        return ProjectStartupError(
            f"http-{error.code}",
            f"The Jupyter server answered {error.code}",
            f"{url} answered {error.code} ({error.reason}).",
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
    return (
        parts.scheme.lower(),
        (parts.hostname or "").lower(),
        port or {"http": 80, "https": 443}.get(parts.scheme.lower()),
    )


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
                f"{req.get_method()} {req.full_url} answered {code} with a redirect to "
                f"{_origin_text(target)}; the token was not sent there.",
                "Connect to the address that serves the Jupyter server itself: client.connect(url=..., token=...).",
                code,
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _origin_text(url):
    scheme, host, port = _origin(url)
    return f"{scheme}://{host}:{port}"


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
            return Connection(
                server["url"], env["JUPYTERHUB_API_TOKEN"], "Jupyter's runtime file and $JUPYTERHUB_API_TOKEN"
            )
    refused = []
    servers = _running_servers(env, refused)
    server = _own_server(servers, env)
    if server is not None:
        return Connection(
            server["url"], server["token"], "the runtime file of the Jupyter server that started this kernel"
        )
    # The project this notebook is in (from a subdirectory too), found as the command line finds
    # it; the server is the one whose root directory holds it.
    project = working_project(env) or ""
    server = _server_holding(servers, project)
    if server is not None:
        return Connection(
            server["url"],
            server["token"],
            "the runtime file of the only Jupyter server serving {}".format(server["root_dir"]),
        )
    if not servers:
        detail = (
            "No running Jupyter server of yours was found in Jupyter's runtime files "
            f"(jpserver-*.json in {_runtime_dir(env)}), and no JupyterHub environment is set."
        )
    else:
        urls = ", ".join(s["url"] for s in servers)
        detail = (
            f"{len(servers)} Jupyter servers are running ({urls}); none of them started this process, "
            f"and not exactly one serves {project or 'the working directory'}."
        )
    if refused:
        detail += " Not used, so no token was sent there: {}.".format("; ".join(refused))
    raise ProjectStartupError(
        "jupyter-not-found",
        "No Jupyter server found",
        detail,
        "Run this in a notebook of the Jupyter server you mean, or name it: "
        f'client.connect(url="http://127.0.0.1:8888/", token=...), or set {URL_ENV} and {TOKEN_ENV}.',
    )


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
            "Read client.startup() (the project and state paths it names), then call client.initialize(confirm=True).",
        )
    connection = _connection_or_find()
    projection = startup("notebook")
    action = projection.get("nextAction") or {}
    request = action.get("request")
    if isinstance(confirm, dict):
        body = {
            "interface": "notebook",
            "confirm": {"projectPath": confirm.get("projectPath"), "statePath": confirm.get("statePath")},
        }
        path = request["path"] if request else None
    elif request:
        body, path = request["body"], request["path"]
    elif projection.get("phase") == "ready":
        # Already initialized: the same confirmation again answers 200 with the record.
        body = {
            "interface": "notebook",
            "confirm": {"projectPath": projection.get("projectPath"), "statePath": projection.get("statePath")},
        }
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
    unsafe = next(
        (
            check
            for check in projection.get("readinessChecks") or []
            if isinstance(check, dict) and check.get("id") == "state-path" and check.get("status") == "fail"
        ),
        None,
    )
    if unsafe is not None:
        # The state's own problem, as POST initialize and `project-startup init` answer it.
        return ProjectStartupError(
            "state-unsafe",
            "The project state path is unsafe",
            unsafe.get("observed", ""),
            unsafe.get("remedy") or "Follow the next action: {}.".format(action.get("title", "see client.startup()")),
            None,
            {"nextAction": action, "phase": phase, "remedy": unsafe.get("remedy")},
        )
    if action.get("id") == "confirm-initialization":
        code, title = "confirmation-not-allowed", "This notebook cannot confirm on this platform"
    elif phase == "unsupported-interface":
        code, title = "interface-not-offered", "This platform does not offer the notebook interface"
    else:
        code, title = "not-ready", f"Not ready to initialize (phase {phase})"
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
