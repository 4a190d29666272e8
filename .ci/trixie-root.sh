#!/usr/bin/env bash
# A Debian 13 (trixie) root for the version matrix (docs/compatibility.md): JupyterHub 5.2,
# jupyter_server 2.15, Python 3.13 and Node 20 from Debian's own packages, made once with
# mmdebstrap and kept outside the clone (5 to 12 minutes and about 900 MB the first time).
#
#   bash .ci/trixie-root.sh            makes it if needed, prints its path
#
# Where: $PROJECT_STARTUP_TRIXIE_ROOT, default /var/tmp/jupyterlab-project-startup-ci/trixie.
# The root is stamped with the package list below: a change of the list makes it again.
# Needs root (mmdebstrap's root mode, chroot) and Debian's apt mirror (the one this machine's apt
# uses, from /etc/apt/sources.list*). test/system/matrix/trixie.ts runs commands in it.
set -euo pipefail

ROOT="${PROJECT_STARTUP_TRIXIE_ROOT:-/var/tmp/jupyterlab-project-startup-ci/trixie}"
# What the tests run inside: the hub and its proxy, the single-user server (jupyter_server 2.15),
# a kernel for the notebook cells, aiohttp and simpervisor's needs for the vendored
# jupyter-server-proxy, a venv for this checkout's wheel, Node for its sidecar, flock for the
# venv cache's lock, curl for the README's terminal example. The container image test's stand-in
# base is this root: it needs the `jupyter` and `jupyter-server` commands a Jupyter image has, and
# cffi as a distribution (Debian's argon2-cffi asks for it; pip refuses to install over a
# Python where it is missing).
PACKAGES=(python3-jupyter-server python3-aiohttp python3-venv python3-pip python3-ipykernel
  nodejs jupyterhub node-configurable-http-proxy util-linux curl python3-cffi
  jupyter-core jupyter-server)
STAMP_TEXT="trixie ${PACKAGES[*]}"
STAMP="$ROOT/.project-startup-stamp"

fail() {
  echo "trixie-root: $*" >&2
  exit 1
}

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_TEXT" ]; then
  echo "$ROOT"
  exit 0
fi

# One maker at a time (two test files, or .ci/run and a test, may ask at once); the others wait
# for it and then find the stamp.
mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock 9
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_TEXT" ]; then
  echo "$ROOT"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || fail "must run as root (mmdebstrap makes the root with chroot): sudo bash $0"

# A root made from an earlier list: add the packages inside it (seconds) rather than remake it.
if [ -f "$STAMP" ] && ! grep -q " $ROOT/" /proc/self/mounts; then
  echo "trixie-root: adding packages to $ROOT (the list changed)" >&2
  if unshare --mount --propagation private -- /bin/sh -c '
      root=$1; shift
      mount --bind /proc "$root/proc"; mount --rbind /dev "$root/dev"; mount --bind /sys "$root/sys"
      exec /usr/sbin/chroot "$root" /bin/sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \$*" sh "$@"
    ' add "$ROOT" "${PACKAGES[@]}" >"$(dirname "$ROOT")/trixie-root.log" 2>&1; then
    echo "$STAMP_TEXT" >"$STAMP"
    echo "$ROOT"
    exit 0
  fi
  echo "trixie-root: adding failed (see $(dirname "$ROOT")/trixie-root.log); making the root again" >&2
fi

[ "$(id -u)" -eq 0 ] || fail "must run as root (mmdebstrap makes the root with chroot): sudo bash $0"
command -v mmdebstrap >/dev/null 2>&1 ||
  fail "mmdebstrap is missing: apt-get install -y mmdebstrap (.ci/run's APT_PACKAGES has it)"

# The mirror apt already uses here (deb822 URIs: or a one-line deb entry), else Debian's own.
mirror=$(grep -hoE '^URIs:[[:space:]]*[^[:space:]]+' /etc/apt/sources.list.d/*.sources 2>/dev/null |
  awk '{print $2}' | grep -v security | head -n 1 || true)
if [ -z "$mirror" ]; then
  mirror=$(grep -hoE '^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[^[:space:]]+' /etc/apt/sources.list 2>/dev/null |
    awk '{print $NF}' | grep -v security | head -n 1 || true)
fi
mirror="${mirror:-http://deb.debian.org/debian}"

# Mounts left by an interrupted run inside a stale root would make rm -rf walk /proc: refuse.
if [ -d "$ROOT" ] && grep -q " $ROOT/" /proc/self/mounts; then
  fail "something is still mounted under $ROOT (see /proc/self/mounts); unmount it first"
fi
partial="$ROOT.partial.$$"
rm -rf "$partial"
log="$(dirname "$ROOT")/trixie-root.log"
echo "trixie-root: making $ROOT from $mirror (about 5 minutes; log: $log)" >&2
include=$(
  IFS=,
  echo "${PACKAGES[*]}"
)
if ! mmdebstrap --variant=apt --include="$include" trixie "$partial" "$mirror" >"$log" 2>&1; then
  rm -rf "$partial"
  tail -n 20 "$log" >&2
  fail "mmdebstrap failed (the tail of $log is above): is $mirror reachable, and does it have trixie?"
fi
rm -rf "$ROOT"
mv "$partial" "$ROOT"
echo "$STAMP_TEXT" >"$STAMP"
echo "$ROOT"
