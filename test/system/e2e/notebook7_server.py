#!/usr/bin/python3
"""A stand-in for Jupyter Notebook 7's server side, for the browser (e2e) tests.

Debian 12 has no Notebook 7 Python package (``python3-notebook`` is 6.4, the classic notebook),
so this small ``jupyter_server`` extension app, on Debian's ``jupyterlab_server.LabServerApp``
(jupyter_server 1.23), serves what the ``notebook`` 7 package's ``JupyterNotebookApp`` serves for
the tree page, learnt from its ``notebook/app.py`` (7.6.x) and ``app/templates/tree_template.html``:

- ``{base_url}tree[/<dir>]``: the tree page of the front end ``test/system/e2e/notebook7/build.js``
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
    lab_server.check_environment()
    try:
        from jupyter_core.paths import jupyter_path
        from jupyter_server.utils import ensure_async, url_path_join
        from jupyterlab_server import LabServerApp
        from jupyterlab_server.handlers import LabHandler
        from tornado import web
    except ImportError as error:
        lab_server.fail(f"{sys.executable} cannot import the Jupyter server ({error}). {lab_server.APT_HINT}", 3)
    build = os.path.abspath(args.app_build)
    build_info = lab_server.read_build(build, "the e2e Notebook 7 app", "npm run build:e2e-notebook")
    lab_server.check_server_proxy()

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
            return lab_server.initialize_server_with_proxy(cls, argv, kwargs)

    lab_server.launch(Notebook7StandInApp, args)


if __name__ == "__main__":
    main(sys.argv[1:])
