#!/usr/bin/env bash
# The test command of the README and of .ci/run: the Rust workspace's tests, then the Python
# package's (scripts/test-python.sh: needs python3 with its venv module, and PyPI on first run).
#
#   scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked
scripts/test-python.sh
