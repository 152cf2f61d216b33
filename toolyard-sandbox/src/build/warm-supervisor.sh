#!/bin/sh
# Builds the warm supervisor (src/main/c/toolyard-warm.c) into the jar's resources: a static executable
# for the architecture this is built on. Run by exec-maven-plugin in generate-resources.
#
# Usage: warm-supervisor.sh SOURCE OUTPUT [WHAT]
#
# WHAT names the program in messages (default "warm supervisor"); the same script builds the command
# network's relay (src/main/c/toolyard-relay.c), whose absence makes network for commands report itself
# unavailable the same way.
#
# Without gcc on the PATH, or when gcc cannot link a static executable (Debian's libc6-dev, the static
# C library, is missing), it builds nothing and removes any OUTPUT an earlier build left: the build
# succeeds, the jar carries no supervisor, and warm mode reports itself unavailable and why
# (IsolationReport.warmMode(), `toolyard doctor`). Under CI=true that is a failure instead, because
# .ci/setup-warm.sh installs both and the warm tests must run. A supervisor that does not compile (a
# warning, with -Werror) always fails the build.
set -eu
src=$1
out=$2
what=${3:-warm supervisor}

why=""
if ! command -v gcc >/dev/null 2>&1; then
  why="gcc is not on the PATH"
else
  probe=$(mktemp -d)
  trap 'rm -rf "$probe"' EXIT
  printf 'int main(void) { return 0; }\n' > "$probe/probe.c"
  if ! gcc -static -o "$probe/probe" "$probe/probe.c" > "$probe/log" 2>&1; then
    why="gcc cannot link a static executable, so the static C library (libc6-dev) is missing: $(head -n 1 "$probe/log")"
  fi
fi

if [ -n "$why" ]; then
  rm -f "$out"
  if [ "${CI:-}" = true ]; then
    echo "toolyard-sandbox: CI=true, so the $what must be built, but $why (.ci/setup-warm.sh installs gcc and libc6-dev)" >&2
    exit 1
  fi
  echo "[WARNING] toolyard-sandbox: no $what built: $why. The jar carries none, so what needs it (warm mode," \
    "network for commands) reports itself unavailable; install gcc and libc6-dev (Debian) to build it." >&2
  exit 0
fi

mkdir -p "$(dirname "$out")"
exec gcc -static -O2 -Wall -Wextra -Werror -o "$out" "$src"
