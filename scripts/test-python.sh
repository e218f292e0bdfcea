#!/usr/bin/env bash
# The Python package's tests (crates/python), as .ci/run runs them: a virtual environment in
# target/pyenv (created once, reused), maturin, pytest and numpy from PyPI into it, the package
# built and installed with the one command a user types (`pip install ./crates/python`: maturin,
# cargo's dev profile), then pytest on crates/python/tests.
#
#   scripts/test-python.sh [PYTEST ARGS...]
#
# Needs python3 (3.9 or newer) with its venv module (Debian/Ubuntu: the python3-venv package)
# and network access to PyPI on the first run. $PYTHON picks another interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
venv=target/pyenv
if ! command -v "$python" >/dev/null 2>&1; then
    echo "error: $python is not installed; the Python package's tests need Python 3.9 or newer" >&2
    exit 1
fi
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    rm -rf "$venv"
    if ! "$python" -m venv "$venv"; then
        echo "error: '$python -m venv' failed; install Python's venv module (Debian/Ubuntu: apt install python3-venv)" >&2
        exit 1
    fi
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check maturin pytest numpy
echo "== building and installing the Python package (pip install ./crates/python: cargo compiles the extension, minutes on a fresh checkout)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./crates/python
# -p no:cacheprovider: no .pytest_cache in the checkout.
"$venv/bin/python" -m pytest -p no:cacheprovider -q crates/python/tests "$@"
