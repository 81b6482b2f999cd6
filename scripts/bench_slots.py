"""What one message costs the slot tagger (rag/tagging/tagger.py): load time, then per-message time
over the SGD dev user turns (with what the system had just asked), p50/p95/p99.

    python scripts/bench_slots.py [--data DIR] [--repeat 3]

The first pass warms the feature cache (word features are kept per word), so the figures are for a
warm service; the cold pass is printed too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.tagging.tagger import SlotTagger  # noqa: E402
from scripts.fit_slots import DATA, read_turns  # noqa: E402


def percentiles(times: list[float]) -> str:
    ordered = sorted(times)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return (
        f"p50 {at(0.5):.3f} ms, p95 {at(0.95):.3f} ms, p99 {at(0.99):.3f} ms, "
        f"mean {statistics.fmean(ordered) * 1000:.3f} ms, max {ordered[-1] * 1000:.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    turns = read_turns(args.data / "dev.jsonl", Counter())
    start = time.perf_counter()
    tagger = SlotTagger.load()
    print(f"load: {time.perf_counter() - start:.2f} s (place catalogue, word lists, model)")
    for repeat in range(args.repeat + 1):
        times = []
        for turn in turns:
            t0 = time.perf_counter()
            tagger.tag(turn.text, turn.asked)
            times.append(time.perf_counter() - t0)
        name = "cold (first pass)" if repeat == 0 else f"warm pass {repeat}"
        print(f"{name}: {len(times)} messages, {percentiles(times)}")
    words = [len(t.text.split()) for t in turns]
    print(f"messages: {statistics.median(words):.0f} words median, {max(words)} max")


if __name__ == "__main__":
    main()
