"""Fit the slot tagger (rag/tagging/tagger.py) on SGD travel dialogues and report span quality.

    python scripts/fit_slots.py                      # fit on train, report dev and our hard cases
    python scripts/fit_slots.py --write              # ... and write rag/tagging/slot_tagger.crfsuite
    python scripts/fit_slots.py --grid               # the c1/c2 and feature-group grid, dev only

Data: ../shared/data/sgd-travel/{train,dev}.jsonl (Schema-Guided Dialogue, CC BY-SA 4.0; --data DIR).
Fitted on train's user turns, chosen on dev's, never on a test split. Each user turn's spans are its
frames' ``slots`` mapped to our labels (rag/tagging/labels.py). Categorical slots (passengers,
rooms, adults, seating class) have no span in SGD, only an INFORM value: a value said in the turn is
projected onto its words (case-insensitive, whole words; "2" also matches "two", "one-way" never
does; a count next to its unit word wins when the value occurs twice; otherwise an ambiguous value
is left out). A date span's leading "the" is dropped ("the 7th" -> "7th"), as SGD writes it both
ways. ``asked`` is what the previous system turn REQUESTed, mapped to our labels.

Train also gets copies (scripts/slot_augment.py): other months in other formats, bare months and
weekdays ("in May", "on Saturday"), and other cities in place of SGD's few. Dev is scored as it is
and renamed ("dev-renamed": its turns with a place, the places swapped for cities that training never
put in, so that it measures names the tagger has not seen). The hard cases (tests/data/
slot_cases.jsonl) are reported, never chosen on. Deterministic: same data, same model file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pycrfsuite

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.tagging.features import FeatureConfig, FeatureExtractor, tokenize  # noqa: E402
from rag.tagging.labels import CATEGORICAL, SGD_IGNORED, SGD_SLOTS, sgd_label  # noqa: E402
from rag.tagging.tagger import MODEL_PATH, SlotTagger, default_places, word_frequency  # noqa: E402
from scripts.slot_augment import MONTHS, augment, bare_weekdays, city_names, rename_places  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "sgd-travel"
CASES = ROOT / "tests" / "data" / "slot_cases.jsonl"
# Chosen on dev and dev-renamed with --grid; 300 iterations changed F1 by less than 0.001.
C1, C2, ITERATIONS = 1.0, 0.1, 150
_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_UNITS = {
    "adults": r"people|persons?|adults?|passengers?|tickets?|seats?|travell?ers?|guests?|of us|in my group",
    "rooms": r"(?:hotel\s+)?rooms?",
}


@dataclass(frozen=True)
class Turn:
    text: str
    spans: tuple[tuple[str, int, int], ...]  # (label, start, end), sorted, none overlapping
    asked: tuple[str, ...] = ()


def read_turns(path: Path, stats: Counter[str] | None = None) -> list[Turn]:
    """The user turns of an SGD jsonl file with their spans in our labels and what was just asked."""
    stats = stats if stats is not None else Counter()
    turns: list[Turn] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        asked: tuple[str, ...] = ()
        for turn in json.loads(line)["turns"]:
            frames = turn["frames"]
            if turn["speaker"] == "SYSTEM":
                labels = (
                    sgd_label(f["service"], a["slot"])
                    for f in frames
                    for a in f["actions"]
                    if a["act"] == "REQUEST"
                )
                asked = tuple(dict.fromkeys(x for x in labels if x))
                continue
            turns.append(Turn(turn["utterance"], _spans(turn["utterance"], frames, stats), asked))
            asked = ()
    return turns


def _spans(
    text: str, frames: list[dict[str, object]], stats: Counter[str]
) -> tuple[tuple[str, int, int], ...]:
    given: list[tuple[str, int, int]] = []
    projected: list[tuple[str, int, int]] = []
    for f in frames:
        service = str(f["service"])
        for s in f["slots"]:  # type: ignore[attr-defined]
            label = sgd_label(service, s["slot"])
            if label:
                given.append(_trim(text, label, s["start"], s["exclusive_end"]))
        for a in f["actions"]:  # type: ignore[attr-defined]
            label = sgd_label(service, a["slot"])
            if a["act"] != "INFORM" or label not in CATEGORICAL or a["values"] in ([], ["dontcare"]):
                continue
            stats[f"{label} informed"] += 1
            found = _project(text, label, a["values"][0])
            if found:
                stats[f"{label} projected"] += 1
                projected.append((label, *found))
    out: list[tuple[str, int, int]] = []
    for span in sorted(given, key=lambda s: (s[1], -s[2])) + projected:  # given spans win overlaps
        if any(span[1] < e and s < span[2] for _, s, e in out):
            stats["overlap dropped"] += span not in out
            continue
        out.append(span)
    return tuple(sorted(out, key=lambda s: s[1]))


def _trim(text: str, label: str, start: int, end: int) -> tuple[str, int, int]:
    if label.endswith("_date") and text[start:end].lower().startswith("the "):
        start += 4
    return label, start, end


def _project(text: str, label: str, value: str) -> tuple[int, int] | None:
    """Where a categorical value is said in the turn: one whole-word match, or the one next to its unit."""
    words = [re.escape(value)]
    if value.isdigit() and int(value) < len(_NUMBER_WORDS):
        words.append(_NUMBER_WORDS[int(value)])
    pattern = rf"(?<![\w.,:/-])(?:{'|'.join(words)})(?![\w]|[.,:/-]\w)"
    found = [
        m for m in re.finditer(pattern, text, re.IGNORECASE) if not re.match(r"[\s-]*way", text[m.end() :])
    ]
    if len(found) > 1 and label in _UNITS:
        found = [m for m in found if re.match(rf"\s+(?:{_UNITS[label]})\b", text[m.end() :], re.IGNORECASE)]
    return found[0].span() if len(found) == 1 else None


def bio(turn: Turn) -> tuple[list[str], int]:
    """The turn's tokens' BIO tags, and how many spans do not start or end on a token's edge."""
    tokens = tokenize(turn.text)
    tags = ["O"] * len(tokens)
    cut = 0
    for label, start, end in turn.spans:
        inside = [i for i, t in enumerate(tokens) if t.start < end and start < t.end]
        if not inside:
            continue
        cut += tokens[inside[0]].start != start or tokens[inside[-1]].end != end
        for k, i in enumerate(inside):
            tags[i] = ("B-" if k == 0 else "I-") + label
    return tags, cut


def fit(
    turns: Sequence[Turn], extractor: FeatureExtractor, path: Path, c1: float, c2: float, iterations: int
) -> None:
    trainer = pycrfsuite.Trainer(verbose=False)
    for turn in turns:
        trainer.append(extractor.features(tokenize(turn.text), turn.asked), bio(turn)[0])
    trainer.set_params(
        {"c1": c1, "c2": c2, "max_iterations": iterations, "feature.possible_transitions": True}
    )
    trainer.train(str(path))


def score(tagger: SlotTagger, turns: Iterable[Turn]) -> dict[str, tuple[int, int, int]]:
    """Per label (and "all", and "any place" ignoring the role): (true positives, predicted, gold)."""
    counts: dict[str, list[int]] = {}
    for turn in turns:
        got = {(s.label, s.start, s.end) for s in tagger.tag(turn.text, turn.asked)}
        gold = set(turn.spans)
        for name, g, p in _views(gold, got):
            c = counts.setdefault(name, [0, 0, 0])
            c[0] += len(g & p)
            c[1] += len(p)
            c[2] += len(g)
    return {k: (v[0], v[1], v[2]) for k, v in counts.items()}


def _views(
    gold: set[tuple[str, int, int]], got: set[tuple[str, int, int]]
) -> Iterable[tuple[str, set[tuple[str, int, int]], set[tuple[str, int, int]]]]:
    for label in {s[0] for s in gold | got}:
        yield label, {s for s in gold if s[0] == label}, {s for s in got if s[0] == label}
    yield "all", gold, got
    places = ("origin", "destination", "place")
    yield (
        "any place",
        {("p", s, e) for lb, s, e in gold if lb in places},
        {("p", s, e) for lb, s, e in got if lb in places},
    )


def f1(tp: int, predicted: int, gold: int) -> tuple[float, float, float]:
    p = tp / predicted if predicted else 1.0
    r = tp / gold if gold else 1.0
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def table(scores: dict[str, tuple[int, int, int]]) -> str:
    rows = ["| label | precision | recall | F1 | gold spans |", "| --- | --- | --- | --- | --- |"]
    for label in sorted(scores, key=lambda k: (k in ("all", "any place"), k)):
        p, r, f = f1(*scores[label])
        rows.append(f"| {label} | {p:.3f} | {r:.3f} | {f:.3f} | {scores[label][2]} |")
    return "\n".join(rows)


def cases(path: Path = CASES) -> list[tuple[str, Turn]]:
    """Our hard messages as (language, turn)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        spans = tuple(
            (s["label"], row["text"].index(s["text"]), row["text"].index(s["text"]) + len(s["text"]))
            for s in row["spans"]
        )
        out.append(
            (
                row["lang"],
                Turn(row["text"], tuple(sorted(spans, key=lambda s: s[1])), tuple(row.get("asked", ()))),
            )
        )
    return out


def check_schemas(data: Path) -> None:
    """Every slot of every schema is mapped or ignored (labels.py): a new slot fails here, loudly."""
    for name in ("train_schema.json", "dev_schema.json"):
        for service in json.loads((data / name).read_text(encoding="utf-8")):
            family = service["service_name"].split("_")[0]
            known = set(SGD_SLOTS.get(family, {})) | SGD_IGNORED.get(family, frozenset())
            missing = [s["name"] for s in service["slots"] if s["name"] not in known]
            if missing:
                raise SystemExit(
                    f"{name}: {service['service_name']} slots not in rag/tagging/labels.py: {missing}"
                )


def run(
    train: list[Turn],
    dev: dict[str, list[Turn]],
    config: FeatureConfig,
    c1: float,
    c2: float,
    iterations: int,
    out: Path,
) -> SlotTagger:
    """Fit, then one line: all-label span F1 on each dev set."""
    places = default_places() if config.places else None
    start = time.perf_counter()
    fit(train, FeatureExtractor(places, word_frequency(), config), out, c1, c2, iterations)
    tagger = SlotTagger.load(out, places=places, config=config)
    scores = " ".join(f"{name} {f1(*score(tagger, turns)['all'])[2]:.4f}" for name, turns in dev.items())
    print(
        f"c1={c1} c2={c2} it={iterations} {config}: F1 {scores} "
        f"({time.perf_counter() - start:.0f} s, {out.stat().st_size // 1024} KiB)",
        flush=True,
    )
    return tagger


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--write", action="store_true", help=f"write {MODEL_PATH.relative_to(ROOT)}")
    parser.add_argument("--grid", action="store_true", help="the hyperparameter and feature grid on dev")
    parser.add_argument("--c1", type=float, default=C1)
    parser.add_argument("--c2", type=float, default=C2)
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    args = parser.parse_args()
    check_schemas(args.data)
    stats: Counter[str] = Counter()
    train = read_turns(args.data / "train.jsonl", stats)
    dev = read_turns(args.data / "dev.jsonl", Counter())
    months = augment(train)
    bare = sum(t.text[s:e] in MONTHS for t in months for _, s, e in t.spans)
    weekdays = bare_weekdays(train)
    names = city_names(0)
    renamed = rename_places(train, names, seed=1) + rename_places(train, names, seed=3)
    print(
        f"augmented: {len(months)} copies with other months ({bare} a bare month), {len(weekdays)} with a "
        f"bare weekday, {len(renamed)} with other cities"
    )
    train += months + weekdays + renamed
    dev_renamed = rename_places(dev, city_names(1), seed=2)
    sets = {"dev": dev, "dev-renamed": dev_renamed}  # chosen on these; the hard cases are only reported
    cut = sum(bio(t)[1] for t in train)
    print(
        f"train: {len(train)} user turns, {sum(len(t.spans) for t in train)} spans, {cut} off token edges; "
        f"dev: {len(dev)} user turns, {sum(len(t.spans) for t in dev)} spans"
    )
    print("train categorical values:", dict(sorted(stats.items())))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.crfsuite"
        if args.grid:
            base = FeatureConfig()
            for c1, c2 in (
                (0.05, 0.01),
                (0.2, 0.05),
                (0.5, 0.01),
                (0.5, 0.1),
                (1.0, 0.01),
                (1.0, 0.1),
                (2.0, 0.1),
            ):
                run(train, sets, base, c1, c2, args.iterations, out)
            for config in (
                replace(base, cues=False),
                replace(base, affixes_of_names=True),
                replace(base, places=False),
                replace(base, frequency=False),
                replace(base, classes=False),
                replace(base, affixes=False),
                replace(base, window=1),
            ):
                run(train, sets, config, args.c1, args.c2, args.iterations, out)
            return
        tagger = run(train, sets, FeatureConfig(), args.c1, args.c2, args.iterations, out)
        print("\ndev (span exact match):\n" + table(score(tagger, dev)))
        print("\ndev, places renamed (span exact match):\n" + table(score(tagger, dev_renamed)))
        no_ask = [replace(t, asked=()) for t in dev]
        print(f"\ndev without `asked`: all F1 {f1(*score(tagger, no_ask)['all'])[2]:.3f}")
        by_lang = cases()
        hard = [turn for _, turn in by_lang]
        print(f"\nhard cases: all F1 {f1(*score(tagger, hard)['all'])[2]:.3f}")
        for lang in dict.fromkeys(lang for lang, _ in by_lang):
            tp, predicted, gold = score(tagger, [t for g, t in by_lang if g == lang])["all"]
            print(f"hard cases {lang}: {tp}/{gold} gold spans exact, {predicted - tp} wrong spans")
        for turn in hard:
            got = [(s.label, s.text, round(s.confidence, 2)) for s in tagger.tag(turn.text, turn.asked)]
            want = [(lb, turn.text[s:e]) for lb, s, e in turn.spans]
            mark = "ok " if [(g[0], g[1]) for g in got] == want else "-- "
            print(f"  {mark}{turn.text!r}: {got}" + ("" if mark == "ok " else f"  want {want}"))
        if args.write:
            MODEL_PATH.write_bytes(out.read_bytes())
            print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
