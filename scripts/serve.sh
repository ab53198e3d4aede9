#!/usr/bin/env bash
# Sets up, builds the release binary and starts the service.
# Defaults come from Config/listdelta.json: 127.0.0.1:8080, data in ./data.
# Arguments go to `listdelta serve`, e.g. `bash scripts/serve.sh --port 9090 --data /tmp/ld`.
set -euo pipefail

cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "==> swift build -c release --product listdelta"
swift build -c release --product listdelta
exec .build/release/listdelta serve "$@"
