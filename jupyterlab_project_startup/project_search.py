"""Which directory is the project when none was named, for the notebook client: as the command
line finds it (and as git finds a repository), the nearest directory at or above the working
directory whose private state holds a record naming that very directory, else the working
directory itself.

The Python twin of sidecar/src/core/project-search.ts (the rule) and
sidecar/src/observe/project-search.ts (its looks). The two languages share no code, so they
share test vectors: test/fixtures/project-search-cases.json, run by the jest unit test of the
TypeScript rule and by the pytest of this one. ``find_project_dir`` is pure: the looks are
passed in; ``find_initialized_project`` gives it the real ones.
"""

import hashlib
import json
import os
import re
import stat as stat_module

STATE_DIR = ".project-startup"
RECORD_FILE = "initialization.json"
RECORD_MAX_BYTES = 64 * 1024
PLATFORM_SETTING = "PROJECT_STARTUP_PLATFORM"
# sidecar/src/core/platforms/rules.ts: PLATFORM_RULES, first match decides (cluster's signals
# are any one of them, the hosted notebook's both); container markers never select.
_CLUSTER_SIGNALS = ("SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "SLURM_CONF")
_CLUSTER_FILES = ("/etc/slurm/slurm.conf",)
_HOSTED_SIGNALS = ("JUPYTERHUB_API_URL", "JUPYTERHUB_USER")
# The platforms a setting may name: startup.schema.json's, as scripts/schema-code.js wrote them.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema_lists.json"), encoding="utf-8") as _file:
    PLATFORM_IDS = tuple(json.load(_file)["platformIds"])


def search_candidates(working_dir, home_dir):
    """The directories looked at, nearest first: the working directory and its parents, stopping
    below the filesystem root and below the home directory's parent (another user's tree)."""
    ceiling = None if home_dir is None else os.path.dirname(home_dir)
    candidates = [working_dir]
    directory = working_dir
    while True:
        parent = os.path.dirname(directory)
        if parent == directory or parent == os.path.dirname(parent) or parent == ceiling:
            return candidates
        candidates.append(parent)
        directory = parent


def marker_may_be_ours(look, user_uid):
    """Whether a marker (one lstat, as a dict: kind, isDirectory, isSymbolicLink, uid, mode) may
    be this user's state: a real, private directory of theirs."""
    return (
        look.get("kind") == "entry"
        and bool(look.get("isDirectory"))
        and not look.get("isSymbolicLink")
        and (user_uid == -1 or look.get("uid") == user_uid)
        and (look.get("mode", 0o777) & 0o077) == 0
    )


def find_project_dir(working_dir, home_dir, user_uid, state_path_of, look_at_marker, is_initialized):
    """The nearest candidate whose state is initialized for that very directory, else the working
    directory. One look per level; ``is_initialized`` only where a private directory of ours
    stands."""
    for candidate in search_candidates(working_dir, home_dir):
        look = look_at_marker(state_path_of(candidate))
        if marker_may_be_ours(look, user_uid) and is_initialized(candidate):
            return candidate
    return working_dir


def select_platform(env, file_exists=os.path.exists):
    """The platform the service would select from this environment, or None for a setting it
    would refuse (then nothing is searched, as in Node)."""
    setting = env.get(PLATFORM_SETTING) or None
    if setting is not None:
        return setting if setting in PLATFORM_IDS else None
    if any(env.get(name) for name in _CLUSTER_SIGNALS) or any(file_exists(f) for f in _CLUSTER_FILES):
        return "cluster"
    if all(env.get(name) for name in _HOSTED_SIGNALS):
        return "hosted-notebook"
    return "generic"


def state_dir_name(project_path):
    """``<name>-<first 12 hex of sha256(project path)>`` (stateDirName in hosted-notebook.ts)."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(project_path))
    base = re.sub(r"^\.+", "_", base)
    digest = hashlib.sha256(project_path.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return "{}-{}".format(base[:64] or "project", digest)


def place_state(platform, project_path, home_dir):
    """Where the platform keeps a project's state: ``(state_path, parents_to_create)``."""
    if platform == "hosted-notebook":
        root = os.path.join(home_dir if home_dir is not None else project_path, STATE_DIR)
        projects = os.path.join(root, "projects")
        return os.path.join(projects, state_dir_name(project_path)), [root, projects]
    return os.path.join(project_path, STATE_DIR), []


def look_at_marker(state_path):
    """One lstat, never following a link; anything unreadable on the way is nothing of ours."""
    try:
        st = os.lstat(state_path)
    except OSError:
        return {"kind": "absent"}
    return {
        "kind": "entry",
        "isDirectory": stat_module.S_ISDIR(st.st_mode),
        "isSymbolicLink": stat_module.S_ISLNK(st.st_mode),
        "uid": st.st_uid,
        "mode": st.st_mode,
    }


def _safe_directory(path, user_uid, require_private):
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not stat_module.S_ISDIR(st.st_mode) or (user_uid != -1 and st.st_uid != user_uid):
        return False
    if st.st_mode & 0o002 and not st.st_mode & 0o1000:
        return False
    return not (require_private and st.st_mode & 0o077)


def record_names(state_path, parents, project_path, user_uid):
    """Whether the state at ``state_path`` is initialized for ``project_path`` (StateInspector's
    "initialized"): safe parents, a private directory of ours, and in it a private regular file
    of ours holding this service's record that names this project and this state path."""
    if not all(_safe_directory(p, user_uid, False) for p in parents):
        return False
    if not _safe_directory(state_path, user_uid, True):
        return False
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_DIRECTORY", 0)
    try:
        dir_fd = os.open(state_path, flags)
    except OSError:
        return False
    try:
        fd = os.open(RECORD_FILE, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0), dir_fd=dir_fd)
    except OSError:
        return False
    finally:
        os.close(dir_fd)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if (
            not stat_module.S_ISREG(st.st_mode)
            or (user_uid != -1 and st.st_uid != user_uid)
            or st.st_mode & 0o077
            or st.st_size > RECORD_MAX_BYTES
        ):
            return False
        try:
            record = json.loads(f.read(RECORD_MAX_BYTES + 1).decode("utf-8"))
        except (OSError, ValueError):
            return False
    confirmation = record.get("confirmation") if isinstance(record, dict) else None
    return (
        isinstance(record, dict)
        and record.get("kind") == "project-startup-state"
        and isinstance(confirmation, dict)
        and isinstance(confirmation.get("confirmedAt"), str)
        and record.get("projectPath") == project_path
        and record.get("statePath") == state_path
    )


def find_initialized_project(working_dir, home_dir, env):
    """The nearest initialized project at or above ``working_dir`` (a real path), else
    ``working_dir``; with a platform setting the service would refuse, ``working_dir``."""
    platform = select_platform(env)
    if platform is None:
        return working_dir
    user_uid = os.getuid() if hasattr(os, "getuid") else -1

    def state_path_of(candidate):
        return place_state(platform, candidate, home_dir)[0]

    def is_initialized(candidate):
        state_path, parents = place_state(platform, candidate, home_dir)
        return record_names(state_path, parents, candidate, user_uid)

    return find_project_dir(working_dir, home_dir, user_uid, state_path_of, look_at_marker, is_initialized)


def working_project(env=None):
    """The project of this process's working directory, as the command line would find it; None
    when the working directory is gone."""
    env = os.environ if env is None else env
    try:
        working_dir = os.path.realpath(os.getcwd())
    except OSError:
        return None
    home = env.get("HOME") or os.path.expanduser("~")
    home_dir = os.path.realpath(home) if home else None
    return find_initialized_project(working_dir, home_dir, env)
