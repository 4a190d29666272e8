#!/usr/bin/env bash
# The Python package's own checks (issue 22 item 5): ruff (lint and format, pyproject's
# [tool.ruff]) and pytest (test/python: checks.py, the handlers through a real Jupyter server,
# the notebook client against a real sidecar), run with the real stack's venv
# (.ci/python-env.sh: $PROJECT_STARTUP_VENV or its default) and this checkout's package (not a
# wheel installed in that venv). Needs the npm build (the sidecar bundle bin/project-startup.js
# runs) and the vendored jupyter-server-proxy at ../shared/vendor (or
# $PROJECT_STARTUP_VENDOR_DIR). Prints the counts; exits non-zero on any finding or failure.
#
#   bash .ci/python-checks.sh [pytest arguments]
set -uo pipefail
cd "$(dirname "$0")/.."
VENV="$(bash .ci/python-env.sh)" || exit 1
PYTHON="$VENV/bin/python"
VENDOR="${PROJECT_STARTUP_VENDOR_DIR:-../shared/vendor}"
for needed in "$VENDOR/python/jupyter_server_proxy" "$VENDOR/python-jsp-4.1/jupyter_server_proxy" sidecar/dist/bundle; do
  if [ ! -e "$needed" ]; then
    echo "== python checks: $needed is missing (the vendored jupyter-server-proxy, or npm run build's sidecar bundle)" >&2
    exit 1
  fi
done
export PROJECT_STARTUP_VENDOR_DIR="$(cd "$VENDOR" && pwd)"
# No bytecode written into the checkout or the vendored copies.
export PYTHONDONTWRITEBYTECODE=1

status=0
ruff_status=0
started=$SECONDS
"$PYTHON" -m ruff check --no-cache . || ruff_status=1
"$PYTHON" -m ruff format --no-cache --check . || ruff_status=1
report="$(mktemp -d)"
trap 'rm -rf "$report"' EXIT
"$PYTHON" -m pytest -p no:cacheprovider -q --junitxml="$report/pytest.xml" "$@" || status=$?
counts="$("$PYTHON" - "$report/pytest.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET

try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("no pytest report")
    sys.exit(0)
suite = root if root.tag == "testsuite" else root.find("testsuite")
tests, failures, errors, skipped = (int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
print(f"{tests - failures - errors - skipped} passed, {failures} failed, {errors} errors, {skipped} skipped")
PY
)"
files="$("$PYTHON" -m ruff check --no-cache --show-files . 2>/dev/null | grep -c '\.py$')"
echo "== python checks: ruff over $files files ($([ $ruff_status -eq 0 ] && echo clean || echo 'findings above')); pytest: $counts (exit $status); $((SECONDS - started)) s"
[ $ruff_status -eq 0 ] && [ $status -eq 0 ]
