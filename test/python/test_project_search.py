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
    search_candidates,
    select_platform,
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
