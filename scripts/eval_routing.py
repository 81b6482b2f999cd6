"""Routing quality through the HTTP API: our dev and unseen sets and the public held-out fold.

    python scripts/eval_routing.py [--url http://127.0.0.1:8080]   # dev, unseen and the public fold
    python scripts/eval_routing.py --public-fold                    # only the public held-out fold
    python scripts/eval_routing.py --data FILE [--part fit|holdout] # any labelled file

Each line: {"text": str, "expected_tools": [names]} (an empty list means no tool; the public file's
`tools` reads the same). The public fold is the fifth of ../shared/data/routing_public_train.jsonl
(CLINC150 and SNIPS train/validation messages mapped to our tools) that scripts/fit_routing.py never
fits on; tests/data/routing_test.jsonl is never fitted on either, and the dev set is (its out-of-fold
figures come from fit_routing.py). A message's prediction is every tool the router chose: those it
would call, those waiting for parameters (`missing`) and those asked for whose days are beyond their
reach (`later`: a forecast months ahead); /v1/route answers as the chat decides (rag.dialogue.policy),
and that depends on the guides the index holds. Without --url the service is started in this process
on the embedded defaults, seeded as it starts (the configured LLM, if any, included). Prints per-tool precision,
recall and F1, exact-match accuracy, no-tool messages left alone and no-tool precision, and route
latency p50/p99 as the client sees it (sequential requests, HTTP round trip included).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from rag.retrieval.metrics import percentile  # noqa: E402
from rag.routing.evaluation import format_report, report, split  # noqa: E402
from scripts.routing_data import DEV, UNSEEN, load_rows, public_rows  # noqa: E402

CACHE = Path.home() / ".cache" / "wayfarer" / "eval-routing"


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
            got = (
                {t["name"] for t in body["tools"]} | set(body.get("missing", {})) | set(body.get("later", []))
            )
            pairs.append((set(row["expected_tools"]), got))
    return pairs, latencies


async def in_process(rows: list[dict[str, Any]]) -> tuple[list[tuple[set[str], set[str]]], list[float]]:
    """The service on the embedded defaults in this process, seeded as it starts: what /v1/route decides
    depends on which guides there are ("things to do in Rome" is the guide's, in a city without one
    the activities')."""
    from scripts._common import NO_RATE_LIMITS, seeded_service

    async with seeded_service(CACHE, NO_RATE_LIMITS) as url:
        return await evaluate(url, rows)


async def evaluate_all(url: str | None, sets: dict[str, list[dict[str, Any]]]) -> None:
    if url is None:
        from scripts._common import NO_RATE_LIMITS, seeded_service

        async with seeded_service(CACHE, NO_RATE_LIMITS) as local:
            await evaluate_all(local, sets)
        return
    await evaluate(url, [{"text": "warm up the model", "expected_tools": []}])
    for name, rows in sets.items():
        pairs, latencies = await evaluate(url, rows)
        tools = sorted({t for exp, got in pairs for t in exp | got})
        print(f"\n== {name} ({len(rows)} messages)\n{format_report(report(pairs, tools))}")
        print(
            f"route latency p50 {percentile(latencies, 0.5):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms "
            f"({len(latencies)} requests, sequential, HTTP round trip included)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=None, help="one labelled file (default: the three sets)")
    parser.add_argument(
        "--public-fold", action="store_true", help="only the held-out fold of the public intent messages"
    )
    parser.add_argument("--url", default=None, help="a running service (default: start one in this process)")
    parser.add_argument(
        "--part",
        choices=["all", "fit", "holdout"],
        default="all",
        help="only the fit or held-out part of the file (split by text hash)",
    )
    args = parser.parse_args()
    sets: dict[str, list[dict[str, Any]]] = {}
    if args.data is not None:
        rows = load_rows(args.data)
        if args.part != "all":
            rows = [r for r in rows if split(r["text"]) == args.part]
        sets[str(args.data)] = rows
    if args.public_fold:
        sets["public held-out fold (CLINC150 + SNIPS train/val)"] = public_rows("holdout")
    if not sets:
        sets = {
            "dev (routing_dev.jsonl, fitted on)": load_rows(DEV),
            "unseen (routing_test.jsonl)": load_rows(UNSEEN),
            "public held-out fold (CLINC150 + SNIPS train/val)": public_rows("holdout"),
        }
    asyncio.run(evaluate_all(args.url, sets))


if __name__ == "__main__":
    main()
