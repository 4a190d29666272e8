"""The runtime directory the Python client looks in is jupyter_core's, as the server writes it."""

from jupyter_core.paths import jupyter_runtime_dir

from jupyterlab_project_startup.discovery import _runtime_dir


def test_the_runtime_directory_is_jupyter_cores(monkeypatch, tmp_path):
    monkeypatch.delenv("JUPYTER_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    assert _runtime_dir({}) == jupyter_runtime_dir() == str(tmp_path / "data" / "runtime")


def test_a_runtime_directory_named_in_the_environment_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "process"))
    assert _runtime_dir({"JUPYTER_RUNTIME_DIR": str(tmp_path / "given")}) == str(tmp_path / "given")
