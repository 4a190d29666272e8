"""One log entry per cause of a failed sidecar launch, or of a sidecar that cannot serve, not one
per request.

While Node.js is missing, every request to ``{base_url}project/`` (the panel and the status bar
poll it) makes jupyter-server-proxy call the entry point's command, which raises NodeUnavailable.
Left to Jupyter, each such request logs about eight lines: tornado's warning with the message,
then jupyter_server's log_request, which for any 5xx dumps the request's headers as indented
JSON (five or six lines) and logs the access line at error level. With the server extension
loaded, the first failure (and a later one only when its cause changed) logs one line instead:
the status, the path (without its query, which may hold a token) and the cause with its fix;
the repeats log the access line at debug level, as Jupyter logs its successful requests.

A sidecar that started but refuses its configuration answers every request 503 ``misconfigured``
through the proxy, which Jupyter would log the same eight-line way on every poll. Its own log
line at start names the setting and the fix; the server logs the first 503 as one line pointing
there, and again only after the service has answered normally in between.

And a sidecar process that ends (a crash, ``kill -9``, the out-of-memory killer) is not
silent: simpervisor, under jupyter-server-proxy, restarts it and says so only at debug level.
The first request to the service names its process; from then on its end is logged with its
exit code or signal and how often the service has been restarted since the server started.
"""

import asyncio
import logging
import signal
import sys

from tornado.web import HTTPError


class NodeUnavailable(HTTPError):
    """Node.js is missing or too old: jupyter-server-proxy answers 500 with this message (the
    error page shows it) and, when the cause is new, the server logs it as one line without a
    traceback."""

    def __init__(self, message, first):
        super().__init__(500, message.replace("%", "%%"))
        self.message = message
        # Whether this failure's cause is new (LaunchFailures.failed): only then is it logged.
        self.first = first


class LaunchFailures:
    """The cause of the last failed launch: jupyter-server-proxy launches under its own lock, on
    the server's event loop, so a launch's outcome is recorded before the next one starts."""

    def __init__(self):
        self._last_cause = None

    def failed(self, cause):
        """Records a failed launch; True when it is the first or its cause differs from the last."""
        new = cause != self._last_cause
        self._last_cause = cause
        return new

    def succeeded(self):
        # A later failure, even with the same cause as before, is news again.
        self._last_cause = None


LAUNCH_FAILURES = LaunchFailures()
# The sidecar's own 503s (a configuration it refuses), as answered through the proxy.
SERVICE_REFUSALS = LaunchFailures()
# The proxy entry's name: the sidecar answers under {base_url}project/.
PROXY_PATH = "project/"


def _launch_failure_being_answered():
    # tornado logs an error (log_exception) and the request (log_function, from finish()) while
    # handling the exception that failed the request, inside its `except`: sys.exc_info() is it.
    error = sys.exc_info()[1]
    return error if isinstance(error, NodeUnavailable) else None


class _DropLaunchFailureWarning(logging.Filter):
    """Drops tornado's per-request warning for NodeUnavailable: log_launch_failure says it once."""

    def filter(self, record):
        return _launch_failure_being_answered() is None


def _ending(returncode):
    """How a process ended, from its asyncio return code (negative: the signal that ended it)."""
    if returncode is None:
        return "ended"
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name} (signal {-returncode})"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


class ProcessWatch:
    """Watches the sidecar processes simpervisor supervises for jupyter-server-proxy, and logs
    each one's end: its exit code or signal, and whether the proxy restarts it.

    The proxy keeps its SupervisedProcess in the handler's ``state['proc']``; the OS process is
    its ``proc`` (simpervisor's POSIXProcess, whose ``wait()`` may be awaited by more than one
    task). Anything else there (an older or newer layout) is left alone: nothing is logged."""

    def __init__(self, log):
        self.log = log
        self.restarts = 0
        self._watched = set()

    def see(self, handler):
        state = getattr(handler, "state", None)
        supervised = state.get("proc") if isinstance(state, dict) else None
        process = getattr(supervised, "proc", None)
        if process is None or not callable(getattr(process, "wait", None)) or process in self._watched:
            return
        try:
            asyncio.ensure_future(self._watch(supervised, process))
        except RuntimeError:
            return
        self._watched.add(process)

    async def _watch(self, supervised, process):
        pid = getattr(process, "pid", None)
        try:
            returncode = await process.wait()
        except Exception:
            self._watched.discard(process)
            return
        # simpervisor's rule (SupervisedProcess._restart_process_if_needed): it restarts a
        # process that exited non-zero unless it was stopped on purpose.
        restarting = not getattr(supervised, "_killed", True) and (
            getattr(supervised, "always_restart", False) or returncode != 0
        )
        if not restarting:
            self.log.info("jupyterlab-project-startup: the service process (pid %s) %s", pid, _ending(returncode))
            self._watched.discard(process)
            return
        self.restarts += 1
        self.log.warning(
            "jupyterlab-project-startup: the service process (pid %s) %s; jupyter-server-proxy restarts it "
            "(restart %d since this Jupyter server started)",
            pid,
            _ending(returncode),
            self.restarts,
        )
        # simpervisor starts the new process right after the old one's wait() returns: watch it
        # too (a bounded wait for it to appear), so its end is logged even with no request.
        for _ in range(200):
            await asyncio.sleep(0.05)
            successor = getattr(supervised, "proc", None)
            if successor is not None and successor is not process and getattr(supervised, "running", False):
                if successor not in self._watched:
                    self._watched.add(successor)
                    asyncio.ensure_future(self._watch(supervised, successor))
                break
        self._watched.discard(process)


def log_launch_failure(handler, log_request, processes=None):
    """The server's log_function: a failed launch as one line when its cause is new, at debug
    level when it repeats; a 503 from the sidecar likewise (_service_refusal); every other
    request as Jupyter logs it (``log_request``). ``processes`` (ProcessWatch) learns the
    sidecar's process from the requests under the service's path."""
    error = _launch_failure_being_answered()
    if error is None:
        if processes is not None and _on_service_path(handler):
            processes.see(handler)
        if not _service_refusal(handler):
            log_request(handler)
        return
    request = handler.request
    if error.first:
        handler.log.warning("%d %s %s: %s", handler.get_status(), request.method, request.path, error.message)
    else:
        handler.log.debug(
            "%d %s %s: the Project Startup service still cannot start (logged when it began)",
            handler.get_status(),
            request.method,
            request.path,
        )


def _on_service_path(handler):
    return handler.request.path.startswith(handler.settings.get("base_url", "/") + PROXY_PATH)


def _service_refusal(handler):
    """Logs a 503 the sidecar answered through the proxy once until it answers normally again;
    True when this request was logged here."""
    request = handler.request
    if not _on_service_path(handler):
        return False
    status = handler.get_status()
    if status != 503:
        if status < 400:
            SERVICE_REFUSALS.succeeded()
        return False
    if SERVICE_REFUSALS.failed(status):
        handler.log.warning(
            "%d %s %s: the Project Startup service cannot serve; its log line at start names the "
            "setting and the fix (`project-startup config check` lists every problem). Until it "
            "answers normally, its 503s are logged at debug level.",
            status,
            request.method,
            request.path,
        )
    else:
        handler.log.debug(
            "%d %s %s: the Project Startup service still cannot serve", status, request.method, request.path
        )
    return True


def quiet_repeated_launch_failures(web_app, log=None):
    """Installs log_launch_failure in the server's tornado application (once); with ``log``, the
    end of each sidecar process is logged there too (ProcessWatch)."""
    settings = web_app.settings
    log_request = settings.get("log_function")
    if log_request is None or getattr(log_request, "_project_startup", False):
        # Not jupyter_server's application (it always sets one), or installed already.
        return

    processes = ProcessWatch(log) if log is not None else None

    def log_function(handler):
        log_launch_failure(handler, log_request, processes)

    log_function._project_startup = True
    settings["log_function"] = log_function
    tornado_warnings = logging.getLogger("tornado.general")
    if not any(isinstance(f, _DropLaunchFailureWarning) for f in tornado_warnings.filters):
        tornado_warnings.addFilter(_DropLaunchFailureWarning())
