"""Self-ingestion: what it costs the response, and how often it saves a provider call.

    python scripts/bench_ingest_live.py [--users 8] [--calls 12]

1. Latency under concurrent load: `--users` clients each make `--calls` distinct tool calls over HTTP
   (hotels, flights, activities, weather) against the in-process sandbox, once with self-ingestion off
   and once on (the request cache off both times, so every call reaches the provider). Ingestion runs
   in the background; the ratio of p50 (and p99) latencies is its cost to the response (target <= 1.1).
2. A scripted conversation set (each user searches, then asks the same things again later, as people
   do): the share of repeated questions answered from the index instead of the provider.
The client's rate limiter is off (it would measure the provider's quota, not us).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from rag.retrieval.metrics import percentile  # noqa: E402
from rag.web import keys  # noqa: E402
from scripts._common import NO_RATE_LIMITS, serve_in_process  # noqa: E402

FAST = {
    "WAYFARER_CONNECTORS__MIN_INTERVAL_MS": "0",
    "WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND": "100000",
    "WAYFARER_INDEX__SEED_ON_START": "false",
}
CITIES = [
    "Lisbon",
    "Rome",
    "Paris",
    "Tokyo",
    "Berlin",
    "Madrid",
    "Prague",
    "Vienna",
    "Athens",
    "Dublin",
    "Oslo",
    "Seoul",
]


def calls_for(user: int, n: int) -> list[tuple[str, dict[str, Any]]]:
    day = dt.date.today()
    out: list[tuple[str, dict[str, Any]]] = []
    for i in range(n):
        city = CITIES[(user + i) % len(CITIES)]
        date = (day + dt.timedelta(days=10 + user * 3 + i)).isoformat()
        kind = i % 4
        if kind == 0:
            out.append(("hotel_search", {"city": city, "check_in": date, "nights": 2}))
        elif kind == 1:
            out.append(("flight_search", {"origin": "LON", "destination": city, "departure_date": date}))
        elif kind == 2:
            out.append(("activity_search", {"city": city}))
        else:
            out.append(("weather_forecast", {"city": city, "days": 3}))
    return out


async def load(url: str, users: int, n: int, think: float = 0.0) -> list[float]:
    latencies: list[float] = []
    async with aiohttp.ClientSession() as session:

        async def user(u: int) -> None:
            for tool, params in calls_for(u, n):
                start = time.perf_counter()
                async with session.post(f"{url}/v1/tools/{tool}?user_id=u{u}", json=params) as resp:
                    await resp.read()
                    assert resp.status == 200, resp.status
                latencies.append((time.perf_counter() - start) * 1000)
                if think:
                    await asyncio.sleep(think)

        await asyncio.gather(*(user(u) for u in range(users)))
    return latencies


async def latency(users: int, n: int, think: float) -> None:
    results = {}
    for label, ingest in (("off", "false"), ("on", "true"), ("off ", "false"), ("on ", "true")):
        env = {**FAST, "WAYFARER_LIVE__INGEST": ingest, "WAYFARER_LIVE__CACHE": "false"}
        async with serve_in_process({**env, **NO_RATE_LIMITS}) as (url, app):
            await load(url, 2, 4)  # warm-up: token, connections, model
            await app[keys.TASKS].drain()
            start = time.perf_counter()
            lat = await load(url, users, n, think)
            wall = time.perf_counter() - start
            await app[keys.TASKS].drain()
            ingested = app[keys.TOOL_SERVICE].ingestor.totals
            results[label] = (lat, wall)
            print(
                f"ingestion {label.strip():3}: p50 {percentile(lat, 0.5):6.1f} ms  p99 {percentile(lat, 0.99):6.1f} ms "
                f" {len(lat) / wall:6.1f} calls/s  (points written: {ingested.added + ingested.updated})"
            )
    off = [x for k, (lat, _) in results.items() if k.startswith("off") for x in lat]
    on = [x for k, (lat, _) in results.items() if k.startswith("on") for x in lat]
    pace = f"each user pausing {think * 1000:.0f} ms between calls" if think else "saturated, no pauses"
    print(
        f"[{users} users, {pace}] latency ratio with/without self-ingestion: p50 {percentile(on, 0.5) / percentile(off, 0.5):.2f}, "
        f"p99 {percentile(on, 0.99) / percentile(off, 0.99):.2f} (two runs each, interleaved)"
    )


async def conversations(users: int) -> None:
    env = {**FAST, "WAYFARER_LIVE__INGEST": "true", "WAYFARER_LIVE__CACHE": "true"}
    async with serve_in_process({**env, **NO_RATE_LIMITS}) as (url, app):
        repeated = from_index = 0
        async with aiohttp.ClientSession() as session:
            for u in range(users):
                script = calls_for(u, 4)
                # Ask, then come back to earlier questions (some twice), as a conversation does.
                turns = script + [script[0], script[1], script[3], script[0]]
                seen: set[str] = set()
                for tool, params in turns:
                    key = f"{tool}{sorted(params.items())}"
                    async with session.post(f"{url}/v1/tools/{tool}?user_id=c{u}", json=params) as resp:
                        body = await resp.json()
                    if key in seen:
                        repeated += 1
                        from_index += int(body["from_index"])
                    seen.add(key)
                    await app[keys.TASKS].drain()  # a person reads the answer before asking again
        service = app[keys.TOOL_SERVICE]
        print(
            f"scripted conversations: {repeated} repeated questions, {from_index} answered from the index "
            f"({from_index / repeated:.0%}); provider calls {service.provider_calls}, index answers "
            f"{service.index_answers}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument(
        "--think-ms",
        type=float,
        nargs="*",
        default=[0, 100],
        help="pauses between a user's calls to measure with (0 = saturated)",
    )
    args = parser.parse_args()
    for think in args.think_ms:
        asyncio.run(latency(args.users, args.calls, think / 1000))
    asyncio.run(conversations(args.users))


if __name__ == "__main__":
    main()
