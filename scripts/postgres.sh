#!/usr/bin/env bash
# A private PostgreSQL server for Tableside's tests and benchmarks, on 127.0.0.1 only.
#
#   scripts/postgres.sh [start]   install PostgreSQL if missing (Debian, as root), initialise a
#                                 cluster in $TABLESIDE_PG_DIR if there is none, start it if it
#                                 is not running, create the database, and print its URL
#   scripts/postgres.sh url       print the URL only
#   scripts/postgres.sh status    exit 0 when the server is running
#   scripts/postgres.sh stop      stop the server (the cluster stays for the next start)
#
# Idempotent: run it as often as you like. The cluster is separate from any system cluster
# (its own directory and port), uses trust authentication on 127.0.0.1 (a test server: do not
# keep data in it) and, when run as root, runs as the `postgres` user. Use it as:
#
#   export TABLESIDE_TEST_POSTGRES_URL="$(scripts/postgres.sh)"
#
# Settings: TABLESIDE_PG_PORT (default 54329), TABLESIDE_PG_DIR (default
# /tmp/tableside-postgres-$TABLESIDE_PG_PORT), TABLESIDE_PG_DATABASE (default tableside).
# Everything but the URL goes to stderr.
set -euo pipefail

PORT="${TABLESIDE_PG_PORT:-54329}"
DATA="${TABLESIDE_PG_DIR:-/tmp/tableside-postgres-$PORT}"
DATABASE="${TABLESIDE_PG_DATABASE:-tableside}"
URL="postgresql+psycopg://postgres@127.0.0.1:$PORT/$DATABASE"

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
        echo "$dir"
    elif command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
    fi
}

install_postgres() {
    if [ -n "$(find_bindir)" ]; then
        return
    fi
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        log "PostgreSQL is not installed: install the server (Debian: apt-get install postgresql)."
        exit 1
    fi
    log "installing PostgreSQL (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql </dev/null >&2
}

# Run a PostgreSQL program as the postgres user when we are root (the server refuses root).
as_pg() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# The server of $DATA is running: its postmaster.pid names a live process (not a zombie left by
# a kill, which `pg_ctl status` would still count as running).
is_running() {
    local bin pid state
    bin="$(find_bindir)"
    [ -n "$bin" ] && [ -f "$DATA/postmaster.pid" ] || return 1
    as_pg "$bin/pg_ctl" status -D "$DATA" >/dev/null 2>&1 || return 1
    pid="$(head -n 1 "$DATA/postmaster.pid")"
    if [ -r "/proc/$pid/status" ]; then
        state="$(awk '/^State:/ {print $2}' "/proc/$pid/status")"
        [ "$state" != Z ] || return 1
    fi
}

# A server that was killed leaves lock files naming its (dead) process: remove them.
remove_stale_locks() {
    if [ -f "$DATA/postmaster.pid" ]; then
        log "removing the lock files of a server that is no longer running"
        rm -f "$DATA/postmaster.pid" "$DATA/.s.PGSQL.$PORT.lock"
    fi
}

start() {
    install_postgres
    local bin
    bin="$(find_bindir)"
    if [ ! -f "$DATA/PG_VERSION" ]; then
        log "initialising a cluster in $DATA"
        if [ "$(id -u)" = 0 ]; then
            mkdir -p "$DATA"
            chown postgres:postgres "$DATA"
        fi
        as_pg mkdir -p "$DATA"
        as_pg chmod 700 "$DATA"
        as_pg "$bin/initdb" -D "$DATA" -U postgres --auth=trust --no-locale -E UTF8 >&2
    fi
    if is_running; then
        log "server already running on 127.0.0.1:$PORT ($DATA)"
    else
        remove_stale_locks
        log "starting the server on 127.0.0.1:$PORT ($DATA)"
        local attempt
        for attempt in 1 2 3; do
            if as_pg "$bin/pg_ctl" start -D "$DATA" -w -t 60 -l "$DATA/server.log" \
                -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories=$DATA" >&2
            then
                break
            fi
            tail -n 5 "$DATA/server.log" >&2 || true
            if [ "$attempt" = 3 ]; then
                log "the server did not start (log: $DATA/server.log)"
                exit 1
            fi
            sleep 2  # e.g. the processes of a killed server are still exiting
            remove_stale_locks
        done
    fi
    local psql=("$bin/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
    if [ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" != 1 ]; then
        log "creating database $DATABASE"
        "${psql[@]}" -c "CREATE DATABASE \"$DATABASE\"" >&2
    fi
    echo "$URL"
}

stop() {
    if is_running; then
        log "stopping the server on 127.0.0.1:$PORT"
        as_pg "$(find_bindir)/pg_ctl" stop -D "$DATA" -m fast -w >&2
    fi
}

case "${1:-start}" in
    start) start ;;
    url) echo "$URL" ;;
    status) is_running ;;
    stop) stop ;;
    *) log "unknown command ${1}: use start, url, status or stop"; exit 2 ;;
esac
