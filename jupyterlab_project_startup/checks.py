"""What the sidecar needs, checked the same way at server start, at each launch and in the
diagnostics route: Node.js >= 20 and jupyter-server-proxy >= 4.1. Each problem is a dict
``{code, title, detail, fix}`` (the diagnostics contract); nothing here raises."""

import json
import os
import re
import shutil
import subprocess
import sys
from collections import namedtuple

from .private_file import read_private_text

NODE_ENV = "PROJECT_STARTUP_NODE"
NODE_REQUIRED = (20,)
NODE_REQUIRED_TEXT = ">=20"
SERVER_PROXY_REQUIRED = (4, 1)
SERVER_PROXY_REQUIRED_TEXT = ">=4.1"
DIAGNOSTICS_FILE_ENV = "PROJECT_STARTUP_DIAGNOSTICS_FILE"
# The sidecar's project directory setting (sidecar/src/config/config.ts, ENV.projectDir).
PROJECT_DIR_ENV = "PROJECT_STARTUP_PROJECT_DIR"
LOG_TAIL_LINES = 20


# Where the Node.js that check_node finds will run, in the words of its problems: under the
# Jupyter server (the proxy entry, the start-up check, the diagnostics) or in a terminal (the
# wheel's `project-startup` command). The rule that finds Node is the same for both.
NodeContext = namedtuple("NodeContext", "needs path runs_in install then")
JUPYTER_SERVER = NodeContext(
    needs="the Project Startup service",
    path="the Jupyter server's PATH",
    runs_in="the Jupyter server",
    install="where the Jupyter server runs and put it on its PATH",
    then="; then restart the Jupyter server",
)
COMMAND = NodeContext(
    needs="the project-startup command",
    path="PATH",
    runs_in="the command",
    install="and put it on PATH",
    then="",
)


def _node_fix(where):
    return (
        f"Install Node.js 20 or newer (22 or 24 recommended) {where.install}, or set {NODE_ENV} "
        f"to the path of that node executable{where.then}."
    )


def _problem(code, title, detail, fix):
    return {"code": code, "title": title, "detail": detail, "fix": fix}


def _version_tuple(text):
    """The release numbers of a version as printed (``v20.11.0`` is (20, 11, 0), ``4.1`` is
    (4, 1)); None when it is not one. packaging's reading where it is importable: a kernel where
    the package was installed with --no-deps may lack it, so a plain reading of the leading
    numbers stands in (also for a Node.js build label packaging refuses, such as -nightly)."""
    text = text.strip()
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:
        Version = None
    if Version is not None:
        try:
            return Version(text).release
        except InvalidVersion:
            pass
    match = re.match(r"v?(\d+(?:\.\d+)*)", text)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def find_on_path(name, search_path):
    """The absolute path of the executable ``name`` on ``search_path``, or None.

    Only absolute PATH entries count: an empty or relative one (``PATH=:/usr/bin``, ``.``) means
    "the current directory", which is wherever the Jupyter server happens to run, perhaps a
    directory anyone can write to. (The npm package's twin is findOnPath in jupyter-install.ts.)"""
    absolute = [d for d in (search_path or "").split(os.pathsep) if os.path.isabs(d)]
    return shutil.which(name, path=os.pathsep.join(absolute)) if absolute else None


def escape_template(text):
    """``text`` as a literal inside a jupyter-server-proxy command or environment: the proxy
    formats every string with str.format ({port}, {unix_socket}, {base_url}), so a brace in a
    path would fail the launch or be replaced. (The npm package's twin is escapeProxyTemplate.)"""
    return text.replace("{", "{{").replace("}", "}}")


def _is_relative_path(text):
    separators = [sep for sep in (os.sep, os.altsep, "/") if sep]
    return not os.path.isabs(text) and any(sep in text for sep in separators)


def locate_node(env=None, where=JUPYTER_SERVER):
    """Where Node.js is: ``(path, None)``, or ``(None, (detail, fix))`` when it is not found.

    $PROJECT_STARTUP_NODE first, then PATH. ``path`` is always absolute: a bare name is looked
    up on PATH (absolute entries only, find_on_path) and a relative path is refused, since it
    would run whatever sits at that path below the working directory."""
    env = os.environ if env is None else env
    override = env.get(NODE_ENV, "")
    if override and _is_relative_path(override):
        return None, (
            (
                f"{NODE_ENV} is set to {override}, a relative path: it would name a different file in "
                f"whatever directory {where.runs_in} runs in."
            ),
            (
                f"Set {NODE_ENV} to the absolute path of Node.js 20 or newer (for example /usr/bin/node) "
                f"or a command name on {where.path}, or unset it{where.then}."
            ),
        )
    if override:
        # A bare name is looked up on PATH like a command; anything else is an absolute path.
        path = find_on_path(override, env.get("PATH")) if not os.path.isabs(override) else override
        if path is not None and os.path.isfile(path) and os.access(path, os.X_OK):
            return path, None
        return None, (
            f"{NODE_ENV} is set to {override}, which is not an executable file"
            + ("" if os.path.isabs(override) else f" in an absolute directory on {where.path}")
            + ".",
            (
                f"Set {NODE_ENV} to the path of Node.js 20 or newer (for example /usr/bin/node), "
                f"or unset it to use the node on {where.path}{where.then}."
            ),
        )
    path = find_on_path("node", env.get("PATH"))
    if path is not None:
        return path, None
    return None, (
        f"Node.js 20 or newer is needed to run {where.needs}, and there is no `node` on {where.path} "
        + f"and no {NODE_ENV}.",
        _node_fix(where),
    )


def check_node(env=None, where=JUPYTER_SERVER):
    """Find Node.js (locate_node) and check that it runs and is 20 or newer.

    Returns ``{"path", "version", "problem"}``; ``problem`` is None when it is usable; ``where``
    words the problem for the Jupyter server (the default) or for the terminal command."""
    path, missing = locate_node(env, where)
    if missing is not None:
        return {"path": None, "version": None, "problem": _problem("node-missing", "Node.js was not found", *missing)}
    try:
        answer = subprocess.run(
            [path, "--version"], capture_output=True, timeout=15, stdin=subprocess.DEVNULL, check=False
        )
        # Bytes, decoded leniently: whatever the executable prints (not UTF-8 included) is only
        # ever "not a Node.js version", never an exception that stops the extension loading.
        printed = answer.stdout.decode("utf-8", "replace")
        version = _version_tuple(printed) if answer.returncode == 0 else None
    except (OSError, subprocess.SubprocessError) as error:
        answer, version = None, None
        reason = f"running `{path} --version` failed ({error.__class__.__name__}: {error})"
    if version is None:
        if answer is not None:
            shown = printed.strip().splitlines()[0][:80] if printed.strip() else ""
            reason = f"`{path} --version` did not print a Node.js version (exit {answer.returncode}" + (
                f", printed {shown!r})" if shown else ")"
            )
        return {
            "path": path,
            "version": None,
            "problem": _problem("node-missing", "Node.js does not run", f"{reason}.", _node_fix(where)),
        }
    text = ".".join(str(part) for part in version)
    if version[: len(NODE_REQUIRED)] < NODE_REQUIRED:
        return {
            "path": path,
            "version": text,
            "problem": _problem(
                "node-too-old",
                f"Node.js {text} is too old",
                f"{where.needs[0].upper()}{where.needs[1:]} needs Node.js 20 or newer; {path} is {text}.",
                _node_fix(where),
            ),
        }
    return {"path": path, "version": text, "problem": None}


def node_error_message(problem):
    """The one-line message the proxy entry raises with (it reaches the server log)."""
    return f"{problem['title']}: {problem['detail']} {problem['fix']}"


def check_server_proxy(enabled=None):
    """jupyter-server-proxy's version, and a problem when it is missing, too old or not enabled.

    ``enabled`` is the server's ``jpserver_extensions`` (None: not known)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        version = dist_version("jupyter-server-proxy")
    except PackageNotFoundError:
        version = None
    if version is None:
        try:
            import jupyter_server_proxy  # a copy without dist-info (on PYTHONPATH) has __version__

            version = getattr(jupyter_server_proxy, "__version__", None) or "0"
        except Exception as error:  # ImportError, or a broken install failing on import
            why = "" if isinstance(error, ModuleNotFoundError) else f" ({error.__class__.__name__}: {error})"
            return {
                "version": None,
                "problem": _problem(
                    "server-proxy-missing",
                    "jupyter-server-proxy is not installed",
                    "The Project Startup service runs behind jupyter-server-proxy (4.1 or newer), "
                    f"which the Python of this Jupyter server ({sys.executable}) cannot import{why}.",
                    "Install it in the same environment as the Jupyter server "
                    "(`pip install 'jupyter-server-proxy>=4.1'` or `conda install -c conda-forge "
                    "jupyter-server-proxy`), then restart the Jupyter server.",
                ),
            }
    version = str(version)
    parsed = _version_tuple(version)
    if parsed is None or parsed[:2] < SERVER_PROXY_REQUIRED:
        return {
            "version": version,
            "problem": _problem(
                "server-proxy-too-old",
                f"jupyter-server-proxy {version} is too old",
                "The Project Startup service needs jupyter-server-proxy 4.1 or newer "
                "(Unix sockets and entry points with callable commands).",
                "Upgrade it in the Jupyter server's environment (`pip install -U 'jupyter-server-proxy>=4.1'`), "
                "then restart the Jupyter server.",
            ),
        }
    if enabled is not None and not enabled.get("jupyter_server_proxy", False):
        return {
            "version": version,
            "problem": _problem(
                "server-proxy-missing",
                "jupyter-server-proxy is not enabled",
                f"jupyter-server-proxy {version} is installed but not enabled as a Jupyter server "
                "extension, so nothing serves {base_url}project/.",
                "Enable it: `jupyter server extension enable --sys-prefix jupyter_server_proxy` "
                '(or ServerApp.jpserver_extensions = {"jupyter_server_proxy": True}), then restart the Jupyter server.',
            ),
        }
    return {"version": version, "problem": None}


# jupyter-server-proxy 4.3 brought a server entry's ``update_last_activity``; before it, every
# proxied request counts as the person's activity.
SERVER_PROXY_ACTIVITY_OPTION = (4, 3)


def server_proxy_culling_caveat(version):
    """The warning for an operator whose jupyter-server-proxy (``version``, as check_server_proxy
    read it) cannot keep the panel's polls from counting as activity; None from 4.3 on."""
    text = str(version or "")
    parsed = _version_tuple(text)
    if parsed is None or parsed[:2] >= SERVER_PROXY_ACTIVITY_OPTION:
        return None
    return (
        f"jupyter-server-proxy {text} counts every request to the Project Startup service as "
        "activity (update_last_activity needs 4.3 or newer), so an open Project Startup panel, "
        "which polls it, keeps JupyterHub's idle culler from stopping this server. "
        "Fix: pip install -U 'jupyter-server-proxy>=4.3', then restart the Jupyter server."
    )


def diagnostics_file_path(runtime_dir, server_pid=None):
    """Where the sidecar launched for this Jupyter server reports its state."""
    pid = os.getpid() if server_pid is None else server_pid
    return os.path.join(runtime_dir, f"project-startup-{pid}.json")


def _pid_alive(pid):
    if not isinstance(pid, int) or pid <= 0:
        return False
    if sys.platform == "win32":
        # os.kill would terminate the process on Windows; assume the report is current.
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_sidecar_state(path):
    """The sidecar's own report (written by `project-startup serve`), as the contract shows it."""
    state = {"state": "not-started", "lastError": None, "logTail": [], "diagnosticsFile": path, "siteConfig": None}
    # Only a private file of this user: Jupyter's runtime directory may be writable by others.
    text = read_private_text(path)
    if text is None:
        return state
    try:
        report = json.loads(text)
    except ValueError:
        return state
    if not isinstance(report, dict):
        return state
    if report.get("state") == "running":
        # A sidecar that is gone (stopped, killed) is started again by the proxy on the next request.
        state["state"] = "running" if _pid_alive(report.get("pid")) else "not-started"
        if state["state"] == "running":
            state["siteConfig"] = _site_config(report.get("siteConfig"))
    elif report.get("state") == "failed":
        state["state"] = "failed"
        last_error = report.get("lastError")
        state["lastError"] = last_error if isinstance(last_error, str) else None
        tail = report.get("logTail")
        if isinstance(tail, list):
            state["logTail"] = [line for line in tail if isinstance(line, str)][-LOG_TAIL_LINES:]
    return state


def _site_config(value):
    """The site configuration file the running sidecar read, or None and where it looked."""
    if not isinstance(value, dict):
        return None
    file = value.get("file")
    looked = value.get("looked")
    if not (file is None or isinstance(file, str)) or not isinstance(looked, list):
        return None
    looked = [path for path in looked if isinstance(path, str)]
    described = f"{file}" if file is not None else "none found (looked in {})".format(", ".join(looked) or "nothing")
    return {"file": file, "looked": looked, "described": described}


def sidecar_problem(sidecar):
    if sidecar["state"] != "failed":
        return None
    return _problem(
        "sidecar-failed",
        "The Project Startup service could not start",
        sidecar["lastError"] or "The sidecar stopped during start-up without a message; see its last log lines.",
        "Correct what the message names (often a PROJECT_STARTUP_* variable in the Jupyter server's "
        "environment, such as the single-user image or the hub's extraEnv), then restart the Jupyter "
        "server. The full log is in the Jupyter server's output (stderr).",
    )


def diagnostics_report(version, node, server_proxy, sidecar):
    """The diagnostics route's answer: a pure function of what was checked."""
    problems = [p for p in (server_proxy["problem"], node["problem"], sidecar_problem(sidecar)) if p]
    return {
        "version": version,
        "ok": not problems,
        "problems": problems,
        "node": {"path": node["path"], "version": node["version"], "required": NODE_REQUIRED_TEXT},
        "serverProxy": {"version": server_proxy["version"], "required": SERVER_PROXY_REQUIRED_TEXT},
        "sidecar": sidecar,
    }


def remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass
