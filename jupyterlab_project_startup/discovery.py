"""Which Jupyter server is this user's: its runtime files (``jpserver-<pid>.json``), each proven
by its process (owner, start time, listening socket) before its token is used. The one rule of
README "How a client finds its Jupyter server" (Node's twin: sidecar/src/cli/jupyter-discovery.ts);
``client.find_server`` applies it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse


def _runtime_dir(env):
    """Jupyter's runtime directory: jupyter_core's answer for this process's environment. A
    kernel where the package was installed with --no-deps may lack jupyter_core, and an
    environment other than the process's is not one jupyter_core reads: then the same rules here
    (JUPYTER_RUNTIME_DIR, JUPYTER_DATA_DIR, JUPYTER_PLATFORM_DIRS, the platform's default), as
    jupyterUserDirs in sidecar/src/observe/jupyter-runtime.ts."""
    if env is os.environ:
        try:
            from jupyter_core.paths import jupyter_runtime_dir
        except ImportError:
            pass
        else:
            return jupyter_runtime_dir()
    if env.get("JUPYTER_RUNTIME_DIR"):
        return env["JUPYTER_RUNTIME_DIR"]
    data = env.get("JUPYTER_DATA_DIR")
    if not data:
        home = env.get("HOME") or os.path.expanduser("~")
        # jupyter_core's envset: set, and not one of its words for "no".
        setting = env.get("JUPYTER_PLATFORM_DIRS", "").lower()
        platform_dirs = setting not in ("", "no", "n", "false", "off", "0", "0.0")
        if sys.platform == "darwin":
            # platformdirs' user_data_dir, as jupyter_core asks it.
            parts = ("Library", "Application Support", "jupyter") if platform_dirs else ("Library", "Jupyter")
            data = os.path.join(home, *parts)
        elif sys.platform == "win32":
            if platform_dirs:
                data = os.path.join(env.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local"), "jupyter")
            elif env.get("APPDATA"):
                data = os.path.join(env["APPDATA"], "jupyter")
            else:
                data = os.path.join(env.get("JUPYTER_CONFIG_DIR") or os.path.join(home, ".jupyter"), "data")
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
        return f"process {pid}{_NOT_RUNNING}"
    if owner != os.getuid():
        return f"process {pid} belongs to another user (uid {owner})"
    started = _process_start(pid)
    if started is None:
        return f"the start time of process {pid} cannot be read"
    # A process start is known to 10 ms (/proc) or 1 s (ps), and a runtime directory on a network
    # file system takes its times from the file server's clock: 2 s of slack (as in Node).
    if started > file_written + _START_SLACK_S:
        return f"process {pid} started after its runtime file was written: it is not the server that wrote it"
    if _listener_belongs_to(pid, port) is False:
        return f"process {pid} does not hold the listener on port {port}"
    return None


def _ps(field, pid):
    try:
        answer = subprocess.run(
            ["ps", "-o", field + "=", "-p", str(pid)],
            capture_output=True,
            timeout=2,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return answer.stdout.decode("ascii", "replace").strip() if answer.returncode == 0 else None


def _process_owner(pid):
    if sys.platform.startswith("linux"):
        try:
            return os.stat(f"/proc/{pid}").st_uid
        except OSError:
            return None
    out = _ps("uid", pid)
    return int(out) if out and out.isdigit() else None


def _process_start(pid):
    """When the process started, in seconds since the epoch; None when it cannot be told."""
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
            with open("/proc/uptime", "rb") as f:
                uptime = float(f.read().split()[0])
            # Field 22, counted after the parenthesised command name (which may hold spaces).
            ticks = int(stat[stat.rindex(")") + 2 :].split(" ")[19])
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
        fd_dir = f"/proc/{pid}/fd"
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
            [lsof, "-nP", "-a", "-p", str(pid), f"-iTCP:{port}", "-sTCP:LISTEN", "-t"],
            capture_output=True,
            timeout=5,
            stdin=subprocess.DEVNULL,
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
            if (
                (hasattr(os, "getuid") and stat.st_uid != os.getuid())
                or stat.st_mode & 0o022
                or stat.st_size > 64 * 1024
            ):
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
                refused.append(f"{path}: {refusal}")
            continue
        token = info.get("token")
        root = info.get("root_dir", info.get("notebook_dir"))
        servers.append(
            {
                "url": url,
                "token": token if isinstance(token, str) else "",
                "pid": pid,
                "root_dir": root if isinstance(root, str) else None,
                "file": path,
            }
        )
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
        s
        for s in servers
        if s["root_dir"] and (directory == s["root_dir"] or directory.startswith(s["root_dir"].rstrip(os.sep) + os.sep))
    ]
    return holding[0] if len(holding) == 1 else None
