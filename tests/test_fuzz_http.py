"""Property-based fuzz of every HTTP endpoint from the app's own /openapi.json, with schemathesis.

The real app (cleanup contexts included) serves on a loopback port from a thread with its own event loop:
schemathesis's pytest integration is synchronous. Each operation gets a fixed number of examples from a
fixed seed, so a run is repeatable; it fails on any 5xx, on any response (status, content type, body,
headers) that /openapi.json does not describe, and on a request the document calls valid that is refused
for its shape (``schema_valid_is_accepted``). Run it alone with ``pytest -m fuzz``.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from aiohttp import web
from schemathesis.checks import load_all_checks, not_a_server_error
from schemathesis.specs.openapi import checks as oas

from rag.settings import SEED_DIR, Settings
from tests.conftest import SMALL_SEED

load_all_checks()

# What no JSON Schema can say, so a request the document calls valid may still be refused for it:
# whether a place exists, dates against today, and fields that must agree with each other; and the
# limits of a document's free-form metadata, which its schema states in words (total keys and bytes,
# nesting, integers within 64 bits, keys the service owns); and I-JSON's (RFC 7493), which every body
# is read with: no unpaired surrogates, numbers a double holds.
BEYOND_SCHEMA = re.compile(
    r"unknown (city or airport|currency code|airline|country)|no place called|is in the past|days ahead|is before"
    r"|must be after|disagree|same place|at most (9 seated|one infant|30 nights)|only 16 days"
    r"|more than 19 digits|64-bit range|levels deep|more than \d+ keys|bytes as JSON|set by the service"
    r"|reserved for the service|source: a non-empty string|unpaired UTF-16 surrogate|is out of range"
)


@schemathesis.check
def schema_valid_is_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    """/openapi.json as strict as the validators: a request it calls valid is not refused (422) for its
    shape (types, lengths, patterns, required fields), only for what BEYOND_SCHEMA names. The generic
    /v1/tools/{name} is left out: its body is any tool's, and each tool's own path describes it."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    if case.operation.path == "/v1/tools/{name}":
        return None
    message = response.json()["error"]["message"]
    shape = [part for part in message.split("; ") if not BEYOND_SCHEMA.search(part)]
    if shape:
        raise AssertionError(f"a request /openapi.json calls valid was refused for its shape: {shape}")
    return None


pytestmark = [pytest.mark.fuzz, pytest.mark.slow, pytest.mark.timeout(300)]

ADMIN = "fuzz-admin-token"
MAX_EXAMPLES = 30
SEED = 11  # fixed: CI sees the same requests every run
CHECKS = [
    not_a_server_error,
    oas.status_code_conformance,
    oas.content_type_conformance,
    oas.response_schema_conformance,
    oas.response_headers_conformance,
    oas.negative_data_rejection,
    oas.ignored_auth,
    oas.unsupported_method,
    schema_valid_is_accepted,
]


class ServerThread(threading.Thread):
    """The app on 127.0.0.1 (a free port), served by its own event loop until ``stop``."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(name="fuzz-server", daemon=True)
        self._settings = settings
        self.ready = threading.Event()
        self.port = 0
        self.error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    def run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        from rag.web.app import create_app

        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        runner = web.AppRunner(create_app(self._settings))
        try:
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            self.port = runner.addresses[0][1]
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            self.ready.set()
        try:
            await self._stopping.wait()
        finally:
            await runner.cleanup()

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        self.join(timeout=60)


def fuzz_settings(root: Path) -> Settings:
    """Settings as make_settings builds them (WAYFARER_ variables, a private data dir), for a module."""
    seed = root / "seed"
    for rel in SMALL_SEED:
        (seed / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SEED_DIR / rel, seed / rel)
    with pytest.MonkeyPatch.context() as mp:
        for key in list(os.environ):
            if key.startswith("WAYFARER_") and key != "WAYFARER_TEST_REDIS_URL":
                mp.delenv(key)
        mp.chdir(root)
        env = {
            "WAYFARER_SERVER__DATA_DIR": str(root / "data"),
            "WAYFARER_ADMIN_TOKEN": ADMIN,
            "WAYFARER_INDEX__SEED_DIR": str(seed),
            "WAYFARER_LIMITS__MAX_BODY_BYTES": str(8 * 1024 * 1024),
            "WAYFARER_SCHEDULER__ENABLED": "false",
            "WAYFARER_SERVER__CHAT_RATE_LIMIT": "0",
            "WAYFARER_SERVER__ROUTE_RATE_LIMIT": "0",
            "WAYFARER_SERVER__TOOL_RATE_LIMIT": "0",
        }
        for key, value in env.items():
            mp.setenv(key, value)
        return Settings()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = ServerThread(fuzz_settings(tmp_path_factory.mktemp("fuzz")))
    server.start()
    if not server.ready.wait(timeout=300) or server.error is not None:
        server.stop()
        pytest.fail(f"the app did not start: {server.error!r}")
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.stop()


def _config(*, admin: bool) -> schemathesis.Config:
    generation: dict[str, Any] = {
        "max-examples": MAX_EXAMPLES,
        "deterministic": True,
        "database": "none",
        # Unknown query parameters and headers are ignored, as most servers do: don't send them as
        # "invalid" requests that must be rejected.
        "allow-extra-parameters": False,
    }
    if admin:  # the test sends the real token; generated ones would only be replaced
        generation["with-security-parameters"] = False
    return schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "request-timeout": 60,
            "generation": generation,
            "phases": {"stateful": {"enabled": False}},
        }
    )


@pytest.fixture(scope="module")
def api(base_url: str) -> Any:
    return schemathesis.openapi.from_url(f"{base_url}/openapi.json", config=_config(admin=False))


@pytest.fixture(scope="module")
def admin_api(base_url: str) -> Any:
    return schemathesis.openapi.from_url(f"{base_url}/openapi.json", config=_config(admin=True))


# The WebSocket is fuzzed frame by frame in test_fuzz_ws.py.
anonymous = schemathesis.pytest.from_fixture("api").exclude(path="/v1/ws")
as_admin = schemathesis.pytest.from_fixture("admin_api").include(tag="admin")


@anonymous.parametrize()
def test_fuzz_without_token(case: Any) -> None:
    case.call_and_validate(checks=CHECKS)


@as_admin.parametrize()
def test_fuzz_admin_endpoints_with_admin_token(case: Any) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {ADMIN}"}, checks=CHECKS)
