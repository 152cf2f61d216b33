#!/usr/bin/env bash
# Runs a private PostgreSQL server for the JDBC store's tests (toolyard-store-jdbc).
#
# What it leaves running, and what the tests use by default (see docs/store.md):
#   jdbc:postgresql://127.0.0.1:55432/toolyard_test   user toolyard   password toolyard
# The server listens on 127.0.0.1 only (TCP port 55432) plus a Unix socket in $BASE/run.
#
# Run as root on Debian 12, with or without systemd. Idempotent: installs `postgresql` only if no
# server binaries are present (apt-get update only then), initialises the cluster only once, starts
# it only if it is not running (a running server is left alone), and creates the role and database
# only if they are missing. It exports nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PORT=55432
BASE=/var/lib/postgresql/toolyard-test
DATA="$BASE/data"
RUN="$BASE/run"
LOG="$BASE/server.log"
DB=toolyard_test
DB_USER=toolyard
DB_PASSWORD=toolyard

say() { echo "setup-postgres: $*"; }

pg_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ]; then
    echo "$dir"
  fi
}

BIN=$(pg_bin)
if [ -z "$BIN" ] || ! id postgres >/dev/null 2>&1; then
  ci_apt_install "(PostgreSQL server binaries not found)" postgresql
  BIN=$(pg_bin)
  if [ -z "$BIN" ]; then
    say "installed postgresql but found no /usr/lib/postgresql/*/bin/initdb" >&2
    exit 1
  fi
fi
MAJOR=$(basename "$(dirname "$BIN")")
say "using $BIN (PostgreSQL $MAJOR)"

as_postgres() { (cd / && runuser -u postgres -- "$@"); }

install -d -o postgres -g postgres -m 0700 "$BASE" "$RUN"

# A data directory from another major version (after an upgrade) holds only test data: start over.
if [ -f "$DATA/PG_VERSION" ] && [ "$(cat "$DATA/PG_VERSION")" != "$MAJOR" ]; then
  say "data directory is from PostgreSQL $(cat "$DATA/PG_VERSION"), binaries are $MAJOR: re-initialising"
  if [ -f "$DATA/postmaster.pid" ]; then
    as_postgres "$BIN/pg_ctl" -D "$DATA" -m fast -w stop || true
  fi
  rm -rf "$DATA"
fi

if [ ! -f "$DATA/PG_VERSION" ]; then
  say "initialising a cluster in $DATA"
  rm -rf "$DATA"
  as_postgres "$BIN/initdb" -D "$DATA" -U postgres --encoding=UTF8 --locale=C \
    --auth-local=peer --auth-host=scram-sha-256 >/dev/null
  cat >>"$DATA/postgresql.conf" <<CONF

# toolyard test server (.ci/setup-postgres.sh)
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$RUN'
max_connections = 100
fsync = on
synchronous_commit = on
CONF
fi

# Running means: the pid in postmaster.pid is alive and is a postgres serving this data directory.
# A pid file left by a killed server (its pid possibly reused by another process) is stale.
server_running() {
  [ -f "$DATA/postmaster.pid" ] || return 1
  local pid
  pid=$(head -n 1 "$DATA/postmaster.pid")
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" = postgres ] \
    && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$DATA"
}

if server_running; then
  say "server already running (pid $(head -n 1 "$DATA/postmaster.pid")): leaving it alone"
else
  rm -f "$DATA/postmaster.pid"
  say "starting the server on 127.0.0.1:$PORT (log: $LOG)"
  touch "$LOG" && chown postgres:postgres "$LOG"
  if ! as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start >/dev/null; then
    say "the server did not start; last lines of $LOG:" >&2
    tail -n 20 "$LOG" >&2 || true
    exit 1
  fi
fi

for _ in $(seq 1 60); do
  if as_postgres "$BIN/pg_isready" -q -h "$RUN" -p "$PORT"; then break; fi
  sleep 1
done
as_postgres "$BIN/pg_isready" -h "$RUN" -p "$PORT"

psql_admin() { as_postgres "$BIN/psql" -X -h "$RUN" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -At "$@"; }

if [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$DB_USER'")" != 1 ]; then
  say "creating role $DB_USER"
  # CREATEDB: the tests create and drop a database of their own to show a store whose database is gone.
  psql_admin -c "CREATE ROLE $DB_USER LOGIN CREATEDB PASSWORD '$DB_PASSWORD'" >/dev/null
fi
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
  say "creating database $DB"
  psql_admin -c "CREATE DATABASE $DB OWNER $DB_USER" >/dev/null
fi
say "ready: jdbc:postgresql://127.0.0.1:$PORT/$DB (user $DB_USER)"
