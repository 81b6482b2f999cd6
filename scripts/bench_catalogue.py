"""The place catalogue's cost: load time and memory, and place extraction per message.

    python scripts/bench_catalogue.py [--data tests/data/routing_test.jsonl]

Loads the gazetteer and the catalogue in this process (cold: nothing cached), reports wall time and
the resident memory it added, then extracts places and dates from every message of the data file and
reports p50/p99 per message.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.retrieval.metrics import percentile  # noqa: E402


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("tests/data/routing_test.jsonl"))
    args = parser.parse_args()
    from connectors.places import LocationCatalogue, warm
    from rag.routing.extract import extract

    before = rss_mb()
    start = time.perf_counter()
    catalogue = LocationCatalogue.load()
    warm()
    loaded = time.perf_counter() - start
    print(
        f"catalogue: {len(catalogue.gazetteer.cities)} cities, {len(catalogue.gazetteer.names)} names, "
        f"{len(catalogue.gazetteer.airports)} airports"
    )
    print(f"load {loaded:.2f} s, +{rss_mb() - before:.0f} MB resident (peak)")
    texts = [json.loads(line)["text"] for line in args.data.open()]
    today = dt.date.today()
    times = []
    for text in texts:
        t = time.perf_counter()
        extract(text, catalogue, today)
        times.append((time.perf_counter() - t) * 1000)
    print(
        f"extraction over {len(texts)} messages: p50 {percentile(times, 0.5):.2f} ms, p99 {percentile(times, 0.99):.2f} ms"
    )


if __name__ == "__main__":
    main()
