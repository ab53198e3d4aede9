#!/usr/bin/env bash
# Builds local stand-ins for the Dockerfile's FROM images, under the same names, for the container tests on a
# machine that cannot pull from a registry:
#   docker.io/library/debian:bookworm-slim  a `debootstrap --variant=minbase bookworm` from the Debian archive apt
#                                           already uses, trimmed as the official slim image is (no docs, man pages
#                                           or locales installed, no apt lists or package cache kept)
#   docker.io/library/swift:6.3-bookworm    that base plus the packages the official Swift image installs; the
#                                           toolchain itself is not copied in: the project's build bind-mounts the
#                                           machine's (/opt/swift, on PATH) and its package mirror (/opt/swift-packages,
#                                           which a git insteadOf rule inside puts in place of https://github.com/)
#   docker.io/library/postgres:15-bookworm  Debian's PostgreSQL 15 behind an entrypoint that keeps the official
#                                           image's contract: POSTGRES_USER/PASSWORD/DB, PGDATA, initialised when empty
#   docker.io/library/nginx:stable-bookworm Debian's nginx, conf.d/*.conf included, in the foreground
# An image that already exists is kept. Test-only: the Dockerfile stays what a user with Docker Hub builds.
#   bash Tests/container/standins.sh
set -euo pipefail

BASE=docker.io/library/debian:bookworm-slim
SWIFT=docker.io/library/swift:6.3-bookworm
POSTGRES=docker.io/library/postgres:15-bookworm
NGINX=docker.io/library/nginx:stable-bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

log() { printf '==> %s\n' "$*"; }
exists() { podman image exists "$1"; }

build_base() {
    local work rootfs
    work=$(mktemp -d /tmp/listdelta-standin.XXXXXX)
    rootfs="$work/rootfs"
    log "debootstrap --variant=minbase bookworm ($MIRROR)"
    debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
        || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    # The sources as the official image lists them (deb822, one file), so that a Dockerfile that edits them works.
    rm -f "$rootfs/etc/apt/sources.list"
    cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY_MIRROR
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    # What makes the official image slim: packages installed later leave out docs, man pages and locales, and
    # apt keeps neither its lists nor its downloads.
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
DPKG
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* \
        "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log
    find "$rootfs/usr/share/doc" -mindepth 2 -not -name copyright -not -type d -delete
    : >"$rootfs/etc/hostname"
    log "importing $BASE"
    tar -C "$rootfs" --numeric-owner -c . | podman import --quiet --change 'CMD ["bash"]' - "$BASE" >/dev/null
    rm -rf "$work"
}

build_swift() {
    # The packages the official swift:6.3-bookworm image installs, and the toolchain's place on PATH.
    build_from "$SWIFT" <<CONTAINERFILE
FROM $BASE
RUN apt-get update \\
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
        binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev libsqlite3-0 \\
        libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev pkg-config tzdata zlib1g-dev unzip ca-certificates \\
    && rm -rf /var/lib/apt/lists/* \\
    && git config --system url./opt/swift-packages/.insteadOf https://github.com/
ENV PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CONTAINERFILE
}

# Builds image $1 from the Containerfile on standard input, in a folder that also holds the files named after it
# (name=content pairs).
build_from() {
    local image=$1 work
    shift
    work=$(mktemp -d /tmp/listdelta-standin.XXXXXX)
    cat >"$work/Containerfile"
    while [ "$#" -gt 0 ]; do
        printf '%s' "${1#*=}" >"$work/${1%%=*}"
        shift
    done
    log "building $image"
    buildah bud --isolation chroot --format docker --pull=never -t "$image" -f "$work/Containerfile" "$work" \
        >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
    rm -rf "$work"
}

build_postgres() {
    local entrypoint
    entrypoint=$(cat <<'SCRIPT'
#!/bin/sh
# The official image's contract, in short: an empty PGDATA is initialised with POSTGRES_USER (superuser),
# POSTGRES_PASSWORD (required, scram) and POSTGRES_DB; then the server runs in the foreground as postgres.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}" "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
bin=/usr/lib/postgresql/15/bin
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "error: POSTGRES_PASSWORD is not set" >&2; exit 1; }
    printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pwfile
    "$bin/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f /tmp/pwfile
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    "$bin/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    if [ "$POSTGRES_DB" != postgres ]; then
        "$bin/psql" -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\"" >/dev/null
    fi
    "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' "$@"
SCRIPT
)
    build_from "$POSTGRES" "entrypoint.sh=$entrypoint" <<CONTAINERFILE
FROM $BASE
RUN apt-get update \\
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 postgresql-client-15 \\
    && rm -rf /var/lib/apt/lists/*
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN chmod 0755 /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CONTAINERFILE
}

build_nginx() {
    build_from "$NGINX" <<CONTAINERFILE
FROM $BASE
RUN apt-get update \\
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light \\
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/* \\
    && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
CONTAINERFILE
}

if exists "$BASE"; then log "$BASE: present"; else build_base; fi
if exists "$SWIFT"; then log "$SWIFT: present"; else build_swift; fi
if exists "$POSTGRES"; then log "$POSTGRES: present"; else build_postgres; fi
if exists "$NGINX"; then log "$NGINX: present"; else build_nginx; fi
