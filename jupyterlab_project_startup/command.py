"""The ``project-startup`` command that the wheel installs (``[project.scripts]``).

It runs the sidecar bundled in this package (``node/bin/project-startup.js``) with the Node.js
the proxy entry would use ($PROJECT_STARTUP_NODE, else ``node`` on PATH: checks.check_node, one
rule for both), passing every argument through. On POSIX the Python process becomes Node
(os.execv), so signals, the terminal and the exit code are Node's own; elsewhere Node runs as a
child and its exit code is passed on.
"""

import os
import subprocess
import sys

from . import PYTHON_ENV, SIDECAR_BIN
from .checks import COMMAND, check_node, node_error_message

# The exit code for "this command cannot run here" (a usage-level failure, as the sidecar's
# own command line answers a bad invocation).
EXIT_NODE_UNAVAILABLE = 2


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    node = check_node(where=COMMAND)
    if node["problem"] is not None:
        print(f"project-startup: {node_error_message(node['problem'])}", file=sys.stderr)
        return EXIT_NODE_UNAVAILABLE
    command = [node["path"], SIDECAR_BIN, *args]
    # This is the Python that runs Jupyter: pass it on, so the sidecar reads the site file in its
    # <sys.prefix>/etc/jupyter as Jupyter would, and `jupyter install --sys-prefix` finds it.
    os.environ.setdefault(PYTHON_ENV, sys.executable)
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(node["path"], command)  # noqa: S606 - the absolute node that check_node ran
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        # Node had the Ctrl+C too and answers it itself; its exit code is not known here.
        return 130


if __name__ == "__main__":
    sys.exit(main())
