#!/usr/bin/python3
"""A real JupyterLab 4 server side for the browser (e2e) tests, from Debian's packages.

Runs Debian's ``jupyterlab_server.LabServerApp`` (on jupyter_server 1.23) serving the host app
that ``test/system/e2e/app/build.js`` builds from JupyterLab 4.6.4's npm packages, the way JupyterLab's
``examples/app`` and ``examples/federated`` serve theirs: settings schemas and themes from the npm
packages, prebuilt (federated) extensions from Jupyter's standard search path
(``jupyter_core.paths.jupyter_path("labextensions")``: ``$JUPYTER_DATA_DIR/labextensions`` first,
then each ``$JUPYTER_PATH`` entry, the running Python's ``sys.prefix/share/jupyter`` and the
system directories), so a labextension a wheel put in a venv's ``share/jupyter/labextensions`` or
``project-startup jupyter install --prefix P`` put in ``P/share/jupyter`` (with P on JUPYTER_PATH)
is found. It also loads the real jupyter-server-proxy (4.x) as a server extension, configured
by ``ServerProxy.servers`` in ``jupyter_server_config.json`` and by the
``jupyter_serverproxy_servers`` entry points of installed distributions. Where the running Python
has no jupyter_server_proxy installed, put the vendored copy on PYTHONPATH
(``<repo>/../shared/vendor/python``; the tests' helpers.ts does) and set PYTHONDONTWRITEBYTECODE=1.

Only this app and the proxy are loaded unless ``--load-other-extensions`` is given: then the
server extensions that Jupyter's configuration enables (``jpserver_extensions`` in the
``jupyter_server_config.d`` files on the config path, e.g. a venv's ``etc/jupyter``) load too,
as they would under ``jupyter lab`` (for the install tests).

Run it with a Python that has jupyter_server and jupyterlab_server (Debian's /usr/bin/python3, or
a venv made with ``--system-site-packages`` from it), with JUPYTER_CONFIG_DIR, JUPYTER_DATA_DIR
and JUPYTER_RUNTIME_DIR pointing at fresh temporary directories and the token in JUPYTER_TOKEN
(kept out of the process list)::

    JUPYTER_TOKEN=... JUPYTER_CONFIG_DIR=... JUPYTER_DATA_DIR=... JUPYTER_RUNTIME_DIR=... \\
      /usr/bin/python3 test/system/e2e/lab_server.py --base-url /lab-e2e/ \\
        --workspaces-dir W --user-settings-dir S --root-dir R [--port 0] [--load-other-extensions]

The server listens on 127.0.0.1 (port 0: a free port) and writes Jupyter's usual
``jpserver-<pid>.json`` (with the port it got) into JUPYTER_RUNTIME_DIR. SIGTERM stops it.
"""

import argparse
import json
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
APP_DIR = os.path.join(HERE, "app")
DEFAULT_BUILD = os.path.join(APP_DIR, "build")
APT_HINT = (
    "Install the Debian packages with the apt step of .ci/run "
    "(python3-jupyter-server python3-jupyterlab-server chromium python3-nbclient python3-ipykernel)."
)


def fail(message, code=2):
    sys.stderr.write(f"lab_server.py: {message}\n")
    sys.exit(code)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default="/lab-e2e/", help="Jupyter's base_url (default /lab-e2e/)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--workspaces-dir", required=True)
    parser.add_argument("--user-settings-dir", required=True)
    parser.add_argument("--root-dir", required=True, help="the Jupyter server's root (contents) directory")
    parser.add_argument("--app-build", default=DEFAULT_BUILD, help="output of test/system/e2e/app/build.js")
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--terminals", action="store_true", help="enable JupyterLab terminals (terminado)")
    parser.add_argument(
        "--load-other-extensions",
        action="store_true",
        help="also load the server extensions Jupyter's configuration enables (jupyter_server_config.d)",
    )
    args = parser.parse_args(argv)
    base_url = args.base_url
    if not base_url.startswith("/"):
        base_url = "/" + base_url
    if not base_url.endswith("/"):
        base_url += "/"
    args.base_url = base_url
    return args


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_environment():
    """Jupyter's directories and token must come from the test, never from the user's home."""
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        if not os.environ.get(name):
            fail(f"{name} must name a temporary directory (the tests never use ~/.jupyter).")
    if not os.environ.get("JUPYTER_TOKEN"):
        fail("JUPYTER_TOKEN must hold the token the server requires.")


def read_build(build, what, command):
    """The build-info.json of a front end built by test/system/e2e/*/build.js; fails, saying `command`, if it is not built."""
    for needed in ("static/bundle.js", "schemas", "themes", "build-info.json"):
        if not os.path.exists(os.path.join(build, needed)):
            fail(f"{what} is not built ({os.path.join(build, needed)} is missing): run `{command}`.")
    with open(os.path.join(build, "build-info.json"), encoding="utf-8") as f:
        return json.load(f)


def check_server_proxy():
    """The real jupyter-server-proxy 4.x must be importable (installed, or the vendored copy on PYTHONPATH)."""
    try:
        import jupyter_server_proxy
    except ImportError as error:
        fail(
            f"{sys.executable} cannot import jupyter_server_proxy ({error}). Install jupyter-server-proxy 4.x, "
            "or put the vendored copy on PYTHONPATH: PYTHONPATH=<repo>/../shared/vendor/python "
            "PYTHONDONTWRITEBYTECODE=1.",
            3,
        )
    if not jupyter_server_proxy.__version__.startswith("4."):
        fail(f"jupyter_server_proxy {jupyter_server_proxy.__version__} from {jupyter_server_proxy.__file__}: these tests need 4.x.", 3)


def initialize_server_with_proxy(cls, argv, kwargs):
    """As ExtensionApp.initialize_server, plus the real jupyter-server-proxy as a server extension.

    With --load-other-extensions the server also enables what jupyter_server_config.d files on the
    config path enable.
    """
    from jupyter_server.serverapp import ServerApp

    serverapp = ServerApp.instance(
        jpserver_extensions={cls.get_extension_package(): True, "jupyter_server_proxy": True}, **kwargs
    )
    serverapp.aliases.update(cls.aliases)
    serverapp.initialize(argv=argv or [], starter_extension=cls.name, find_extensions=cls.load_other_extensions)
    return serverapp


def launch(app_class, args):
    """Starts `app_class` (an extension app defined in the script run as __main__) as the arguments say."""
    # Debian's launcher looks the extension up by module name: the script runs as __main__.
    sys.modules["__main__"]._jupyter_server_extension_points = lambda: [{"module": "__main__", "app": app_class}]
    port = args.port or free_port()
    app_class.launch_instance(
        argv=[
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=50",
            "--ServerApp.allow_root=True",
            "--ServerApp.open_browser=False",
            f"--ServerApp.base_url={args.base_url}",
            f"--ServerApp.root_dir={os.path.abspath(args.root_dir)}",
            f"--ServerApp.log_level={args.log_level}",
            f"--ServerApp.terminals_enabled={args.terminals}",
        ]
    )


def main(argv):
    args = parse_args(argv)
    check_environment()
    try:
        from jupyter_core.paths import jupyter_path
        from jupyterlab_server import LabServerApp
    except ImportError as error:
        fail(f"{sys.executable} cannot import the Jupyter server ({error}). {APT_HINT}", 3)
    build = os.path.abspath(args.app_build)
    build_info = read_build(build, "the e2e host app", "npm run build:e2e-app")
    check_server_proxy()

    data_dir = os.environ["JUPYTER_DATA_DIR"]
    os.makedirs(os.path.join(data_dir, "labextensions"), exist_ok=True)
    # Jupyter's own search path; it starts with $JUPYTER_DATA_DIR/labextensions.
    search_path = jupyter_path("labextensions")

    class E2ELabApp(LabServerApp):
        """JupyterLab's server side for the e2e host app (examples/app style)."""

        name = "jupyterlab_e2e"
        app_name = "JupyterLab"
        app_version = build_info.get("jupyterlab", "")
        load_other_extensions = args.load_other_extensions
        static_dir = os.path.join(build, "static")
        templates_dir = os.path.join(APP_DIR, "templates")
        schemas_dir = os.path.join(build, "schemas")
        themes_dir = os.path.join(build, "themes")
        app_settings_dir = os.path.join(data_dir, "lab", "settings")
        user_settings_dir = os.path.abspath(args.user_settings_dir)
        workspaces_dir = os.path.abspath(args.workspaces_dir)
        labextensions_path = search_path
        extra_labextensions_path = []

        @classmethod
        def initialize_server(cls, argv=None, load_other_extensions=True, **kwargs):
            return initialize_server_with_proxy(cls, argv, kwargs)

    launch(E2ELabApp, args)


if __name__ == "__main__":
    main(sys.argv[1:])
