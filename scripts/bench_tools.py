"""Each travel provider through the offline sandbox: calls/s, p50/p99, and our client's overhead.

    python scripts/bench_tools.py [--calls 200] [--variants 4] [--warmup 2] [--only amadeus,duffel]
                                  [--json out.json]

For every provider and every tool it serves, ``--calls`` sequential calls of ``provider.call`` (parameters
validated once beforehand, as ToolRunner hands them over) against the sandbox served in this process,
cycling through ``--variants`` parameter sets. The baseline, in the same process and interleaved call by
call with ours, is a bare aiohttp session replaying exactly the HTTP requests the provider sent for that
parameter set (method, URL with its query, every header, the body), captured with an aiohttp TraceConfig:
several requests where the provider makes several (Amadeus hotels-by-city then offers, LiteAPI list then
rates, Open-Meteo geocoding then forecast, OpenTripMap places then cards). The bare client reads each body
and decodes its JSON, the least any client does; the overhead is everything else ours does (the retry
wrapper and error mapping, size guard, shape checks, normalisation into models, ranking). Replays are
checked once to send the same requests and get the same statuses as the provider.

Nothing distorts the figures: sandbox faults are all off (no latency, 500s, 429s or bad bodies), the
Amadeus client-side rate limiter (10/s by default) is not installed, and the sandbox itself refuses nothing
unless faults ask it to (its Duffel dialect counts ``ratelimit-*`` headers but never answers 429). The
sandbox's own work (generating offers) is in both columns. The offline location provider makes no HTTP
request, so it has no baseline. Steady state only: the Amadeus token is fetched in the warm-up and cached.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402
from multidict import CIMultiDict  # noqa: E402
from yarl import URL  # noqa: E402

from connectors.amadeus import (
    SANDBOX_CLIENT,  # noqa: E402
    AmadeusConnector,  # noqa: E402
)
from connectors.base import Provider  # noqa: E402
from connectors.duffel import DuffelConnector  # noqa: E402
from connectors.http import RetryPolicy  # noqa: E402
from connectors.liteapi import LiteApiConnector  # noqa: E402
from connectors.offline_locations import OfflineLocationsConnector  # noqa: E402
from connectors.open_meteo import OpenMeteoConnector  # noqa: E402
from connectors.opentripmap import OpenTripMapConnector  # noqa: E402
from connectors.params import ToolParams  # noqa: E402
from connectors.places import LocationCatalogue  # noqa: E402
from connectors.sandbox import duffel_api, liteapi_api, opentripmap_api, travelpayouts_api  # noqa: E402
from connectors.sandbox.app import start_sandbox, stop_sandbox  # noqa: E402
from connectors.sandbox.faults import SandboxFaults  # noqa: E402
from connectors.travelpayouts import TravelpayoutsConnector  # noqa: E402
from rag.retrieval.metrics import percentile  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.tools.catalog import ToolCatalogue  # noqa: E402

TOOLS = ToolCatalogue.builtin()

USER_AGENT = {"User-Agent": "wayfarer/0.1"}  # what open_tools' session sends


@dataclass(frozen=True, slots=True)
class Sent:
    """One HTTP request as it left the client, and the status it got."""

    method: str
    url: URL
    headers: tuple[tuple[str, str], ...]
    body: bytes
    status: int


Waves = list[list[Sent]]  # requests in flight together form a wave; waves follow one another


class Recorder:
    """Captures what a session sends, through aiohttp's tracing hooks, grouped into waves."""

    def __init__(self) -> None:
        self.waves: Waves = []
        self._in_flight = 0
        self.config = aiohttp.TraceConfig()
        self.config.on_request_start.append(self._start)
        self.config.on_request_headers_sent.append(self._headers)
        self.config.on_request_chunk_sent.append(self._chunk)
        self.config.on_request_end.append(self._end)
        self.config.on_request_exception.append(self._failed)

    def take(self) -> Waves:
        waves, self.waves = self.waves, []
        return waves

    async def _start(self, _: Any, ctx: SimpleNamespace, params: aiohttp.TraceRequestStartParams) -> None:
        if self._in_flight == 0:
            self.waves.append([])
        self._in_flight += 1
        ctx.wave, ctx.body = self.waves[-1], bytearray()

    async def _headers(
        self, _: Any, ctx: SimpleNamespace, params: aiohttp.TraceRequestHeadersSentParams
    ) -> None:
        ctx.sent = (params.method, params.url, tuple(params.headers.items()))

    async def _chunk(self, _: Any, ctx: SimpleNamespace, params: aiohttp.TraceRequestChunkSentParams) -> None:
        ctx.body += params.chunk

    async def _end(self, _: Any, ctx: SimpleNamespace, params: aiohttp.TraceRequestEndParams) -> None:
        self._in_flight -= 1
        method, url, headers = ctx.sent
        ctx.wave.append(Sent(method, url, headers, bytes(ctx.body), params.response.status))

    async def _failed(self, _: Any, ctx: SimpleNamespace, params: Any) -> None:
        self._in_flight -= 1  # the provider raises; the bench stops there


async def replay(session: aiohttp.ClientSession, waves: Waves) -> list[int]:
    """Send the recorded requests as they were sent (a wave at once); read and decode each JSON body."""
    statuses: list[int] = []
    for wave in waves:
        statuses += await asyncio.gather(*(_send(session, s) for s in wave))
    return statuses


async def _send(session: aiohttp.ClientSession, s: Sent) -> int:
    async with session.request(s.method, s.url, headers=CIMultiDict(s.headers), data=s.body or None) as resp:
        json.loads(await resp.read())
        return resp.status


# Provider name to its class (for the tools it serves), in the order of the table.
CLASSES: dict[str, Any] = {
    "amadeus": AmadeusConnector,
    "duffel": DuffelConnector,
    "liteapi": LiteApiConnector,
    "travelpayouts": TravelpayoutsConnector,
    "opentripmap": OpenTripMapConnector,
    "open_meteo": OpenMeteoConnector,
    "catalogue": OfflineLocationsConnector,
}
Build = Callable[[aiohttp.ClientSession], Provider]


def builders(settings: Settings, url: str, catalogue: LocationCatalogue) -> dict[str, Build]:
    """Provider name to a builder taking the session: the sandbox's key for each, the service's defaults
    (retries, timeouts, hotel candidates, size limit), and no client-side rate limiter."""
    c = settings.connectors
    policy = RetryPolicy(retries=c.retries, backoff=c.backoff_seconds, timeout=c.timeout_seconds)
    common: dict[str, Any] = {
        "policy": policy,
        "sandbox": True,
        "max_bytes": settings.limits.provider_max_bytes,
    }
    return {
        "amadeus": lambda s: AmadeusConnector(
            s, url, *SANDBOX_CLIENT, limiter=None, hotel_candidates=c.hotel_candidates, **common
        ),
        "duffel": lambda s: DuffelConnector(s, url, duffel_api.SANDBOX_TOKEN, **common),
        "liteapi": lambda s: LiteApiConnector(
            s, url, liteapi_api.API_KEY, hotel_candidates=c.hotel_candidates, places=catalogue, **common
        ),
        "travelpayouts": lambda s: TravelpayoutsConnector(s, url, travelpayouts_api.SANDBOX_TOKEN, **common),
        "opentripmap": lambda s: OpenTripMapConnector(s, url, opentripmap_api.API_KEY, **common),
        "open_meteo": lambda s: OpenMeteoConnector(s, url, url, **common),
        "catalogue": lambda s: OfflineLocationsConnector(catalogue),
    }


def cases(tool: str, n: int, today: dt.date) -> list[dict[str, Any]]:
    """``n`` parameter sets for ``tool``, the same for every provider that serves it."""
    origins = ["London", "Paris", "Madrid", "Berlin", "Rome", "Tokyo", "New York", "Sydney"]
    dests = ["Lisbon", "Barcelona", "Istanbul", "Dubai", "Bangkok", "Toronto", "Cairo", "Lima"]
    out: list[dict[str, Any]] = []
    for i in range(n):
        o, d = origins[i % 8], dests[(i * 3) % 8]
        day = (today + dt.timedelta(days=10 + i)).isoformat()
        by_tool: dict[str, dict[str, Any]] = {
            "flight_search": {"origin": o, "destination": d, "departure_date": day},
            "hotel_search": {"city": d, "check_in": day, "nights": 1 + i % 4},
            "activity_search": {"city": d},
            "location_search": {"keyword": d[: 3 + i % 3]},
            "flight_inspiration": {"origin": o, "max_price": 300 + 10 * i},
            "cheapest_dates": {"origin": o, "destination": d},
            "weather_forecast": {"city": d, "days": 1 + i % 7},
        }
        out.append(by_tool[tool])
    return out


@dataclass
class Row:
    provider: str
    tool: str
    requests: str  # HTTP requests a call makes, "1", "2" or "1-2" over the parameter sets
    calls: int
    calls_per_s: float
    p50_ms: float
    p99_ms: float
    bare_p50_ms: float | None = None
    bare_p99_ms: float | None = None

    @property
    def ratio(self) -> float | None:
        return None if self.bare_p50_ms is None else self.p50_ms / self.bare_p50_ms

    @property
    def extra_ms(self) -> float | None:
        return None if self.bare_p50_ms is None else self.p50_ms - self.bare_p50_ms


async def bench(
    name: str, tool: str, build: Build, variants: list[ToolParams], limit: int, args: argparse.Namespace
) -> Row:
    """One provider and tool: record, verify the replay, warm up, then interleave ours and bare."""
    recorder, check = Recorder(), Recorder()
    async with (
        aiohttp.ClientSession(headers=USER_AGENT, trace_configs=[recorder.config]) as recording,
        aiohttp.ClientSession(trace_configs=[check.config]) as checking,
        aiohttp.ClientSession(headers=USER_AGENT) as ours_session,
        aiohttp.ClientSession() as bare,
    ):
        recorded, ours = build(recording), build(ours_session)
        scripts: list[Waves] = []
        for p in variants:
            await recorded.call(tool, p, limit)  # sandbox caches, Amadeus token, connection
            recorder.take()
            await recorded.call(tool, p, limit)
            scripts.append(recorder.take())
        for script in scripts:
            statuses = await replay(checking, script)
            if check.take() != script or statuses != [s.status for w in script for s in w]:
                raise SystemExit(f"{name} {tool}: the bare replay does not send what the provider sent")
        http = any(scripts)

        async def call(i: int) -> None:
            await ours.call(tool, variants[i % len(variants)], limit)

        async def again(i: int) -> None:
            await replay(bare, scripts[i % len(scripts)])

        for i in range(args.warmup * len(variants)):
            await call(i)
            if http:
                await again(i)
        mine: list[float] = []
        base: list[float] = []
        for i in range(args.calls):  # interleaved, alternating who goes first, so load drift hits both
            order = [(mine, call), (base, again)] if http else [(mine, call)]
            for out, fn in order if i % 2 == 0 else order[::-1]:
                start = time.perf_counter()
                await fn(i)
                out.append((time.perf_counter() - start) * 1000)
    counts = sorted({sum(len(w) for w in s) for s in scripts})
    row = Row(
        name,
        tool,
        str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}",
        args.calls,
        args.calls / (sum(mine) / 1000),
        percentile(mine, 0.5),
        percentile(mine, 0.99),
    )
    if http:
        row.bare_p50_ms, row.bare_p99_ms = percentile(base, 0.5), percentile(base, 0.99)
    return row


def table(rows: list[Row]) -> str:
    def f(x: float | None, spec: str, suffix: str = "") -> str:
        return "–" if x is None else format(x, spec) + suffix

    lines = [
        "| provider | tool | HTTP requests | calls/s | p50 ms | p99 ms | bare p50 ms | bare p99 ms "
        "| overhead (p50) | + ms (p50) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r.provider} | {r.tool} | {r.requests} | {r.calls_per_s:.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} "
            f"| {f(r.bare_p50_ms, '.2f')} | {f(r.bare_p99_ms, '.2f')} | {f(r.ratio, '.2f', '×')} "
            f"| {f(r.extra_ms, '+.2f')} |"
        )
    return "\n".join(lines)


def machine() -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{len(os.sched_getaffinity(0))} usable cores ({os.cpu_count()} CPUs), load average {load}; "
        f"Python {platform.python_version()}, aiohttp {aiohttp.__version__}, {platform.platform()}"
    )


async def run(args: argparse.Namespace) -> list[Row]:
    settings = Settings()
    catalogue = await asyncio.to_thread(LocationCatalogue.load)
    today = dt.datetime.now(dt.UTC).date()
    runner, url = await start_sandbox(faults=SandboxFaults())  # every fault off
    rows: list[Row] = []
    try:
        build = builders(settings, url, catalogue)
        for name in args.only or CLASSES:
            for tool in (t for t in TOOLS if t in CLASSES[name].tools):
                context = {"catalogue": catalogue, "today": today}
                variants = [
                    TOOLS[tool].params.model_validate(raw, context=context)
                    for raw in cases(tool, args.variants, today)
                ]
                rows.append(
                    await bench(name, tool, build[name], variants, settings.connectors.max_results, args)
                )
                print(f"{name} {tool}: p50 {rows[-1].p50_ms:.2f} ms", file=sys.stderr)  # progress
    finally:
        await stop_sandbox(runner)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--calls", type=int, default=200, metavar="N", help="measured calls per provider and tool (200)"
    )
    parser.add_argument(
        "--variants",
        type=int,
        metavar="N",
        default=4,
        help="distinct parameter sets per tool, called in turn (4, at most 8)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=2,
        metavar="N",
        help="unmeasured rounds over the parameter sets before measuring (2)",
    )
    parser.add_argument(
        "--only",
        metavar="P1,P2",
        type=lambda s: [x.strip() for x in s.split(",") if x.strip()],
        help=f"comma-separated providers to measure (default all: {','.join(CLASSES)})",
    )
    parser.add_argument(
        "--json", type=Path, metavar="PATH", help="also save the figures, command and machine note here"
    )
    args = parser.parse_args()
    if not 1 <= args.variants <= 8 or args.calls < 1 or args.warmup < 0:
        parser.error("--variants must be 1..8, --calls at least 1, --warmup at least 0")
    unknown = set(args.only or ()) - set(CLASSES)
    if unknown:
        parser.error(f"--only: unknown providers {sorted(unknown)}; known: {', '.join(CLASSES)}")
    start = time.perf_counter()
    rows = asyncio.run(run(args))
    command = "python scripts/bench_tools.py " + " ".join(sys.argv[1:])
    note = machine()
    print(table(rows))
    print(f"\n`{command.strip()}` in {time.perf_counter() - start:.0f} s on {note}")
    if args.json:
        out = {
            "command": command.strip(),
            "machine": note,
            "rows": [asdict(r) | {"overhead": r.ratio} for r in rows],
        }
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
