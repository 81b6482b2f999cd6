"""A long soak of mixed traffic, with the service's resident memory sampled every minute.

    python scripts/bench_memory.py [--minutes 20] [--users 20] [--trace]

The service runs in this process on a loopback port with every default setting and the full seed corpus.
Until the time is up, rounds of traffic run one after the other, each of: ``--users`` users holding a
scripted travel conversation (half over REST, half over WebSocket, new user ids every round, so the
sessions keep growing as a real service's do), /v1/route and /v1/tools calls, fuzzed requests (random
bytes and random JSON to every route, bad encodings) and big bodies (2 MiB to routes that take 16 KiB).
RSS is sampled each minute (and once at the end after a garbage collection), with the number of points
in the index. ``--expire-seconds`` makes stored tool results expire within the soak, as they do over
hours in service. The last third of the
samples must not grow by more than ``--slack`` MiB for the memory to count as a plateau; otherwise the
exit status is 1. ``--trace`` also compares tracemalloc snapshots of the first sample and the end and
prints the ten places that grew most (slower: use it to find a leak, not to measure).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import random
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from rag.web import keys  # noqa: E402
from scripts._common import current_rss_mib, serve_in_process  # noqa: E402
from scripts.bench_soak import Tally, conversation, rest_user, ws_user  # noqa: E402

SETTINGS = {"WAYFARER_LOG_LEVEL": "ERROR"}
ROUTES = [
    ("POST", "/v1/chat"),
    ("POST", "/v1/route"),
    ("POST", "/v1/search"),
    ("POST", "/v1/recall"),
    ("POST", "/v1/tools/hotel_search"),
    ("POST", "/v1/tools/flight_search"),
    ("POST", "/v1/tools/weather_forecast"),
    ("GET", "/v1/sessions/fuzz"),
    ("GET", "/v1/tools"),
    ("POST", "/v1/admin/reindex"),
]


def overloaded(resp: aiohttp.ClientResponse) -> bool:
    """A 503 for load, with when to come back: the admission limit doing its job, not a failure."""
    return resp.status == 503 and "Retry-After" in resp.headers


def fuzz_body(rng: random.Random) -> tuple[bytes, dict[str, str]]:
    """A random request body: garbage bytes, random JSON, a wrong type, a deep nest, a bad encoding."""
    kind = rng.randrange(6)
    headers = {"Content-Type": "application/json"}
    if kind == 0:
        return rng.randbytes(rng.randrange(1, 4096)), headers
    if kind == 1:
        value: Any = {
            rng.choice(["message", "user_id", "city", "query", "x"]): rng.choice(
                [None, 7, -1.5, "", "é" * rng.randrange(3000), [1, 2], {"a": 1}, True]
            )
            for _ in range(rng.randrange(1, 5))
        }
        return json.dumps(value).encode(), headers
    if kind == 2:
        return b"[" * 5000 + b"]" * 5000, headers
    if kind == 3:
        return b'{"message": "hi"}', {**headers, "Content-Encoding": rng.choice(["gzip", "br", "zz"])}
    if kind == 4:
        return "\ufeff{}".encode(), headers
    return json.dumps({"message": "\x00\u202e" * 500, "user_id": "fuzz"}).encode(), headers


async def fuzz(session: aiohttp.ClientSession, base: str, rng: random.Random, n: int, tally: Tally) -> None:
    for _ in range(n):
        method, path = rng.choice(ROUTES)
        data, headers = fuzz_body(rng)
        try:
            async with session.request(method, base + path, data=data, headers=headers) as resp:
                await resp.read()
                if resp.status >= 500 and not overloaded(resp):
                    tally.failed(f"http_{resp.status}", f"{method} {path} {data[:80]!r}")
        except (TimeoutError, aiohttp.ClientError) as exc:
            tally.failed(type(exc).__name__, f"{method} {path}")


async def big(session: aiohttp.ClientSession, base: str, n: int, tally: Tally) -> None:
    body = json.dumps({"user_id": "big", "message": "x" * (2 * 1024 * 1024)}).encode()
    for i in range(n):
        path = ("/v1/chat", "/v1/route", "/v1/search")[i % 3]
        try:
            async with session.post(
                base + path, data=body, headers={"Content-Type": "application/json"}
            ) as r:
                await r.read()
                if r.status >= 500 and not overloaded(r):
                    tally.failed(f"http_{r.status}", f"big body to {path}")
        except (TimeoutError, aiohttp.ClientError):
            pass  # a server may close the connection on a body it refuses: that is not a failure


async def calls(session: aiohttp.ClientSession, base: str, rng: random.Random, n: int, tally: Tally) -> None:
    cities = ["Lisbon", "Rome", "Paris", "Tokyo", "Berlin", "Prague"]
    for _ in range(n):
        city = rng.choice(cities)
        if rng.random() < 0.7:
            path, body = "/v1/route", {"message": f"hotels in {city} next weekend for 2 adults"}
        else:
            path, body = "/v1/tools/weather_forecast", {"city": city}
        try:
            async with session.post(base + path, json=body) as resp:
                await resp.read()
                if resp.status >= 500 and not overloaded(resp):
                    tally.failed(f"http_{resp.status}", path)
        except (TimeoutError, aiohttp.ClientError) as exc:
            tally.failed(type(exc).__name__, path)


KINDS = ("flight_offer", "hotel_offer", "activity", "weather", "location", "inspiration", "cheapest_date")


async def main_async(minutes: float, users: int, slack: float, trace: bool, expire: float | None) -> int:
    if trace:
        tracemalloc.start(10)
    env = dict(SETTINGS)
    if expire is not None:  # stored results expire (and are purged) within the soak, as they do in hours
        env["WAYFARER_LIVE__FRESHNESS"] = json.dumps(dict.fromkeys(KINDS, int(expire)))
        env["WAYFARER_SCHEDULER__PURGE_EXPIRED_MINUTES"] = str(expire / 120)
    async with serve_in_process(env) as (base, app):
        samples: list[tuple[float, float]] = []
        start = time.perf_counter()
        first_snapshot: tracemalloc.Snapshot | None = None

        async def sample() -> None:
            nonlocal first_snapshot
            while True:
                samples.append(((time.perf_counter() - start) / 60, current_rss_mib()))
                points = await app[keys.STORE].count()
                print(
                    f"  minute {samples[-1][0]:5.1f}: RSS {samples[-1][1]:.0f} MiB "
                    f"(anonymous {current_rss_mib('RssAnon'):.0f}, mapped files {current_rss_mib('RssFile'):.0f})"
                    f", {points} points",
                    flush=True,
                )
                if trace and first_snapshot is None and len(samples) == 2:
                    first_snapshot = tracemalloc.take_snapshot()
                await asyncio.sleep(60)

        sampler = asyncio.create_task(sample())
        tally = Tally()
        rng = random.Random(0)
        rounds = 0
        connector = aiohttp.TCPConnector(limit=0)
        timeout = aiohttp.ClientTimeout(total=120)
        # Fuzzing and big bodies get connections of their own, closed after each request: the server
        # closes a connection whose body it refused unread, and a conversation must not reuse one.
        hostile = aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True), timeout=timeout)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session, hostile:
            while time.perf_counter() - start < minutes * 60:
                scripts = {
                    (f"mem-rest-{rounds}-{u}" if u % 2 == 0 else f"mem-ws-{rounds}-{u}"): conversation(u, 10)
                    for u in range(users)
                }
                await asyncio.gather(
                    *(
                        (rest_user if user.startswith("mem-rest") else ws_user)(
                            session, base, user, msgs, 0, tally
                        )
                        for user, msgs in scripts.items()
                    ),
                    calls(session, base, rng, 60, tally),
                    fuzz(hostile, base, rng, 60, tally),
                    big(hostile, base, 6, tally),
                )
                rounds += 1
            await app[keys.TASKS].drain()
        sampler.cancel()
        gc.collect()
        samples.append(((time.perf_counter() - start) / 60, current_rss_mib()))
        print(f"  end   {samples[-1][0]:5.1f}: RSS {samples[-1][1]:.0f} MiB (after a collection)")
        if trace and first_snapshot is not None:
            grown = tracemalloc.take_snapshot().compare_to(first_snapshot, "lineno")
            print("largest growth since minute 1 (tracemalloc):")
            for stat in grown[:10]:
                print(f"    {stat}")
    refused = tally.errors.pop("rate_limited", 0)
    failed = sum(tally.errors.values())
    rss = [r for _, r in samples]
    tail = rss[len(rss) * 2 // 3 :]
    growth = max(tail) - tail[0] if tail else 0.0
    plateau = growth <= slack
    print(
        f"{rounds} rounds in {samples[-1][0]:.1f} min; failed {failed} {dict(tally.errors) if failed else ''}"
        f"; rate_limited {refused}; recall checks {tally.recalls}"
    )
    print(
        f"RSS first {rss[0]:.0f} MiB, peak {max(rss):.0f} MiB, end {rss[-1]:.0f} MiB; "
        f"last third grew {growth:+.0f} MiB: {'plateau' if plateau else 'still growing'}"
    )
    for code, example in tally.examples.items():
        print(f"    {code}: {example[:200]}")
    return 0 if plateau and not failed else 1


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--slack", type=float, default=40, help="MiB the last third may grow by")
    parser.add_argument("--trace", action="store_true")
    parser.add_argument(
        "--expire-seconds",
        type=float,
        default=None,
        help="stored tool results expire after this long and are purged twice as often (default: "
        "each tool's own freshness, hours to days, so the index grows through a short soak)",
    )
    args = parser.parse_args()
    logging.getLogger().setLevel(logging.ERROR)  # the fuzzing's refusals are expected: one line each
    sys.exit(asyncio.run(main_async(args.minutes, args.users, args.slack, args.trace, args.expire_seconds)))


if __name__ == "__main__":
    main()
