"""Fit the router's per-tool thresholds on part of a labelled set and report on the rest.

    python scripts/fit_routing.py [--data tests/data/routing_dev.jsonl] [--write]

Messages are split by a hash of their text (60% fit, 40% held out). Thresholds are fitted by coordinate
ascent on exact-match accuracy over the fit part; --write stores them in rag/routing/routes.yaml.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from connectors.locations import LocationCatalogue  # noqa: E402
from rag.embedding.factory import create_embedder, create_query_embedder  # noqa: E402
from rag.routing.config import DEFAULT_PATH, load_config  # noqa: E402
from rag.routing.evaluation import format_report, report, split  # noqa: E402
from rag.routing.router import Analysis, Router, decide  # noqa: E402
from rag.settings import Settings  # noqa: E402


def predicted(router: Router, a: Analysis) -> set[str]:
    """What the router decides for an analysed message, without parameters (they do not change intent)."""
    if a.commands:
        return {router._commands[c] for c, _ in a.commands if c in router._commands}
    return set(decide(a, router.config, router.margin))


async def analyse_all(rows: list[dict[str, Any]]) -> tuple[Router, list[Analysis]]:
    settings = Settings()
    documents = await create_embedder(settings)
    embedder = await create_query_embedder(settings, documents)  # the embedder the service routes with

    async def embed(texts: list[str]) -> list[list[float]]:
        return await embedder.embed_documents(texts)

    router = await Router.create(load_config(), LocationCatalogue.load(), embed, today=settings.today)
    analyses = [await router.analyse(r["text"]) for r in rows]
    await embedder.close()
    if embedder is not documents:
        await documents.close()
    return router, analyses


def fit(router: Router, analyses: list[Analysis], expected: list[set[str]]) -> None:
    grid = [round(0.20 + 0.02 * i, 2) for i in range(36)]
    for _ in range(3):
        for route in router.config.tools.values():
            scored: list[tuple[int, float, float]] = []
            for th in grid:
                for kth in [g for g in grid if g <= th]:
                    route.threshold, route.keyword_threshold = th, kth
                    score = sum(predicted(router, a) == e for a, e in zip(analyses, expected, strict=True))
                    scored.append((score, th, kth))
            # The middle of the best plateau: away from both edges, so small shifts in scores do not flip it.
            top = max(s for s, _, _ in scored)
            plateau = sorted((th, kth) for s, th, kth in scored if s == top)
            route.threshold, route.keyword_threshold = plateau[len(plateau) // 2]


def write_thresholds(router: Router, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for name, route in router.config.tools.items():
        block = re.search(rf"(?ms)^  {name}:\n(.*?)(?=^  \w+:\n|^\S|\Z)", text)
        assert block, name
        body = block.group(1)
        body = re.sub(r"(?m)^    (threshold|keyword_threshold): .*\n", "", body)
        body = f"    threshold: {route.threshold}\n    keyword_threshold: {route.keyword_threshold}\n" + body
        text = text[: block.start(1)] + body + text[block.end(1) :]
    path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("tests/data/routing_dev.jsonl"))
    parser.add_argument("--write", action="store_true", help="store the fitted thresholds in routes.yaml")
    args = parser.parse_args()
    rows = [json.loads(x) for x in args.data.read_text().splitlines() if x.strip()]
    router, analyses = asyncio.run(analyse_all(rows))
    parts: dict[str, list[int]] = {"fit": [], "holdout": []}
    for i, r in enumerate(rows):
        parts[split(r["text"])].append(i)
    expected = [set(r["expected_tools"]) for r in rows]
    tools = list(router.config.tools)

    def show(label: str) -> None:
        for part, idx in parts.items():
            pairs = [(expected[i], predicted(router, analyses[i])) for i in idx]
            print(f"\n== {label}, {part} ({len(idx)} messages)\n{format_report(report(pairs, tools))}")

    show("before fitting")
    fit(router, [analyses[i] for i in parts["fit"]], [expected[i] for i in parts["fit"]])
    print("\nfitted thresholds:")
    for name, route in router.config.tools.items():
        print(f"  {name:20} threshold {route.threshold:.2f}  keyword_threshold {route.keyword_threshold:.2f}")
    show("after fitting")
    for part in ("fit", "holdout"):
        wrong = [
            (rows[i]["text"], sorted(expected[i]), sorted(predicted(router, analyses[i])))
            for i in parts[part]
            if expected[i] != predicted(router, analyses[i])
        ]
        print(f"\n{part} mistakes ({len(wrong)}):")
        for text, exp, got in wrong:
            print(f"  expected {exp} got {got}: {text}")
    if args.write:
        write_thresholds(router, DEFAULT_PATH)
        print(f"\nwrote thresholds to {DEFAULT_PATH}")


if __name__ == "__main__":
    main()
