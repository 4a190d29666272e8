#!/usr/bin/python3
"""A stand-in for Jupyter Notebook 7's server side, for the browser (e2e) tests.

Debian 12 has no Notebook 7 Python package (``python3-notebook`` is 6.4, the classic notebook),
so this small ``jupyter_server`` extension app, on Debian's ``jupyterlab_server.LabServerApp``
(jupyter_server 1.23), serves what the ``notebook`` 7 package's ``JupyterNotebookApp`` serves for
the tree page, learnt from its ``notebook/app.py`` (7.6.x) and ``app/templates/tree_template.html``:

- ``{base_url}tree[/<dir>]``: the tree page of the front end ``test/e2e/notebook7/build.js``
  builds from Notebook 7's npm packages, authenticated; the page config is JupyterLab's
  (``LabHandler.get_page_config``: federated extensions from Jupyter's labextension search
  path, settings, themes, translations and workspaces URLs) plus what Notebook adds: appName
  "Jupyter Notebook", ``appVersion`` (Notebook's), ``frontendUrl``, ``exposeAppInBrowser``
  (Notebook's ``--expose-app-in-browser`` flag; on here, the tests drive the app through it),
  ``treePath``, and ``notebookPage: "tree"`` from the template. A directory that does not exist
  or is hidden is 404, as in Notebook; a file is 404 too (Notebook would redirect a notebook to
  its notebook page and any other file to ``/files/``: this front end has only the tree page);
- ``{base_url}`` redirects to ``{base_url}tree`` (Notebook's ``default_url``);
- settings, themes, translations, workspaces and ``lab/extensions`` (the federated extensions'
  files) through jupyterlab_server's handlers, as ``JupyterNotebookApp`` (a LabServerApp) does.

Everything else is as in ``lab_server.py`` (same arguments, same environment, the real
jupyter-server-proxy 4.x loaded and configured by ``ServerProxy.servers``), whose helpers this
script uses.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab_server  # noqa: E402  (beside this file; its main() runs only as a script)

DEFAULT_BUILD = os.path.join(HERE, "notebook7", "build")
TEMPLATES = os.path.join(HERE, "notebook7", "templates")


def main(argv):
    if not any(a == "--app-build" or a.startswith("--app-build=") for a in argv):
        argv = [*argv, "--app-build", DEFAULT_BUILD]
    args = lab_server.parse_args(argv)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        if not os.environ.get(name):
            lab_server.fail(f"{name} must name a temporary directory (the tests never use ~/.jupyter).")
    if not os.environ.get("JUPYTER_TOKEN"):
        lab_server.fail("JUPYTER_TOKEN must hold the token the server requires.")

    try:
        from jupyter_core.paths import jupyter_path
        from jupyter_server.serverapp import ServerApp
        from jupyter_server.utils import ensure_async, url_path_join
        from jupyterlab_server import LabServerApp
        from jupyterlab_server.handlers import LabHandler
        from tornado import web
    except ImportError as error:
        lab_server.fail(f"{sys.executable} cannot import the Jupyter server ({error}). {lab_server.APT_HINT}", 3)

    build = os.path.abspath(args.app_build)
    for needed in ("static/bundle.js", "schemas", "themes", "build-info.json"):
        if not os.path.exists(os.path.join(build, needed)):
            lab_server.fail(
                f"the e2e Notebook 7 app is not built ({os.path.join(build, needed)} is missing): "
                "run `npm run build:e2e-notebook`."
            )
    with open(os.path.join(build, "build-info.json"), encoding="utf-8") as f:
        build_info = json.load(f)

    try:
        import jupyter_server_proxy
    except ImportError as error:
        lab_server.fail(
            f"{sys.executable} cannot import jupyter_server_proxy ({error}). Install jupyter-server-proxy 4.x, "
            "or put the vendored copy on PYTHONPATH: PYTHONPATH=<repo>/../shared/vendor/python "
            "PYTHONDONTWRITEBYTECODE=1.",
            3,
        )
    if not jupyter_server_proxy.__version__.startswith("4."):
        lab_server.fail(f"jupyter_server_proxy {jupyter_server_proxy.__version__}: these tests need 4.x.", 3)

    data_dir = os.environ["JUPYTER_DATA_DIR"]
    os.makedirs(os.path.join(data_dir, "labextensions"), exist_ok=True)
    notebook_version = build_info.get("notebook", "")

    class TreeHandler(LabHandler):
        """Notebook 7's tree page: a directory of the server's contents, in the Notebook front end."""

        @web.authenticated
        async def get(self, path=""):
            path = path.strip("/")
            contents = self.contents_manager
            if not await ensure_async(contents.dir_exists(path=path)):
                raise web.HTTPError(404, "No such directory (this stand-in serves only Notebook's tree page)")
            if await ensure_async(contents.is_hidden(path)) and not contents.allow_hidden:
                raise web.HTTPError(404)
            page_config = dict(self.get_page_config())
            page_config.update(
                appVersion=notebook_version,
                frontendUrl=url_path_join(self.base_url, "/"),
                exposeAppInBrowser=self.extensionapp.expose_app_in_browser,
                treePath=path,
            )
            self.write(self.render_template("tree.html", page_config=page_config))

    class Notebook7StandInApp(LabServerApp):
        """Stands in for the notebook 7 package's JupyterNotebookApp (tree page only)."""

        name = "notebook"
        app_name = "Jupyter Notebook"
        app_version = notebook_version
        extension_url = "/tree"
        default_url = "/tree"
        load_other_extensions = args.load_other_extensions
        expose_app_in_browser = True
        static_dir = os.path.join(build, "static")
        templates_dir = TEMPLATES
        schemas_dir = os.path.join(build, "schemas")
        themes_dir = os.path.join(build, "themes")
        app_settings_dir = os.path.join(data_dir, "lab", "settings")
        user_settings_dir = os.path.abspath(args.user_settings_dir)
        workspaces_dir = os.path.abspath(args.workspaces_dir)
        labextensions_path = jupyter_path("labextensions")
        extra_labextensions_path = []

        def initialize_handlers(self):
            self.handlers.append(("/tree(.*)", TreeHandler))
            super().initialize_handlers()

        @classmethod
        def initialize_server(cls, argv=None, load_other_extensions=True, **kwargs):
            serverapp = ServerApp.instance(
                jpserver_extensions={cls.get_extension_package(): True, "jupyter_server_proxy": True}, **kwargs
            )
            serverapp.aliases.update(cls.aliases)
            serverapp.initialize(argv=argv or [], starter_extension=cls.name, find_extensions=cls.load_other_extensions)
            return serverapp

    # jupyter_server looks the extension up by module name: this script runs as __main__.
    sys.modules[__name__]._jupyter_server_extension_points = lambda: [{"module": __name__, "app": Notebook7StandInApp}]

    port = args.port or lab_server.free_port()
    Notebook7StandInApp.launch_instance(
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


if __name__ == "__main__":
    main(sys.argv[1:])
