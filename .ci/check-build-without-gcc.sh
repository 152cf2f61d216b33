#!/usr/bin/env bash
# Proves that a host without gcc builds ToolYard, and that warm mode then says it is unavailable and why.
# Builds the command line (toolyard-cli and every module it needs) from a copy of this checkout with a
# PATH that holds every command of this one but the C compilers, then checks that the sandbox jar carries
# no warm supervisor and that `toolyard doctor` says, on every rung it probes, that it cannot run warm
# because this build carries no supervisor. CI runs it after the tests (.ci/run); it leaves this
# checkout's own target/ directories alone. Needs git, and a JDK.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
say() { echo "check-build-without-gcc: $*"; }
fail() { say "FAILED: $*" >&2; exit 1; }

# A PATH of links to every command on this one, but none to a C compiler.
nogcc="$work/bin"
mkdir "$nogcc"
IFS=: read -ra dirs <<< "$PATH"
for dir in "${dirs[@]}"; do
  [ -d "$dir" ] || continue
  for f in "$dir"/*; do
    name="${f##*/}"
    case "$name" in
      gcc | cc | c89 | c99 | gcc-* | *-gcc | *-gcc-* | clang | clang-* | tcc) continue ;;
    esac
    if [ -x "$f" ] && [ ! -e "$nogcc/$name" ]; then
      ln -s "$f" "$nogcc/$name"
    fi
  done
done
if PATH="$nogcc" command -v gcc >/dev/null 2>&1 || PATH="$nogcc" command -v cc >/dev/null 2>&1; then
  fail "the PATH without compilers still finds one"
fi

# The checkout's files (committed and new, not ignored ones, so no target/), copied.
copy="$work/toolyard"
mkdir "$copy"
(cd "$root" && git ls-files -z --cached --others --exclude-standard \
  | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$copy"

# Not under CI=true: there a build without gcc fails on purpose, since the warm tests must run.
say "building toolyard-cli and what it needs with no C compiler on the PATH"
log="$work/build.log"
if ! (cd "$copy" && env -u CI PATH="$nogcc" ./mvnw -B -DskipTests -Dtoolyard.javadoc.skip=true \
    -pl toolyard-cli -am package >"$log" 2>&1); then
  tail -n 60 "$log" >&2
  fail "the build without gcc did not succeed"
fi
grep -q "no warm supervisor built: gcc is not on the PATH" "$log" \
  || fail "the build did not say it built no warm supervisor, and why"

jar=$(ls "$copy"/toolyard-sandbox/target/toolyard-sandbox-*.jar | grep -v -e sources -e javadoc | head -n 1)
if jar tf "$jar" | grep -q 'toolyard-warm$'; then
  fail "$jar carries a warm supervisor though no compiler was on the PATH"
fi
if jar tf "$copy/toolyard-cli/target/toolyard-cli-all.jar" | grep -q 'toolyard-warm$'; then
  fail "toolyard-cli-all.jar carries a warm supervisor though no compiler was on the PATH"
fi
say "the jars carry no warm supervisor"

# The doctor of that build, on this host's real PATH (the sandbox's tools are found as usual). Its
# probes start sandboxed commands, so it takes the machine's sandbox lock where there is one.
doctor=(java -jar "$copy/toolyard-cli/target/toolyard-cli-all.jar" doctor)
if command -v flock >/dev/null 2>&1; then
  doctor=(flock /tmp/toolyard-sandbox.lock "${doctor[@]}")
fi
out="$work/doctor.txt"
"${doctor[@]}" >"$out" 2>&1 || true
warm_lines=$(grep -c '^    warm mode on ' "$out" || true)
[ "$warm_lines" -gt 0 ] || { cat "$out" >&2; fail "the doctor probed no rung that could show warm mode"; }
unavailable=$(grep -c '^    warm mode on [a-z]*: cannot run warm: this build of toolyard-sandbox carries no warm supervisor' "$out" || true)
[ "$unavailable" -eq "$warm_lines" ] || { cat "$out" >&2; fail "the doctor did not say on every rung that warm mode is unavailable for want of a supervisor"; }
grep '^    warm mode on ' "$out"
say "ok: the build without gcc succeeded, and the doctor says warm mode is unavailable and why"
