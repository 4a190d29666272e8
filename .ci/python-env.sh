#!/usr/bin/env bash
# The real Jupyter stack (JupyterLab, Notebook 7, jupyter_server 2, pytest, ruff) in a venv of
# /usr/bin/python3, outside the clone so that it is made once per machine and kept between runs:
# remade only when .ci/python-requirements.txt changes. pip reaches PyPI on an ordinary machine;
# on a machine with a local wheel store set as pip's index (`pip config list`) it installs from
# there. The system lane pip-installs this checkout's wheel into it (test/helpers/real-stack-setup.js).
#
#   bash .ci/python-env.sh        prints the venv's path last
#   PROJECT_STARTUP_VENV=DIR      another place for it
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${PROJECT_STARTUP_VENV:-/var/tmp/jupyterlab-project-startup-ci/venv}"
REQUIREMENTS=.ci/python-requirements.txt
WANTED="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.requirements-sha256" 2>/dev/null)" = "$WANTED" ]; then
  echo "== python: the real Jupyter stack is in place at $VENV" >&2
  echo "$VENV"
  exit 0
fi
echo "== python: installing the real Jupyter stack into $VENV (pip, $REQUIREMENTS)" >&2
mkdir -p "$(dirname "$VENV")"
/usr/bin/python3 -m venv --clear "$VENV"
# --retries 0: where PyPI is unreachable and a local store serves, pip does not wait on PyPI.
LOG="$(dirname "$VENV")/pip-install.log"
if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --retries 0 \
    --timeout 30 -r "$REQUIREMENTS" >"$LOG" 2>&1; then
  grep -v 'is neither a file nor a directory' "$LOG" >&2 || true
  echo "== python: pip could not install $REQUIREMENTS into $VENV (log: $LOG)." >&2
  echo "   The system lane and the Python checks need it; they do not run without it." >&2
  echo "   Check that pip reaches a package index (pip config list; pip download jupyterlab==4.6.4)." >&2
  rm -rf "$VENV"
  exit 1
fi
chmod -R a+rX "$VENV"
echo "$WANTED" > "$VENV/.requirements-sha256"
echo "$VENV"
