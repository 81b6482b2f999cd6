#!/usr/bin/env bash
# Install everything the test suite needs and run it: the one test command (README, CI, your own loop).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet -c constraints.txt -e '.[test]'

# A real headless browser for the chat page test: Debian's chromium and its driver.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# Real Redis for the Redis backend tests: Debian's redis-server, started here on loopback.
if [[ -z "${WAYFARER_TEST_REDIS_URL:-}" ]]; then
    if ! command -v redis-server >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
    fi
    port=6390
    if ! redis-cli -p "$port" ping >/dev/null 2>&1; then
        redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
            --pidfile "/tmp/wayfarer-test-redis.pid" >/dev/null
        for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    fi
    export WAYFARER_TEST_REDIS_URL="redis://127.0.0.1:${port}/15"
fi

python3 -m ruff check rag connectors tests scripts
python3 -m ruff format --check rag connectors tests scripts
python3 -m mypy
python3 -m pytest "$@"
