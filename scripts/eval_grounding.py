"""Grounding of chat answers in the conversation's place, per language, through the real chat service.

    python scripts/eval_grounding.py [--data tests/data/grounding.jsonl] [--focus on|off|both]

Each line: {"text": str, "lang": "en"|"es"|..., "guide": "guides/<city>"}, a question about one seed
city. The service starts in this process on the embedded defaults and seeds the whole seed corpus;
each question is a new conversation's first message (POST /v1/chat). A question is grounded when its
document sources include its city's guide and no other city's guide (topic documents may come too).
``--focus off`` answers with the chat's place focus switched off (the index searches every guide), the
behaviour before it; ``both`` (the default) runs both on one seeded service and prints them side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "grounding.jsonl"


def judge(expected: str, sources: list[dict[str, Any]]) -> str:
    """grounded, drifted (another city's guide among the sources) or missed (not the city's guide)."""
    guides = {s["id"] for s in sources if s.get("kind") == "document" and s["id"].startswith("guides/")}
    if guides - {expected}:
        return "drifted"
    return "grounded" if expected in guides else "missed"


async def ask_all(url: str, rows: list[dict[str, Any]], tag: str) -> list[str]:
    verdicts = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as session:
        for i, row in enumerate(rows):
            body = {"user_id": f"grounding-{tag}-{i}", "message": row["text"]}
            async with session.post(url.rstrip("/") + "/v1/chat", json=body) as resp:
                answer = await resp.json()
            if resp.status != 200:
                raise SystemExit(f"chat failed ({resp.status}) for {row['text']!r}: {answer}")
            verdicts.append(judge(row["guide"], answer["sources"]))
    return verdicts


def table(rows: list[dict[str, Any]], runs: dict[str, list[str]]) -> str:
    langs = list(dict.fromkeys(r["lang"] for r in rows)) + ["all"]
    lines = ["lang   n  " + "  ".join(f"{m:>28}" for m in runs)]
    lines.append("          " + "  ".join(f"{'grounded drifted missed':>28}" for _ in runs))
    for lang in langs:
        idx = [i for i, r in enumerate(rows) if lang in ("all", r["lang"])]
        cells = []
        for verdicts in runs.values():
            counts: dict[str, int] = defaultdict(int)
            for i in idx:
                counts[verdicts[i]] += 1
            n = len(idx)
            cells.append(
                f"{counts['grounded'] / n:>8.0%} {counts['drifted'] / n:>7.0%} {counts['missed'] / n:>6.0%}".rjust(
                    28
                )
            )
        lines.append(f"{lang:<4} {len(idx):>3}  " + "  ".join(cells))
    return "\n".join(lines)


async def run(rows: list[dict[str, Any]], modes: list[str], show: bool) -> dict[str, list[str]]:
    from rag.web import keys
    from scripts._common import serve_in_process

    start = time.perf_counter()
    async with serve_in_process({"WAYFARER_SCHEDULER__ENABLED": "false"}) as (url, app):
        print(f"service up and seeded in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        runs = {}
        for mode in modes:
            app[keys.CHAT].grounding = mode == "on"
            runs[f"focus {mode}"] = await ask_all(url, rows, mode)
        if show:
            for i, row in enumerate(rows):
                marks = " ".join(f"{v[i]:>8}" for v in runs.values())
                print(f"{marks}  [{row['lang']}] {row['text']}")
        return runs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--focus", choices=["on", "off", "both"], default="both")
    parser.add_argument("--show", action="store_true", help="print every question's verdicts")
    args = parser.parse_args()
    rows = [json.loads(x) for x in args.data.read_text(encoding="utf-8").splitlines() if x.strip()]
    modes = ["off", "on"] if args.focus == "both" else [args.focus]
    runs = asyncio.run(run(rows, modes, args.show))
    print(table(rows, runs))


if __name__ == "__main__":
    main()
