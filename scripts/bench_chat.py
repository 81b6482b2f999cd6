"""The chat under load: N concurrent WebSocket users, each holding a scripted conversation.

    python scripts/bench_chat.py [--users 50] [--think-ms 0]

The service runs in this process on the embedded defaults (Qdrant Edge, SQLite, the offline sandbox,
the extractive composer), seeded with the full seed corpus. Each user opens a WebSocket and sends, one
after the other, a knowledge question, a flight search, "and a hotel there for 3 nights" (trip state),
a weather question and "what hotels did you find?" (recall). Reported per run: time to the first
streamed chunk and to the complete answer (p50, p99), messages per second, errors (error frames,
dropped connections, answers without sources; must be 0), and the process's peak RSS. The baseline is
the same conversation with one user, in the same process, before the loaded run; the ratios compare
the two. The per-user rate limit and the client's provider quota pacing are off (they would measure
the limits, not the service).
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
from scripts._common import peak_rss_mib, serve_in_process  # noqa: E402

SETTINGS = {
    "WAYFARER_SERVER__CHAT_RATE_LIMIT": "0",
    "WAYFARER_CONNECTORS__MIN_INTERVAL_MS": "0",
    "WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND": "100000",
    "WAYFARER_LOG_LEVEL": "WARNING",
}
CITIES = ["Lisbon", "Rome", "Paris", "Tokyo", "Berlin", "Madrid", "Prague", "Vienna", "Athens", "Seoul"]
ORIGINS = ["London", "New York", "Chicago", "Madrid", "Sydney"]


def conversation(user: int) -> list[str]:
    city = CITIES[user % len(CITIES)]
    origin = ORIGINS[user % len(ORIGINS)]
    day = (dt.date.today() + dt.timedelta(days=20 + user % 40)).isoformat()
    return [
        f"What is the best time of year to visit {city}?",
        f"Find flights from {origin} to {city} on {day}",
        "and a hotel there for 3 nights",
        f"What will the weather be in {city} on {day}?",
        "what hotels did you find?",
    ]


async def chat_user(
    session: aiohttp.ClientSession, base: str, user: str, n: int, think: float
) -> dict[str, Any]:
    first: list[float] = []
    complete: list[float] = []
    errors: list[str] = []
    ws_url = base.replace("http://", "ws://") + f"/v1/ws?user_id={user}"
    try:
        async with session.ws_connect(ws_url) as ws:
            for text in conversation(n):
                start = time.perf_counter()
                await ws.send_json({"type": "message", "text": text})
                got_first = False
                while True:
                    frame = await ws.receive_json(timeout=300)
                    if frame.get("type") == "error":
                        errors.append(frame["error"]["code"])
                        break
                    if not got_first:
                        first.append((time.perf_counter() - start) * 1000)
                        got_first = True
                    if frame.get("complete"):
                        complete.append((time.perf_counter() - start) * 1000)
                        if not frame["sources"]:
                            errors.append(f"no sources for {text!r}")
                        break
                if think:
                    await asyncio.sleep(think)
    except (TimeoutError, aiohttp.ClientError, TypeError) as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    return {"first": first, "complete": complete, "errors": errors}


async def run(base: str, users: int, label: str, think: float, offset: int) -> dict[str, float]:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        start = time.perf_counter()
        results = await asyncio.gather(
            *(chat_user(session, base, f"{label}-{u}", offset + u, think) for u in range(users))
        )
        wall = time.perf_counter() - start
    first = [x for r in results for x in r["first"]]
    complete = [x for r in results for x in r["complete"]]
    errors = [e for r in results for e in r["errors"]]
    out = {
        "first_p50": percentile(first, 0.5),
        "first_p99": percentile(first, 0.99),
        "complete_p50": percentile(complete, 0.5),
        "complete_p99": percentile(complete, 0.99),
        "messages": len(complete),
        "per_second": len(complete) / wall,
        "errors": len(errors),
    }
    print(
        f"{users:3d} users: {out['messages']} answers in {wall:.1f} s ({out['per_second']:.1f}/s); "
        f"first chunk p50 {out['first_p50']:.0f} ms p99 {out['first_p99']:.0f} ms; "
        f"complete p50 {out['complete_p50']:.0f} ms p99 {out['complete_p99']:.0f} ms; "
        f"errors {out['errors']}; peak RSS {peak_rss_mib():.0f} MiB"
    )
    for e in sorted(set(errors))[:5]:
        print(f"    error: {e}")
    return out


async def main_async(users: int, think: float) -> int:
    async with serve_in_process(SETTINGS) as (base, app):
        print(f"service ready (full seed corpus); peak RSS {peak_rss_mib():.0f} MiB")
        await run(base, 1, "warmup", 0, 1000)  # first-call costs (thread pools, caches) out of the way
        await app[keys.TASKS].drain()
        base_run = await run(base, 1, "baseline", think, 0)
        await app[keys.TASKS].drain()
        loaded = await run(base, users, "load", think, 0)
        await app[keys.TASKS].drain()
    print(
        f"ratio {users} users / 1 user: first chunk p50 {loaded['first_p50'] / base_run['first_p50']:.1f}x, "
        f"complete p50 {loaded['complete_p50'] / base_run['complete_p50']:.1f}x; "
        f"throughput {loaded['per_second'] / base_run['per_second']:.1f}x"
    )
    return 1 if base_run["errors"] or loaded["errors"] else 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--think-ms", type=float, default=0, help="pause between a user's messages")
    args = parser.parse_args()
    sys.exit(asyncio.run(main_async(args.users, args.think_ms / 1000)))


if __name__ == "__main__":
    main()
