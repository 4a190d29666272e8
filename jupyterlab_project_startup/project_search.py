"""Which directory is the project when none was named, for the notebook client: as the command
line finds it (and as git finds a repository), the nearest directory at or above the working
directory whose private state holds a record naming that very directory, else the working
directory itself.

The Python twin of sidecar/src/core/project-search.ts (the rule) and
sidecar/src/observe/project-search.ts (its looks). The two languages share the platform rules
and the state placement as data (platform_rules.json, generated from sidecar/src/core/platforms/)
and share test vectors: test/fixtures/project-search-cases.json, run by the jest unit test of the
TypeScript rule and by the pytest of this one. ``find_project_dir`` is pure: the looks are
passed in; ``find_initialized_project`` gives it the real ones.
"""

import hashlib
import json
import os
import re
import stat as stat_module
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
# The service's platform signals, selection rules and state placement, as scripts/platform-rules.js
# writes them from sidecar/src/core/platforms/: one source for both languages.
with open(os.path.join(_HERE, "platform_rules.json"), encoding="utf-8") as _file:
    _RULES = json.load(_file)
STATE_DIR = _RULES["stateDir"]
PLATFORM_SETTING = _RULES["setting"]
RECORD_FILE = "initialization.json"
RECORD_MAX_BYTES = 64 * 1024
SITE_CONFIG_FILE = "project-startup.json"
SITE_CONFIG_ENV = "PROJECT_STARTUP_CONFIG"
SITE_CONFIG_MAX_BYTES = 256 * 1024
# The platforms a setting may name: startup.schema.json's, as scripts/schema-code.js wrote them.
with open(os.path.join(_HERE, "schema_lists.json"), encoding="utf-8") as _file:
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


def _signal_present(signal, env, file_exists):
    if signal["kind"] == "env":
        return bool(env.get(signal["name"]))
    return file_exists(signal["name"])


def select_platform(env, file_exists=os.path.exists, site_platform=None):
    """The platform the service would select (selectPlatform in core/platforms/rules.ts, by the
    same rules read from platform_rules.json): the variable, else the site file's ``platform``,
    else the first rule the evidence matches; None for a setting it would refuse (then nothing is
    searched, as in Node)."""
    setting = env.get(PLATFORM_SETTING) or site_platform or None
    if setting is not None:
        return setting if setting in PLATFORM_IDS else None
    present = {s["name"] for s in _RULES["signals"] if _signal_present(s, env, file_exists)}
    for rule in _RULES["rules"]:
        signals = rule["signals"]
        if not signals:
            return rule["platform"]
        matches = all if rule["match"] == "all" else any
        if matches(name in present for name in signals):
            return rule["platform"]
    return "generic"


def state_dir_name(project_path):
    """``<name>-<first 12 hex of sha256(project path)>`` (stateDirName in placement.ts)."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(project_path))
    base = re.sub(r"^\.+", "_", base)
    digest = hashlib.sha256(project_path.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return "{}-{}".format(base[:64] or "project", digest)


def place_state(platform, project_path, home_dir):
    """Where the platform keeps a project's state: ``(state_path, parents_to_create)``, by the
    placement rule platform_rules.json gives it (placeStateOn in placement.ts)."""
    if _RULES["statePlacement"][platform] == "in-project":
        return os.path.join(project_path, STATE_DIR), []
    root = os.path.join(home_dir if home_dir is not None else project_path, STATE_DIR)
    projects = os.path.join(root, "projects")
    return os.path.join(projects, state_dir_name(project_path)), [root, projects]


def site_config_candidates(env, home_dir, prefix):
    """Where the service looks for the site file (siteConfigCandidates in core/site-config-rules.ts),
    with this Python's own ``<prefix>/etc/jupyter`` among the environment's directories."""
    named = env.get(SITE_CONFIG_ENV)
    if named:
        return [named] if os.path.isabs(named) else []
    if env.get("JUPYTER_NO_CONFIG"):
        return []
    user = [env["JUPYTER_CONFIG_DIR"]] if env.get("JUPYTER_CONFIG_DIR") else []
    if not user and home_dir is not None:
        user = [os.path.join(home_dir, ".jupyter")]
    environment = [d for d in (env.get("JUPYTER_CONFIG_PATH") or "").split(os.pathsep) if d]
    environment.append(os.path.join(prefix, "etc", "jupyter"))
    candidates = []
    for directory in user + environment + ["/usr/local/etc/jupyter", "/etc/jupyter"]:
        path = os.path.join(directory, SITE_CONFIG_FILE)
        if os.path.isabs(directory) and path not in candidates:
            candidates.append(path)
    return candidates


def site_platform(candidates):
    """The ``platform`` key of the first site file among ``candidates`` that exists, when only
    root or this user can have written it (the service refuses any other file, and then decides
    nothing); None without one, or for a file or value the service would refuse."""
    for path in candidates:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            continue
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            uid = os.getuid() if hasattr(os, "getuid") else None
            if (
                not stat_module.S_ISREG(info.st_mode)
                or info.st_mode & 0o022
                or (uid is not None and info.st_uid not in (0, uid))
                or info.st_size > SITE_CONFIG_MAX_BYTES
            ):
                return None
            with os.fdopen(fd, "rb", closefd=False) as f:
                document = json.loads(f.read(SITE_CONFIG_MAX_BYTES + 1).decode("utf-8"))
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)
        value = document.get("platform") if isinstance(document, dict) else None
        return value if isinstance(value, str) and value in PLATFORM_IDS else None
    return None


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


def find_initialized_project(working_dir, home_dir, env, site_platform_value=None):
    """The nearest initialized project at or above ``working_dir`` (a real path), else
    ``working_dir``; with a platform setting the service would refuse, ``working_dir``.
    ``site_platform_value``: the site file's ``platform``, if it has one."""
    platform = select_platform(env, site_platform=site_platform_value)
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
    found_platform = (
        None if env.get(PLATFORM_SETTING) else site_platform(site_config_candidates(env, home_dir, sys.prefix))
    )
    return find_initialized_project(working_dir, home_dir, env, found_platform)
