"""project_search.py, the Python twin of sidecar/src/core/project-search.ts: the shared test
vectors (test/fixtures/project-search-cases.json, also run by the jest unit test), then its
looks on a real filesystem."""

import json
import os

import pytest
from conftest import REPO

from jupyterlab_project_startup import project_search
from jupyterlab_project_startup.project_search import (
    find_initialized_project,
    find_project_dir,
    marker_may_be_ours,
    place_state,
    search_candidates,
    select_platform,
    site_config_candidates,
    site_platform,
)

CASES = json.loads((REPO / "test" / "fixtures" / "project-search-cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES["search"], ids=[c["name"] for c in CASES["search"]])
def test_the_shared_search_vectors(case):
    looked, inspected = [], []

    def look(state_path):
        looked.append(state_path)
        return case["markers"].get(os.path.dirname(state_path), {"kind": "absent"})

    def is_initialized(candidate):
        inspected.append(candidate)
        return candidate in case["initialized"]

    found = find_project_dir(
        case["workingDir"],
        case["homeDir"],
        case["userUid"],
        lambda candidate: os.path.join(candidate, ".project-startup"),
        look,
        is_initialized,
    )
    assert {"found": found, "looked": looked, "inspected": inspected} == {
        "found": case["found"],
        "looked": case["looked"],
        "inspected": case["inspected"],
    }


@pytest.mark.parametrize("case", CASES["candidates"], ids=[c["workingDir"] for c in CASES["candidates"]])
def test_the_shared_candidate_vectors(case):
    assert search_candidates(case["workingDir"], case["homeDir"]) == case["candidates"]


def test_the_shared_marker_vectors():
    assert [marker_may_be_ours(m["look"], m["userUid"]) for m in CASES["markers"]] == [
        m["ours"] for m in CASES["markers"]
    ]


def test_the_platform_is_selected_as_the_service_selects_it():
    def no_files(_path):
        return False

    assert select_platform({}, no_files) == "generic"
    assert select_platform({"JUPYTERHUB_API_URL": "x"}, no_files) == "generic"
    assert select_platform({"JUPYTERHUB_API_URL": "x", "JUPYTERHUB_USER": "a"}, no_files) == "hosted-notebook"
    assert (
        select_platform({"SLURM_JOB_ID": "1", "JUPYTERHUB_API_URL": "x", "JUPYTERHUB_USER": "a"}, no_files) == "cluster"
    )
    assert select_platform({}, lambda p: p == "/etc/slurm/slurm.conf") == "cluster"
    assert select_platform({"PROJECT_STARTUP_PLATFORM": "generic", "SLURM_JOB_ID": "1"}, no_files) == "generic"
    assert select_platform({"PROJECT_STARTUP_PLATFORM": "mainframe"}, no_files) is None


@pytest.mark.parametrize("case", CASES["platforms"], ids=[c["name"] for c in CASES["platforms"]])
def test_the_shared_platform_vectors(case):
    """The platform the service selects (from the signals, the site file's ``platform`` and the
    variable) and where it keeps the state, by the vectors test/unit/platform-vectors.test.ts runs."""
    files = set(case["files"])
    platform = select_platform(case["env"], files.__contains__, site_platform=case["sitePlatform"])
    assert platform == case["platform"]
    if platform is not None:
        assert place_state(platform, case["projectPath"], case["homeDir"]) == (
            case["statePath"],
            case["parentsToCreate"],
        )


def test_the_site_file_platform_is_read_where_the_service_finds_the_file(tmp_path):
    config = tmp_path / "etc" / "jupyter"
    config.mkdir(parents=True)
    site = config / "project-startup.json"
    site.write_text(json.dumps({"platform": "hosted-notebook"}), encoding="utf-8")
    site.chmod(0o644)
    env = {"JUPYTER_CONFIG_PATH": str(config)}
    candidates = site_config_candidates(env, str(tmp_path / "home"), str(tmp_path / "prefix"))
    assert str(site) in candidates
    assert site_platform(candidates) == "hosted-notebook"
    # $PROJECT_STARTUP_CONFIG names the one file, as for the service.
    assert site_config_candidates({"PROJECT_STARTUP_CONFIG": str(site)}, None, "/usr") == [str(site)]
    # The environment's own <sys.prefix>/etc/jupyter is looked in, as Jupyter does.
    assert site_config_candidates({}, None, str(tmp_path))[0] == str(config / "project-startup.json")
    # A file others may write is not believed; nor is a value that names no platform.
    site.chmod(0o666)
    assert site_platform([str(site)]) is None
    site.chmod(0o644)
    site.write_text(json.dumps({"platform": "mainframe"}), encoding="utf-8")
    assert site_platform([str(site)]) is None
    assert site_platform([str(tmp_path / "absent.json")]) is None


def test_a_site_file_platform_finds_the_state_where_the_service_put_it(tmp_path, monkeypatch):
    """A site file saying hosted-notebook (no variable, no hub signals): the state is under the
    home, and the project is found from a subdirectory."""
    home = os.path.realpath(tmp_path / "home")
    project = os.path.join(home, "work", "p")
    sub = os.path.join(project, "a")
    os.makedirs(sub)
    state, parents = place_state("hosted-notebook", project, home)
    for parent in parents:
        os.makedirs(parent, mode=0o700, exist_ok=True)
    write_state(project, state=state)
    config = tmp_path / "jupyter"
    config.mkdir()
    (config / "project-startup.json").write_text(json.dumps({"platform": "hosted-notebook"}), encoding="utf-8")
    (config / "project-startup.json").chmod(0o644)
    env = {"HOME": home, "JUPYTER_CONFIG_DIR": str(config)}
    # Without the site file's word the generic platform looks in the project, and finds nothing.
    assert find_initialized_project(sub, home, env) == sub
    monkeypatch.chdir(sub)
    assert project_search.working_project(env) == project


def write_state(project, state=None, record_project=None, mode=0o700, record_state=None):
    state = state or os.path.join(project, ".project-startup")
    os.makedirs(state, mode=mode)
    os.chmod(state, mode)
    record = {
        "kind": "project-startup-state",
        "projectPath": record_project or str(project),
        "statePath": record_state or state,
        "confirmation": {"confirmedAt": "2026-11-26T00:00:00.000Z"},
    }
    path = os.path.join(state, "initialization.json")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w", encoding="utf-8") as f:
        json.dump(record, f)
    return state


@pytest.fixture
def tree(tmp_path):
    home = tmp_path / "home" / "alice"
    project = home / "p"
    sub = project / "a" / "b"
    sub.mkdir(parents=True)
    return str(home), str(project), str(sub)


def test_finds_the_initialized_project_from_a_subdirectory(tree):
    home, project, sub = tree
    assert find_initialized_project(sub, home, {}) == sub
    write_state(project)
    assert find_initialized_project(sub, home, {}) == project
    assert find_initialized_project(project, home, {}) == project


def test_a_state_others_can_read_is_not_taken(tree):
    home, project, sub = tree
    shared = 0o750
    state = write_state(project, mode=shared)
    assert find_initialized_project(sub, home, {}) == sub
    os.chmod(state, 0o700)
    assert find_initialized_project(sub, home, {}) == project


def test_a_record_naming_another_directory_or_a_linked_state_is_not_taken(tree, tmp_path):
    home, project, sub = tree
    write_state(project, record_project=os.path.join(project, "a"))
    assert find_initialized_project(sub, home, {}) == sub
    # A link to a state that names the linking directory: still not taken.
    a = os.path.join(project, "a")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = write_state(str(elsewhere), record_project=a, record_state=os.path.join(a, ".project-startup"))
    os.symlink(linked, os.path.join(a, ".project-startup"))
    assert find_initialized_project(sub, home, {}) == sub
    os.remove(os.path.join(a, ".project-startup"))
    write_state(a)
    assert find_initialized_project(sub, home, {}) == a


def test_never_at_the_home_directorys_parent(tree):
    home, _, sub = tree
    write_state(os.path.dirname(home))
    assert find_initialized_project(sub, home, {}) == sub


def test_a_hosted_notebook_keeps_the_state_under_home(tree):
    home, project, sub = tree
    hub = {"JUPYTERHUB_API_URL": "http://127.0.0.1:1/hub/api", "JUPYTERHUB_USER": "alice"}
    state, parents = project_search.place_state("hosted-notebook", project, home)
    os.makedirs(parents[1], mode=0o700)
    write_state(project, state=state)
    assert find_initialized_project(sub, home, hub) == project
    # The generic platform looks in the project itself, where nothing is.
    assert find_initialized_project(sub, home, {}) == sub
