"""The extractive composer's cost per answer, warm (sentence cache filled) and cold (cache cleared).

    python scripts/bench_compose.py [--rounds 200]

Nine passages, as the chat retrieves them (3 chunks of each of 3 documents): Tokyo guide chunks and
when-to-visit chunks of the seed corpus, chunked by the service's own chunker; four questions in turn.
Pure: no model, index or service.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.chat import selection  # noqa: E402
from rag.chat.composer import Passage, compose, passage_from_payload  # noqa: E402
from rag.dialogue.actions import Guide  # noqa: E402
from rag.ingest.chunking import chunk_markdown  # noqa: E402
from rag.ingest.documents import chunk_payload  # noqa: E402
from rag.ingest.seeding import load_documents  # noqa: E402
from rag.settings import SEED_DIR  # noqa: E402
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

QUESTIONS = [
    "what will the weather be like in Tokyo?",
    "what should I eat in Tokyo?",
    "how do I get from Narita to Tokyo?",
    "is Tokyo expensive?",
]


def passages(rel: str) -> list[Passage]:
    (doc,) = load_documents([SEED_DIR / rel])
    chunks = chunk_markdown(doc.text, doc.title)
    return [
        passage_from_payload(
            f"{doc.id}#{c.index}", chunk_payload(doc, c.index, len(chunks), c.heading, c.text)
        )
        for c in chunks
    ]


def timed(found: list[Passage], rounds: int, cold: bool) -> list[float]:
    out = []
    for i in range(rounds):
        if cold:
            selection._prepared.cache_clear()
        start = time.perf_counter()
        compose(Guide("Tokyo"), QUESTIONS[i % len(QUESTIONS)], found, [], None, declared=TOOLS)
        out.append((time.perf_counter() - start) * 1000)
    return sorted(out)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    found = passages("guides/tokyo.md")[:6] + passages("topics/when-to-visit.md")[:3]
    compose(Guide("Tokyo"), QUESTIONS[0], found, [], None, declared=TOOLS)  # imports and tables built once
    for label, cold in (("warm", False), ("cold", True)):
        ms = timed(found, args.rounds, cold)
        p95 = ms[int(0.95 * (len(ms) - 1))]
        print(f"{label}: p50 {statistics.median(ms):.2f} ms  p95 {p95:.2f} ms  ({len(found)} passages)")


if __name__ == "__main__":
    main()
