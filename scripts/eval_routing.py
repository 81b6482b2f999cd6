"""Routing quality through the HTTP API, on any labelled file.

    python scripts/eval_routing.py --data tests/data/routing_test.jsonl [--url http://127.0.0.1:8080]

Each line: {"text": str, "expected_tools": [names]} (an empty list means no tool). A message's
prediction is every tool the router chose: those it would call and those waiting for parameters
(`missing`). Without --url the service is started in this process on the embedded defaults (the
configured LLM, if any, included). Prints per-tool precision, recall and F1, exact-match accuracy, the
share of no-tool messages left alone, and route latency p50/p99 as the client sees it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from rag.retrieval.metrics import percentile  # noqa: E402
from rag.routing.evaluation import format_report, report, split  # noqa: E402


async def evaluate(
    url: str, rows: list[dict[str, Any]]
) -> tuple[list[tuple[set[str], set[str]]], list[float]]:
    pairs: list[tuple[set[str], set[str]]] = []
    latencies: list[float] = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as session:
        for row in rows:
            start = time.perf_counter()
            async with session.post(url.rstrip("/") + "/v1/route", json={"message": row["text"]}) as resp:
                body = await resp.json()
            latencies.append((time.perf_counter() - start) * 1000)
            if resp.status != 200:
                raise SystemExit(f"route failed ({resp.status}) for {row['text']!r}: {body}")
            got = {t["name"] for t in body["tools"]} | set(body.get("missing", {}))
            pairs.append((set(row["expected_tools"]), got))
    return pairs, latencies


async def in_process(rows: list[dict[str, Any]]) -> tuple[list[tuple[set[str], set[str]]], list[float]]:
    """The service on the embedded defaults in this process (no seeding: routing does not need it)."""
    from scripts._common import serve_in_process

    async with serve_in_process({"WAYFARER_INDEX__SEED_ON_START": "false"}) as (url, _):
        return await evaluate(url, rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--url", default=None, help="a running service (default: start one in this process)")
    parser.add_argument(
        "--part",
        choices=["all", "fit", "holdout"],
        default="all",
        help="only the fit or held-out part of the file (split by text hash)",
    )
    args = parser.parse_args()
    rows = [json.loads(x) for x in args.data.read_text().splitlines() if x.strip()]
    if args.part != "all":
        rows = [r for r in rows if split(r["text"]) == args.part]
    pairs, latencies = asyncio.run(evaluate(args.url, rows) if args.url else in_process(rows))
    tools = sorted({t for exp, got in pairs for t in exp | got})
    print(format_report(report(pairs, tools)))
    print(
        f"route latency p50 {percentile(latencies, 0.5):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms "
        f"({len(latencies)} requests, sequential, HTTP round trip included)"
    )


if __name__ == "__main__":
    main()
