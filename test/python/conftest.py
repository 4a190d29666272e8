"""Shared helpers of the Python package's tests: a real Jupyter server from the stack venv (the
Python running pytest) with this checkout's package and the vendored jupyter-server-proxy, and a
real sidecar (`node bin/project-startup.js serve`). Loopback only; every wait is bounded."""

import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SIDECAR_CLI = REPO / "bin" / "project-startup.js"
# The vendored jupyter-server-proxy (never shipped): ../shared/vendor beside the clone.
VENDOR = Path(os.environ.get("PROJECT_STARTUP_VENDOR_DIR", REPO.parent / "shared" / "vendor"))
SERVER_PROXY_4_4 = VENDOR / "python"
SERVER_PROXY_4_1 = VENDOR / "python-jsp-4.1"
START_TIMEOUT_S = 60


def _package_version():
    return json.loads((REPO / "package.json").read_text(encoding="utf-8"))["version"]


def package_site(directory):
    """A site directory holding only the package's metadata (its version and its
    jupyter_serverproxy_servers entry point), so this checkout on PYTHONPATH is found as pip
    would install it."""
    dist = Path(directory) / f"jupyterlab_project_startup-{_package_version()}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: jupyterlab-project-startup\nVersion: {_package_version()}\n",
        encoding="utf-8",
    )
    (dist / "entry_points.txt").write_text(
        "[jupyter_serverproxy_servers]\nproject = jupyterlab_project_startup:setup_project_startup\n",
        encoding="utf-8",
    )
    return str(directory)


class JupyterServer:
    def __init__(self, process, url, token, log_path):
        self.process = process
        self.url = url
        self.token = token
        self.log_path = log_path

    def log(self):
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def request(self, path, token=True, method="GET", body=None):
        """(status, headers, body bytes); redirects are not followed."""
        headers = {"Authorization": f"token {self.token}"} if token is True else {}
        if isinstance(token, str):
            headers = {"Authorization": f"token {token}"}
        data = None if body is None else json.dumps(body).encode("utf-8")
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect)
        try:
            with opener.open(request, timeout=60) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def json(self, path):
        status, _, body = self.request(path)
        assert status == 200, (status, body[:500], self.log()[-3000:])
        return json.loads(body)

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class JupyterStarter:
    """Starts real Jupyter servers under ``directory``; ``stop_all`` ends them."""

    def __init__(self, directory):
        self.directory = directory
        self.started = []

    def __call__(self, root_dir, cwd, server_proxy=SERVER_PROXY_4_4, env=None, app="jupyter_server", args=()):
        started = self.started
        base = self.directory / f"jupyter-{len(started)}"
        dirs = {name: base / name for name in ("config", "data", "runtime", "home", "site")}
        for directory in dirs.values():
            directory.mkdir(parents=True)
        (dirs["config"] / "jupyter_server_config.json").write_text(
            json.dumps(
                {
                    "ServerApp": {
                        "jpserver_extensions": {"jupyter_server_proxy": True, "jupyterlab_project_startup": True}
                    }
                }
            ),
            encoding="utf-8",
        )
        # 4.1.2 needs simpervisor, which the 4.4.0 directory carries.
        path = [package_site(dirs["site"]), str(REPO), str(server_proxy), str(SERVER_PROXY_4_4)]
        token = secrets.token_hex(16)
        process_env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("JUPYTER", "PROJECT_STARTUP_", "JPY_")) and key != "PYTHONPATH"
        }
        process_env.update(
            {
                "HOME": str(dirs["home"]),
                "JUPYTER_CONFIG_DIR": str(dirs["config"]),
                "JUPYTER_DATA_DIR": str(dirs["data"]),
                "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
                "JUPYTER_PLATFORM_DIRS": "1",
                "PYTHONPATH": os.pathsep.join(path),
                "PYTHONDONTWRITEBYTECODE": "1",
                **(env or {}),
            }
        )
        log_path = base / "server.log"
        command = [
            sys.executable,
            "-m",
            app,  # jupyter_server, or jupyterlab: `jupyter lab`
            "--no-browser",
            "--ip=127.0.0.1",
            "--port=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root_dir}",
            *args,
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                env=process_env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        server = JupyterServer(process, None, token, log_path)
        started.append(server)
        server.url = _wait_for_url(process, dirs["runtime"], log_path)
        _wait_until_answering(server)
        return server

    def stop_all(self):
        for server in self.started:
            server.stop()


@pytest.fixture
def jupyter(tmp_path):
    """``jupyter(root_dir=..., cwd=..., server_proxy=..., env=...)``: a real Jupyter server."""
    starter = JupyterStarter(tmp_path)
    yield starter
    starter.stop_all()


@pytest.fixture(scope="module")
def module_jupyter(tmp_path_factory):
    """The same, shared by a module's tests (a start takes seconds)."""
    starter = JupyterStarter(tmp_path_factory.mktemp("jupyter"))
    yield starter
    starter.stop_all()


def _wait_for_url(process, runtime_dir, log_path):
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"jupyter server exited {process.returncode}:\n{log_path.read_text()[-3000:]}")
        for info_file in runtime_dir.glob(f"jpserver-{process.pid}.json"):
            try:
                info = json.loads(info_file.read_text(encoding="utf-8"))
            except ValueError:
                continue  # being written
            return info["url"] if info["url"].endswith("/") else info["url"] + "/"
        time.sleep(0.2)
    raise AssertionError(f"no runtime file within {START_TIMEOUT_S} s:\n{log_path.read_text()[-3000:]}")


def _wait_until_answering(server):
    # The runtime file may be written before the listener accepts: ask /api/status, bounded.
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            status, _, _ = server.request("api/status")
        except urllib.error.URLError:
            status = None
        if status == 200:
            return
        if server.process.poll() is not None:
            break
        time.sleep(0.2)
    raise AssertionError(f"the server did not answer within {START_TIMEOUT_S} s:\n{server.log()[-3000:]}")
