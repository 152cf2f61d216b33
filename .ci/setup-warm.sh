#!/usr/bin/env bash
# What building warm mode needs: toolyard-sandbox compiles its warm supervisor (src/main/c) with gcc as
# a static executable, so gcc and the static C library (libc6-dev) must be present. Without them the
# build still succeeds and warm mode reports itself unavailable; with CI=true the build fails instead,
# because the warm tests must run. Idempotent; run as root; apt-get update only when something is missing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

libc=()
[ -n "$(find /usr/lib -name libc.a -print -quit 2>/dev/null)" ] || libc+=(libc6-dev)
ci_apt_install "for the warm supervisor's build" "${libc[@]}"
ci_require_tools "the warm supervisor's build" gcc=gcc
[ -n "$(find /usr/lib -name libc.a -print -quit 2>/dev/null)" ] || { echo "missing after install: libc.a (libc6-dev)" >&2; exit 1; }
echo "the static C library is present: $(find /usr/lib -name libc.a -print -quit)"
