"""The package in a real Jupyter server (jupyter_server from the stack venv, the vendored
jupyter-server-proxy): the sidecar's project is Jupyter's root directory, every route needs the
server's token, and the culling caveat of jupyter-server-proxy < 4.3 reaches the log once."""

import os

import pytest
from conftest import SERVER_PROXY_4_1

STARTUP = "project/startup?interface=notebook"
DIAGNOSTICS = "api/project-startup/diagnostics"
CAVEAT = "update_last_activity needs 4.3 or newer"


@pytest.fixture
def dirs(tmp_path):
    root = tmp_path / "root with {braces}"
    elsewhere = tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    return root, elsewhere


@pytest.fixture(scope="module")
def shared(module_jupyter, tmp_path_factory):
    """One `jupyter lab` with jupyter-server-proxy 4.4.0, its root directory apart from its
    working directory, for the tests that only read: (server, root)."""
    base = tmp_path_factory.mktemp("shared")
    root = base / "root with {braces}"
    elsewhere = base / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    return module_jupyter(root_dir=root, cwd=elsewhere, app="jupyterlab"), root


@pytest.fixture(scope="module")
def shared_4_1(module_jupyter, tmp_path_factory):
    """The same with the vendored jupyter-server-proxy 4.1.2."""
    base = tmp_path_factory.mktemp("shared-4.1")
    (base / "root").mkdir()
    (base / "elsewhere").mkdir()
    return module_jupyter(root_dir=base / "root", cwd=base / "elsewhere", server_proxy=SERVER_PROXY_4_1), base / "root"


def test_the_project_is_jupyters_root_directory_not_its_working_directory(shared):
    server, root = shared
    assert "JupyterLab application directory" in server.log()  # `jupyter lab`, not a bare server
    startup = server.json(STARTUP)
    assert startup["projectPath"] == os.path.realpath(root)
    assert startup["statePath"] == os.path.join(os.path.realpath(root), ".project-startup")
    # The diagnostics see the sidecar the proxy started, and no problem.
    report = server.json(DIAGNOSTICS)
    assert report["ok"] is True, report
    assert report["serverProxy"]["version"] == "4.4.0"
    assert CAVEAT not in server.log()


def test_an_operators_project_directory_wins_over_the_root_directory(jupyter, dirs, tmp_path):
    root, elsewhere = dirs
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    server = jupyter(root_dir=root, cwd=elsewhere, env={"PROJECT_STARTUP_PROJECT_DIR": str(chosen)})
    assert server.json(STARTUP)["projectPath"] == os.path.realpath(chosen)


def test_every_route_refuses_a_request_without_the_servers_token(shared):
    server, root = shared
    for token in (False, "not-the-token"):
        status, _, body = server.request(DIAGNOSTICS, token=token)
        assert status == 403, (token, status, body[:300])
        assert b"problems" not in body
        # The proxied service: a page request is sent to the login page, an API write refused;
        # neither reaches the sidecar.
        status, headers, body = server.request(STARTUP, token=token)
        assert status == 302, (token, status, body[:300])
        assert "/login" in headers["Location"]
        status, _, body = server.request(
            "project/initialize", token=token, method="POST", body={"interface": "notebook"}
        )
        assert status in (401, 403), (token, status, body[:300])
        assert b"projectPath" not in body
    assert not (root / ".project-startup").exists()


def test_jupyter_server_proxy_4_1_gets_the_culling_caveat_once_at_start(shared_4_1):
    server, root = shared_4_1
    assert server.json(STARTUP)["projectPath"] == os.path.realpath(root)
    server.json(STARTUP)
    report = server.json(DIAGNOSTICS)
    # 4.1.2's own __version__ reads 4.1.1-0.dev (its release left it so).
    version = report["serverProxy"]["version"]
    assert version.startswith("4.1."), version
    log = server.log()
    assert log.count(CAVEAT) == 1, log[-3000:]
    assert f"jupyter-server-proxy {version} counts every request" in log


def polls_count_as_activity(server):
    server.json(STARTUP)  # the launch
    before = server.json("api/status")["last_activity"]
    for _ in range(3):
        server.json(STARTUP)
    after = server.json("api/status")["last_activity"]
    return after != before


def test_polls_of_the_panel_do_not_count_as_activity_with_jupyter_server_proxy_4_4(shared):
    server, _ = shared
    assert polls_count_as_activity(server) is False


def test_polls_of_the_panel_count_as_activity_with_jupyter_server_proxy_4_1(shared_4_1):
    # What the caveat warns of: 4.1 ignores update_last_activity.
    assert polls_count_as_activity(shared_4_1[0]) is True
