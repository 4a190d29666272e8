"""The runtime directory and version reading take jupyter_core's and packaging's answers, and
read the same without them (a kernel where the package was installed with --no-deps)."""

import os
import sys

import pytest
from jupyter_core.paths import jupyter_runtime_dir

from jupyterlab_project_startup.checks import _version_tuple
from jupyterlab_project_startup.discovery import _runtime_dir

JUPYTER_VARIABLES = ("JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "JUPYTER_PLATFORM_DIRS", "XDG_DATA_HOME")


@pytest.fixture
def without(monkeypatch):
    """``without("packaging")``: that module cannot be imported for the rest of the test."""

    def hide(*names):
        for name in names:
            for loaded in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
                monkeypatch.delitem(sys.modules, loaded)
            monkeypatch.setitem(sys.modules, name, None)

    return hide


@pytest.mark.parametrize(
    "variables",
    [
        {},
        {"JUPYTER_RUNTIME_DIR": "/elsewhere/runtime"},
        {"JUPYTER_DATA_DIR": "/data"},
        {"XDG_DATA_HOME": "/xdg"},
        {"JUPYTER_PLATFORM_DIRS": "1", "XDG_DATA_HOME": "/xdg"},
        {"JUPYTER_PLATFORM_DIRS": "0"},
    ],
    ids=lambda variables: ",".join(variables) or "none",
)
def test_the_runtime_directory_is_jupyter_cores_with_or_without_it(monkeypatch, tmp_path, without, variables):
    for name in JUPYTER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    expected = jupyter_runtime_dir()
    assert _runtime_dir(os.environ) == expected
    # Another environment than the process's, and the process's without jupyter_core: the same.
    assert _runtime_dir(dict(os.environ)) == expected
    without("jupyter_core")
    assert _runtime_dir(os.environ) == expected


def test_the_platform_dirs_setting_moves_the_runtime_directory_on_macos(monkeypatch, tmp_path):
    # jupyter_core asks platformdirs, which picks its platform at import: the rule itself, here.
    monkeypatch.setattr(sys, "platform", "darwin")
    env = {"HOME": str(tmp_path)}
    assert _runtime_dir(env) == str(tmp_path / "Library" / "Jupyter" / "runtime")
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    assert _runtime_dir(env) == str(tmp_path / "Library" / "Application Support" / "jupyter" / "runtime")


@pytest.mark.parametrize(
    ("printed", "release"),
    [
        ("v22.11.0\n", (22, 11, 0)),
        ("v20.0.0-pre", (20, 0, 0)),
        ("v23.0.0-nightly20241120abcdef", (23, 0, 0)),
        ("4.1", (4, 1)),
        ("4.1.1-0.dev", (4, 1, 1)),
        ("4.3.0rc1", (4, 3, 0)),
        ("something else", None),
        ("", None),
    ],
)
@pytest.mark.parametrize("packaging", [True, False], ids=["packaging", "no-packaging"])
def test_versions_read_the_same_with_or_without_packaging(without, printed, release, packaging):
    if not packaging:
        without("packaging")
    assert _version_tuple(printed) == release
