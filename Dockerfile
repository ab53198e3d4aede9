# syntax=docker/dockerfile:1
# ListDelta: build with Swift 6.3, run on a slim Debian with only the runtime libraries.
#   docker build -t listdelta .
#   docker run -p 8080:8080 -v listdelta-data:/data -e LISTDELTA_WRITE_TOKENS=secret listdelta
# On 0.0.0.0 the service refuses to start with anonymous writes: set LISTDELTA_WRITE_TOKENS
# (comma-separated) or, deliberately, LISTDELTA_ALLOW_ANONYMOUS_WRITES=true.

FROM swift:6.3-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libevent-dev zlib1g-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies in their own layer so source edits do not refetch them.
COPY Package.swift ./
RUN swift package resolve
COPY Sources Sources
COPY Config Config
# Copy out the binary and the resource bundles (*.resources) it loads from beside itself.
RUN swift build -c release --product listdelta --static-swift-stdlib \
    && bin="$(swift build -c release --show-bin-path)" \
    && install -D -m 0755 "$bin/listdelta" /out/listdelta \
    && find "$bin" -maxdepth 1 -name '*.resources' -exec cp -R {} /out/ \;

FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        libevent-2.1-7 zlib1g libsqlite3-0 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 listdelta \
    && useradd --system --uid 10001 --gid listdelta --home-dir /app --no-create-home --shell /usr/sbin/nologin listdelta \
    && mkdir -p /data \
    && chown listdelta:listdelta /data
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
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["sh", "-c", "curl -fsS http://127.0.0.1:8080/healthz || exit 1"]
ENTRYPOINT ["listdelta"]
CMD ["serve"]
