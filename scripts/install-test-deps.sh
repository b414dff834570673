#!/usr/bin/env bash
# Everything `make test` needs on a fresh machine. Idempotent and quiet when
# everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# The test extra includes the server extra (pygls, lsprotocol) and pytest-lsp:
# tests/test_server.py drives the real language server.
python3 -m pip install --quiet --disable-pip-version-check -e ./runtime -e '.[test]'

need_apt=()
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    need_apt+=(postgresql)
fi
if [ "${#need_apt[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "install-test-deps: missing ${need_apt[*]}; run as root or install them" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
