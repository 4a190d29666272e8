"""Project Startup's settings in Jupyter's own configuration: ``c.ProjectStartup.*`` in a
``jupyter_server_config.py`` or ``.json``, or ``--ProjectStartup.<name>=`` on the command line.

They reach the sidecar the server launches as the PROJECT_STARTUP_* variables of the same
meaning, so the sidecar has one precedence (its flags, then variables, then the site file, then
defaults; docs/site-configuration.md). A variable already in the server's environment is the
operator's more specific choice and is left as it is."""

import json

from traitlets import Enum, List, Unicode
from traitlets.config import Configurable

from .project_search import PLATFORM_IDS

# In the Jupyter server's own environment, which its terminals, kernels and the sidecar the proxy
# launches inherit: the settings above as applied, each with its trait, so that a command run in a
# terminal of this server (`project-startup config check`, `status --local`) sees what the
# server's service sees and says where each value came from (sidecar/src/config/jupyter-settings.ts).
JUPYTER_SETTINGS_ENV = "PROJECT_STARTUP_JUPYTER_SETTINGS"

# Each trait and the variable it becomes: the site-wide values an operator sets once. The site
# file (config_file) holds the rest, names included.
TRAIT_VARIABLES = {
    "config_file": "PROJECT_STARTUP_CONFIG",
    "platform": "PROJECT_STARTUP_PLATFORM",
    "low_risk_automation": "PROJECT_STARTUP_LOW_RISK_AUTOMATION",
    "approved_storage": "PROJECT_STARTUP_APPROVED_STORAGE",
    "secrets_dir": "PROJECT_STARTUP_SECRETS_DIR",
}


class ProjectStartup(Configurable):
    """Site settings of the Project Startup service this Jupyter server launches."""

    config_file = Unicode(
        None,
        allow_none=True,
        config=True,
        help="The site configuration file, an absolute path (PROJECT_STARTUP_CONFIG).",
    )
    platform = Enum(
        list(PLATFORM_IDS),
        None,
        allow_none=True,
        config=True,
        help="The platform, instead of selecting it from evidence (PROJECT_STARTUP_PLATFORM).",
    )
    low_risk_automation = Enum(
        ["permitted", "denied"],
        None,
        allow_none=True,
        config=True,
        help="Whether credential-free inference may use Low-Risk Automation (PROJECT_STARTUP_LOW_RISK_AUTOMATION).",
    )
    approved_storage = List(
        Unicode(),
        None,
        allow_none=True,
        config=True,
        help="Absolute roots where cluster projects may live (PROJECT_STARTUP_APPROVED_STORAGE).",
    )
    secrets_dir = Unicode(
        None,
        allow_none=True,
        config=True,
        help="The directory of mounted secret files (PROJECT_STARTUP_SECRETS_DIR).",
    )
    fleet_url = Unicode(
        None,
        allow_none=True,
        config=True,
        help=(
            "The fleet service's address (its /services/<name>/ prefix, as this server reaches it), to which "
            "a server spawned by JupyterHub reports its setup phase (PROJECT_STARTUP_FLEET_URL). Unset: no reports."
        ),
    )


def configured_variables(settings, environ):
    """The variables ``settings`` (a ProjectStartup) sets, but those the environment already has.
    Values are checked by the sidecar, which answers a bad one as it does a bad variable."""
    variables = {}
    for trait, variable in TRAIT_VARIABLES.items():
        value = getattr(settings, trait)
        if value is None or environ.get(variable):
            continue
        variables[variable] = ":".join(value) if isinstance(value, list) else value
    return variables


def jupyter_settings_value(variables):
    """JUPYTER_SETTINGS_ENV's value for the variables configured_variables chose: each variable
    with the trait it came from and its value; None when Jupyter's configuration sets none."""
    traits = {variable: trait for trait, variable in TRAIT_VARIABLES.items()}
    settings = {
        variable: {"trait": f"c.ProjectStartup.{traits[variable]}", "value": value}
        for variable, value in variables.items()
    }
    return json.dumps(settings, sort_keys=True) if settings else None
