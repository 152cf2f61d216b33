#!/usr/bin/env bash
# Runs the whole JMH suite and writes benchmarks/results/latest.md and latest.json.
#
#   benchmarks/run.sh                 the full run (about 14 minutes on 2 cores, build included; the budget is 10)
#   benchmarks/run.sh --smoke         one short iteration of everything, to prove each benchmark runs;
#                                     written to benchmarks/target/smoke/, never to results/
#   benchmarks/run.sh [--smoke] [--out DIR] [JMH ARGS...]
#                                     extra arguments go to JMH as they are, e.g. a regex to run a
#                                     subset ('Refusal'), or '-f 2' for two forks per benchmark.
#
# Works from a clean clone: it builds toolyard-core in the same reactor (tests skipped: they are not
# what is measured here and `mvn verify` runs them), never installs anything.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"

started=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
out="$here/results"
label=""
smoke=()
jmh_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke)
      smoke=(-f 1 -wi 1 -i 1 -w 1s -r 1s)
      out="$here/target/smoke"
      label="SMOKE RUN: one 1-second iteration per benchmark, to prove each runs. Not figures to compare."
      shift ;;
    --out)
      out="$2"; shift 2 ;;
    *)
      jmh_args+=("$1"); shift ;;
  esac
done

java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"

echo "== building benchmarks/target/benchmarks.jar"
mvn -B -Pbenchmarks -pl benchmarks -am package -DskipTests

mkdir -p "$here/target"

# SandboxBenchmark needs the bubblewrap rung. Where the library's own probe cannot take it, the class is
# left out, loudly (its rows then read "not measured" and the report's label says why), rather than
# failing the whole run; under CI=true that is an error instead.
echo "== preflight: the bubblewrap rung SandboxBenchmark measures"
if ! preflight=$("$java_bin" -cp "$here/target/benchmarks.jar" dev.toolyard.benchmarks.SandboxBenchmark 2>&1); then
  echo "$preflight" >&2
  if [ "${CI:-}" = "true" ]; then
    echo "ERROR: CI=true and the bubblewrap rung is unavailable (report above): SandboxBenchmark cannot run." >&2
    exit 1
  fi
  echo "WARNING: the bubblewrap rung is unavailable (report above): SandboxBenchmark is LEFT OUT of this run." >&2
  jmh_args+=(-e SandboxBenchmark)
  label="${label:+$label }SandboxBenchmark left out: no bubblewrap rung on this host (apt-get install bubblewrap cgroup-tools)."
else
  echo "$preflight" | sed -n 's/^tier: /   tier: /p'
  # Its container rows (warm and cold, podman with localhost/toolyard-skeleton:1) need the container rung
  # and its warm mode; where they are unavailable only those rows are left out, the same way.
  echo "== preflight: the container rung SandboxBenchmark's container rows measure"
  if ! preflight=$("$java_bin" -cp "$here/target/benchmarks.jar" dev.toolyard.benchmarks.SandboxBenchmark --container 2>&1); then
    echo "$preflight" >&2
    if [ "${CI:-}" = "true" ]; then
      echo "ERROR: CI=true and the container rung or its warm mode is unavailable (report above): SandboxBenchmark's container rows cannot run." >&2
      exit 1
    fi
    echo "WARNING: the container rung or its warm mode is unavailable (report above): SandboxBenchmark's container rows are LEFT OUT of this run." >&2
    jmh_args+=(-e 'SandboxBenchmark.*Container')
    label="${label:+$label }SandboxBenchmark's container rows left out: no warm container rung on this host (podman and localhost/toolyard-skeleton:1, .ci/setup-*.sh)."
  else
    echo "$preflight" | sed -n 's/^tier: /   tier: /p'
  fi
  # Its gVisor rows (cold /bin/true and the getppid loop, podman with runsc) need the gVisor rung; where
  # it is unavailable only those rows are left out, the same way.
  echo "== preflight: the gVisor rung SandboxBenchmark's gVisor rows measure"
  if ! preflight=$("$java_bin" -cp "$here/target/benchmarks.jar" dev.toolyard.benchmarks.SandboxBenchmark --gvisor 2>&1); then
    echo "$preflight" >&2
    if [ "${CI:-}" = "true" ]; then
      echo "ERROR: CI=true and the gVisor rung is unavailable (report above): SandboxBenchmark's gVisor rows cannot run." >&2
      exit 1
    fi
    echo "WARNING: the gVisor rung is unavailable (report above): SandboxBenchmark's gVisor rows are LEFT OUT of this run." >&2
    jmh_args+=(-e 'SandboxBenchmark.*Gvisor')
    label="${label:+$label }SandboxBenchmark's gVisor rows left out: no gVisor rung on this host (apt-get install runsc, .ci/setup-sandbox.sh)."
  else
    echo "$preflight" | sed -n 's/^tier: /   tier: /p'
  fi
fi

# DurableStoreBenchmark's PostgreSQL rows need the server .ci/setup-postgres.sh starts; without it they are
# left out the same way (under CI=true that is an error).
echo "== preflight: the PostgreSQL server DurableStoreBenchmark's PostgreSQL rows measure"
if ! preflight=$("$java_bin" -cp "$here/target/benchmarks.jar" dev.toolyard.benchmarks.DurableStoreBenchmark 2>&1); then
  echo "$preflight" >&2
  if [ "${CI:-}" = "true" ]; then
    echo "ERROR: CI=true and PostgreSQL is unavailable (report above): DurableStoreBenchmark's PostgreSQL rows cannot run." >&2
    exit 1
  fi
  echo "WARNING: PostgreSQL is unavailable (report above): DurableStoreBenchmark's PostgreSQL rows are LEFT OUT of this run." >&2
  jmh_args+=(-e 'DurableStoreBenchmark.executePostgres')
  label="${label:+$label }DurableStoreBenchmark's PostgreSQL rows left out: no server (.ci/setup-postgres.sh)."
else
  echo "   $preflight"
fi

raw="$here/target/jmh-result.json"
rm -f "$raw"
# Marks each benchmark's start in the log ("# Started at +N s", seconds since the run began), so that the
# time each class takes (printed at the end) can be held to the suite's budget.
stamp() {
  local line
  while IFS= read -r line; do
    case "$line" in
      "# Benchmark: "*) printf '# Started at +%d s\n' "$(( $(date +%s) - started ))" ;;
    esac
    printf '%s\n' "$line"
  done
}
echo "== running JMH (log: benchmarks/target/jmh.log)"
# -foe: a benchmark whose set-up finds the wrong outcome (say, a refusal where a success was meant)
# fails the run instead of producing a figure.
"$java_bin" -jar "$here/target/benchmarks.jar" -foe true -prof gc -rf json -rff "$raw" \
  "${smoke[@]}" "${jmh_args[@]}" 2>&1 | stamp | tee "$here/target/jmh.log"
jmh_done=$(( $(date +%s) - started ))
echo "== seconds per class (build and preflights: the first start)"
awk -v end="$jmh_done" '
  /^# Started at \+/ { t = $4 + 0; if (first == "") first = t }
  /^# Benchmark: / { split($3, p, "."); c = p[length(p) - 1]; if (prev != "") secs[prev] += t - since;
                     if (!(c in secs)) { order[++n] = c; secs[c] = 0 } prev = c; since = t }
  END { if (prev != "") secs[prev] += end - since; printf "   before the first benchmark: %d s\n", first;
        for (i = 1; i <= n; i++) printf "   %-28s %4d s\n", order[i], secs[order[i]] }' "$here/target/jmh.log"

command="benchmarks/run.sh${smoke:+ --smoke}${jmh_args:+ ${jmh_args[*]}}"
report_args=("$raw" "$out" --started "$started" --load-before "$load_before" --command "$command"
  --notes "$here/closing-note.md")
if [ -n "$label" ]; then
  report_args+=(--label "$label")
fi
"$java_bin" -cp "$here/target/benchmarks.jar" dev.toolyard.benchmarks.report.ResultsReport "${report_args[@]}"

elapsed=$(( $(date +%s) - started ))
echo "== done in $((elapsed / 60)) min $((elapsed % 60)) s"
if [ "$elapsed" -gt 600 ] && [ -z "$label" ]; then
  echo "WARNING: the suite took more than its 10-minute budget; trim iterations or rows." >&2
fi
