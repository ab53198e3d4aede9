#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback, for the test suite (scripts/test.sh) and the scale-out benchmark.
#   bash scripts/postgres-cluster.sh start DIR          initdb in DIR/data, start on a free 127.0.0.1 port (its
#                                                       socket in DIR), create role and database listdelta; prints
#                                                       the URL (also in DIR/url)
#   bash scripts/postgres-cluster.sh createdb DIR NAME  a fresh database NAME owned by listdelta; prints its URL
#   bash scripts/postgres-cluster.sh pause DIR          stop the server at once (an outage), keeping its data
#   bash scripts/postgres-cluster.sh resume DIR         start it again on the same port
#   bash scripts/postgres-cluster.sh stop DIR           stop it and remove DIR (KEEP=1 keeps DIR)
# Needs Debian's postgresql package (scripts/setup.sh --tests installs it). As root, the server runs as the
# postgres user, since PostgreSQL refuses to run as root.
set -euo pipefail

usage() { echo "usage: bash scripts/postgres-cluster.sh start|stop|pause|resume DIR | createdb DIR NAME" >&2; exit 2; }
[ $# -ge 2 ] || usage
command=$1
dir=$2

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/pg_ctl" ]; then
    echo "error: PostgreSQL's server is not installed (apt-get install postgresql)" >&2
    exit 1
fi

# Runs a server program as a user PostgreSQL accepts, from a directory that user can read.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

pg_ctl_start() {
    local port
    port=$(cat "$dir/port")
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 30 \
        -o "-h 127.0.0.1 -p $port -k $dir -c max_connections=300 -c shared_buffers=64MB" start >/dev/null
}

admin_psql() {
    PGPASSWORD=$(cat "$dir/superuser-password") psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$(cat "$dir/port")" \
        -U postgres -d postgres "$@"
}

url_for() { echo "postgres://listdelta:$(cat "$dir/password")@127.0.0.1:$(cat "$dir/port")/$1?sslmode=disable"; }

case "$command" in
start)
    if [ -f "$dir/data/postmaster.pid" ]; then
        echo "error: $dir holds a running cluster; stop it first" >&2
        exit 1
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # The postgres user must reach DIR through its parents.
    chmod 755 "$dir"
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$dir/port"
    python3 -c 'import secrets; print(secrets.token_hex(16))' >"$dir/superuser-password"
    python3 -c 'import secrets; print(secrets.token_hex(16))' >"$dir/password"
    if [ "$(id -u)" -eq 0 ]; then chown -R postgres "$dir"; fi
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres --pwfile="$dir/superuser-password" --auth=scram-sha-256 \
        -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log"
    pg_ctl_start
    admin_psql -c "CREATE ROLE listdelta LOGIN CREATEDB PASSWORD '$(cat "$dir/password")'" \
        -c "CREATE DATABASE listdelta OWNER listdelta"
    url_for listdelta >"$dir/url"
    cat "$dir/url"
    ;;
createdb)
    [ $# -eq 3 ] || usage
    [[ "$3" =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "error: database names are [a-z_][a-z0-9_]*" >&2; exit 2; }
    admin_psql -c "CREATE DATABASE $3 OWNER listdelta"
    url_for "$3"
    ;;
pause)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null
    ;;
resume)
    pg_ctl_start
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null || true
    fi
    if [ "${KEEP:-0}" != "1" ]; then rm -rf "$dir"; fi
    ;;
*)
    usage
    ;;
esac
