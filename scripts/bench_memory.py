"""A long soak of mixed traffic, with the service's resident memory sampled every minute.

    python scripts/bench_memory.py [--minutes 20] [--users 20] [--trace]

The service runs in this process on a loopback port with every default setting (but the per-address rate
limit: all users come from this one address) and the full seed corpus.
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

    python scripts/bench_memory.py --long 40 [--users 20] [--long-slack 300]

Long messages instead of the soak: ``--long`` /v1/route messages of 2,000 characters (the most a message
may have), each beside an ordinary one, ``--users`` at a time, so the query model embeds batches of long
texts as it does under load. RSS is read when the service is ready and after the messages (after a
garbage collection); growth above ``--long-slack`` MiB makes the exit status 1. Then the median time
to embed a short query, over interleaved rounds in this process: the service's query embedder against
the same model with onnxruntime's default arena kept (``query_arena=keep``), as a ratio. The settings
before the fix: ``WAYFARER_EMBEDDING__QUERY_ARENA=keep WAYFARER_EMBEDDING__MAX_BATCH_TOKENS=65536``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import random
import statistics
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


LONG_PARTS = [
    "I would like to fly from {a} to {b} sometime in {m}",
    "and then take the train on to {c} for a few nights",
    "we are two adults and a child who loves museums, parks and old churches",
    "also what will the weather be like in {b} that week",
    "plus a quiet hotel near the old town with breakfast included",
    "then maybe a day trip to the coast if the forecast is good",
    "as well as some ideas for dinner that are not too expensive",
    "and how do we get from the airport to the centre late at night",
]
PLACES = ["Lisbon", "Porto", "Madrid", "Seville", "Rome", "Florence", "Paris", "Lyon", "Vienna", "Prague"]
MONTHS = ["May", "June", "September", "October"]


def long_message(rng: random.Random, chars: int = 2000) -> str:
    """A rambling travel message of exactly ``chars`` characters, with many clauses the router embeds."""
    parts: list[str] = []
    while sum(len(p) + 2 for p in parts) < chars:
        a, b, c = rng.sample(PLACES, 3)
        parts.append(rng.choice(LONG_PARTS).format(a=a, b=b, c=c, m=rng.choice(MONTHS)))
    return ", ".join(parts)[:chars]


async def route(session: aiohttp.ClientSession, base: str, user: str, text: str, tally: Tally) -> None:
    """One /v1/route message; a refusal for load (503 overloaded) is retried after its Retry-After."""
    while True:
        try:
            async with session.post(f"{base}/v1/route", json={"user_id": user, "message": text}) as resp:
                body = await resp.json()
                if resp.status == 503 and body["error"]["code"] == "overloaded":
                    tally.failed("overloaded (retried)", user)
                    await asyncio.sleep(float(resp.headers.get("Retry-After", "1")))
                    continue
                if resp.status != 200:
                    tally.failed(f"http_{resp.status}", f"{user}: {body}")
                return
        except (TimeoutError, aiohttp.ClientError) as exc:
            tally.failed(type(exc).__name__, user)
            return


async def short_query_p50(app: Any, rounds: int = 80, per_round: int = 10) -> tuple[float, float]:
    """Median ms to embed a short query with the service's query embedder and with the same model on
    onnxruntime's default arena (kept), measured in interleaved rounds (which goes first alternates) so
    both see the same load."""
    from rag.embedding.onnx import OnnxEmbedder

    service = app[keys.QUERY_EMBEDDER]
    settings = app[keys.SETTINGS].embedding
    kept = await OnnxEmbedder.load(settings.model_copy(update={"query_arena": "keep"}))
    query = "hotels in Lisbon next weekend for 2 adults"
    times: dict[str, list[float]] = {"service": [], "keep": []}
    try:
        pair = [("service", service), ("keep", kept)]
        for k in range(rounds):
            for name, embedder in pair if k % 2 else reversed(pair):
                for _ in range(per_round):
                    start = time.perf_counter()
                    await embedder.embed_query(query)
                    times[name].append((time.perf_counter() - start) * 1000)
    finally:
        await kept.close()
    return statistics.median(times["service"]), statistics.median(times["keep"])


async def long_messages(count: int, at_once: int, slack: float) -> int:
    rng = random.Random(0)
    async with serve_in_process(SETTINGS) as (base, app):
        embedding = app[keys.SETTINGS].embedding
        gc.collect()
        before = current_rss_mib()
        print(
            f"service ready (query arena {embedding.query_arena}, at most {embedding.max_batch_tokens} "
            f"tokens a run): RSS {before:.0f} MiB",
            flush=True,
        )
        tally = Tally()
        cities = ["Lisbon", "Rome", "Paris", "Tokyo", "Berlin", "Prague"]
        jobs = []
        for i in range(count):
            jobs.append(route_job(base, f"mem-long-{i}", long_message(rng)))
            jobs.append(route_job(base, f"mem-short-{i}", f"hotels in {rng.choice(cities)} next weekend"))
        timeout = aiohttp.ClientTimeout(total=600)
        start = time.perf_counter()
        peak = before
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as session:
            for k in range(0, len(jobs), 2 * at_once):
                await asyncio.gather(*(job(session, tally) for job in jobs[k : k + 2 * at_once]))
                peak = max(peak, current_rss_mib())
        wall = time.perf_counter() - start
        gc.collect()
        after = current_rss_mib()
        print(
            f"{count} long (2,000-character) and {count} ordinary /v1/route messages, {at_once} long at once, "
            f"in {wall:.0f} s: RSS {before:.0f} -> {after:.0f} MiB ({after - before:+.0f} MiB; highest "
            f"between waves {peak:.0f}); refusals and failures {dict(tally.errors) or 'none'}",
            flush=True,
        )
        service, kept = await short_query_p50(app)
        print(
            f"short query p50: {service:.2f} ms (query arena {embedding.query_arena}) vs {kept:.2f} ms "
            f"(onnxruntime's default arena, kept): ratio {service / kept:.2f}"
        )
    failed = sum(n for code, n in tally.errors.items() if code != "overloaded (retried)")
    grew = after - before
    print(f"growth {grew:+.0f} MiB: {'within' if grew <= slack else 'over'} {slack:.0f} MiB")
    return 0 if grew <= slack and not failed else 1


def route_job(base: str, user: str, text: str) -> Any:
    async def job(session: aiohttp.ClientSession, tally: Tally) -> None:
        await route(session, base, user, text, tally)

    return job


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
        "--long", type=int, default=0, help="send this many long /v1/route messages instead of the soak"
    )
    parser.add_argument("--long-slack", type=float, default=300, help="MiB RSS may grow by (--long)")
    parser.add_argument(
        "--expire-seconds",
        type=float,
        default=None,
        help="stored tool results expire after this long and are purged twice as often (default: "
        "each tool's own freshness, hours to days, so the index grows through a short soak)",
    )
    args = parser.parse_args()
    logging.getLogger().setLevel(logging.ERROR)  # the fuzzing's refusals are expected: one line each
    if args.long:
        sys.exit(asyncio.run(long_messages(args.long, args.users, args.long_slack)))
    sys.exit(asyncio.run(main_async(args.minutes, args.users, args.slack, args.trace, args.expire_seconds)))


if __name__ == "__main__":
    main()
