#!/usr/bin/env bash
# One command: set up everything, build the index on first run (with a progress bar), serve the UI.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec .venv/bin/tuile serve "$@"
