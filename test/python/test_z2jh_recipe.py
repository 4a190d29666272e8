"""The Zero to JupyterHub recipe, checked as far as this machine can (no container registry, no
PyPI, no chart, no cluster: docs/operator-guide.md says which parts were not run).

- docs/examples/Dockerfile copies the file the wheel build writes and installs what it copied;
- docs/examples/z2jh-config.yaml parses, is the config.yaml the operator guide shows, and its
  site file passes the site file's own schema;
- an arranged service-managed source has a runtime address; every in-cluster address the site
  file names is allowed by a single-user egress rule (namespace and container port); no
  `fsGid: null`; the idle culler is on."""

import fnmatch
import json
import re
import shlex
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples"
DOCKERFILE = EXAMPLES / "Dockerfile"
CONFIG = EXAMPLES / "z2jh-config.yaml"
GUIDE = REPO / "docs" / "operator-guide.md"


def _instructions():
    """The Dockerfile's instructions, continuation lines joined: [(keyword, rest)]."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def _wheel_name():
    # What scripts/build-wheel.js leaves in dist/ (its default --out-dir), hatchling's name.
    version = json.loads((REPO / "package.json").read_text(encoding="utf-8"))["version"]
    return f"dist/jupyterlab_project_startup-{version}-py3-none-any.whl"


def test_dockerfile_copies_the_wheel_the_build_makes_and_installs_it():
    build = (REPO / "scripts" / "build-wheel.js").read_text(encoding="utf-8")
    assert "outDir: path.join(ROOT, 'dist')" in build
    instructions = _instructions()
    assert instructions[0] == ("ARG", "BASE=quay.io/jupyter/base-notebook:latest")
    assert ("FROM", "${BASE}") in instructions
    copies = [shlex.split(rest) for keyword, rest in instructions if keyword == "COPY"]
    assert len(copies) == 1
    *sources, destination = [word for word in copies[0] if not word.startswith("--")]
    assert [source for source in sources if fnmatch.fnmatch(_wheel_name(), source)] == sources
    assert len(sources) == 1
    runs = [rest for keyword, rest in instructions if keyword == "RUN"]
    installs = [run for run in runs if "pip install" in run]
    assert len(installs) == 1
    copied = destination.rstrip("/") + "/" + Path(sources[0]).name
    assert f"pip install --no-cache-dir {copied}" in installs[0]
    # Never the package name from an index: it is not published.
    assert not re.search(r"pip install[^&]*\sjupyterlab-project-startup(\s|$)", " ".join(runs))


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load(CONFIG.read_text(encoding="utf-8"))


def test_the_guide_shows_this_config(config):
    guide = GUIDE.read_text(encoding="utf-8")
    assert f"```yaml\n{CONFIG.read_text(encoding='utf-8')}```\n" in guide


def test_site_file_passes_its_schema(config):
    schema = json.loads((REPO / "sidecar" / "schemas" / "site-config.schema.json").read_text(encoding="utf-8"))
    site = config["singleuser"]["extraFiles"]["project-startup"]["data"]
    jsonschema.validators.validator_for(schema)(schema).validate(site)


def test_no_fsgid_null_and_secrets_are_a_private_copy(config):
    singleuser = config["singleuser"]
    assert "fsGid" not in singleuser or singleuser["fsGid"] is not None
    site = singleuser["extraFiles"]["project-startup"]["data"]
    mounts = {m["mountPath"]: m["name"] for m in singleuser["storage"]["extraVolumeMounts"]}
    volumes = {v["name"]: v for v in singleuser["storage"]["extraVolumes"]}
    copy = volumes[mounts[site["secrets"]["directory"]]]
    assert copy["emptyDir"]["medium"] == "Memory"
    hook = " ".join(singleuser["lifecycleHooks"]["postStart"]["exec"]["command"])
    assert "umask 077" in hook
    assert site["secrets"]["directory"] in hook


def _egress_allows(egress, host, port):
    # <service>.<namespace>.svc.cluster.local: allowed when a rule selects that namespace and port.
    namespace = host.split(".")[1]
    for rule in egress:
        ports = {p["port"] for p in rule.get("ports", [])}
        for peer in rule.get("to", []):
            labels = peer.get("namespaceSelector", {}).get("matchLabels", {})
            if labels.get("kubernetes.io/metadata.name") == namespace and port in ports:
                return True
    return False


def test_runtime_address_for_the_arranged_source_and_egress_for_every_in_cluster_address(config):
    singleuser = config["singleuser"]
    site = singleuser["extraFiles"]["project-startup"]["data"]
    endpoints = site.get("endpoints", {})
    if site["modelSources"].get("service-managed", {}).get("arranged"):
        assert endpoints.get("servingRuntimeUrl") or endpoints.get("localRuntimeUrl")
    egress = singleuser["networkPolicy"]["egress"]
    in_cluster = [urlsplit(url) for url in endpoints.values() if ".svc.cluster.local" in url]
    assert in_cluster
    for url in in_cluster:
        assert _egress_allows(egress, url.hostname, url.port), url.geturl()
    # The cloud metadata server stays blocked (the chart's defaults are not loosened).
    assert not any("169.254.169.254" in url for url in endpoints.values())
    assert "cloudMetadata" not in singleuser
    assert "egressAllowRules" not in singleuser["networkPolicy"]


def test_the_idle_culler_is_on(config):
    cull = config["cull"]
    assert cull["enabled"] is True
    assert isinstance(cull["timeout"], int)
    assert isinstance(cull["every"], int)
    assert 0 < cull["every"] <= cull["timeout"]
