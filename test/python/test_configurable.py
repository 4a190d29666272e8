"""c.ProjectStartup.*: Jupyter's own configuration reaches the sidecar as the variables of the
same meaning, the operator's variables winning; in a real Jupyter server, a site file named
there is the one the service reads."""

import json
import os

import pytest
from traitlets import TraitError
from traitlets.config import Config

from jupyterlab_project_startup.configurable import ProjectStartup, configured_variables

CAPABILITIES = "project/capabilities"


def settings(**values):
    config = Config()
    for name, value in values.items():
        setattr(config.ProjectStartup, name, value)
    return ProjectStartup(config=config)


def test_each_setting_becomes_its_variable():
    chosen = settings(
        config_file="/etc/jupyter/project-startup.json",
        platform="cluster",
        low_risk_automation="denied",
        approved_storage=["/projects", "/scratch/projects"],
        secrets_dir="/run/secrets/project-startup",
    )
    assert configured_variables(chosen, {}) == {
        "PROJECT_STARTUP_CONFIG": "/etc/jupyter/project-startup.json",
        "PROJECT_STARTUP_PLATFORM": "cluster",
        "PROJECT_STARTUP_LOW_RISK_AUTOMATION": "denied",
        "PROJECT_STARTUP_APPROVED_STORAGE": "/projects:/scratch/projects",
        "PROJECT_STARTUP_SECRETS_DIR": "/run/secrets/project-startup",
    }


def test_nothing_configured_sets_nothing_and_a_variable_in_the_environment_wins():
    assert configured_variables(settings(), {}) == {}
    chosen = settings(platform="cluster", secrets_dir="/run/secrets")
    assert configured_variables(chosen, {"PROJECT_STARTUP_PLATFORM": "generic"}) == {
        "PROJECT_STARTUP_SECRETS_DIR": "/run/secrets"
    }


def test_a_value_outside_the_choices_is_refused_by_jupyters_configuration():
    with pytest.raises(TraitError):
        settings(platform="nonsense")


@pytest.fixture
def dirs(tmp_path):
    root = tmp_path / "root"
    elsewhere = tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    return root, elsewhere


def site_file(path, label):
    path.write_text(json.dumps({"modelSources": {"service-managed": {"label": label}}}), encoding="utf-8")
    os.chmod(path, 0o600)
    return path


def service_managed_label(server):
    manifest = server.json(CAPABILITIES)
    (row,) = [row for row in manifest["capabilities"] if row["id"] == "model-sources"]
    return {value["id"]: value["label"] for value in row["values"]}["service-managed"]


def test_a_site_file_named_in_jupyters_configuration_reaches_the_service(jupyter, dirs, tmp_path):
    root, elsewhere = dirs
    named = site_file(tmp_path / "site.json", "Inference named in jupyter_server_config")
    server = jupyter(root_dir=root, cwd=elsewhere, args=[f"--ProjectStartup.config_file={named}"])
    assert service_managed_label(server) == "Inference named in jupyter_server_config"


def test_the_operators_variable_wins_over_jupyters_configuration(jupyter, dirs, tmp_path):
    root, elsewhere = dirs
    named = site_file(tmp_path / "site.json", "From Jupyter's configuration")
    variable = site_file(tmp_path / "variable.json", "From PROJECT_STARTUP_CONFIG")
    server = jupyter(
        root_dir=root,
        cwd=elsewhere,
        env={"PROJECT_STARTUP_CONFIG": str(variable)},
        args=[f"--ProjectStartup.config_file={named}"],
    )
    assert service_managed_label(server) == "From PROJECT_STARTUP_CONFIG"


def run_in_terminal(server, commands):
    """Runs shell commands in a terminal of ``server`` (REST + websocket, as JupyterLab does):
    its shell is the server's child, with the server's environment."""
    import subprocess
    import sys
    from pathlib import Path

    from conftest import REPO

    script = REPO / "test" / "system" / "e2e" / "run_in_terminal.py"
    commands_file = Path(server.log_path).parent / "terminal-commands.json"
    commands_file.write_text(json.dumps(commands), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), server.url, str(commands_file), "60"],
        env={**os.environ, "RUNNER_AUTHORIZATION": f"token {server.token}"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, (done.stdout, done.stderr[-3000:], server.log()[-3000:])
    return json.loads(done.stdout)["results"]


def test_in_a_terminal_of_the_server_config_check_sees_jupyters_configuration(jupyter, dirs, tmp_path):
    # The docs send operators to `project-startup config check` in a user's server: it sees the
    # platform and the site file Jupyter's configuration gives the service, and names them so.
    from conftest import SIDECAR_CLI

    root, elsewhere = dirs
    named = site_file(tmp_path / "site.json", "Named in Jupyter's configuration")
    server = jupyter(
        root_dir=root,
        cwd=elsewhere,
        args=[f"--ProjectStartup.config_file={named}", "--ProjectStartup.platform=hosted-notebook"],
    )
    assert service_managed_label(server) == "Named in Jupyter's configuration"
    check, status = run_in_terminal(
        server,
        [
            f"cd {root} && node {SIDECAR_CLI} config check",
            f"cd {root} && node {SIDECAR_CLI} status --local --json",
        ],
    )
    assert check["status"] == 0, check
    assert f"Site configuration: {named} (jupyter:c.ProjectStartup.config_file)" in check["output"]
    assert "jupyter:c.ProjectStartup.platform" in check["output"]
    assert "platform=hosted-notebook" in check["output"]
    assert "Named in Jupyter's configuration" in check["output"]
    assert '"platform": "hosted-notebook"' in status["output"], status
