"""checks.py: finding Node.js, checking it and jupyter-server-proxy, the culling caveat, and the
sidecar's launch environment (the project follows Jupyter's root directory)."""

import json
import os
import stat

import jsonschema
import pytest

from jupyterlab_project_startup import announce_diagnostics_file, sidecar_environment
from jupyterlab_project_startup.checks import (
    COMMAND,
    DIAGNOSTICS_FILE_ENV,
    PROJECT_DIR_ENV,
    check_node,
    diagnostics_report,
    escape_template,
    find_on_path,
    locate_node,
    read_sidecar_state,
    server_proxy_culling_caveat,
)

with open(
    os.path.join(
        os.path.dirname(os.path.abspath(__file__)),
        "..",
        "..",
        "jupyterlab_project_startup",
        "diagnostics-report.schema.json",
    ),
    encoding="utf-8",
) as _schema:
    DIAGNOSTICS_SCHEMA = json.load(_schema)


def fake_node(directory, printed, exit_code=0, name="node"):
    """An executable that answers --version as a Node.js would (or would not)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!/bin/sh\nprintf '%s\\n' '{printed}'\nexit {exit_code}\n", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def test_locate_node_takes_the_setting_first_then_path(tmp_path):
    on_path = fake_node(tmp_path / "bin", "v22.1.0")
    chosen = fake_node(tmp_path / "other", "v20.0.0")
    assert locate_node({"PATH": str(tmp_path / "bin")}) == (on_path, None)
    assert locate_node({"PATH": str(tmp_path / "bin"), "PROJECT_STARTUP_NODE": chosen}) == (chosen, None)
    # A bare name is looked up on PATH like a command.
    fake_node(tmp_path / "bin", "v22.1.0", name="node22")
    assert locate_node({"PATH": str(tmp_path / "bin"), "PROJECT_STARTUP_NODE": "node22"}) == (
        str(tmp_path / "bin" / "node22"),
        None,
    )


def test_locate_node_refuses_relative_paths_and_relative_path_entries(tmp_path, monkeypatch):
    fake_node(tmp_path / "bin", "v22.1.0")
    monkeypatch.chdir(tmp_path)
    path, missing = locate_node({"PATH": "bin:."})
    assert path is None
    assert "no `node` on the Jupyter server's PATH" in missing[0]
    path, missing = locate_node({"PATH": "/nonexistent", "PROJECT_STARTUP_NODE": "bin/node"})
    assert path is None
    assert "a relative path" in missing[0]
    assert find_on_path("node", ":bin") is None


def test_locate_node_names_a_setting_that_is_not_an_executable(tmp_path):
    plain = tmp_path / "node"
    plain.write_text("not a program", encoding="utf-8")
    plain.chmod(stat.S_IRUSR | stat.S_IWUSR)
    path, missing = locate_node({"PATH": "/nonexistent", "PROJECT_STARTUP_NODE": str(plain)}, COMMAND)
    assert path is None
    assert missing[0] == f"PROJECT_STARTUP_NODE is set to {plain}, which is not an executable file."
    assert "unset it to use the node on PATH." in missing[1]


@pytest.mark.parametrize(
    ("printed", "exit_code", "code", "title"),
    [
        ("v22.11.0", 0, None, None),
        ("v20.0.0", 0, None, None),
        ("v18.19.1", 0, "node-too-old", "Node.js 18.19.1 is too old"),
        ("something else", 0, "node-missing", "Node.js does not run"),
        ("v22.11.0", 3, "node-missing", "Node.js does not run"),
    ],
)
def test_check_node_runs_it_and_reads_its_version(tmp_path, printed, exit_code, code, title):
    node = fake_node(tmp_path / "bin", printed, exit_code)
    result = check_node({"PATH": str(tmp_path / "bin")})
    assert result["path"] == node
    if code is None:
        assert result["problem"] is None
        assert result["version"] == printed[1:]
    else:
        assert result["problem"]["code"] == code
        assert result["problem"]["title"] == title
        assert "PROJECT_STARTUP_NODE" in result["problem"]["fix"]


def test_check_node_without_any_node():
    result = check_node({"PATH": "/nonexistent"})
    assert result == {"path": None, "version": None, "problem": result["problem"]}
    assert result["problem"]["code"] == "node-missing"


@pytest.mark.parametrize(
    ("version", "warned"),
    [("4.1.2", True), ("4.1.1-0.dev", True), ("4.2", True), ("4.3.0", False), ("4.4.0", False), ("5.0.0", False)],
)
def test_the_culling_caveat_names_jupyter_server_proxy_before_4_3(version, warned):
    caveat = server_proxy_culling_caveat(version)
    assert (caveat is not None) is warned
    if warned:
        assert caveat.startswith(f"jupyter-server-proxy {version} counts every request")
        assert "idle culler" in caveat
        assert "jupyter-server-proxy>=4.3" in caveat


def test_the_sidecar_serves_jupyters_root_directory_unless_the_operator_named_one(tmp_path):
    env = sidecar_environment({}, "/srv/notebooks/{team}")
    # Braces are literal for jupyter-server-proxy, which formats every value.
    assert env[PROJECT_DIR_ENV] == "/srv/notebooks/{{team}}"
    assert PROJECT_DIR_ENV not in sidecar_environment({PROJECT_DIR_ENV: "/chosen"}, "/srv/notebooks")
    assert PROJECT_DIR_ENV not in sidecar_environment({}, None)


def test_the_diagnostics_file_is_announced_in_the_servers_environment_for_every_route_to_the_sidecar(tmp_path):
    # The `jupyter install` route's ServerProxy.servers entry sets no variable of ours: the
    # sidecar finds the file only because the server's own environment, which every launch
    # inherits, names it; the entry point's environment does not name it a second time.
    runtime = str(tmp_path / "runtime")
    environ = {}
    path = announce_diagnostics_file(environ, runtime)
    assert environ[DIAGNOSTICS_FILE_ENV] == path
    assert path == os.path.join(runtime, f"project-startup-{os.getpid()}.json")
    assert DIAGNOSTICS_FILE_ENV not in sidecar_environment({}, None)


def test_the_sidecar_is_told_the_python_that_runs_jupyter_unless_the_operator_named_one(tmp_path):
    # Its <sys.prefix>/etc/jupyter is where Jupyter reads configuration: the site file there is
    # the one the sidecar reads too.
    import sys

    assert sidecar_environment({}, None)["PROJECT_STARTUP_PYTHON"] == escape_template(sys.executable)
    chosen = {"PROJECT_STARTUP_PYTHON": "/opt/other/bin/python3"}
    assert "PROJECT_STARTUP_PYTHON" not in sidecar_environment(chosen, None)


def test_the_wheels_command_reads_the_site_file_of_its_pythons_prefix(tmp_path):
    # `project-startup config check` through the wheel's command (command.py) runs in the Python
    # that runs Jupyter: the site file in that Python's <prefix>/etc/jupyter is the one it reads.
    import subprocess
    import sys

    from conftest import REPO

    prefix = tmp_path / "env"
    (prefix / "bin").mkdir(parents=True)
    python = prefix / "bin" / "python3"
    python.symlink_to(os.path.realpath(sys.executable))
    etc = prefix / "etc" / "jupyter"
    etc.mkdir(parents=True)
    site = etc / "project-startup.json"
    site.write_text(json.dumps({"modelSources": {"service-managed": {"label": "Prefix inference"}}}))
    os.chmod(site, 0o600)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PROJECT_STARTUP_", "JUPYTER"))}
    env.update({"HOME": str(home), "PYTHONPATH": str(REPO), "JUPYTER_CONFIG_DIR": str(home / ".jupyter")})
    done = subprocess.run(
        [str(python), "-m", "jupyterlab_project_startup.command", "config", "check", "--json"],
        cwd=str(home),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["file"] == str(site)
    assert "Prefix inference" in done.stdout


def test_the_entry_point_asks_the_proxy_not_to_count_polls_as_activity():
    from jupyterlab_project_startup import setup_project_startup

    entry = setup_project_startup()
    assert entry["update_last_activity"] is False
    assert entry["unix_socket"] is True
    assert callable(entry["command"])
    assert callable(entry["environment"])


def test_the_diagnostics_name_the_site_file_in_use_or_where_none_was_found(tmp_path):
    report = tmp_path / "report.json"
    node = {"path": "/usr/bin/node", "version": "22.0.0", "problem": None}
    looked = ["/home/alice/.jupyter/project-startup.json", "/etc/jupyter/project-startup.json"]
    for site, described in (
        ({"file": looked[1], "looked": looked}, looked[1]),
        ({"file": None, "looked": looked}, "none found (looked in {})".format(", ".join(looked))),
    ):
        report.write_text(json.dumps({"state": "running", "pid": os.getpid(), "siteConfig": site}), encoding="utf-8")
        report.chmod(0o600)
        state = read_sidecar_state(str(report))
        assert state["siteConfig"] == {**site, "described": described}
        jsonschema.validate(
            diagnostics_report("1.0.0", node, {"version": "4.4.0", "problem": None}, state), DIAGNOSTICS_SCHEMA
        )
    # Not started yet: nobody has looked.
    report.write_text(json.dumps({"state": "running", "pid": 0, "siteConfig": site}), encoding="utf-8")
    assert read_sidecar_state(str(report))["siteConfig"] is None


def test_sidecar_state_is_read_only_from_a_private_file(tmp_path):
    report = tmp_path / "report.json"
    report.write_text(
        json.dumps({"state": "failed", "lastError": "boom", "logTail": ["a", 1, "b"]}),
        encoding="utf-8",
    )
    report.chmod(0o644)
    assert read_sidecar_state(str(report))["state"] == "not-started"
    report.chmod(0o600)
    state = read_sidecar_state(str(report))
    assert state["state"] == "failed"
    assert state["lastError"] == "boom"
    assert state["logTail"] == ["a", "b"]
    node = {"path": "/usr/bin/node", "version": "22.0.0", "problem": None}
    answer = diagnostics_report("1.0.0", node, {"version": "4.4.0", "problem": None}, state)
    # The schema the panel's check is generated from (scripts/schema-code.js).
    jsonschema.validate(answer, DIAGNOSTICS_SCHEMA)
    assert answer["ok"] is False
    assert [p["code"] for p in answer["problems"]] == ["sidecar-failed"]
