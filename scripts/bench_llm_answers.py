"""The LLM answer path, measured: first-token latency and whether the answers' citations point at real items.

    python scripts/bench_llm_answers.py [--data tests/data/answers.jsonl] [--json out.json] [--show]
    python scripts/bench_llm_answers.py --model-url http://127.0.0.1:8080/v1 --model NAME [--limit 14]

The service starts in this process on the embedded defaults with WAYFARER_LLM__* pointing at an
OpenAI-compatible server: by default the scripted stand-in the tests use (tests/llm_stub.py), here
scripted per request. It answers the routing call with no tool calls and streams an answer that quotes
the first words of data items [1] and [2] of its prompt (only the items the prompt has), and every
third answer also cites an item its prompt does not have ([9], or the number after its last item),
so the citation share can fail. Every question of the labelled set (scripts/eval_answers.py) is a new
user's first message on /v1/ws.

Per answer: the first-token latency (the message frame sent to the first chunk frame), the full answer
time, ``cites_real`` (every [n] in the answer's body names exactly one item of the complete frame's
``sources``) and ``citations_resolve`` (the full check of scripts/eval_answers.py: Sources line, labels,
no uncited items). With the stub the latency is the service's own cost around an instant model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402

from scripts.answer_scoring import split_answer  # noqa: E402
from scripts.eval_answers import DEFAULT_DATA, citation_problems, resolve  # noqa: E402
from tests.llm_stub import Script, create_stub  # noqa: E402

_ITEM = re.compile(r'^\[(\d+)\] \(.*?\) "', re.M)  # a heading may hold brackets: "Spring (March–May)"
_CITE = re.compile(r"\[(\d+)\]")
OUT_OF_RANGE = 9


class AnswerScript(Script):
    """The stub's script, decided per request: no tools for routing, a streamed answer citing the data."""

    def __init__(self) -> None:
        super().__init__(replies=[("tools", {})])
        self.answers = 0
        self.injected: list[bool] = []  # per streamed answer: whether it cites the missing item

    def next(self) -> tuple[str, Any]:
        request = self.requests[-1]
        if request.get("tools"):
            return ("tools", {})
        if request.get("response_format"):
            return ("json", {"tools": []})
        system = request["messages"][0]["content"]
        items = data_items(system)
        inject = self.answers % 3 == 2
        missing = max(OUT_OF_RANGE, max(items, default=0) + 1)
        self.answers += 1
        self.injected.append(inject)
        parts = [f"{_words(items[n])} [{n}]." for n in (1, 2) if n in items]
        if not parts:
            parts = ["I have nothing on that in my data, but I can search flights, hotels and weather."]
        if inject:
            parts.append(f"It is also worth booking ahead [{missing}].")
        return ("stream" if request.get("stream") else "text", " ".join(parts))


def data_items(system: str) -> dict[int, str]:
    """The prompt's numbered data items' quoted text, without a passage's heading line."""
    marks = list(_ITEM.finditer(system))
    items = {}
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(system)
        lines = [x for x in system[m.end() : end].splitlines() if x.strip()]
        items[int(m.group(1))] = " ".join(lines[1:] if len(lines) > 1 else lines)
    return items


def _words(text: str, most: int = 14) -> str:
    return " ".join(text.strip().rstrip('"').split()[:most]).rstrip(".,;:")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def cites_real(text: str, sources: list[dict[str, Any]]) -> bool:
    """Every [n] in the body names exactly one item of ``sources``."""
    body, _ = split_answer(text)
    return all(len(resolve(int(n), sources)) == 1 for n in _CITE.findall(body))


async def ask(ws_url: str, text: str) -> dict[str, Any]:
    """One question on a new connection: (first chunk seconds, total seconds, the complete frame)."""
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(timeout=timeout) as session, session.ws_connect(ws_url) as ws:
        start = time.perf_counter()
        await ws.send_json({"type": "message", "text": text})
        first = None
        while True:
            frame = await ws.receive_json(timeout=240)
            if frame.get("chunk") and first is None:
                first = time.perf_counter() - start
            if frame.get("complete") or frame.get("type") in ("error", "cancelled"):
                return {"first_token_s": first, "total_s": time.perf_counter() - start, "frame": frame}


async def run(
    rows: list[dict[str, Any]], model_url: str | None, model: str
) -> tuple[list[dict[str, Any]], Any]:
    import rag
    from scripts._common import serve_in_process

    print(f"rag imported from {rag.__file__}", file=sys.stderr)
    script = AnswerScript()
    runner = None
    if model_url is None:
        runner = web.AppRunner(create_stub(script))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        model_url = f"http://127.0.0.1:{port}/v1"
    env = {
        "WAYFARER_SCHEDULER__ENABLED": "false",
        "WAYFARER_LLM__BASE_URL": model_url,
        "WAYFARER_LLM__MODEL": model,
        "WAYFARER_LLM__TIMEOUT_SECONDS": "120",
    }
    try:
        start = time.perf_counter()
        async with serve_in_process(env) as (base, _app):
            print(f"service up and seeded in {time.perf_counter() - start:.0f} s", file=sys.stderr)
            results = []
            for i, row in enumerate(rows):
                before = script.answers
                got = await ask(f"{base.replace('http', 'ws', 1)}/v1/ws?user_id=llm-bench-{i}", row["text"])
                got["model_answered"] = script.answers > before if runner else None
                got["injected"] = script.injected[-1] if runner and script.answers > before else False
                results.append(got)
        return results, script
    finally:
        if runner is not None:
            await runner.cleanup()


def report(rows: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    firsts = [r["first_token_s"] for r in results if r["first_token_s"] is not None]
    totals = [r["total_s"] for r in results]
    complete = [r for r in results if r["frame"].get("complete")]
    real = [cites_real(r["frame"]["text"], r["frame"].get("sources", [])) for r in complete]
    full = [not citation_problems(r["frame"]["text"], r["frame"].get("sources", [])) for r in complete]
    injected = [r["injected"] for r in complete]
    return {
        "questions": len(rows),
        "complete": len(complete),
        # Known only with the stub: how many answers the model wrote (the rest fell back to the composer).
        "model_answered": None
        if any(r["model_answered"] is None for r in results)
        else sum(r["model_answered"] for r in results),
        "first_token_p50_ms": round(1000 * statistics.median(firsts), 1) if firsts else None,
        "first_token_p95_ms": round(1000 * percentile(firsts, 0.95), 1) if firsts else None,
        "answer_p50_ms": round(1000 * statistics.median(totals), 1),
        "answer_p95_ms": round(1000 * percentile(totals, 0.95), 1),
        "cites_real": _share(real),
        "cites_real_clean": _share([ok for ok, bad in zip(real, injected, strict=True) if not bad]),
        "cites_real_injected": _share([ok for ok, bad in zip(real, injected, strict=True) if bad]),
        "injected": sum(injected),
        "citations_resolve": _share(full),
    }


def _share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--model-url", help="an OpenAI-compatible server's /v1 URL instead of the stub")
    parser.add_argument("--model", default="stub", help="the model name sent to that server")
    parser.add_argument("--limit", type=int, help="at most this many questions, spread over the set")
    parser.add_argument("--show", action="store_true", help="print every answer")
    parser.add_argument("--json", type=Path, help="save the figures and the answers here")
    args = parser.parse_args()
    rows = [json.loads(x) for x in args.data.read_text(encoding="utf-8").splitlines() if x.strip()]
    if args.limit and args.limit < len(rows):
        rows = rows[:: -(-len(rows) // args.limit)]
    results, _ = asyncio.run(run(rows, args.model_url, args.model))
    if args.show:
        for row, r in zip(rows, results, strict=True):
            frame = r["frame"]
            first = "-" if r["first_token_s"] is None else f"{1000 * r['first_token_s']:.0f} ms"
            print(f"\n=== {row['text']}  (first chunk {first}, injected={r['injected']})")
            print(frame.get("text") or frame)
            print(f"--- sources: {[(s.get('n'), s.get('id')) for s in frame.get('sources', [])]}")
    figures = report(rows, results)
    for key, value in figures.items():
        print(f"{key:>22}: {value}")
    if args.json:
        out = {
            "figures": figures,
            "answers": [
                {"text": row["text"], **{k: v for k, v in r.items()}}
                for row, r in zip(rows, results, strict=True)
            ],
        }
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
