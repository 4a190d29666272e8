"""jupyterlab-project-startup for Jupyter.

Four things, as the wheel installs them:

- the prebuilt JupyterLab extension (share/jupyter/labextensions/jupyterlab-project-startup);
- ``setup_project_startup``, the ``jupyter_serverproxy_servers`` entry point ``project``: the
  Node sidecar (``node/`` in this package), started by jupyter-server-proxy on first use on a
  private Unix socket under ``{base_url}project/``;
- a Jupyter server extension that checks at start that jupyter-server-proxy (>= 4.1) and
  Node.js (>= 20) are there, and serves ``{base_url}api/project-startup/diagnostics``, from
  which the panel shows why the sidecar cannot start;
- the ``project-startup`` command (``command.py``), the bundled sidecar's command line.

Importing the package imports none of tornado, jupyter_server, jupyter_core, packaging or
importlib.metadata: the command and the notebook client run where those may be missing (a kernel
where the package was installed with --no-deps) and need none of them, so those imports wait for
the server extension, the proxy entry and ``__version__``.
"""

import atexit
import functools
import json
import os
import sys

from .checks import (
    DIAGNOSTICS_FILE_ENV,
    PROJECT_DIR_ENV,
    check_node,
    check_server_proxy,
    diagnostics_file_path,
    escape_template,
    node_error_message,
    remove_quietly,
    server_proxy_culling_caveat,
)

PACKAGE_NAME = "jupyterlab-project-startup"
PYTHON_ENV = "PROJECT_STARTUP_PYTHON"
HERE = os.path.dirname(os.path.abspath(__file__))
NODE_RUNTIME = os.path.join(HERE, "node")
# The wheel's staged copy (hatch_build.py); in a checkout on sys.path (the Python checks), the
# checkout's own bin/, which runs its npm-built bundle.
SIDECAR_BIN = next(
    (
        candidate
        for candidate in (
            os.path.join(NODE_RUNTIME, "bin", "project-startup.js"),
            os.path.join(os.path.dirname(HERE), "bin", "project-startup.js"),
        )
        if os.path.isfile(candidate)
    ),
    os.path.join(NODE_RUNTIME, "bin", "project-startup.js"),
)


@functools.cache
def _version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PACKAGE_NAME)
    except PackageNotFoundError:
        pass
    # Not installed (a checkout on sys.path): the version npm and the wheel take.
    for candidate in (os.path.join(NODE_RUNTIME, "package.json"), os.path.join(HERE, "..", "package.json")):
        try:
            with open(candidate, encoding="utf-8") as f:
                return json.load(f)["version"]
        except (OSError, ValueError, KeyError):
            continue
    return "0.0.0"


def __getattr__(name):
    # PEP 562: ``jupyterlab_project_startup.__version__`` (jupyter server extension list reads
    # it) is read on first use.
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": PACKAGE_NAME}]


def _jupyter_server_extension_points():
    return [{"module": "jupyterlab_project_startup"}]


def _runtime_dir():
    from jupyter_core.paths import jupyter_runtime_dir

    return jupyter_runtime_dir()


def _sidecar_command():
    # Called by jupyter-server-proxy at each launch, so a Node installed (or PROJECT_STARTUP_NODE
    # set) since the server started is found; the same check feeds the diagnostics route.
    from .launch_log import LAUNCH_FAILURES, NodeUnavailable

    node = check_node()
    if node["problem"] is not None:
        # Raised at each request while the cause lasts; logged once (launch_log.py).
        message = node_error_message(node["problem"])
        raise NodeUnavailable(message, first=LAUNCH_FAILURES.failed(message))
    LAUNCH_FAILURES.succeeded()
    return [
        escape_template(node["path"]),
        escape_template(SIDECAR_BIN),
        "serve",
        "--ingress",
        "notebook-server-proxy",
        "--unix-socket",
        "{unix_socket}",
        "--base-url",
        "{base_url}",
    ]


# The root directory of the Jupyter server this package's server extension loaded into
# (ServerApp.root_dir: --ServerApp.root_dir, --notebook-dir, Zero to JupyterHub's notebookDir).
_SERVER_ROOT_DIR = None
# The variables c.ProjectStartup.* sets (configurable.py), read when the server extension loads.
_CONFIGURED_VARIABLES = {}


def _jupyter_root_dir():
    """The Jupyter server's root directory: what its file browser shows, so the project the
    panel offers to initialize is the directory the person sees. Recorded when the server
    extension loads; without it (the extension disabled), the ServerApp singleton's, when there
    is one. None outside a Jupyter server."""
    if _SERVER_ROOT_DIR is not None:
        return _SERVER_ROOT_DIR
    try:
        from jupyter_server.serverapp import ServerApp
    except ImportError:
        return None
    if not ServerApp.initialized():
        return None
    root = getattr(ServerApp.instance(), "root_dir", None)
    return root if isinstance(root, str) and root else None


def announce_diagnostics_file(environ, runtime_dir):
    """Where this Jupyter server's sidecar reports its state, set in the server's own environment.

    jupyter-server-proxy launches a sidecar with the server's environment, so every route to one
    finds it there: this package's entry point and the ServerProxy.servers entry that
    `project-startup jupyter install` writes alike. The server extension's diagnostics route and
    fleet reporter read the same path."""
    path = diagnostics_file_path(runtime_dir)
    environ[DIAGNOSTICS_FILE_ENV] = path
    return path


def sidecar_environment(environ, root_dir, configured=None):
    """The variables the sidecar is launched with, besides the Jupyter server's own.

    The project is Jupyter's root directory, not the server's working directory (which a hub or
    ``--ServerApp.root_dir`` leaves elsewhere), unless the operator named one: a
    PROJECT_STARTUP_PROJECT_DIR in the server's environment is inherited as it is. The sidecar
    has the same rule for the npm route's entry, which passes no directory:
    ``jupyterRootProject`` in ``sidecar/src/config/project-dir.ts`` reads the root directory from the
    server's ``jpserver-<pid>.json``; a change to one is a change to both. `configured`: the
    variables Jupyter's configuration sets (c.ProjectStartup.*, configurable.py)."""
    env = {name: escape_template(value) for name, value in (configured or {}).items()}
    if not environ.get(PYTHON_ENV):
        # The Python that runs Jupyter: its <sys.prefix>/etc/jupyter is a directory Jupyter reads
        # configuration from, and so is the site file's (siteConfigCandidates in the sidecar).
        env[PYTHON_ENV] = escape_template(sys.executable)
    if root_dir is not None and not environ.get(PROJECT_DIR_ENV):
        env[PROJECT_DIR_ENV] = escape_template(root_dir)
    return env


def _sidecar_environment():
    # Called by jupyter-server-proxy at each launch (the launch is lazy): the server extension
    # has loaded by then and recorded the root directory.
    return sidecar_environment(os.environ, _jupyter_root_dir(), _CONFIGURED_VARIABLES)


def setup_project_startup():
    """The jupyter-server-proxy entry ``project`` (entry point group jupyter_serverproxy_servers)."""
    return {
        "command": _sidecar_command,
        "environment": _sidecar_environment,
        "unix_socket": True,
        "absolute_url": True,
        "timeout": 20,
        "new_browser_tab": False,
        # The JupyterLab extension has its own launcher item and palette command.
        "launcher_entry": {"enabled": False},
        # The panel and the status bar poll the service while a page is open; that is not the
        # person's work, so it must not keep the server "active" for JupyterHub's idle culler
        # (jupyter-server-proxy records every proxied request as activity unless told not to).
        "update_last_activity": False,
    }


def _load_jupyter_server_extension(serverapp):
    # Here, not at the top: the notebook client imports this package in kernels without Jupyter.
    from jupyter_server.utils import url_path_join

    from .configurable import JUPYTER_SETTINGS_ENV, ProjectStartup, configured_variables, jupyter_settings_value
    from .handlers import DIAGNOSTICS_ROUTE, ROUTES
    from .launch_log import quiet_repeated_launch_failures

    global _SERVER_ROOT_DIR, _CONFIGURED_VARIABLES
    log = serverapp.log
    project_startup = ProjectStartup(parent=serverapp)
    _CONFIGURED_VARIABLES = configured_variables(project_startup, os.environ)
    # Passed on to this server's terminals too (configurable.py, JUPYTER_SETTINGS_ENV).
    settings = jupyter_settings_value(_CONFIGURED_VARIABLES)
    if settings is not None:
        os.environ[JUPYTER_SETTINGS_ENV] = settings
    else:
        os.environ.pop(JUPYTER_SETTINGS_ENV, None)
    base_url = serverapp.base_url
    root_dir = getattr(serverapp, "root_dir", None)
    _SERVER_ROOT_DIR = root_dir if isinstance(root_dir, str) and root_dir else None
    diagnostics_file = announce_diagnostics_file(os.environ, _runtime_dir())
    # A report left by an earlier server with the same pid is not about this one.
    remove_quietly(diagnostics_file)

    server_proxy = check_server_proxy(getattr(serverapp, "jpserver_extensions", None))
    node = check_node()
    for problem in (server_proxy["problem"], node["problem"]):
        if problem is not None:
            log.warning(
                "jupyterlab-project-startup: %s. %s Fix: %s", problem["title"], problem["detail"], problem["fix"]
            )
    if server_proxy["problem"] is None:
        # Once, at start: the operator who reads the log is the one who can upgrade it.
        caveat = server_proxy_culling_caveat(server_proxy["version"])
        if caveat is not None:
            log.warning("jupyterlab-project-startup: %s", caveat)
    diagnostics_url = url_path_join(base_url, DIAGNOSTICS_ROUTE)
    if server_proxy["problem"] is None and node["problem"] is None:
        log.info(
            "jupyterlab-project-startup %s: jupyter-server-proxy %s, Node.js %s (%s); the service is at %s, "
            "its diagnostics at %s",
            _version(),
            server_proxy["version"],
            node["version"],
            node["path"],
            url_path_join(base_url, "project/"),
            diagnostics_url,
        )
    else:
        log.warning(
            "jupyterlab-project-startup %s: the Project Startup service cannot start until this is fixed; "
            "the panel shows the same from %s",
            _version(),
            diagnostics_url,
        )

    serverapp.web_app.settings["project_startup"] = {
        "version": _version(),
        "diagnostics_file": diagnostics_file,
        "jpserver_extensions": dict(getattr(serverapp, "jpserver_extensions", {}) or {}),
    }
    serverapp.web_app.add_handlers(".*$", [(url_path_join(base_url, route), handler) for route, handler in ROUTES])
    quiet_repeated_launch_failures(serverapp.web_app, log=log)
    atexit.register(remove_quietly, diagnostics_file)

    from .fleet.reporter import FLEET_URL_ENV, start_reporter

    start_reporter(
        serverapp, os.environ, diagnostics_file, _version(), os.environ.get(FLEET_URL_ENV) or project_startup.fleet_url
    )
