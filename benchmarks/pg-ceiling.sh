#!/usr/bin/env bash
# The server-side ceiling of the PostgreSQL store (issue 27's "10,000 durable calls/s with 16 callers
# on one local primary"): pgbench, the thinnest client there is, sends the store's own statements
# (CallTable.batchStatement, taken from the code at run time) to the table JdbcToolCallStore itself
# creates, on the server of .ci/setup-postgres.sh, and this reports per row: durable calls/s, the
# server's CPU per call, pgbench's CPU per call, WAL bytes per call and the load average.
# A call is one write-ahead mark plus its completion. Not part of CI.
#
# Usage: benchmarks/pg-ceiling.sh [seconds-per-row (default 10)] ["on off" (synchronous_commit values)]
# Needs: .ci/setup-postgres.sh run first (as root), pgbench and psql (the postgresql packages), java 17+,
# and benchmarks/target/benchmarks.jar (built here if missing). See docs/store.md, "The server's ceiling".
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_ROW=${1:-10}
SYNCS=${2:-on off} # synchronous_commit values to run: on is durable; off only shows the bound without the flush wait
HOST=127.0.0.1 PORT=55432 DB=toolyard_test DB_USER=toolyard
export PGPASSWORD=toolyard
JAR=benchmarks/target/benchmarks.jar

die() { echo "pg-ceiling: $*" >&2; exit 1; }
tool() { # the postgresql client binaries: on PATH, else the newest /usr/lib/postgresql/*/bin
  local t
  t=$(command -v "$1" || true)
  [ -n "$t" ] || t=$(ls -d /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$t" ] && [ -x "$t" ] || die "$1 not found (on PATH or in /usr/lib/postgresql/*/bin/); it comes with the postgresql packages: run .ci/setup-postgres.sh as root"
  echo "$t"
}
PGBENCH=$(tool pgbench)
PSQL=$(tool psql)
command -v java >/dev/null || die "java (17+) not found on PATH"
if ! (exec 3<>/dev/tcp/$HOST/$PORT) 2>/dev/null; then
  die "no PostgreSQL on $HOST:$PORT; run .ci/setup-postgres.sh as root first"
fi
if [ ! -f "$JAR" ]; then
  echo "pg-ceiling: building $JAR"
  ./mvnw -B -q -Pbenchmarks -pl benchmarks -am package -DskipTests -Djacoco.skip=true
fi
sql() { "$PSQL" -X -q -At -h "$HOST" -p "$PORT" -U "$DB_USER" -d "$DB" -v ON_ERROR_STOP=1 -c "$1"; }

SCHEMA=toolyard_ceiling_$(date +%s)_$$
OUT=$(mktemp -d /tmp/pg-ceiling.XXXXXX)
trap 'sql "DROP SCHEMA IF EXISTS $SCHEMA CASCADE" >/dev/null 2>&1 || true' EXIT
java -cp "$JAR" benchmarks/pg-ceiling/PgCeilingScripts.java "jdbc:postgresql://$HOST:$PORT/$DB" "$DB_USER" \
  "$PGPASSWORD" "$SCHEMA" "$OUT" 1,4,8,64 2>/dev/null

# CPU in clock ticks (utime+stime from /proc/PID/stat). The server's is sampled twice while pgbench is
# connected and running, over every process named postgres (postmaster, the pgbench backends,
# walwriter, checkpointer, autovacuum, ...): a process alive at both samples counts its difference,
# one started in between all of it. Exited processes are not counted (the postmaster's cutime is no
# use: here the kernel did not add reaped backends to it), so the samples are taken mid-run.
HZ=$(getconf CLK_TCK)
server_ticks() { # prints "pid ticks" per postgres process
  local f
  for f in /proc/[0-9]*/stat; do
    { read -r -a s <"$f"; } 2>/dev/null || continue
    [ "${s[1]}" = "(postgres)" ] && echo "${s[0]} $((s[13] + s[14]))"
  done
  return 0
}
pid_ticks() { local s; { read -r -a s </proc/"$1"/stat; } 2>/dev/null || return 1; echo $((s[13] + s[14])); }
early() { cat "$1" >&2; die "pgbench ended before the window did (log: $1): was the server restarted, or is the machine too loaded for TAIL?"; }
completed() { sql "SELECT count(*) FROM $SCHEMA.toolyard_call WHERE completed"; }

printf 'server: %s; fsync=%s, synchronous_commit=%s (default), wal_sync_method=%s, commit_delay=%s\n' \
  "$(sql 'SELECT version()' | cut -d, -f1)" "$(sql 'SHOW fsync')" "$(sql 'SHOW synchronous_commit')" \
  "$(sql 'SHOW wal_sync_method')" "$(sql 'SHOW commit_delay')"
echo "cores: $(nproc), $SECONDS_PER_ROW s per row, schema $SCHEMA, scripts in $OUT"
echo
echo '| synchronous_commit | shape | pgbench clients | durable calls/s | server CPU µs/call | pgbench CPU µs/call | WAL bytes/call | load before → after |'
echo '| --- | --- | --- | --- | --- | --- | --- | --- |'

RUN=0
WARM=2 # seconds of each row before the first sample
TAIL=4 # seconds pgbench runs on after the nominal window: the samples themselves take time
row() { # sync script clients label: pgbench runs WARM + SECONDS_PER_ROW + TAIL s; the figures are of the middle
  local sync=$1 script=$2 clients=$3 label=$4
  RUN=$((RUN + 1))
  sql "TRUNCATE $SCHEMA.toolyard_call" >/dev/null
  local log=$OUT/row-$RUN.log pid load0 t0 s0 n0 w0 c0 t1 s1 n1 w1 c1 tps
  PGOPTIONS="-c search_path=$SCHEMA -c synchronous_commit=$sync" "$PGBENCH" -n -M prepared \
    -h "$HOST" -p "$PORT" -U "$DB_USER" -c "$clients" -j "$clients" -T $((WARM + SECONDS_PER_ROW + TAIL)) \
    -D run="$RUN" -D n=0 -f "$OUT/$script" "$DB" >"$log" 2>&1 &
  pid=$!
  sleep "$WARM"
  load0=$(cut -d' ' -f1 /proc/loadavg)
  t0=$(date +%s.%N); server_ticks >"$OUT/s0"; c0=$(pid_ticks "$pid") || early "$log"; n0=$(completed); w0=$(sql "SELECT pg_current_wal_lsn()")
  sleep "$SECONDS_PER_ROW"
  t1=$(date +%s.%N); server_ticks >"$OUT/s1"; c1=$(pid_ticks "$pid") || early "$log"; n1=$(completed); w1=$(sql "SELECT pg_current_wal_lsn()")
  wait "$pid" || { cat "$log" >&2; die "pgbench failed on $script (log: $log)"; }
  tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$log")
  [ -n "$tps" ] || { cat "$log" >&2; die "no tps in pgbench's output ($log)"; }
  local ds
  ds=$(awk 'NR == FNR { before[$1] = $2; next } { d += $2 - ($1 in before ? before[$1] : 0) } END { print d + 0 }' \
    "$OUT/s0" "$OUT/s1")
  awk -v sync="$sync" -v label="$label" -v cl="$clients" -v ds="$ds" -v dc="$((c1 - c0))" -v hz="$HZ" \
    -v n="$((n1 - n0))" -v dt="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    -v wal="$(sql "SELECT pg_wal_lsn_diff('$w1', '$w0')")" -v l0="$load0" -v l1="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
      if (n <= 0) { print "pg-ceiling: no call completed in the window" > "/dev/stderr"; exit 1 }
      printf "| %s | %s | %d | %\047d | %d | %d | %\047d | %s → %s |\n", sync, label, cl, n / dt,
        ds * 1e6 / hz / n, dc * 1e6 / hz / n, wal / n, l0, l1 }'
}

for sync in $SYNCS; do
  row "$sync" lone.sql 1 "lone caller (mark, then completion: 2 commits)"
  row "$sync" lone.sql 16 "16 lone callers, no batching (32 commits)"
  row "$sync" batch-1.sql 1 "batch 1+1 (2 callers), 1 writer"
  row "$sync" batch-8.sql 1 "batch 8+8 (16 callers), 1 writer"
  row "$sync" batch-4.sql 2 "batch 4+4 (16 callers), 2 writers"
  row "$sync" batch-8.sql 2 "batch 8+8 (32 callers), 2 writers"
  row "$sync" batch-64.sql 1 "batch 64+64 (128 callers), 1 writer"
  row "$sync" batch-64.sql 2 "batch 64+64 (256 callers), 2 writers"
done
echo
echo "Per row: pgbench runs $((WARM + SECONDS_PER_ROW + TAIL)) s; the figures are of the $SECONDS_PER_ROW s from $WARM s in: calls completed"
echo "(rows with completed = true) per second; server CPU = utime+stime of the postgres processes,"
echo "pgbench CPU = pgbench's own, WAL = pg_current_wal_lsn() difference, each per completed call."
echo "A call is one mark plus its completion."
