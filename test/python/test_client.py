"""The notebook client (client.py) against a real sidecar (`node bin/project-startup.js serve`
on loopback, in a temporary project): what it reads, what it creates, the service's problems as
ProjectStartupError, and the project it finds from a subdirectory, as the command line does."""

import os
import re
import subprocess
import time

import pytest
from conftest import REPO, SIDECAR_CLI

from jupyterlab_project_startup import client
from jupyterlab_project_startup.project_search import find_initialized_project

BASE = "/user/alice/"
# Behind Jupyter the sidecar sees Jupyter's token on each write (Jupyter checked it); it takes
# any, as jupyter-server-proxy forwards it.
JUPYTER_TOKEN = "the-jupyter-servers-token"  # noqa: S105


class Sidecar:
    def __init__(self, process, url, log_path):
        self.process = process
        self.url = url
        self.log_path = log_path

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home" / "alice"
    home.mkdir(parents=True)
    return home


@pytest.fixture
def sidecar(tmp_path, home):
    started = []

    def start(project, platform="generic"):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PROJECT_STARTUP_", "JUPYTER"))}
        env.update({"HOME": str(home), "PROJECT_STARTUP_PLATFORM": platform})
        log_path = tmp_path / f"sidecar-{len(started)}.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [
                    "node",
                    str(SIDECAR_CLI),
                    "serve",
                    "--ingress",
                    "notebook-server-proxy",
                    "--allow-unauthenticated-tcp",
                    "--port",
                    "0",
                    "--base-url",
                    BASE,
                ],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        sidecar = Sidecar(process, None, log_path)
        started.append(sidecar)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and process.poll() is None:
            match = re.search(r"Listening: (http://127\.0\.0\.1:\d+)/", log_path.read_text(errors="replace"))
            if match:
                # The client's connection is the Jupyter server's base URL; the sidecar sits at
                # {base_url}project/ as behind jupyter-server-proxy.
                sidecar.url = match.group(1) + BASE
                return sidecar
            time.sleep(0.1)
        raise AssertionError(f"the sidecar did not listen within 30 s:\n{log_path.read_text(errors='replace')}")

    yield start
    for sidecar in started:
        sidecar.stop()
    client._connection = None


@pytest.fixture
def project(home):
    project = home / "p"
    (project / "a" / "b").mkdir(parents=True)
    return str(project)


def test_startup_then_initialize_through_the_client(sidecar, project):
    service = sidecar(project)
    client.connect(url=service.url, token=JUPYTER_TOKEN)
    projection = client.startup()
    assert projection["projectPath"] == os.path.realpath(project)
    assert projection["phase"] == "awaiting-confirmation"
    assert client.capabilities()["platform"]["id"] == "generic"
    answer = client.initialize(confirm=True)
    assert answer["created"] is True
    assert answer["record"]["projectPath"] == os.path.realpath(project)
    assert os.stat(os.path.join(project, ".project-startup")).st_mode & 0o777 == 0o700
    assert client.startup()["phase"] == "ready"
    # Confirming again answers the same record, creating nothing.
    again = client.initialize(confirm=True)
    assert again["created"] is False
    assert again["record"] == answer["record"]


def test_the_services_problem_reaches_the_notebook_as_project_startup_error(sidecar, project):
    service = sidecar(project)
    client.connect(url=service.url, token=JUPYTER_TOKEN)
    with pytest.raises(client.ProjectStartupError) as raised:
        client.initialize(confirm={"projectPath": "/elsewhere", "statePath": "/elsewhere/.project-startup"})
    assert 400 <= raised.value.status < 500
    assert raised.value.code == raised.value.problem["code"]
    assert raised.value.code
    assert not os.path.exists(os.path.join(project, ".project-startup"))


def test_a_sidecar_that_is_gone_is_reported_as_unreachable(sidecar, project):
    service = sidecar(project)
    service.stop()
    client.connect(url=service.url, token=JUPYTER_TOKEN)
    with pytest.raises(client.ProjectStartupError) as raised:
        client.startup()
    assert raised.value.code == "jupyter-unreachable"


@pytest.mark.parametrize("platform", ["generic", "hosted-notebook"])
def test_the_project_the_service_initialized_is_found_from_its_subdirectories(sidecar, project, home, platform):
    env = {"HOME": str(home)}
    if platform == "hosted-notebook":
        env.update({"JUPYTERHUB_API_URL": "http://127.0.0.1:1/hub/api", "JUPYTERHUB_USER": "alice"})
    sub = os.path.realpath(os.path.join(project, "a", "b"))
    assert find_initialized_project(sub, os.path.realpath(home), env) == sub
    service = sidecar(project, platform)
    client.connect(url=service.url, token=JUPYTER_TOKEN)
    state = client.initialize(confirm=True)["record"]["statePath"]
    if platform == "hosted-notebook":
        assert state.startswith(os.path.realpath(home) + os.sep + ".project-startup" + os.sep)
    # Node wrote the record; the Python twin of its search reads it.
    assert find_initialized_project(sub, os.path.realpath(home), env) == os.path.realpath(project)


def test_find_server_picks_the_server_holding_the_project_not_the_working_directory(
    sidecar, project, home, monkeypatch
):
    real_project = os.path.realpath(project)
    servers = [
        # Serves the notebook's directory but not its project.
        {
            "url": "http://127.0.0.1:9/a/",
            "token": "a",
            "pid": 2**22 + 1,
            "root_dir": os.path.join(real_project, "a"),
            "file": "a",
        },
        {
            "url": "http://127.0.0.1:9/home/",
            "token": "h",
            "pid": 2**22 + 2,
            "root_dir": os.path.realpath(home),
            "file": "h",
        },
    ]
    monkeypatch.setattr(client, "_running_servers", lambda env, refused=None: list(servers))
    monkeypatch.chdir(os.path.join(project, "a", "b"))
    env = {"HOME": str(home)}
    with pytest.raises(client.ProjectStartupError) as raised:
        client.find_server(env)
    assert raised.value.code == "jupyter-not-found"
    service = sidecar(project)
    client.connect(url=service.url, token=JUPYTER_TOKEN)
    client.initialize(confirm=True)
    found = client.find_server(env)
    assert (found.url, found.token) == ("http://127.0.0.1:9/home/", "h")
    assert REPO.is_dir()


def test_an_unsafe_state_is_reported_as_the_states_own_problem(sidecar, project):
    # One state, one problem code: the client says state-unsafe (as POST initialize and
    # `project-startup init` do), with the service's remedy, not "not ready".
    service = sidecar(project)
    client.connect(url=service.url, token=JUPYTER_TOKEN)
    client.initialize(confirm=True)
    os.chmod(os.path.join(project, ".project-startup"), 0o755)  # noqa: S103 - the unsafe state under test
    with pytest.raises(client.ProjectStartupError) as raised:
        client.initialize(confirm=True)
    assert raised.value.code == "state-unsafe"
    assert "chmod 700" in raised.value.fix
    assert ".project-startup" in raised.value.detail
