"""The provider contract: the tests every provider passes; tests/test_provider_contract.py holds one
class per provider that only overrides fixtures (haystack's testing/document_store.py pattern, as
tests/test_kv_contract.py does for the KV stores).

ProviderContract, every provider: each tool's results are valid, of the tool's kind, within the limit,
marked sandbox or not as the provider is, and known by identities that are stable across searches,
unique, and free of prices, positions and per-search ids. The filters a provider takes (a flight
search's airline, an activity search's category) keep only what they name. Other tools are refused.

HttpProviderContract (tests/provider_faults.py), every provider behind HTTP, through the offline
sandbox (and, for what stands between us and a provider, the sandbox's gateway): a wrong or revoked
key, 429s with and without the provider's word on when to come back, 429 storms, 5xx, slow answers,
truncated, misshapen, HTML, mislabelled, incomplete and huge bodies, unknown enum values and refused
requests: each one error class and stable code of rag/errors.py, or the bad items dropped and the rest
returned, in a bounded number of requests. Requests are counted as aiohttp's tracing sees them leave,
so retries are what went on the wire.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest

from connectors.base import Provider
from connectors.http import RetryPolicy
from connectors.models import Result
from connectors.params import ToolParams
from connectors.places import LocationCatalogue
from rag.errors import ProviderError
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

TODAY = dt.date.today()
CATALOGUE = LocationCatalogue.load()
# Quick retries for the tests: the same three tries production makes, with waits of hundredths.
POLICY = RetryPolicy(retries=2, backoff=0.01, timeout=10.0, max_backoff=0.05)
TRIES = POLICY.retries + 1
Raw = dict[str, Any]
Connect = Callable[..., Provider]


def _later(raw: Raw, days: int) -> Raw:
    """``raw`` with its ISO dates moved ``days`` later."""
    out = dict(raw)
    for key, value in raw.items():
        if isinstance(value, str) and len(value) == 10 and value[4] == "-":
            try:
                out[key] = (dt.date.fromisoformat(value) + dt.timedelta(days=days)).isoformat()
            except ValueError:
                continue
    return out


def ahead(days: int) -> str:
    return (TODAY + dt.timedelta(days=days)).isoformat()


def ahead_on(days: int, weekday: int) -> str:
    """The first ``weekday`` (Monday 0) at least ``days`` ahead. The sandbox's timetables differ by
    weekday: a search a test expects a given airline on must not move with today's date."""
    day = TODAY + dt.timedelta(days=days)
    return (day + dt.timedelta(days=(weekday - day.weekday()) % 7)).isoformat()


def params(tool: str, raw: Raw) -> ToolParams:
    """``raw`` validated as the tool's parameters, against the catalogue and today, as ToolRunner does."""
    return TOOLS[tool].params.model_validate(raw, context={"catalogue": CATALOGUE, "today": TODAY})


@dataclass(frozen=True)
class Enum:
    """A field holding one of a few values: a rewrite giving it one the provider never documented, and
    what each result must look like then (a known value in its place, or the field left alone); None
    when an item with that value cannot be a result, so a body of nothing else is a bad response."""

    tool: str
    rewrite: Raw
    check: Callable[[Result], bool] | None


@dataclass(frozen=True)
class Dialect:
    """What a provider's wire format names, for the faults that need a name."""

    key: str | None  # what the sandbox knows the client by (revoked_keys); None: no key at all
    identity_key: str  # a JSON key each item needs to be known by: missing or null costs the item
    enums: tuple[Enum, ...]
    hints: bool  # its 429s say when to come back (Retry-After or RateLimit-Reset)
    any_key_accepted: bool = False  # the sandbox serves any client (Amadeus): no wrong key to try
    single_item: bool = False  # one item makes the whole answer (a place's forecast): nothing to drop


@dataclass
class Wire:
    """Every request the provider's session sent (method, URL, loop time) and every answer it got."""

    sent: list[tuple[str, str, float]] = field(default_factory=list)
    answers: list[tuple[int, float]] = field(default_factory=list)

    def trace(self) -> aiohttp.TraceConfig:
        config = aiohttp.TraceConfig()

        async def start(_: Any, __: Any, p: aiohttp.TraceRequestStartParams) -> None:
            self.sent.append((p.method, str(p.url), asyncio.get_running_loop().time()))

        async def end(_: Any, __: Any, p: aiohttp.TraceRequestEndParams) -> None:
            self.answers.append((p.response.status, asyncio.get_running_loop().time()))

        config.on_request_start.append(start)
        config.on_request_end.append(end)
        return config

    def tries(self, since: int = 0) -> int:
        """The most times one request (method and URL) was sent since the ``since``-th request."""
        return max(Counter((m, u) for m, u, _ in self.sent[since:]).values(), default=0)


def check_results(provider: Provider, tool: str, results: list[Result], synthetic: bool) -> None:
    """The semantics every tool's results have, whoever provides them."""
    assert results, f"{provider.name} found nothing for {tool}"
    for r in results:
        assert isinstance(r, Result) and r.kind == TOOLS[tool].kind, (tool, r)
        assert r.provider == provider.name and r.sandbox is synthetic
        assert type(r).model_validate(r.model_dump()) == r  # within the model's own bounds
        assert r.render().strip()
        assert r.identity and "None" not in r.identity, r.identity
        price = getattr(r, "price", None)
        if price is not None:
            assert repr(price) not in r.identity and f"{price:.2f}" not in r.identity, r.identity
    identities = [r.identity for r in results]
    assert len(set(identities)) == len(identities), f"{tool}: one identity for two results"


@dataclass(frozen=True)
class Filter:
    """A filter of a tool (parameters added to its search in ``searches``) and what every result it keeps
    is; the search without it finds something else too."""

    tool: str
    params: Raw
    keeps: Callable[[Result], bool]


def named(*words: str) -> Callable[[Result], bool]:
    """A result whose text says one of ``words`` (a sandbox sight is named for what it is)."""
    return lambda r: any(w in r.render().lower() for w in words)


def flown_by(code: str) -> Callable[[Result], bool]:
    """A flight offer whose every flight the airline markets."""
    return lambda r: getattr(r, "carriers", None) == {code}


# A request of a tool the provider under test may not serve (no provider serves both).
OTHER_TOOLS: dict[str, Raw] = {
    "weather_forecast": {"city": "Oslo", "days": 3},
    "location_search": {"keyword": "Oslo"},
}


class ProviderContract:
    """Semantics: override ``provider``, ``searches``, ``narrower`` (and ``synthetic`` for real data)."""

    @pytest.fixture
    def provider(self) -> Provider:
        raise NotImplementedError

    @pytest.fixture
    def searches(self) -> dict[str, Raw]:
        """A representative valid request for each tool the provider serves."""
        raise NotImplementedError

    @pytest.fixture
    def narrower(self) -> tuple[str, Raw]:
        """A tool and a request narrower than its search in ``searches``: its results are among those."""
        raise NotImplementedError

    @pytest.fixture
    def synthetic(self) -> bool:
        return True

    @pytest.fixture
    def filters(self) -> tuple[Filter, ...]:
        """The filters the provider takes, for its tools in ``searches``."""
        return ()

    @pytest.fixture
    def limited(self) -> bool:
        """Whether ``limit`` bounds the results (Provider.call's promise)."""
        return True

    async def test_it_serves_the_tools_it_declares(
        self, provider: Provider, searches: dict[str, Raw]
    ) -> None:
        assert provider.name and provider.tools == set(searches)
        assert provider.tools <= set(TOOLS)

    async def test_each_tools_results(
        self, provider: Provider, searches: dict[str, Raw], synthetic: bool
    ) -> None:
        for tool, raw in searches.items():
            check_results(provider, tool, await provider.call(tool, params(tool, raw), 10), synthetic)

    async def test_the_limit_is_kept(
        self, provider: Provider, searches: dict[str, Raw], limited: bool
    ) -> None:
        if not limited:
            pytest.skip("the provider's results are bounded by its parameters, not by the limit")
        for tool, raw in searches.items():
            found = await provider.call(tool, params(tool, raw), 2)
            assert 1 <= len(found) <= 2, (tool, len(found))

    async def test_identities_are_stable_across_searches(
        self, provider: Provider, searches: dict[str, Raw]
    ) -> None:
        """Per-search ids (Duffel's off_..., LiteAPI's offerId) change between these two searches."""
        for tool, raw in searches.items():
            first = await provider.call(tool, params(tool, raw), 10)
            second = await provider.call(tool, params(tool, raw), 10)
            assert [r.identity for r in first] == [r.identity for r in second], tool

    async def test_a_narrower_search_knows_its_results_by_the_same_identities(
        self, provider: Provider, searches: dict[str, Raw], narrower: tuple[str, Raw], synthetic: bool
    ) -> None:
        """Items found at other positions, or in another answer, keep their identity: none is positional.
        The first of a week of days on which the filter narrows the search is compared (on some days
        every flight of a route may be nonstop, whatever day the suite runs on)."""
        tool, raw = narrower
        for shift in range(7):
            wide = await provider.call(tool, params(tool, _later(searches[tool], shift)), 50)
            narrow = await provider.call(tool, params(tool, _later(raw, shift)), 50)
            if 0 < len(narrow) < len(wide):
                break
        check_results(provider, tool, narrow, synthetic)
        assert len(narrow) < len(wide)
        assert {r.identity for r in narrow} <= {r.identity for r in wide}

    async def test_a_filter_keeps_only_what_it_names(
        self, provider: Provider, searches: dict[str, Raw], filters: tuple[Filter, ...], synthetic: bool
    ) -> None:
        if not filters:
            pytest.skip("the provider's tools take no filter")
        for f in filters:
            wide = await provider.call(f.tool, params(f.tool, searches[f.tool]), 50)
            narrow = await provider.call(f.tool, params(f.tool, searches[f.tool] | f.params), 50)
            check_results(provider, f.tool, narrow, synthetic)
            assert all(f.keeps(r) for r in narrow), (f.params, [r.render() for r in narrow])
            assert not all(f.keeps(r) for r in wide), f.params  # the filter is no no-op

    async def test_other_tools_are_refused(self, provider: Provider) -> None:
        other = next(t for t in OTHER_TOOLS if t not in provider.tools)
        with pytest.raises(ProviderError):
            await provider.call(other, params(other, OTHER_TOOLS[other]), 5)
