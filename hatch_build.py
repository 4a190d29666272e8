"""Wheel build hook: stage the Node sidecar into jupyterlab_project_startup/node/.

The sidecar ships as npm's build made it, laid out like the npm package's runtime part so that
bin/project-startup.js runs unchanged (the bundle finds ../../static, ../../schemas and
../../package.json from sidecar/dist/bundle):

    node/package.json                      name and version only
    node/bin/project-startup.js
    node/sidecar/dist/bundle/{project-startup.js,project-startup.cache,listen-first.js}
    node/sidecar/dist/api-docs/*           Swagger UI for the API docs page
    node/sidecar/dist/THIRD_PARTY_LICENSES.md  the licenses of the packages in the bundle
    node/sidecar/static/*
    node/sidecar/schemas/*.json

No node_modules: the bundle is self-contained. Nothing here is kept in git; it is copied from
`npm run build`'s output at every wheel build, and the build stops with what to run when that
output is missing.
"""

import json
import os
import shutil

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE_DIR = "jupyterlab_project_startup"
BUNDLE_FILES = ("project-startup.js", "project-startup.cache", "listen-first.js")


class ProjectStartupBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        root = self.root
        self._check_labextension(root)
        node_dir = stage_node_runtime(root, os.path.join(root, PACKAGE_DIR, "node"))
        build_data["force_include"][node_dir] = f"{PACKAGE_DIR}/node"

    def _check_labextension(self, root):
        built = os.path.join(root, PACKAGE_DIR, "labextension", "package.json")
        try:
            with open(built, encoding="utf-8") as f:
                load = json.load(f)["jupyterlab"]["_build"]["load"]
        except (OSError, ValueError, KeyError, TypeError):
            raise RuntimeError(
                f"{built} is missing or is not a built labextension: run `npm run build` "
                "(or `npm run build:wheel`, which builds the JavaScript and then the wheel)."
            ) from None
        if not os.path.isfile(os.path.join(root, PACKAGE_DIR, "labextension", load)):
            raise RuntimeError(f"the labextension's {load} is missing: run `npm run build` again.")


def stage_node_runtime(root, node_dir):
    """Copy the runnable sidecar into node_dir (replacing what was there); return node_dir."""
    bundle = os.path.join(root, "sidecar", "dist", "bundle")
    missing = [name for name in BUNDLE_FILES if not os.path.isfile(os.path.join(bundle, name))]
    if missing:
        raise RuntimeError(
            f"the sidecar bundle is not built ({', '.join(missing)} missing in {bundle}): "
            "run `npm run build` (or `npm run build:wheel`)."
        )
    compiled = os.path.join(root, "sidecar", "dist", "cli", "main.js")
    if os.path.isfile(compiled) and os.path.getmtime(compiled) > os.path.getmtime(
        os.path.join(bundle, BUNDLE_FILES[0])
    ):
        # bin/project-startup.js would run the newer compiled code in a checkout, but the wheel
        # carries only the bundle: it must not be older.
        raise RuntimeError(
            "the sidecar bundle is older than sidecar/dist (tsc ran after the bundle): run `npm run build:sidecar`."
        )
    with open(os.path.join(root, "package.json"), encoding="utf-8") as f:
        pkg = json.load(f)
    if os.path.isdir(node_dir):
        shutil.rmtree(node_dir)
    os.makedirs(os.path.join(node_dir, "bin"))
    os.makedirs(os.path.join(node_dir, "sidecar", "dist", "bundle"))
    with open(os.path.join(node_dir, "package.json"), "w", encoding="utf-8") as f:
        json.dump({"name": pkg["name"], "version": pkg["version"]}, f, indent=2)
        f.write("\n")
    shutil.copy2(os.path.join(root, "bin", "project-startup.js"), os.path.join(node_dir, "bin"))
    for name in BUNDLE_FILES:
        shutil.copy2(os.path.join(bundle, name), os.path.join(node_dir, "sidecar", "dist", "bundle"))
    api_docs = os.path.join(root, "sidecar", "dist", "api-docs")
    if not os.path.isfile(os.path.join(api_docs, "swagger-ui-bundle.js")):
        raise RuntimeError(f"the API docs page's files are not built ({api_docs}): run `npm run build:sidecar`.")
    shutil.copytree(api_docs, os.path.join(node_dir, "sidecar", "dist", "api-docs"))
    # The licenses of the packages in the bundle (scripts/third-party-licenses.js), beside it.
    licenses = os.path.join(root, "sidecar", "dist", "THIRD_PARTY_LICENSES.md")
    shutil.copy2(licenses, os.path.join(node_dir, "sidecar", "dist"))
    shutil.copytree(os.path.join(root, "sidecar", "static"), os.path.join(node_dir, "sidecar", "static"))
    shutil.copytree(
        os.path.join(root, "sidecar", "schemas"),
        os.path.join(node_dir, "sidecar", "schemas"),
        ignore=lambda _dir, names: [n for n in names if not n.endswith(".json")],
    )
    return node_dir
