"""The provider contract's failures, for every provider behind HTTP (see tests/provider_contract.py).

Each test makes the sandbox (or the gateway in front of it) misbehave for the provider's next requests
and asserts one error class with its stable code, and how many requests it took: a retried failure is
tried exactly ``TRIES`` times, one that retrying cannot mend exactly once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, get_args

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from connectors.base import Provider
from connectors.http import RetryPolicy
from connectors.models import Result
from connectors.params import ToolParams
from connectors.sandbox import FAULTS, SandboxFaults, create_sandbox_app
from connectors.sandbox.faults import BodyShape, RateLimitHeaders
from connectors.sandbox.gateway import GATEWAY_FAULTS, GatewayFaults, create_gateway_app
from connectors.tools import ToolRunner
from rag.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimitedError,
    ProviderRejectedError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from rag.settings import LimitsSettings
from tests.provider_contract import (
    CATALOGUE,
    TOOLS,
    TRIES,
    Connect,
    Dialect,
    ProviderContract,
    Raw,
    Wire,
    check_results,
    params,
)

Search = tuple[str, ToolParams]
# Patient about a provider's word on when to come back, quick otherwise.
PATIENT = RetryPolicy(retries=1, backoff=0.001, timeout=10.0, max_backoff=5.0)
QUICK = RetryPolicy(retries=1, backoff=0.01, timeout=0.2, max_backoff=0.05)
HINT_SECONDS = 0.3


def url(server: TestServer) -> str:
    return str(server.make_url(""))


async def settled(provider: Provider, search: Search, wire: Wire) -> int:
    """Requests one clean call takes once the provider is warm (an Amadeus token fetched and cached)."""
    await provider.call(*search, 5)
    before = len(wire.sent)
    await provider.call(*search, 5)
    return len(wire.sent) - before


async def fails(provider: Provider, search: Search, error: type[ProviderError]) -> ProviderError:
    with pytest.raises(error) as caught:
        await provider.call(*search, 5)
    assert caught.value.code == error.code and caught.value.message
    return caught.value


class HttpContract(ProviderContract):
    """Failures, for providers behind HTTP: override ``connect``, ``searches``, ``narrower``, ``dialect``
    and ``refused``. ``connect(base_url, policy=, key=, max_bytes=)`` builds the provider."""

    @pytest.fixture
    def connect(self, session: aiohttp.ClientSession) -> Connect:
        raise NotImplementedError

    @pytest.fixture
    def dialect(self) -> Dialect:
        raise NotImplementedError

    @pytest.fixture
    def refused(self) -> tuple[str, ToolParams, str]:
        """A request valid for us that the provider refuses (a 4xx), and words of its detail."""
        raise NotImplementedError

    @pytest.fixture
    def wire(self) -> Wire:
        return Wire()

    @pytest.fixture
    async def session(self, wire: Wire) -> AsyncIterator[aiohttp.ClientSession]:
        async with aiohttp.ClientSession(trace_configs=[wire.trace()]) as s:
            yield s

    @pytest.fixture
    async def sandbox(self, aiohttp_server: Any) -> TestServer:
        server: TestServer = await aiohttp_server(create_sandbox_app())
        return server

    @pytest.fixture
    def faults(self, sandbox: TestServer) -> SandboxFaults:
        """The running sandbox's faults: set a field and its next requests go wrong."""
        return sandbox.app[FAULTS]

    @pytest.fixture
    async def gateway(self, aiohttp_server: Any, sandbox: TestServer) -> TestServer:
        server: TestServer = await aiohttp_server(create_gateway_app(str(sandbox.make_url(""))))
        return server

    @pytest.fixture
    def gateway_faults(self, gateway: TestServer) -> GatewayFaults:
        return gateway.app[GATEWAY_FAULTS]

    @pytest.fixture
    def provider(self, connect: Connect, sandbox: TestServer) -> Provider:
        return connect(str(sandbox.make_url("")))

    @pytest.fixture
    def search(self, searches: dict[str, Raw]) -> tuple[str, ToolParams]:
        """The request the failure tests send: the first of ``searches``."""
        tool, raw = next(iter(searches.items()))
        return tool, params(tool, raw)


class HttpProviderContract(HttpContract):
    """Keys, rate limits, retries, timeouts and hostile bodies: the same tests for every HTTP provider."""

    @pytest.mark.parametrize("how", ["wrong", "revoked"])
    async def test_a_wrong_or_revoked_key_is_an_auth_error_never_retried(
        self,
        how: str,
        connect: Connect,
        sandbox: TestServer,
        faults: SandboxFaults,
        dialect: Dialect,
        search: Search,
        wire: Wire,
    ) -> None:
        if dialect.key is None:
            pytest.skip("the provider needs no key")
        if how == "wrong" and dialect.any_key_accepted:
            pytest.skip("the sandbox serves any client id: a refused client is the revoked case")
        if how == "revoked":
            faults.revoked_keys = [dialect.key]
        provider = connect(url(sandbox), key="not-a-key" if how == "wrong" else None)
        await fails(provider, search, ProviderAuthError)
        assert [status for status, _ in wire.answers] == [401]

    async def test_429s_are_retried_then_the_answer_comes(
        self, provider: Provider, faults: SandboxFaults, search: Search, wire: Wire, synthetic: bool
    ) -> None:
        clean = await settled(provider, search, wire)
        before = len(wire.sent)
        faults.too_many_requests = 2
        check_results(provider, search[0], await provider.call(*search, 5), synthetic)
        assert len(wire.sent) - before == clean + 2 and faults.too_many_requests == 0
        assert [status for status, _ in wire.answers[before : before + 2]] == [429, 429]

    @pytest.mark.parametrize("style", ["retry-after", "ratelimit"])
    async def test_a_429_is_retried_after_the_wait_it_asks_for(
        self,
        style: RateLimitHeaders,
        connect: Connect,
        sandbox: TestServer,
        faults: SandboxFaults,
        dialect: Dialect,
        search: Search,
        wire: Wire,
    ) -> None:
        if not dialect.hints:
            pytest.skip("the provider's 429s do not say when to come back (its backoff is tested above)")
        faults.retry_after_seconds, faults.rate_limit_headers = HINT_SECONDS, style
        provider = connect(url(sandbox), policy=PATIENT)
        await provider.call(*search, 5)
        faults.too_many_requests = 1
        before = len(wire.sent)
        await provider.call(*search, 5)
        status, answered = wire.answers[before]
        # Without the hint the backoff is a millisecond or two; a lower bound is safe on a busy machine.
        assert status == 429 and wire.sent[before + 1][2] - answered >= HINT_SECONDS * 0.9

    async def test_a_429_storm_ends_rate_limited_after_bounded_tries(
        self, provider: Provider, faults: SandboxFaults, search: Search, wire: Wire
    ) -> None:
        await provider.call(*search, 5)
        before = len(wire.sent)
        faults.too_many_requests = 50
        await fails(provider, search, ProviderRateLimitedError)
        assert len(wire.sent) - before == TRIES and faults.too_many_requests == 50 - TRIES

    async def test_server_errors_are_retried_a_bounded_number_of_times(
        self, provider: Provider, faults: SandboxFaults, search: Search, wire: Wire
    ) -> None:
        await provider.call(*search, 5)
        before = len(wire.sent)
        faults.error_rate = 1.0
        await fails(provider, search, ProviderUnavailableError)
        assert len(wire.sent) - before == TRIES
        assert all(status >= 500 for status, _ in wire.answers[-TRIES:])

    async def test_slow_answers_time_out_boundedly(
        self, connect: Connect, sandbox: TestServer, faults: SandboxFaults, search: Search, wire: Wire
    ) -> None:
        faults.latency_ms = 800
        error = await fails(connect(url(sandbox), policy=QUICK), search, ProviderUnavailableError)
        assert "did not answer within 0.2 s" in error.message
        assert len(wire.sent) == QUICK.retries + 1 and not wire.answers
        # Past the tool call's deadline, whatever the per-request timeout: provider_timeout.
        provider = connect(url(sandbox))
        runner = ToolRunner(dict.fromkeys(TOOLS, provider), CATALOGUE, TOOLS.params_models(), deadline=0.3)
        with pytest.raises(ProviderTimeoutError) as caught:
            await runner.call(*search)
        assert caught.value.code == "provider_timeout" and search[0] in caught.value.message

    async def test_truncated_json_is_a_bad_response_after_bounded_tries(
        self, provider: Provider, faults: SandboxFaults, search: Search, wire: Wire
    ) -> None:
        await provider.call(*search, 5)
        before = len(wire.sent)
        faults.malformed_rate = 1.0
        await fails(provider, search, ProviderResponseError)
        assert len(wire.sent) - before == TRIES

    async def test_misshapen_bodies_are_bad_responses(
        self, provider: Provider, faults: SandboxFaults, search: Search, wire: Wire
    ) -> None:
        await provider.call(*search, 5)
        for shape in get_args(BodyShape):
            faults.body_shape = shape
            before = len(wire.sent)
            await fails(provider, search, ProviderResponseError)
            assert wire.tries(before) <= TRIES, shape

    @pytest.mark.parametrize(
        ("status", "error"),
        [(200, ProviderResponseError), (502, ProviderUnavailableError), (403, ProviderAuthError)],
    )
    async def test_html_pages_from_a_gateway(
        self,
        status: int,
        error: type[ProviderError],
        connect: Connect,
        gateway: TestServer,
        gateway_faults: GatewayFaults,
        search: Search,
        wire: Wire,
    ) -> None:
        provider = connect(url(gateway))
        await provider.call(*search, 5)
        before = len(wire.sent)
        gateway_faults.html_status = status
        await fails(provider, search, error)
        # 200 and 502 may mend: tried again. A 403 will not (Amadeus renews its token once, then stops).
        assert wire.tries(before) == (TRIES if status != 403 else 1) and len(wire.sent) - before <= TRIES

    async def test_content_types_are_not_trusted_either_way(
        self,
        connect: Connect,
        gateway: TestServer,
        gateway_faults: GatewayFaults,
        search: Search,
        synthetic: bool,
    ) -> None:
        provider = connect(url(gateway))
        clean = [r.identity for r in await provider.call(*search, 5)]
        gateway_faults.content_type = "text/plain; charset=utf-8"  # JSON under another name is read
        found = await provider.call(*search, 5)
        check_results(provider, search[0], found, synthetic)
        assert [r.identity for r in found] == clean
        gateway_faults.html_status, gateway_faults.content_type = 200, "application/json"  # a page, not JSON
        await fails(provider, search, ProviderResponseError)

    @pytest.mark.parametrize("how", ["missing", "null"])
    async def test_items_without_their_identity_are_never_results(
        self,
        how: str,
        connect: Connect,
        gateway: TestServer,
        gateway_faults: GatewayFaults,
        dialect: Dialect,
        search: Search,
    ) -> None:
        provider = connect(url(gateway))
        await provider.call(*search, 5)
        setattr(gateway_faults, "drop_keys" if how == "missing" else "null_keys", [dialect.identity_key])
        error = await fails(provider, search, ProviderResponseError)
        assert "read" in error.message

    async def test_a_broken_item_costs_only_itself(
        self,
        connect: Connect,
        gateway: TestServer,
        gateway_faults: GatewayFaults,
        dialect: Dialect,
        search: Search,
        synthetic: bool,
    ) -> None:
        if dialect.single_item:
            pytest.skip("one item is the whole answer: the tests above break it")
        provider = connect(url(gateway))
        whole = {r.identity for r in await provider.call(search[0], search[1], 50)}
        gateway_faults.drop_keys, gateway_faults.every = [dialect.identity_key], 2
        found = await provider.call(search[0], search[1], 50)
        check_results(provider, search[0], found, synthetic)
        assert {r.identity for r in found} < whole

    async def test_unknown_enum_values(
        self,
        provider: Provider,
        faults: SandboxFaults,
        dialect: Dialect,
        searches: dict[str, Any],
        synthetic: bool,
    ) -> None:
        assert dialect.enums
        for enum in dialect.enums:
            faults.rewrite = enum.rewrite
            request = (enum.tool, params(enum.tool, searches[enum.tool]))
            if enum.check is None:
                await fails(provider, request, ProviderResponseError)
                continue
            found: list[Result] = await provider.call(*request, 10)
            check_results(provider, enum.tool, found, synthetic)
            assert all(enum.check(r) for r in found), enum.rewrite

    @pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "declared"])
    async def test_huge_bodies_are_refused_and_not_retried(
        self,
        streamed: bool,
        connect: Connect,
        gateway: TestServer,
        gateway_faults: GatewayFaults,
        search: Search,
        wire: Wire,
    ) -> None:
        limit = LimitsSettings().provider_max_bytes  # the service's own bound
        provider = connect(url(gateway), max_bytes=limit)
        await provider.call(*search, 5)
        before = len(wire.sent)
        gateway_faults.pad_bytes, gateway_faults.pad_streamed = limit + 1, streamed
        error = await fails(provider, search, ProviderResponseError)
        assert f"larger than {limit} bytes" in error.message and len(wire.sent) - before == 1

    async def test_a_refused_request_carries_the_providers_detail(
        self, provider: Provider, refused: tuple[str, ToolParams, str], wire: Wire
    ) -> None:
        tool, request, detail = refused
        error = await fails(provider, (tool, request), ProviderRejectedError)
        assert detail in error.detail and detail not in error.message and wire.tries() == 1
