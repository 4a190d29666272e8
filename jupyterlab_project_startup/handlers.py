"""The diagnostics route: ``GET {base_url}api/project-startup/diagnostics``.

Why the sidecar cannot start (Node missing or too old, jupyter-server-proxy missing or too old,
the sidecar's own start-up error and last log lines), for the panel and for operators. Only for
the authenticated user of this server, XSRF-checked even for GET; it holds no token, cookie or
environment value."""

import json

import tornado.web
from jupyter_server.base.handlers import APIHandler
from tornado.ioloop import IOLoop

from .checks import check_node, check_server_proxy, diagnostics_report, read_sidecar_state

DIAGNOSTICS_ROUTE = "api/project-startup/diagnostics"


def collect(settings):
    return diagnostics_report(
        settings["version"],
        check_node(),
        check_server_proxy(settings["jpserver_extensions"]),
        read_sidecar_state(settings["diagnostics_file"]),
    )


class DiagnosticsHandler(APIHandler):
    @tornado.web.authenticated
    async def get(self):
        # Jupyter checks XSRF itself only for unsafe methods; this answer is about the server's
        # environment, so a cross-site page may not read it through the user's cookie either.
        self.check_xsrf_cookie()
        # `node --version` runs in a thread: the server keeps answering meanwhile.
        try:
            report = await IOLoop.current().run_in_executor(None, collect, self.settings["project_startup"])
        except Exception as error:
            # An HTTPError: APIHandler answers it as JSON without the traceback it adds otherwise.
            self.log.warning(
                "jupyterlab-project-startup: the diagnostics failed: %s: %s", error.__class__.__name__, error
            )
            raise tornado.web.HTTPError(
                500, f"the diagnostics could not be collected ({error.__class__.__name__})"
            ) from None
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(report))


# Every route this server extension adds, each (route under base_url, handler); the server
# extension registers these and test/python/test_extension_routes.py asks each one.
ROUTES = [(DIAGNOSTICS_ROUTE, DiagnosticsHandler)]
