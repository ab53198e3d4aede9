# syntax=docker/dockerfile:1
# ListDelta: build with Swift 6.3, run on a slim Debian with only the shared libraries the binary loads.
#   docker build -t listdelta .
#   docker run -p 8080:8080 -v listdelta-data:/data -e LISTDELTA_WRITE_TOKENS=secret listdelta
# On 0.0.0.0 the service refuses to start with anonymous writes: set LISTDELTA_WRITE_TOKENS
# (comma-separated) or, deliberately, LISTDELTA_ALLOW_ANONYMOUS_WRITES=true.
# compose.yaml runs a whole deployment: PostgreSQL, two instances and nginx in front.

FROM swift:6.3-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libevent-dev zlib1g-dev libsqlite3-dev pkg-config binutils ca-certificates dpkg-dev \
    && rm -rf /var/lib/apt/lists/*

# libxml2 (the feed parsers read XML through its SAX2 interface, the CLibXML2 target; FoundationXML links it too),
# linked in statically and built without ICU. Debian's libxml2 package pulls in a second ICU (36 MB) that the
# binary never uses: the feed parser hands libxml2 UTF-8 only, and the Swift runtime carries its own ICU. Built
# from Debian's source package, with Debian's patches, at the version apt would install. It takes the place of
# libxml2-dev's library in this stage (its headers stay, found through pkg-config), so CLibXML2's and
# FoundationXML's -lxml2 find it and nothing else.
WORKDIR /opt/libxml2-src
# hadolint ignore=DL3008,DL3003
RUN sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/debian-src.sources \
    && apt-get update \
    && apt-get source --quiet libxml2 \
    && rm -rf /var/lib/apt/lists/* \
    && cd libxml2-*/ \
    && touch aclocal.m4 && sleep 1 && touch configure config.h.in && sleep 1 && find . -name Makefile.in -exec touch {} + \
    && CC=clang ./configure --quiet --prefix=/opt/libxml2 --disable-shared --enable-static --with-pic --without-icu \
        --without-python --without-lzma --without-zlib --without-http --without-ftp --without-catalog \
        --without-debug --without-docbook --without-legacy \
    && make --silent -j"$(nproc)" && make --silent install \
    && rm -f /usr/lib/x86_64-linux-gnu/libxml2.so /usr/lib/x86_64-linux-gnu/libxml2.a \
    && cp /opt/libxml2/lib/libxml2.a /usr/lib/x86_64-linux-gnu/libxml2.a \
    && cd / && rm -rf /opt/libxml2-src

WORKDIR /src
# Resolve dependencies in their own layer so source edits do not refetch them.
COPY Package.swift ./
RUN swift package resolve
# The manifest names the test targets too, so their folders must exist for it to load (.dockerignore leaves out
# their sources: the tests are not built here).
COPY Sources Sources
COPY Tests Tests
COPY Config Config
# The Swift runtime and libxml2 are linked in statically. Symbols are not exported (the static runtime's link flags
# export them all: 5 MB of symbol tables the binary never reads), and the binary is stripped of its symbols and
# debug info. The resource bundles (*.resources) it loads from beside itself are copied out with it.
RUN swift build -c release --product listdelta --static-swift-stdlib -Xlinker --no-export-dynamic \
    && bin="$(swift build -c release --show-bin-path)" \
    && install -D -m 0755 "$bin/listdelta" /out/listdelta \
    && strip --strip-all /out/listdelta \
    && find "$bin" -maxdepth 1 -name '*.resources' -exec cp -R {} /out/ \;

FROM debian:bookworm-slim
# Exactly what `ldd listdelta` lists beyond the base: libevent, zlib and SQLite. The CA certificates for https
# sources are one file, copied from the build stage. The health check is the binary itself, so no curl.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-2.1-7 zlib1g libsqlite3-0 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 listdelta \
    && useradd --system --uid 10001 --gid listdelta --home-dir /app --no-create-home --shell /usr/sbin/nologin listdelta \
    && mkdir -p /data \
    && chown listdelta:listdelta /data
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/ /usr/local/bin/
COPY Config /app/Config
WORKDIR /app
VOLUME /data
ENV LISTDELTA_HOST=0.0.0.0 \
    LISTDELTA_PORT=8080 \
    LISTDELTA_DATA_DIRECTORY=/data
EXPOSE 8080
# The numeric id of the listdelta user, so orchestrators can verify it is not root.
USER 10001:10001
# `listdelta health` asks GET /healthz on the configured port: 200 while serving, 503 while draining before a stop
# or while PostgreSQL is out of reach.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["listdelta", "health"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["listdelta"]
CMD ["serve"]
