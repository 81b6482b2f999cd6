"""Travel tools against the offline sandbox: calls/s and latency per tool, and our client's overhead.

    python scripts/bench_tools.py [--calls 200] [--concurrency 8]

The client's rate limiter (10/s in the Amadeus test environment) is switched off here: this measures
our code, not the provider's quota. The overhead ratio compares a location_search tool call (validation,
auth header, retries wrapper, parsing, models) with a bare aiohttp GET of the same sandbox URL.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from connectors.factory import SANDBOX_CLIENT, open_tools  # noqa: E402
from connectors.tools import ToolRunner  # noqa: E402
from rag.retrieval.metrics import percentile  # noqa: E402
from rag.settings import Settings  # noqa: E402


def cases() -> dict[str, list[dict[str, Any]]]:
    day = dt.date.today()
    origins = ["London", "Paris", "Madrid", "Berlin", "Rome", "Tokyo", "New York", "Sydney"]
    dests = ["Lisbon", "Barcelona", "Istanbul", "Dubai", "Bangkok", "Toronto", "Cairo", "Lima"]
    out: dict[str, list[dict[str, Any]]] = {
        "flight_search": [],
        "hotel_search": [],
        "activity_search": [],
        "location_search": [],
        "flight_inspiration": [],
        "cheapest_dates": [],
        "weather_forecast": [],
    }
    for i in range(40):
        o, d = origins[i % 8], dests[(i * 3) % 8]
        date = (day + dt.timedelta(days=10 + i)).isoformat()
        out["flight_search"].append({"origin": o, "destination": d, "departure_date": date})
        out["hotel_search"].append({"city": d, "check_in": date, "nights": 1 + i % 4})
        out["activity_search"].append({"city": d})
        out["location_search"].append({"keyword": d[: 3 + i % 3]})
        out["flight_inspiration"].append({"origin": o, "max_price": 300 + 10 * i})
        out["cheapest_dates"].append({"origin": o, "destination": d})
        out["weather_forecast"].append({"city": d, "days": 1 + i % 7})
    return out


async def measure(
    runner: ToolRunner, tool: str, params: list[dict[str, Any]], calls: int, concurrency: int
) -> tuple[float, float, float]:
    """Calls per second, p50 and p99 latency (ms) for ``calls`` calls, ``concurrency`` at a time."""
    latencies: list[float] = []
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            start = time.perf_counter()
            await runner.call(tool, params[i % len(params)])
            latencies.append((time.perf_counter() - start) * 1000)

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(calls)))
    total = time.perf_counter() - start
    return calls / total, percentile(latencies, 0.5), percentile(latencies, 0.99)


async def run(calls: int, concurrency: int) -> None:
    os.environ["WAYFARER_CONNECTORS__MIN_INTERVAL_MS"] = "0"
    os.environ["WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND"] = "100000"
    settings = Settings()
    async with open_tools(settings) as session:
        runner = session.tools
        print(f"{'tool':20} {'calls/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
        for tool, params in cases().items():
            await runner.call(tool, params[0])  # warm-up (token, connections)
            rate, p50, p99 = await measure(runner, tool, params, calls, concurrency)
            print(f"{tool:20} {rate:8.1f} {p50:7.2f} {p99:7.2f}")

        # Overhead of our client over a bare GET of the same endpoint, sequential, same process.
        assert session.sandbox_url
        url = session.sandbox_url + "/v1/reference-data/locations"
        query = {"subType": "AIRPORT,CITY", "keyword": "LIS", "page[limit]": "10"}
        async with aiohttp.ClientSession() as bare:
            async with bare.post(
                session.sandbox_url + "/v1/security/oauth2/token",
                data={
                    "grant_type": "client_credentials",
                    "client_id": SANDBOX_CLIENT[0],
                    "client_secret": SANDBOX_CLIENT[1],
                },
            ) as r:
                token = (await r.json())["access_token"]
            headers = {"Authorization": f"Bearer {token}"}

            async def bare_get() -> None:
                async with bare.get(url, params=query, headers=headers) as resp:
                    await resp.json()

            async def ours() -> None:
                await runner.call("location_search", {"keyword": "LIS"})

            timings = {}
            for name, fn in (("bare", bare_get), ("ours", ours), ("bare2", bare_get), ("ours2", ours)):
                start = time.perf_counter()
                for _ in range(calls):
                    await fn()
                timings[name] = (time.perf_counter() - start) / calls * 1000
        bare_ms = (timings["bare"] + timings["bare2"]) / 2
        ours_ms = (timings["ours"] + timings["ours2"]) / 2
        print(
            f"\nbare aiohttp GET {bare_ms:.2f} ms, location_search tool call {ours_ms:.2f} ms: "
            f"overhead ratio {ours_ms / bare_ms:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    asyncio.run(run(args.calls, args.concurrency))


if __name__ == "__main__":
    main()
