#!/usr/bin/env bash
# The one test command (README, CI, your own loop): install what the suite needs, lint, type-check, test.
#
#   bash scripts/test.sh                  everything (what CI runs)
#   bash scripts/test.sh --fast           the inner loop: pytest -m "not slow"
#   bash scripts/test.sh [--fast] ARGS    ARGS go to pytest, e.g. tests/test_api.py -x -k search
#
# Each step says what it does and how long it took, and a summary lists them at the end. A redis-server
# this script starts is stopped when it exits; one that was running already is left alone.
# Everything runs in .venv-test, made anew on each full run (--fast keeps it while nothing changed);
# WAYFARER_TEST_REINSTALL=1 remakes it for --fast too.
# WAYFARER_TEST_REDIS_URL uses that Redis, else one on 127.0.0.1:${WAYFARER_TEST_REDIS_PORT:-6390}.
set -euo pipefail
cd "$(dirname "$0")/.."

pytest_args=()
shown="" # the pytest arguments as one would type them
fast=0
for arg in "$@"; do
    if [[ "$arg" == "--fast" ]]; then
        fast=1
        pytest_args+=(-m "not slow")
        shown+=' -m "not slow"'
    else
        pytest_args+=("$arg")
        shown+=" $(printf '%q' "$arg")"
    fi
done

now() { echo "${EPOCHREALTIME:-$(date +%s)}"; }
started_all=$(now)
summary=()
step_name=""
step_started=""

begin() {
    step_name="$1"
    step_started=$(now)
    printf '\n==> %s\n' "$step_name"
}

end() {
    local took
    took=$(awk -v a="$step_started" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    summary+=("$(printf '%8s s  %s' "$took" "$step_name")")
    printf '<== %s: %s s\n' "$step_name" "$took"
    step_name=""
}

redis_pid=""
redis_pidfile=""
finish() {
    local status=$?
    if [[ -n "$step_name" ]]; then
        summary+=("$(printf '%8s    %s (failed, exit %s)' "" "$step_name" "$status")")
    fi
    if [[ -n "$redis_pid" ]] && kill -0 "$redis_pid" 2>/dev/null; then
        kill "$redis_pid"
        for _ in $(seq 50); do kill -0 "$redis_pid" 2>/dev/null || break; sleep 0.1; done
        echo "stopped the redis-server this script started (pid $redis_pid)"
    fi
    [[ -z "$redis_pidfile" ]] || rm -f "$redis_pidfile"
    printf '\nSteps:\n'
    printf '%s\n' "${summary[@]}"
    awk -v a="$started_all" -v b="$(now)" 'BEGIN { printf "%8.1f s  in all\n", b - a }'
}
trap finish EXIT

apt_install() {
    local sudo=()
    [[ $EUID -eq 0 ]] || sudo=(sudo)
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}

# Python packages, in a virtual environment of the suite's own (.venv-test), made from nothing on every
# full run, so a package the code imports but pyproject.toml does not declare fails here as it would for
# a newcomer. pip's wheel cache keeps that to about a minute. --fast keeps the environment while
# pyproject.toml, the lock and the Python are unchanged (WAYFARER_TEST_REINSTALL=1 remakes it anyway).
venv=.venv-test
py="$venv/bin/python"
begin "install: a fresh $venv (pip install -c constraints-test.txt -e '.[test]')"
base_python=$(command -v python3)
key=$( (cat pyproject.toml constraints-test.txt; "$base_python" -c 'import sys; print(sys.version)') | sha256sum | cut -c1-16)
if [[ "$fast" == 1 && "${WAYFARER_TEST_REINSTALL:-}" != "1" && -x "$py" && "$(cat "$venv/.installed" 2>/dev/null)" == "$key" ]]; then
    echo "kept: --fast, and pyproject.toml, constraints-test.txt and the Python are unchanged since $venv was made"
else
    rm -rf "$venv"
    "$base_python" -m venv "$venv"
    echo "pip says what it collects; the first install on a machine fetches PyTorch and takes minutes"
    "$py" -m pip install --progress-bar on -c constraints-test.txt -e '.[test]'
    echo "$key" >"$venv/.installed"
fi
end

# A real headless browser for the chat page tests: Debian's chromium and its driver.
begin "apt: chromium and chromium-driver"
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    echo "installed already: $(command -v chromium), $(command -v chromedriver)"
else
    apt_install chromium chromium-driver
fi
end

# Real Redis for the Redis backend tests: Debian's redis-server on loopback, unless one is given.
begin "redis: a server for the Redis backend tests"
if [[ -n "${WAYFARER_TEST_REDIS_URL:-}" ]]; then
    echo "using WAYFARER_TEST_REDIS_URL=$WAYFARER_TEST_REDIS_URL"
else
    if ! command -v redis-server >/dev/null; then
        apt_install redis-server
    fi
    port="${WAYFARER_TEST_REDIS_PORT:-6390}"
    if redis-cli -p "$port" ping >/dev/null 2>&1; then
        echo "one is running on port $port already: using it, and leaving it running"
    else
        redis_pidfile=$(mktemp /tmp/wayfarer-test-redis.XXXXXX)
        redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
            --pidfile "$redis_pidfile" >/dev/null
        for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
        redis_pid=$(cat "$redis_pidfile")
        if [[ -z "$redis_pid" ]] || ! redis-cli -p "$port" ping >/dev/null 2>&1; then
            echo "redis-server did not answer on port $port" >&2
            exit 1
        fi
        echo "started redis-server on 127.0.0.1:$port (pid $redis_pid); it stops when this script ends"
    fi
    export WAYFARER_TEST_REDIS_URL="redis://127.0.0.1:${port}/15"
fi
end

begin "imports: every module under rag, connectors, tests and scripts, in $venv"
"$py" scripts/check_imports.py rag connectors tests scripts
end

begin "lint: ruff check and ruff format --check"
"$py" -m ruff check rag connectors tests scripts
"$py" -m ruff format --check rag connectors tests scripts
end

begin "types: mypy --strict on rag and connectors"
"$py" -m mypy
end

begin "tests: pytest${shown:- (the whole suite)}"
"$py" -m pytest --durations=15 ${pytest_args[@]+"${pytest_args[@]}"}
end
