"""Milliseconds per answer, by thread and by function, from py-spy's raw samples of a benchmark run.

    py-spy record -r 50 -f raw --threads -o chat.txt -- \\
        python scripts/bench_paths.py --only knowledge --side chat --users 40 --rounds 2 --seconds 15
    py-spy record -r 50 -f raw --threads -o base.txt -- \\
        python scripts/bench_paths.py --only knowledge --side chat --users 40 --rounds 1 --seconds 0.05
    python scripts/profile_top.py chat.txt --base base.txt --answers N [--rate 50]

``N`` is the answers the profiled run made (its table's "answers"). The base run is the same start-up
and warm-up with almost no measuring: its samples are subtracted thread by thread. A sample counts a
thread that runs or waits for the interpreter lock, so the figures grow with contention.

With ``py-spy record --gil`` (both runs) only the thread holding the interpreter lock is sampled: the
milliseconds of the lock each answer takes, which is what bounds a single process's answers/s once the
event loop's thread holds it nearly all the time (model runs, SQLite and the index's searches let go of
it).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

FRAMES = (
    "ChatService._respond",
    "ChatService.read_turn",
    "Router.route",
    "extract",
    "SlotTagger.tag",
    "SemanticRouter.scores",
    "Rules.search",
    "decide",
    "detect_language",
    "compose_answer",
    "GuideSearch.find",
    "SwitchableStore.search",
    "SessionStore.ask",
    "SessionStore.answer",
    "SessionStore.trip",
    "SessionStore.save_trip",
    "IngestQueue._run",
)


def load(path: Path) -> tuple[Counter[str], Counter[str]]:
    """Samples by thread, and the event-loop thread's samples by function (each counted once a stack)."""
    threads: Counter[str] = Counter()
    frames: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        stack, n = line.rsplit(" ", 1)
        parts = stack.split(";")
        thread = re.sub(r"_\d+$", "", re.sub(r"\(\d+\)", "", parts[0]).replace("thread :", "").strip())
        if "connection_worker" in thread or "kv-sqlite" in thread:
            thread = "key-value store"
        threads[thread] += int(n)
        if thread == "MainThread":
            for name in {f.split(" (")[0] for f in parts[1:]}:
                frames[name] += int(n)
    return threads, frames


def main(args: argparse.Namespace) -> None:
    threads, frames = load(args.profile)
    base, _ = load(args.base) if args.base else (Counter(), Counter())
    ms = 1000 / args.rate / args.answers
    print("| thread | ms per answer |\n| --- | --- |")
    for name, n in threads.most_common():
        print(f"| {name} | {max(0, n - base[name]) * ms:.2f} |")
    print("\n| event-loop function | ms per answer |\n| --- | --- |")
    for name in FRAMES:
        print(f"| `{name}` | {frames[name] * ms:.2f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("profile", type=Path, help="py-spy's raw output (-f raw --threads)")
    parser.add_argument("--base", type=Path, help="the same run's start-up and warm-up alone, to subtract")
    parser.add_argument("--answers", type=int, required=True, help="answers the profiled run made")
    parser.add_argument("--rate", type=float, default=50, help="py-spy's samples a second (-r)")
    main(parser.parse_args())
