#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback, for the test suite (scripts/test.sh) and the scale-out benchmark.
#   bash scripts/postgres-cluster.sh start DIR          initdb in DIR/data, start on a free 127.0.0.1 port (its
#                                                       socket in DIR), create role and database listdelta; prints
#                                                       the URL as its last line (also in DIR/url, the port in DIR/port)
#   bash scripts/postgres-cluster.sh createdb DIR NAME  a fresh database NAME owned by listdelta; prints its URL
#   bash scripts/postgres-cluster.sh pause DIR          stop the server at once (an outage), keeping its data
#   bash scripts/postgres-cluster.sh resume DIR         start it again on the same port
#   bash scripts/postgres-cluster.sh stop DIR           stop it (fine when not running) and remove DIR (KEEP=1 keeps it)
# Needs Debian's postgresql package (scripts/setup.sh --tests installs it); the server programs are found in the
# newest /usr/lib/postgresql/*/bin (or PG_BINDIR). PostgreSQL refuses to run as root, so as root the server runs as
# the package's postgres user and DIR is given to it (DIR's parents must let that user through). Password
# authentication (SCRAM) on TCP and on the socket; the Debian "main" cluster (port 5432) is neither used nor touched.
set -euo pipefail

usage() { echo "usage: bash scripts/postgres-cluster.sh start|stop|pause|resume DIR | createdb DIR NAME" >&2; exit 2; }
die() { echo "postgres-cluster: error: $*" >&2; exit 1; }
[ $# -ge 2 ] || usage
command=$1
dir=$(realpath -m -- "$2")
[ "$dir" != / ] || die "DIR must not be /"

bindir=${PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)}
[ -n "$bindir" ] && [ -x "$bindir/pg_ctl" ] ||
    die "PostgreSQL's server is not installed (apt-get install postgresql, or set PG_BINDIR)"

# Runs a server program as a user PostgreSQL accepts, from a directory that user can read.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

port() { cat "$dir/port" 2>/dev/null || die "$dir holds no cluster (no $dir/port)"; }
running() { [ -f "$dir/data/PG_VERSION" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; }
show_log() { echo "--- last lines of $dir/postgres.log:" >&2; tail -n 15 "$dir/postgres.log" >&2 2>/dev/null || true; }

# Starts the server on DIR/port and waits (at most 30 s) until it accepts connections.
start_server() {
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 30 -o "-p $(port)" start >/dev/null 2>&1 ||
        return 1
    local tries=0
    until "$bindir/pg_isready" -q -h 127.0.0.1 -p "$(port)" -t 1; do
        tries=$((tries + 1))
        [ $tries -lt 30 ] || { show_log; die "the server in $dir does not accept connections after 30 s"; }
        sleep 1
    done
}

admin_psql() {
    PGPASSWORD=$(cat "$dir/superuser-password") PGSSLMODE=disable PGCONNECT_TIMEOUT=10 \
        "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$(port)" -U postgres -d postgres "$@"
}

url_for() { echo "postgres://listdelta:$(cat "$dir/password")@127.0.0.1:$(port)/$1?sslmode=disable"; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Only directories this script made (or empty ones) are ever deleted.
removable() { [ ! -e "$dir" ] || [ -f "$dir/superuser-password" ] || [ -d "$dir/data" ] || [ -z "$(ls -A "$dir")" ]; }

case "$command" in
start)
    [ $# -eq 2 ] || usage
    ! running || die "$dir holds a running cluster (port $(port)); stop it first: bash $0 stop $dir"
    removable || die "$dir is not empty and is not a cluster of this script; refusing to delete it"
    # The socket's path ($dir/.s.PGSQL.PORT) must fit in a sockaddr_un (107 bytes).
    [ $((${#dir} + 16)) -le 107 ] || die "$dir is too long for a Unix socket path; use a shorter DIR (e.g. under /tmp)"
    [ "$(id -u)" -ne 0 ] || id -u postgres >/dev/null 2>&1 || die "no postgres user (install Debian's postgresql)"
    rm -rf "$dir"
    mkdir -p "$dir"
    chmod 700 "$dir"
    (umask 077
        python3 -c 'import secrets; print(secrets.token_hex(16))' >"$dir/superuser-password"
        python3 -c 'import secrets; print(secrets.token_hex(16))' >"$dir/password")
    if [ "$(id -u)" -eq 0 ]; then
        chown -R postgres "$dir"
        as_owner test -w "$dir" ||
            die "the postgres user cannot reach $dir: each parent directory must be traversable by others (chmod o+x)"
    fi
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres --pwfile="$dir/superuser-password" --auth=scram-sha-256 \
        -E UTF8 --locale=C.UTF-8 --no-sync --no-instructions >"$dir/initdb.log" 2>&1 ||
        { tail -n 15 "$dir/initdb.log" >&2; die "initdb failed (see $dir/initdb.log)"; }
    # Loopback only, the socket in DIR (never /var/run/postgresql); durable commits, as the durability tests expect.
    cat >>"$dir/data/postgresql.conf" <<EOF

# scripts/postgres-cluster.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '${dir//\'/\'\'}'
max_connections = 300
shared_buffers = 64MB
fsync = on
synchronous_commit = on
EOF
    # Another process may take the free port before the server binds it: then try another.
    for attempt in 1 2 3; do
        free_port >"$dir/port"
        start_server && break
        if [ $attempt -lt 3 ] && grep -q "could not bind\|Address already in use" "$dir/postgres.log"; then continue; fi
        show_log
        die "PostgreSQL did not start in $dir"
    done
    admin_psql -c "CREATE ROLE listdelta LOGIN CREATEDB PASSWORD '$(cat "$dir/password")'" \
        -c "CREATE DATABASE listdelta OWNER listdelta"
    (umask 077; url_for listdelta >"$dir/url")
    cat "$dir/url"
    ;;
createdb)
    [ $# -eq 3 ] || usage
    [[ "$3" =~ ^[a-z_][a-z0-9_]{0,62}$ ]] || die "database names are [a-z_][a-z0-9_]*, at most 63 characters"
    running || die "no server is running in $dir (start or resume it)"
    admin_psql -c "CREATE DATABASE $3 OWNER listdelta"
    url_for "$3"
    ;;
pause)
    [ $# -eq 2 ] || usage
    if running; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null || die "could not stop $dir"
    else
        echo "postgres-cluster: $dir was not running" >&2
    fi
    ;;
resume)
    [ $# -eq 2 ] || usage
    [ -f "$dir/data/PG_VERSION" ] || die "$dir holds no cluster"
    if running; then
        echo "postgres-cluster: $dir is already running" >&2
    else
        start_server || { show_log; die "PostgreSQL did not start again in $dir (port $(port) taken?)"; }
    fi
    ;;
stop)
    [ $# -eq 2 ] || usage
    if running; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null ||
            as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 10 stop >/dev/null ||
            { kill -KILL "$(head -n 1 "$dir/data/postmaster.pid")" 2>/dev/null || true; sleep 1; }
    fi
    if [ "${KEEP:-0}" != 1 ]; then
        removable || die "$dir is not a cluster of this script; not deleting it"
        rm -rf "$dir"
    fi
    ;;
*)
    usage
    ;;
esac
