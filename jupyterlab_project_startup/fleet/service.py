"""``project-startup-fleet``: the fleet view as a JupyterHub service.

Run by the hub (``c.JupyterHub.services`` with a ``command``), which gives it its environment
(JUPYTERHUB_API_TOKEN, JUPYTERHUB_API_URL, JUPYTERHUB_SERVICE_PREFIX, JUPYTERHUB_SERVICE_URL,
JUPYTERHUB_CLIENT_ID, JUPYTERHUB_OAUTH_CALLBACK_URL, JUPYTERHUB_BASE_URL), or as an external
service with the same variables set by the operator (docs/operator-guide.md). JupyterHub and
tornado are imported only here, when it runs: the single-user environment imports the package
without them."""

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from urllib.parse import urlparse

from .fleet import SLACK_SECONDS, STATUSES, Fleet
from .report import MAX_REPORT_BYTES, InvalidReport, validate_report

LOG = logging.getLogger("project-startup-fleet")
DEFAULT_HEARTBEAT_SECONDS = 300
PROBLEM_TYPE = "urn:jupyterlab-project-startup:problem:"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="project-startup-fleet",
        description=(
            "The Project Startup fleet view, a JupyterHub service: each user's Jupyter server reports its "
            "setup phase here, and the operator reads who is not set up, and why, at /services/<name>/ "
            "(JSON at api/fleet, Prometheus metrics at metrics). Run it from c.JupyterHub.services with "
            "a command, or as an external service with the JUPYTERHUB_* variables set."
        ),
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"),
        help="Where to listen (default: JUPYTERHUB_SERVICE_URL, which the hub sets; else %(default)s).",
    )
    parser.add_argument(
        "--heartbeat-seconds",
        type=int,
        default=int(os.environ.get("PROJECT_STARTUP_FLEET_HEARTBEAT_SECONDS", DEFAULT_HEARTBEAT_SECONDS)),
        help=(
            "How often each server reports when nothing changed (default %(default)s; servers learn it from "
            "the service). A restarted service has every running server's state again within this plus the "
            "report slack."
        ),
    )
    parser.add_argument(
        "--report-slack-seconds",
        type=int,
        default=SLACK_SECONDS,
        help=(
            "How long past a heartbeat a report may take: the servers' poll (PROJECT_STARTUP_FLEET_POLL_SECONDS, "
            "30 by default) and a slow hub (default %(default)s). A running server that has not reported within "
            "a heartbeat plus this is listed as having no reporter."
        ),
    )
    parser.add_argument(
        "--hub-refresh-seconds",
        type=int,
        default=None,
        help="How often the hub's user list is read (default: the heartbeat, at most 60).",
    )
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = parser.parse_args(argv)
    if args.heartbeat_seconds < 2:
        parser.error("--heartbeat-seconds must be at least 2")
    if args.report_slack_seconds < 1:
        parser.error("--report-slack-seconds must be at least 1")
    if args.hub_refresh_seconds is None:
        args.hub_refresh_seconds = min(60, args.heartbeat_seconds)
    return args


def users_from_hub(models):
    """The hub's user models (GET /hub/api/users with read:servers) as Fleet.set_hub_users takes them."""
    from datetime import datetime

    users = {}
    for model in models:
        if "servers" not in model:
            raise LookupError("the hub's user list has no servers: the service's role needs the read:servers scope")
        started = []
        for server in (model.get("servers") or {}).values():
            text = server.get("started")
            if text:
                try:
                    started.append(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())
                except ValueError:
                    pass
        users[model["name"]] = {"running": bool(model.get("servers")), "started": min(started) if started else None}
    return users


def make_app(fleet, *, prefix, hub_prefix, base_url):
    """The tornado application (JupyterHub's auth classes imported here)."""
    from jupyterhub.services.auth import HubOAuth, HubOAuthCallbackHandler
    from tornado import web

    hub_auth = HubOAuth(cache_max_age=300)
    ProblemMixin, Problem = _problem_classes(web)
    PageHandler, FleetApiHandler, MetricsHandler = _viewer_handlers(
        web, fleet, hub_auth, ProblemMixin, Problem, prefix=prefix, hub_prefix=hub_prefix, base_url=base_url
    )
    ReportHandler = _report_handler(web, fleet, hub_auth, ProblemMixin, Problem)
    CssHandler, NotFound = _plain_handlers(web, ProblemMixin, Problem)

    return web.Application(
        [
            # The hub's health check asks for the prefix without its slash.
            (prefix.rstrip("/"), web.RedirectHandler, {"url": prefix}),
            (prefix, PageHandler),
            (prefix + "api/fleet", FleetApiHandler),
            (prefix + "api/reports", ReportHandler),
            (prefix + "metrics", MetricsHandler),
            (prefix + "static/fleet.css", CssHandler),
            (prefix + "oauth_callback", HubOAuthCallbackHandler),
        ],
        cookie_secret=os.urandom(32),
        default_handler_class=NotFound,
        xsrf_cookies=False,
        log_function=_log_request,
    )


def _problem_classes(web):
    """Problem details for every refusal: the mixin that writes them and the error that asks."""

    class ProblemMixin:
        def write_error(self, status_code, **kwargs):
            error = kwargs.get("exc_info", (None, None, None))[1]
            code = getattr(error, "problem_code", None) or {
                400: "invalid-report",
                401: "unauthorized",
                403: "forbidden",
                404: "not-found",
                405: "method-not-allowed",
                413: "payload-too-large",
                415: "unsupported-media-type",
                429: "rate-limited",
                503: "hub-unavailable",
            }.get(status_code, "internal")
            problem = {
                "type": PROBLEM_TYPE + code,
                "title": self._reason,
                "status": status_code,
                "code": code,
                "detail": getattr(error, "log_message", None) or self._reason,
            }
            if getattr(error, "errors", None):
                problem["errors"] = error.errors
            # send_error cleared the headers set before the error: the problem's own go here.
            for name, value in (getattr(error, "headers", None) or {}).items():
                self.set_header(name, value)
            self.set_header("Content-Type", "application/problem+json")
            self.set_header("Cache-Control", "no-store")
            self.finish(json.dumps(problem))

    class Problem(web.HTTPError):
        def __init__(self, status, code, detail, errors=None, headers=None):
            super().__init__(status, detail.replace("%", "%%"))
            self.problem_code = code
            self.errors = errors
            self.headers = headers

    return ProblemMixin, Problem


def _viewer_handlers(web, fleet, hub_auth, ProblemMixin, Problem, *, prefix, hub_prefix, base_url):
    """The page, the JSON and the metrics: for the people the hub's OAuth lets in."""
    from . import metrics
    from .page import render_page

    registry = metrics.registry_for(fleet)

    ViewerHandler = _viewer_base(web, hub_auth, ProblemMixin)

    class PageHandler(ViewerHandler):
        @web.authenticated
        def get(self):
            now = time.time()
            status = self.get_argument("status", "")
            check = self.get_argument("check", "")
            if status and status not in STATUSES:
                raise Problem(400, "invalid-filter", "status: not a known status")
            rows = fleet.rows(now)
            summary = fleet.summary(rows)
            shown = [
                row
                for row in rows
                if (not status or row["status"] == status)
                and (not check or any(c["id"] == check for c in row["failingChecks"]))
            ]
            self.set_header("Cache-Control", "no-store")
            self.set_header(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'self'",
            )
            self.finish(
                render_page(
                    rows=shown,
                    summary=summary,
                    hub_prefix=hub_prefix,
                    base_url=base_url,
                    service_prefix=prefix,
                    viewer=self.current_user["name"],
                    is_admin=self.viewer_is_admin(),
                    phase=status,
                    check=check,
                    fleet=fleet,
                    now=now,
                )
            )

    class FleetApiHandler(ViewerHandler):
        @web.authenticated
        def get(self):
            now = time.time()
            rows = fleet.rows(now)
            self.set_header("Content-Type", "application/json")
            self.set_header("Cache-Control", "no-store")
            self.finish(
                json.dumps(
                    {
                        "heartbeatSeconds": fleet.heartbeat,
                        "reportDueSeconds": fleet.report_due_seconds,
                        "lastComplete": fleet.last_complete,
                        "hubListedAt": fleet.hub_listed_at,
                        "hubError": fleet.hub_error,
                        "summary": fleet.summary(rows),
                        "users": rows,
                    }
                )
            )

    class MetricsHandler(ViewerHandler):
        @web.authenticated
        def get(self):
            body, content_type = metrics.exposition(registry)
            self.set_header("Content-Type", content_type)
            self.finish(body)

    return PageHandler, FleetApiHandler, MetricsHandler


def _viewer_base(web, hub_auth, ProblemMixin):
    """Admins by default; others by the access:services scope (HubOAuth checks it)."""
    from jupyterhub.services.auth import HubOAuthenticated

    class ViewerHandler(HubOAuthenticated, ProblemMixin, web.RequestHandler):
        """Admins by default; others by the access:services scope (HubOAuth checks it)."""

        @property
        def hub_auth(self):
            return hub_auth

        def viewer_is_admin(self):
            user = self.current_user or {}
            return bool(user.get("admin")) or "admin:servers" in set(user.get("scopes") or ())

    return ViewerHandler


def _report_handler(web, fleet, hub_auth, ProblemMixin, Problem):
    """Where each user's server posts its report, with its own hub token."""

    class ReportHandler(ProblemMixin, web.RequestHandler):
        """POST a report, with the hub token of the user it is about (the server's own)."""

        def check_xsrf_cookie(self):
            # Token-authenticated only: no cookie is accepted here, so no cross-site form can post.
            pass

        async def post(self):
            auth = self.request.headers.get("Authorization", "")
            scheme, _, token = auth.partition(" ")
            if scheme.lower() not in ("token", "bearer") or not token.strip():
                fleet.refuse("unauthenticated")
                raise Problem(
                    401, "unauthorized", "send the server's hub token: Authorization: token <JUPYTERHUB_API_TOKEN>"
                )
            try:
                model = await hub_auth.user_for_token(token.strip(), use_cache=True, sync=False)
            except Exception as error:  # the hub's own errors; never the token
                LOG.warning("the hub could not check a report's token: %s", error.__class__.__name__)
                fleet.refuse("hub-unavailable")
                raise Problem(503, "hub-unavailable", "the hub could not be asked who this token belongs to") from None
            if not model or model.get("kind", "user") != "user" or not model.get("name"):
                fleet.refuse("unauthenticated")
                raise Problem(401, "unauthorized", "the hub does not know this token as a user's")
            name = model["name"]
            now = time.time()
            if not fleet.rate.allow(name, now):
                fleet.refuse("rate-limited")
                raise Problem(
                    429,
                    "rate-limited",
                    "too many reports from this user; send on change and on the heartbeat",
                    headers={"Retry-After": str(fleet.rate.retry_after(name, now))},
                )
            body = self.request.body
            if len(body) > MAX_REPORT_BYTES:
                fleet.refuse("too-large")
                raise Problem(413, "payload-too-large", f"a report is at most {MAX_REPORT_BYTES} bytes")
            content_type = self.request.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if content_type != "application/json":
                fleet.refuse("invalid")
                raise Problem(415, "unsupported-media-type", "a report is application/json")
            try:
                report = validate_report(json.loads(body.decode("utf-8")))
            except (ValueError, UnicodeDecodeError) as error:
                fleet.refuse("invalid")
                errors = error.errors if isinstance(error, InvalidReport) else ["/: JSON"]
                raise Problem(400, "invalid-report", "the report is not valid", errors) from None
            fleet.accept(name, report, now)
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({"accepted": True, "user": name, "heartbeatSeconds": fleet.heartbeat}))

    return ReportHandler


def _plain_handlers(web, ProblemMixin, Problem):
    """The stylesheet, and a problem for any other path."""
    from .page import FLEET_CSS

    class CssHandler(web.RequestHandler):
        def get(self):
            self.set_header("Content-Type", "text/css")
            self.set_header("Cache-Control", "max-age=3600")
            self.finish(FLEET_CSS)

    class NotFound(ProblemMixin, web.RequestHandler):
        def prepare(self):
            raise Problem(404, "not-found", "no such route")

    return CssHandler, NotFound


def _log_request(handler):
    # One line per request, without query or headers (a token may be in either).
    status = handler.get_status()
    if status < 400 and handler.request.path.endswith("/api/reports"):
        level = logging.DEBUG
    else:
        level = logging.INFO if status < 500 else logging.WARNING
    LOG.log(
        level,
        "%d %s %s %.1fms",
        status,
        handler.request.method,
        handler.request.path,
        1000 * handler.request.request_time(),
    )


async def refresh_hub_users(fleet, api_url, token):
    """Reads the hub's user list (list:users, read:users:name, read:servers), page by page."""
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    client = AsyncHTTPClient()
    models = []
    offset = 0
    for _ in range(1000):
        request = HTTPRequest(
            f"{api_url.rstrip('/')}/users?offset={offset}&limit=200",
            headers={"Authorization": f"token {token}", "Accept": "application/json"},
            request_timeout=20,
        )
        answer = await client.fetch(request)
        page = json.loads(answer.body)
        if isinstance(page, dict):  # the paginated form
            page = page.get("items", [])
        models.extend(page)
        if len(page) < 200:
            break
        offset += len(page)
    fleet.set_hub_users(users_from_hub(models))


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(
        level=args.log_level, format="[%(levelname).1s %(asctime)s %(name)s] %(message)s", datefmt="%Y-%m-%d %H:%M:%S"
    )
    try:
        import jupyterhub  # noqa: F401
        import prometheus_client  # noqa: F401
        import tornado  # noqa: F401
    except ImportError as error:
        sys.exit(f"project-startup-fleet needs JupyterHub's Python (jupyterhub, tornado, prometheus_client): {error}")
    token = os.environ.get("JUPYTERHUB_API_TOKEN")
    api_url = os.environ.get("JUPYTERHUB_API_URL")
    if not token or not api_url:
        sys.exit(
            "project-startup-fleet: JUPYTERHUB_API_TOKEN and JUPYTERHUB_API_URL are not set; run it as a "
            "JupyterHub service (the hub sets them) or set them for an external service (docs/operator-guide.md)"
        )
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/project-startup-fleet/")
    base_url = os.environ.get("JUPYTERHUB_BASE_URL", "/")
    hub_prefix = base_url.rstrip("/") + "/hub/"
    listen = urlparse(args.url)
    fleet = Fleet(args.heartbeat_seconds, slack_seconds=args.report_slack_seconds)
    asyncio.run(_serve(fleet, args, prefix, hub_prefix, base_url, listen, api_url, token))


async def _serve(fleet, args, prefix, hub_prefix, base_url, listen, api_url, token):
    from tornado.ioloop import PeriodicCallback

    app = make_app(fleet, prefix=prefix, hub_prefix=hub_prefix, base_url=base_url)
    app.listen(listen.port or 80, listen.hostname or "127.0.0.1", xheaders=True)

    async def refresh():
        try:
            await refresh_hub_users(fleet, api_url, token)
        except Exception as error:
            fleet.hub_error = f"{error.__class__.__name__}: {str(error)[:200]}"
            LOG.warning("the hub's user list could not be read: %s", fleet.hub_error)

    await refresh()
    PeriodicCallback(refresh, args.hub_refresh_seconds * 1000).start()
    LOG.info(
        "project-startup-fleet listening on %s, page at %s, heartbeat %d s, hub list every %d s",
        args.url,
        prefix,
        args.heartbeat_seconds,
        args.hub_refresh_seconds,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    LOG.info("stopping")


if __name__ == "__main__":
    main()
