"""What routing a message costs with the dialogue state and the slot tagger, as a client sees it.

    python scripts/bench_route.py [--dialogues 60]

Replays the user turns of SGD dev dialogues (../shared/data/sgd-travel, CC BY-SA 4.0) through the
service in this process, without an LLM and with nothing seeded: each turn is first previewed with
``POST /v1/route`` (timed: the message read with the conversation's state, the slot tagger, the tool
classifier, the plan), then sent to ``POST /v1/chat`` (not timed) so the state moves on. The same turns
run twice in one process, on the same app: with the slot tagger, then with it switched off (the rules
alone, as before the tagger), so the two figures and their ratio come from the same machine at the
same time. Prints p50/p95 per pass and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from scripts._common import NO_RATE_LIMITS, serve_in_process  # noqa: E402
from scripts.eval_dialogues import subset  # noqa: E402
from scripts.sgd_data import load_dialogues  # noqa: E402

SETTINGS = {
    "WAYFARER_FIXED_TODAY": "2019-03-01",
    "WAYFARER_TIMEZONE": "UTC",
    "WAYFARER_SERVER__CHAT_RATE_LIMIT": "0",
    "WAYFARER_INDEX__SEED_ON_START": "false",
    "WAYFARER_CONNECTORS__MODE": "sandbox",
}


async def replay(base: str, turns: list[tuple[str, str]]) -> list[float]:
    """Milliseconds of each /v1/route, the turns of each user in order."""
    timings: list[float] = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as session:
        for user, text in turns:
            body = {"user_id": user, "message": text}
            start = time.perf_counter()
            async with session.post(f"{base}/v1/route", json=body) as resp:
                await resp.read()
            timings.append((time.perf_counter() - start) * 1000)
            async with session.post(f"{base}/v1/chat", json=body) as resp:
                await resp.read()
    return timings


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(n: int) -> None:
    dialogues = subset(load_dialogues("dev"), None, n)
    turns = [(d.dialogue_id, t.utterance) for d in dialogues for t in d.user_turns()]
    async with serve_in_process({**SETTINGS, **NO_RATE_LIMITS}) as (base, app):
        from rag.web import keys

        router = app[keys.ROUTER]
        await replay(base, [(f"warm-{u}", m) for u, m in turns[:20]])  # models and caches warm
        results: dict[str, list[float]] = {}
        tagger = router.tagger
        for name, on in (("with the slot tagger", True), ("rules alone", False)):
            router.tagger = tagger if on else None
            results[name] = await replay(base, [(f"{name[:4]}-{u}", m) for u, m in turns])
        router.tagger = tagger
    print(f"{len(turns)} user turns of {len(dialogues)} SGD dev dialogues; /v1/route, HTTP included")
    for name, ms in results.items():
        print(f"  {name:22} p50 {statistics.median(ms):6.2f} ms   p95 {percentile(ms, 0.95):6.2f} ms")
    a, b = (statistics.median(v) for v in results.values())
    print(f"  ratio of medians (tagger / rules alone): {a / b:.2f}")


def cli() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dialogues", type=int, default=60, help="SGD dev dialogues, spread over the file")
    args: Any = parser.parse_args()
    asyncio.run(main(args.dialogues))


if __name__ == "__main__":
    cli()
