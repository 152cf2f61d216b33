#!/usr/bin/env bash
# The server-side ceiling of the PostgreSQL store (issue 27's "10,000 durable calls/s with 16 callers
# on one local primary"): pgbench, the thinnest client there is, sends the store's own statements
# (CallTable.batchStatement, taken from the code at run time) to the table JdbcToolCallStore itself
# creates, on the server of .ci/setup-postgres.sh, and this reports per row: durable calls/s, the
# server's CPU per call, pgbench's CPU per call, WAL bytes per call and the load average.
# A call is one write-ahead mark plus its completion. Not part of CI.
#
# Usage: benchmarks/pg-ceiling.sh [seconds-per-row]        (default 10)
# Needs: .ci/setup-postgres.sh run first (as root), pgbench and psql (the postgresql packages), java 17+,
# and benchmarks/target/benchmarks.jar (built here if missing). See docs/store.md, "The server's ceiling".
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_ROW=${1:-10}
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

# CPU in clock ticks: every live postgres process (postmaster, backends, walwriter, checkpointer, ...)
# plus what the postmaster has reaped from backends that have exited (cutime+cstime).
HZ=$(getconf CLK_TCK)
server_ticks() {
  local total=0 f pp
  for f in /proc/[0-9]*/stat; do
    { read -r -a s <"$f"; } 2>/dev/null || continue
    [ "${s[1]}" = "(postgres)" ] || continue
    total=$((total + s[13] + s[14]))
    pp=$(cat "/proc/${s[3]}/comm" 2>/dev/null || true)
    if [ "$pp" != postgres ]; then total=$((total + s[15] + s[16])); fi # the postmaster
  done
  echo "$total"
}
self_child_ticks() { local s; read -r -a s </proc/$$/stat; echo $((s[15] + s[16])); }
# /proc/$$/stat's comm may hold spaces only if the shell's name does; bash's does not.

printf 'server: %s; fsync=%s, synchronous_commit=%s (default), wal_sync_method=%s, commit_delay=%s\n' \
  "$(sql 'SELECT version()' | cut -d, -f1)" "$(sql 'SHOW fsync')" "$(sql 'SHOW synchronous_commit')" \
  "$(sql 'SHOW wal_sync_method')" "$(sql 'SHOW commit_delay')"
echo "cores: $(nproc), $SECONDS_PER_ROW s per row, schema $SCHEMA, scripts in $OUT"
echo
echo '| synchronous_commit | shape | pgbench clients | durable calls/s | server CPU µs/call | pgbench CPU µs/call | WAL bytes/call | load before → after |'
echo '| --- | --- | --- | --- | --- | --- | --- | --- |'

RUN=0
row() { # sync script calls-per-transaction clients label
  local sync=$1 script=$2 per=$3 clients=$4 label=$5
  RUN=$((RUN + 1))
  sql "TRUNCATE $SCHEMA.toolyard_call" >/dev/null
  local load0 s0 c0 w0 log tps s1 c1 w1 calls
  load0=$(cut -d' ' -f1 /proc/loadavg)
  w0=$(sql "SELECT pg_current_wal_lsn()")
  s0=$(server_ticks)
  c0=$(self_child_ticks)
  log=$(PGOPTIONS="-c search_path=$SCHEMA -c synchronous_commit=$sync" "$PGBENCH" -n -M prepared \
    -h "$HOST" -p "$PORT" -U "$DB_USER" -c "$clients" -j "$clients" -T "$SECONDS_PER_ROW" \
    -D run="$RUN" -D n=0 -f "$OUT/$script" "$DB" 2>&1) || { echo "$log" >&2; die "pgbench failed on $script"; }
  c1=$(self_child_ticks)
  s1=$(server_ticks)
  w1=$(sql "SELECT pg_current_wal_lsn()")
  tps=$(echo "$log" | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p')
  [ -n "$tps" ] || { echo "$log" >&2; die "no tps in pgbench's output"; }
  calls=$(awk -v t="$tps" -v p="$per" -v s="$SECONDS_PER_ROW" 'BEGIN { printf "%d", t * p * s }')
  local done_calls
  done_calls=$(sql "SELECT count(*) FROM $SCHEMA.toolyard_call WHERE completed")
  awk -v sync="$sync" -v label="$label" -v cl="$clients" -v tps="$tps" -v p="$per" -v ds="$((s1 - s0))" \
    -v dc="$((c1 - c0))" -v hz="$HZ" -v calls="$calls" -v wal="$(sql "SELECT pg_wal_lsn_diff('$w1', '$w0')")" \
    -v done="$done_calls" -v l0="$load0" -v l1="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
      n = done > 0 ? done : calls
      printf "| %s | %s | %d | %\047d | %d | %d | %\047d | %s → %s |\n", sync, label, cl, tps * p,
        ds * 1e6 / hz / n, dc * 1e6 / hz / n, wal / n, l0, l1 }'
}

for sync in on off; do
  row "$sync" lone.sql 1 1 "lone caller (mark, then completion: 2 commits)"
  row "$sync" lone.sql 1 16 "16 lone callers, no batching (32 commits)"
  row "$sync" batch-1.sql 1 1 "batch 1+1 (2 callers), 1 writer"
  row "$sync" batch-8.sql 8 1 "batch 8+8 (16 callers), 1 writer"
  row "$sync" batch-4.sql 4 2 "batch 4+4 (16 callers), 2 writers"
  row "$sync" batch-8.sql 8 2 "batch 8+8 (32 callers), 2 writers"
  row "$sync" batch-64.sql 64 1 "batch 64+64 (128 callers), 1 writer"
  row "$sync" batch-64.sql 64 2 "batch 64+64 (256 callers), 2 writers"
done
echo
echo "server CPU: utime+stime of every process named postgres, plus the postmaster's cutime+cstime"
echo "(exited backends), before and after each row; pgbench CPU: its utime+stime; per completed call."
echo "A call is one mark plus its completion; calls/s = pgbench tps x calls per transaction."
