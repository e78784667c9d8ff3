#!/usr/bin/env bash
# One command: set up everything the tests use (chromium included), then run the whole suite.
# GPU tests are marked and skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --browser
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
