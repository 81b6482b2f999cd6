"""The chat at the speed of what it calls: each chat message beside the same work asked for directly.

    python scripts/bench_paths.py [--users 10,40,100] [--seconds 10] [--rounds 2] [--only tool,knowledge]
                                  [--side both|chat|direct] [--switch-interval-ms MS]

The service runs in this process on the embedded defaults (Qdrant Edge, SQLite, the offline sandbox,
the extractive composer, self-ingestion on), seeded once into a cached data directory; rate limits
and the provider pacing are off (they would measure the limits, not the service). Pairs, each side
run for ``--seconds`` by N concurrent clients, the sides interleaved round after round:

- tool: "Find a hotel in <city> from <date> for 3 nights" through ``POST /v1/chat`` against the same
  search on ``POST /v1/tools/hotel_search`` (both with a user, so both queue their results for
  ingestion);
- knowledge: "What is the best time of year to visit <city>?" through the chat against the same
  question on ``POST /v1/search``.

Each client sends one request after another, each as a new user (never one an earlier round used, so
neither side answers a repeat from that user's ingested results, and both write every result they
get), cycling through the same 300 searches in the same order. Before the rounds, each of the 300
searches is made once directly, so the offers they show are embedded before either side is measured
and their answers are kept to share for ``--share-seconds`` (default 1800, LiteAPI's terms: the whole
run), so neither side pays for provider calls that the other side's round then shares; ``0`` sends
every call of both sides to the provider. Each side starts once the queue of results to write is
empty, and the sides take turns going first.

Reported per side and concurrency: answers per second, p50 and p99 latency as the client sees it, the
process's CPU time per answer (from the side's start until the results it queued are written: client,
service and sandbox share the process, so this is steadier than the throughput, which a stall of the
index's writes moves), how the service answered the tool calls per answer (provider: the sandbox served
it; shared: an identical call just answered or in flight; index: the user's own stored results), and
errors (non-200 answers, chat answers that made no tool call or cite nothing); then the chat's
throughput and CPU per answer against the direct path's (and each round's throughput ratio alone: how
far one round's pair moves from another's), and the p50 of each of the chat's steps (its
``timings_ms``). Client and service share the cores.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from rag.retrieval.metrics import percentile  # noqa: E402
from scripts._common import NO_RATE_LIMITS, current_rss_mib, seeded_service  # noqa: E402

CACHE = Path.home() / ".cache" / "wayfarer" / "bench-paths"
SETTINGS = {
    **NO_RATE_LIMITS,
    "WAYFARER_CONNECTORS__MODE": "sandbox",
    "WAYFARER_CONNECTORS__MIN_INTERVAL_MS": "0",
    "WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND": "100000",
    "WAYFARER_LOG_LEVEL": "WARNING",
}
CITIES = [
    "Lisbon",
    "Rome",
    "Paris",
    "Tokyo",
    "Berlin",
    "Barcelona",
    "Prague",
    "Amsterdam",
    "Istanbul",
    "Seoul",
]
ROUND = 100_000  # request numbers per round: each round's users are new (the searches cycle mod 300)
STEPS: dict[str, list[float]] = {}  # the chat's own timings of each step, by step, while a side runs


class StepTimings(logging.Handler):
    """Collects the ``timings_ms`` of each chat message's log line (rag.chat.service)."""

    def emit(self, record: logging.LogRecord) -> None:
        for step, ms in getattr(record, "chat", {}).get("timings_ms", {}).items():
            STEPS.setdefault(step, []).append(ms)


def steps_line() -> str:
    """The chat's steps, p50 in ms, in the order a message takes them; then forgotten."""
    shown = ", ".join(f"{k} {percentile(sorted(v), 0.5):.0f}" for k, v in STEPS.items())
    STEPS.clear()
    return shown


Send = Callable[[aiohttp.ClientSession, str, int, int], Awaitable[tuple[bool, str]]]


def _day(n: int) -> str:
    return (dt.date.today() + dt.timedelta(days=30 + n)).isoformat()


async def _post(session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> tuple[int, Any]:
    async with session.post(url, json=body) as resp:
        return resp.status, await resp.json()


def _search(user: int, n: int) -> tuple[str, str]:
    """The n-th search of a client: one of 300 (city, day) pairs, the same sequence on both sides."""
    k = (user * 7 + n) % 300
    return CITIES[k % len(CITIES)], _day(k // len(CITIES))


async def chat_hotel(session: aiohttp.ClientSession, base: str, user: int, n: int) -> tuple[bool, str]:
    city, day = _search(user, n)
    message = f"Find a hotel in {city} from {day} for 3 nights"
    body = {"user_id": f"c{user}-{n}", "message": message}
    status, body = await _post(session, f"{base}/v1/chat", body)
    if status != 200:
        return False, f"{status} {body.get('error', {}).get('code')}"
    called = [c for c in body.get("tool_calls", []) if c.get("name") == "hotel_search"]
    return (bool(called), "" if called else "no hotel_search call")


async def tool_hotel(session: aiohttp.ClientSession, base: str, user: int, n: int) -> tuple[bool, str]:
    city, day = _search(user, n)
    body = {"city": city, "check_in": day, "nights": 3}
    status, out = await _post(session, f"{base}/v1/tools/hotel_search?user_id=t{user}-{n}", body)
    return status == 200, "" if status == 200 else f"{status} {out.get('error', {}).get('code')}"


async def chat_knowledge(session: aiohttp.ClientSession, base: str, user: int, n: int) -> tuple[bool, str]:
    message = f"What is the best time of year to visit {CITIES[(user + n) % len(CITIES)]}?"
    status, body = await _post(session, f"{base}/v1/chat", {"user_id": f"k{user}", "message": message})
    if status != 200:
        return False, f"{status} {body.get('error', {}).get('code')}"
    return bool(body.get("sources")), "" if body.get("sources") else "no sources"


async def search(session: aiohttp.ClientSession, base: str, user: int, n: int) -> tuple[bool, str]:
    query = f"What is the best time of year to visit {CITIES[(user + n) % len(CITIES)]}?"
    status, body = await _post(session, f"{base}/v1/search", {"query": query, "user_id": f"s{user}"})
    return status == 200, "" if status == 200 else f"{status} {body.get('error', {}).get('code')}"


PAIRS: dict[str, tuple[tuple[str, Send], tuple[str, Send]]] = {
    "tool": (("chat: hotel search", chat_hotel), ("POST /v1/tools/hotel_search", tool_hotel)),
    "knowledge": (("chat: knowledge question", chat_knowledge), ("POST /v1/search", search)),
}


async def warm(base: str) -> None:
    """Every one of the 300 searches once on the direct path, then the queue drained: the offers they
    show are embedded and cached before either side is measured, so neither side pays for embedding
    what the other would then find in the cache."""
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        for first in range(0, 300, 20):
            await asyncio.gather(*(tool_hotel(session, base, 0, k) for k in range(first, first + 20)))
    await drained(base)


async def metric_rows(base: str, *prefixes: str) -> list[str]:
    """The rows of the service's ``/metrics`` that start with one of ``prefixes``."""
    async with aiohttp.ClientSession() as session, session.get(f"{base}/metrics") as resp:
        return [row for row in (await resp.text()).splitlines() if row.startswith(prefixes)]


async def drained(base: str) -> None:
    """Until the queue of results to write is empty, so each side starts as the first did and does
    not pay for the writes the side before it left behind."""
    while True:
        queued = await metric_rows(base, "wayfarer_live_queue_calls ")
        if not queued or float(queued[0].split()[1]) == 0:
            return
        await asyncio.sleep(0.2)


async def tool_outcomes(base: str) -> dict[str, float]:
    """The service's tool calls so far, by how they were answered (``wayfarer_tool_calls``)."""
    out: dict[str, float] = {}
    for row in await metric_rows(base, "wayfarer_tool_calls_total{"):
        how = row.split('outcome="', 1)[1].split('"', 1)[0]
        out[how] = out.get(how, 0.0) + float(row.rsplit(" ", 1)[1])
    return out


async def measured_side(base: str, send: Send, users: int, seconds: float, first: int) -> dict[str, Any]:
    """``run_side``, with the CPU time it cost until its queued results were written, and its tool
    calls by outcome."""
    before, cpu = await tool_outcomes(base), time.process_time()
    r = await run_side(base, send, users, seconds, first)
    await drained(base)
    r["cpu"] = time.process_time() - cpu
    after = await tool_outcomes(base)
    r["outcomes"] = {k: v - before.get(k, 0.0) for k, v in after.items() if v > before.get(k, 0.0)}
    return r


async def run_side(base: str, send: Send, users: int, seconds: float, first: int = 0) -> dict[str, Any]:
    """``users`` clients sending one request after another for ``seconds``, each client's requests
    numbered from ``first``; what finished in time."""
    latencies: list[float] = []
    errors: dict[str, int] = {}
    deadline = time.perf_counter() + seconds
    timeout = aiohttp.ClientTimeout(total=120)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:

        async def client(user: int) -> None:
            n = first
            while time.perf_counter() < deadline:
                start = time.perf_counter()
                try:
                    ok, why = await send(session, base, user, n)
                except (TimeoutError, aiohttp.ClientError) as exc:
                    ok, why = False, type(exc).__name__
                latencies.append((time.perf_counter() - start) * 1000)
                if not ok:
                    errors[why] = errors.get(why, 0) + 1
                n += 1

        started = time.perf_counter()
        await asyncio.gather(*(client(u) for u in range(users)))
        took = time.perf_counter() - started
    return {"n": len(latencies), "seconds": took, "latencies": latencies, "errors": errors}


def merge(a: dict[str, Any] | None, b: dict[str, Any]) -> dict[str, Any]:
    if a is None:
        return b
    errors, outcomes = dict(a["errors"]), dict(a["outcomes"])
    for k, v in b["errors"].items():
        errors[k] = errors.get(k, 0) + v
    for k, v in b["outcomes"].items():
        outcomes[k] = outcomes.get(k, 0.0) + v
    return {
        "n": a["n"] + b["n"],
        "seconds": a["seconds"] + b["seconds"],
        "latencies": a["latencies"] + b["latencies"],
        "errors": errors,
        "cpu": a["cpu"] + b["cpu"],
        "outcomes": outcomes,
    }


def line(name: str, users: int, r: dict[str, Any]) -> str:
    lat = sorted(r["latencies"])
    rate = r["n"] / r["seconds"] if r["seconds"] else 0.0
    errs = sum(r["errors"].values())
    shown = ", ".join(f"{k} {v}" for k, v in sorted(r["errors"].items())) if errs else "0"
    per = r["n"] or 1
    calls = ", ".join(f"{k} {v / per:.2f}" for k, v in sorted(r["outcomes"].items())) or "-"
    return (
        f"| {name} | {users} | {r['n']} | {rate:.1f} | {percentile(lat, 0.5):.0f} | "
        f"{percentile(lat, 0.99):.0f} | {1000 * r['cpu'] / per:.1f} | {calls} | {shown} |"
    )


async def main(args: argparse.Namespace) -> None:
    pairs = {k: PAIRS[k] for k in args.only.split(",")}
    settings = {**SETTINGS, "WAYFARER_LIVE__SHARE_SECONDS": str(args.share_seconds)}
    async with seeded_service(CACHE, settings) as base:
        chat_log = logging.getLogger("rag.chat.service")
        chat_log.setLevel(logging.INFO)
        chat_log.propagate = False
        chat_log.addHandler(StepTimings())
        rss0 = current_rss_mib()
        # Warm up every path once (models, caches, the first provider calls).
        for (_, a), (_, b) in pairs.values():
            await run_side(base, a, 2, 2)
            await run_side(base, b, 2, 2)
        await warm(base)
        STEPS.clear()
        steps: list[str] = []
        print(
            "| side | users | answers | answers/s | p50 ms | p99 ms | CPU ms per answer | tool calls per answer | errors |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        ratios: list[str] = []
        rounds = 0
        for users in [int(u) for u in args.users.split(",")]:
            for kind, ((chat_name, chat), (direct_name, direct)) in pairs.items():
                sides = [(chat_name, chat), (direct_name, direct)]
                if args.side != "both":  # one side alone, to profile it (no ratio)
                    sides = [sides[0] if args.side == "chat" else sides[1]]
                sums: dict[str, dict[str, Any] | None] = {name: None for name, _ in sides}
                each: list[float] = []  # each round's chat ÷ direct answers/s: the spread of the ratio
                for n in range(args.rounds):
                    rounds += 1  # new user ids each round (both sides of a round the same searches)
                    rates: dict[str, float] = {}
                    for name, send in sides if n % 2 == 0 else sides[::-1]:  # each side first in turn
                        await drained(base)
                        side = await measured_side(base, send, users, args.seconds, ROUND * rounds)
                        sums[name] = merge(sums[name], side)
                        rates[name] = side["n"] / max(1e-9, side["seconds"])
                    if len(rates) == 2:
                        each.append(rates[chat_name] / max(1e-9, rates[direct_name]))
                if args.side != "direct":
                    steps.append(f"{kind} at {users} users, the chat's steps (p50 ms): {steps_line()}")
                for name, r in sums.items():
                    assert r is not None
                    print(line(name, users, r), flush=True)
                if args.side == "both":
                    c, d = sums[chat_name], sums[direct_name]
                    assert c is not None and d is not None
                    share = (c["n"] / c["seconds"]) / max(1e-9, d["n"] / d["seconds"])
                    cost = (c["cpu"] / max(1, c["n"])) / max(1e-9, d["cpu"] / max(1, d["n"]))
                    ratios.append(
                        f"{kind} at {users} users: chat {share:.2f}x the direct path's throughput, "
                        f"{cost:.2f}x its CPU per answer (each round: {', '.join(f'{r:.2f}x' for r in each)})"
                    )
        print()
        print("\n".join(ratios))
        print("\n".join(steps))
        shown = await metric_rows(base, "wayfarer_live_vectors_total", "wayfarer_live_queue_full_total")
        print("ingestion:", "; ".join(shown))
        print(f"RSS {rss0:.0f} -> {current_rss_mib():.0f} MiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", default="10,40,100", help="concurrencies, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="each side's time per round")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds per concurrency")
    parser.add_argument("--only", default="tool,knowledge", help="which pairs: tool, knowledge")
    parser.add_argument(
        "--share-seconds",
        type=float,
        default=1800.0,
        help="how long an identical provider call's answer is shared (0: every call reaches the provider)",
    )
    parser.add_argument(
        "--side", default="both", choices=["both", "chat", "direct"], help="one side alone: to profile it"
    )
    parser.add_argument(
        "--switch-interval-ms",
        type=float,
        default=None,
        help="the interpreter's switch interval for the run (Python's own, 5 ms, when not given)",
    )
    args = parser.parse_args()
    if args.switch_interval_ms is not None:
        sys.setswitchinterval(args.switch_interval_ms / 1000)
    asyncio.run(main(args))
