"""Fit the router's semantic layer and report routing quality before and after.

    python scripts/fit_routing.py [--write]             # the tool classifier
    python scripts/fit_routing.py --no-sgd              # without the SGD turns, for comparison
    python scripts/fit_routing.py --sgd-weight 1 --sgd-inform 0.25   # the other options measured
    python scripts/fit_routing.py --examples [--write]  # the examples' thresholds in the declarations

The tool classifier (rag/routing/classifier.py) is one calibrated logistic head per tool plus "none"
over the query embedding. It is fitted on the public intent messages (../shared/data, CLINC150 and
SNIPS train/validation splits mapped to our tools) minus a held-out fifth, our dev set
(tests/data/routing_dev.jsonl, weighted up: it says what our tools mean), the examples in
routes.yaml, and user turns of travel conversations (scripts/sgd_routing.py: the Schema-Guided
Dialogue train split, Rastogi et al., AAAI 2020, CC BY-SA 4.0; turns stating an intent labelled with
its tool, replies such as "that works", "when does it land?" or "anything else?" labelled none;
weighted down so the public messages' behaviour holds, and only in the heads and thresholds of the
four tools SGD speaks of, and none's). Public "things to do in X" messages are left out: the public
mapping calls them activity searches, our own labels answer them from the guides. Scores are calibrated by Platt scaling on 5-fold
out-of-fold scores, and the decision thresholds are fitted on those out-of-fold probabilities, through
the router's own ``decide``, so the dev figures printed are out-of-fold too. --write stores the weights
and thresholds in rag/routing/tool_classifier.npz. Never fitted on: the public held-out fifth and
tests/data/routing_test.jsonl and the SGD dev split (reported for figures; each set is shown with the
shipped classifier, then with the one just fitted).

--examples fits, as before the classifier, the per-tool thresholds of the examples' scores (used for
tools the classifier does not know, or with another embedding model) on 60% of the dev set and stores
them in the tools' declarations (rag/tools/) with --write.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from connectors.places import LocationCatalogue  # noqa: E402
from rag.routing.classifier import (  # noqa: E402
    DEFAULT_PATH as CLASSIFIER_PATH,
)
from rag.routing.classifier import (  # noqa: E402
    NONE,
    Classification,
    Thresholds,
    ToolClassifier,
    sigmoid,
)
from rag.routing.clauses import clauses  # noqa: E402
from rag.routing.config import RoutingConfig, load_config  # noqa: E402
from rag.routing.decision import Analysis  # noqa: E402
from rag.routing.evaluation import format_report, report, split  # noqa: E402
from rag.routing.layers import decide  # noqa: E402
from rag.routing.router import Router  # noqa: E402
from rag.tools.catalog import ToolCatalogue  # noqa: E402
from scripts.routing_data import DEV, UNSEEN, CachedEmbed, load_rows, public_rows  # noqa: E402
from scripts.sgd_data import METHODS as SGD_METHODS  # noqa: E402
from scripts.sgd_data import TODAY as SGD_TODAY  # noqa: E402
from scripts.sgd_routing import SOURCE as SGD_SOURCE  # noqa: E402
from scripts.sgd_routing import sample, sgd_rows  # noqa: E402

TOOLS = ToolCatalogue.builtin()

TODAY = dt.date(2026, 11, 21)  # fixed, so relative dates in the messages resolve the same every run
C = 4.0  # inverse L2 strength; 1 to 16 measured within noise on the out-of-fold objective
OWN_WEIGHT = 5.0  # a dev or routes.yaml message counts as five public ones when fitting the heads
DEV_WEIGHT = 20.0  # and as twenty when fitting the thresholds: exact-match on our own traffic first
# An SGD turn counts as this many public messages, in the heads and the thresholds alike: enough to
# learn conversational requests ("I'm looking for a house to stay in"), little enough that the public
# held-out figures hold (0.25 to 1 measured on SGD dev and the public fold; scripts/README.md).
SGD_WEIGHT = 0.5
FOLDS = 5
GRID = [round(0.05 * i, 2) for i in range(1, 20)] + [1.01]
PROBES = ["find me a hotel in Rome", "will it rain tomorrow", "play some jazz"]


@dataclasses.dataclass
class Part:
    name: str
    rows: list[dict[str, Any]]
    analyses: list[Analysis]
    vectors: list[np.ndarray]  # per message: its vector, then its clauses'


def clause_texts(text: str) -> list[str]:
    """The clauses the router embeds beside the message (Router.analyse)."""
    return clauses(" ".join(text.split()))


def expected(row: dict[str, Any]) -> set[str]:
    return set(row["expected_tools"])


async def analyse(
    router: Router, embed: CachedEmbed, name: str, rows: list[dict[str, Any]], today: dt.date = TODAY
) -> Part:
    texts = [r["text"] for r in rows]
    clauses = [clause_texts(t) for t in texts]
    message = await embed.matrix(texts)
    flat = await embed.matrix([c for cs in clauses for c in cs])
    vectors, offset = [], 0
    for i, cs in enumerate(clauses):
        vectors.append(np.vstack([message[i : i + 1], flat[offset : offset + len(cs)]]))
        offset += len(cs)
    analyses = [await router.analyse(t, message[i].tolist(), today=today) for i, t in enumerate(texts)]
    return Part(name, rows, analyses, vectors)


def predicted(a: Analysis, config: RoutingConfig) -> set[str]:
    """The tools the router decides for an analysed message (parameters aside: they do not change intent)."""
    if a.commands:
        commands = {t.command.lower(): name for name, t in config.tools.items() if t.command}
        return {commands[c] for c, _ in a.commands if c in commands}
    return set(decide(a, config))


def heads_of(config: RoutingConfig) -> list[str]:
    return [*config.tools, NONE]


def labels(rows: list[dict[str, Any]], heads: list[str]) -> np.ndarray:
    y = np.zeros((len(rows), len(heads)), dtype=np.int64)
    for i, r in enumerate(rows):
        for t in r["expected_tools"]:
            y[i, heads.index(t)] = 1
        y[i, heads.index(NONE)] = int(not r["expected_tools"])
    return y


def fit_heads(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``w``: per message and head, the message's weight in that head's fit."""
    from sklearn.linear_model import LogisticRegression  # offline only: the service scores with numpy

    weights, bias = np.zeros((y.shape[1], x.shape[1])), np.zeros(y.shape[1])
    for h in range(y.shape[1]):
        model = LogisticRegression(C=C, max_iter=3000).fit(x, y[:, h], sample_weight=w[:, h])
        weights[h], bias[h] = model.coef_[0], model.intercept_[0]
    return weights, bias


def platt(scores: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per head, a and b so that sigmoid(a * score + b) is calibrated on out-of-fold scores."""
    from sklearn.linear_model import LogisticRegression

    a, b = np.zeros(y.shape[1]), np.zeros(y.shape[1])
    for h in range(y.shape[1]):
        model = LogisticRegression(C=1e6, max_iter=1000).fit(scores[:, [h]], y[:, h], sample_weight=w[:, h])
        a[h], b[h] = model.coef_[0, 0], model.intercept_[0]
    return a, b


def fit_classifier(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, extra: list[np.ndarray], n_extra: int
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Calibrated weights over all of ``x``, and out-of-fold probabilities for the first ``n_extra`` rows'
    vectors in ``extra`` (each message with its clauses), scored by the fold that did not see them."""
    from sklearn.model_selection import KFold

    oof = np.zeros(y.shape, dtype=np.float64)
    oof_extra: list[np.ndarray] = [np.zeros(0)] * n_extra
    for k, (train, held) in enumerate(KFold(FOLDS, shuffle=True, random_state=0).split(x)):
        print(f"  fold {k + 1} of {FOLDS}", flush=True)
        weights, bias = fit_heads(x[train], y[train], w[train])
        oof[held] = x[held] @ weights.T + bias
        for i in held[held < n_extra]:
            oof_extra[i] = extra[i] @ weights.T + bias
    a, b = platt(oof, y, w)
    weights, bias = fit_heads(x, y, w)
    return weights * a[:, None], bias * a + b, [sigmoid(s * a + b) for s in oof_extra]


def classification(p: np.ndarray, heads: list[str], thresholds: Thresholds) -> Classification:
    """As ToolClassifier.classify, from a (vectors, heads) probability matrix."""
    out = {h: float(p[:, i].max()) for i, h in enumerate(heads)}
    out[NONE] = float(p[0, heads.index(NONE)])
    return Classification(out, thresholds)


def fit_thresholds(
    analyses: list[Analysis], exp: list[set[str]], weight: np.ndarray, config: RoutingConfig, t: Thresholds
) -> None:
    """Coordinate ascent on weighted exact-match, through ``decide`` itself; the middle of the best
    plateau, so small shifts in the probabilities do not flip a threshold. ``weight``: per message and
    head (tools, then none), the message's weight when that tool's thresholds (none's: the veto) move."""
    heads = heads_of(config)

    def score(rows: list[int], head: str) -> float:
        w = weight[:, heads.index(head)]
        return float(sum(w[i] for i in rows if w[i] and predicted(analyses[i], config) == exp[i]))

    everyone = list(range(len(analyses)))
    for _ in range(2):
        for tool in config.tools:
            rows = [
                i
                for i, a in enumerate(analyses)
                if tool in exp[i]
                or tool in a.keyword_hits
                or (a.classification is not None and a.classification.probabilities[tool] >= 0.04)
            ]
            found = []
            for fire in GRID:
                for kw in (g for g in GRID if g <= fire):
                    t.fire[tool], t.keyword[tool] = fire, kw
                    found.append((score(rows, tool), fire, kw))
            best = max(s for s, _, _ in found)
            plateau = sorted((f, k) for s, f, k in found if s == best)
            t.fire[tool], t.keyword[tool] = plateau[len(plateau) // 2]
        found_veto = []
        # Fine steps at the top: fitted on conversational replies too, the none head is often sure.
        for veto in [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99, 0.995, 1.01]:
            t.none_veto = veto
            found_veto.append((score(everyone, NONE), veto))
        best = max(s for s, _ in found_veto)
        plateau_veto = [v for s, v in found_veto if s == best]
        t.none_veto = plateau_veto[len(plateau_veto) // 2]


def show(
    label: str, part: Part, analyses: list[Analysis], config: RoutingConfig, mistakes: bool = False
) -> None:
    pairs = [(expected(r), predicted(a, config)) for r, a in zip(part.rows, analyses, strict=True)]
    print(f"\n== {part.name}, {label} ({len(pairs)} messages)\n{format_report(report(pairs, config.tools))}")
    if mistakes:
        for (exp, got), r in zip(pairs, part.rows, strict=True):
            if exp != got:
                print(f"  expected {sorted(exp)} got {sorted(got)}: {r['text']}")


def fold_text(text: str) -> str:
    return " ".join(text.split()).casefold()


def summary_line(part: Part, analyses: list[Analysis], config: RoutingConfig) -> str:
    pairs = [(expected(r), predicted(a, config)) for r, a in zip(part.rows, analyses, strict=True)]
    rep = report(pairs, config.tools)
    recall = " ".join(
        f"{t.split('_')[0]} {m['recall']:.3f}/{m['precision']:.3f}"
        for t, m in rep["per_tool"].items()
        if m["support"]
    )
    return (
        f"exact {rep['exact_match']:.3f}  no-tool left alone {rep['no_tool_left_alone']:.3f}  "
        f"no-tool precision {rep['no_tool_precision']:.3f}  recall/precision: {recall}"
    )


async def fit_the_classifier(write: bool, mistakes: bool, sgd_weight: float, sgd_inform: float) -> None:
    config = load_config()
    heads = heads_of(config)
    public = [r for r in public_rows("fit") if r["expected_tools"] != ["activity_search"]]
    dev = load_rows(DEV)
    own: list[dict[str, Any]] = [
        {"text": e, "expected_tools": [n]} for n, t in config.tools.items() for e in t.examples
    ]
    own += [{"text": e, "expected_tools": []} for e in config.none_examples]
    taken = {fold_text(r["text"]) for r in public + dev + own}
    sgd = [r for r in sgd_rows("train") if fold_text(r["text"]) not in taken] if sgd_weight else []
    if sgd and sgd_inform:
        inform = [r for r in sgd_rows("train", ("inform",)) if fold_text(r["text"]) not in taken]
        sgd += sample(inform, round(sgd_inform * len(inform)))
    shipped = ToolClassifier.load(CLASSIFIER_PATH) if CLASSIFIER_PATH.exists() else None
    async with CachedEmbed() as embed:
        router = await Router.create(
            config, LocationCatalogue.load(), TOOLS, embed, classifier_path=None, today=lambda: TODAY
        )
        print("analysing the messages ...", flush=True)
        ours = await analyse(router, embed, "public fit + dev", public + dev)
        conversations = await analyse(router, embed, "SGD train", sgd, SGD_TODAY)
        held = [
            await analyse(router, embed, "dev (out-of-fold)", dev),
            await analyse(router, embed, "unseen (routing_test.jsonl)", load_rows(UNSEEN)),
            await analyse(router, embed, "public held-out fold", public_rows("holdout")),
            await analyse(router, embed, "SGD dev, intent and reply turns", sgd_rows("dev"), SGD_TODAY),
        ]
        own_x = await embed.matrix([r["text"] for r in own])
        probe_vectors = await embed.matrix(PROBES)
        embedder = embed.path.stem
    if shipped is not None and not shipped.agrees_with(probe_vectors):
        shipped = None
    train = Part(
        "public fit + dev + SGD train",
        ours.rows + conversations.rows,
        ours.analyses + conversations.analyses,
        ours.vectors + conversations.vectors,
    )
    x = np.vstack([np.stack([v[0] for v in train.vectors]), own_x])
    y = labels(train.rows + own, heads)
    w = np.array(
        [1.0] * len(public) + [OWN_WEIGHT] * len(dev) + [sgd_weight] * len(sgd) + [OWN_WEIGHT] * len(own)
    )[:, None].repeat(len(heads), axis=1)
    # SGD speaks of four of our tools: its turns say nothing of the others' heads and thresholds (a
    # flight search is not evidence against flight inspiration, whose few examples it would drown;
    # "which airport does it leave from?" asks about a result there, about airports in our dev set).
    spoken = {m.tool for m in SGD_METHODS.values()} | {NONE}
    sgd_at = slice(len(public) + len(dev), len(public) + len(dev) + len(sgd))
    w[sgd_at, [i for i, h in enumerate(heads) if h not in spoken]] = 0.0
    sgd_counts = {h: int(n) for h, n in zip(heads, labels(sgd, heads).sum(0), strict=True)} if sgd else {}
    print(f"SGD train turns: {len(sgd)} at weight {sgd_weight} {sgd_counts}")
    print(f"fitting {len(heads)} heads on {len(x)} messages ({int(y.sum(0)[-1])} without a tool) ...")
    weights, bias, oof = fit_classifier(x, y, w, train.vectors, len(train.rows))
    thresholds = Thresholds(fire={t: 0.5 for t in config.tools}, keyword={t: 0.3 for t in config.tools})
    oof_analyses = [
        dataclasses.replace(a, classification=classification(p, heads, thresholds))
        for a, p in zip(train.analyses, oof, strict=True)
    ]
    exp = [expected(r) for r in train.rows]
    print("fitting thresholds on out-of-fold probabilities ...", flush=True)
    threshold_weight = w[: len(train.rows)].copy()
    threshold_weight[len(public) : len(public) + len(dev)] = DEV_WEIGHT
    fit_thresholds(oof_analyses, exp, threshold_weight, config, thresholds)
    classifier = ToolClassifier(
        heads=heads,
        weights=weights.astype(np.float32),
        bias=bias.astype(np.float32),
        thresholds=thresholds,
        probe_texts=PROBES,
        probe_vectors=probe_vectors,
        meta={
            "embedder": embedder,
            "fitted_on": {
                "public": len(public),
                "dev": len(dev),
                "routes_yaml": len(own),
                "sgd": len(sgd),
                "sgd_weight": sgd_weight,
                "sources": "CLINC150 (CC BY 3.0, Larson et al., EMNLP 2019) and SNIPS (CC0, Coucke et al.,"
                " 2018) train/validation splits; "
                + (f"{SGD_SOURCE}; " if sgd else "")
                + "Wayfarer's dev set and routes.yaml examples",
            },
            "C": C,
        },
    )
    print("\nthresholds (probability):")
    for tool in config.tools:
        print(f"  {tool:20} fire {thresholds.fire[tool]:.2f}  with keyword {thresholds.keyword[tool]:.2f}")
    print(f"  none veto {thresholds.none_veto:.2f}")
    n_dev = len(dev)
    dev_oof = oof_analyses[len(public) : len(public) + n_dev]
    summary = []
    for part in held:
        show("examples only", part, part.analyses, config)
        before = None
        if shipped is not None:
            before = [
                dataclasses.replace(a, classification=shipped.classify(v))
                for a, v in zip(part.analyses, part.vectors, strict=True)
            ]
            note = " (fitted on this set)" if part is held[0] else ""
            show(f"with the shipped classifier{note}", part, before, config)
        analysed = [
            dataclasses.replace(a, classification=classifier.classify(v))
            for a, v in zip(part.analyses, part.vectors, strict=True)
        ]
        after = dev_oof if part is held[0] else analysed
        show("with the classifier", part, after, config, mistakes)
        summary.append(f"\n{part.name} ({len(part.rows)})")
        if before is not None:
            summary.append(f"  shipped  {summary_line(part, before, config)}")
        summary.append(f"  fitted   {summary_line(part, after, config)}")
    print("\n== summary" + "\n".join(summary))
    if write:
        classifier.save(CLASSIFIER_PATH)
        print(f"\nwrote {CLASSIFIER_PATH} ({CLASSIFIER_PATH.stat().st_size} bytes)")


async def fit_the_examples(write: bool) -> None:
    """The examples' thresholds (no classifier) on the dev set's fit part; the declarations with --write."""
    config = load_config()
    rows = load_rows(DEV)
    async with CachedEmbed() as embed:
        router = await Router.create(
            config, LocationCatalogue.load(), TOOLS, embed, classifier_path=None, today=lambda: TODAY
        )
        analyses = [await router.analyse(r["text"]) for r in rows]
    fit_idx = [i for i, r in enumerate(rows) if split(r["text"]) == "fit"]
    exp = [expected(r) for r in rows]
    grid = [round(0.20 + 0.02 * i, 2) for i in range(36)]
    for _ in range(3):
        for route in config.tools.values():
            scored: list[tuple[int, float, float]] = []
            for th in grid:
                for kth in [g for g in grid if g <= th]:
                    route.threshold, route.keyword_threshold = th, kth
                    scored.append((sum(predicted(analyses[i], config) == exp[i] for i in fit_idx), th, kth))
            top = max(s for s, _, _ in scored)
            plateau = sorted((th, kth) for s, th, kth in scored if s == top)
            route.threshold, route.keyword_threshold = plateau[len(plateau) // 2]
    for name, route in config.tools.items():
        print(f"  {name:20} threshold {route.threshold:.2f}  keyword_threshold {route.keyword_threshold:.2f}")
    for part in ("fit", "holdout"):
        pairs = [
            (exp[i], predicted(analyses[i], config)) for i, r in enumerate(rows) if split(r["text"]) == part
        ]
        print(f"\n== dev {part} ({len(pairs)})\n{format_report(report(pairs, config.tools))}")
    if write:
        for path in write_thresholds(config):
            print(f"wrote thresholds to {path}")


def write_thresholds(config: RoutingConfig) -> list[Path]:
    """Store the fitted thresholds in each tool's declaration (rag/tools/<tool>.py)."""
    written = []
    for name, route in config.tools.items():
        path = ROOT / "rag" / "tools" / f"{name}.py"
        text = path.read_text(encoding="utf-8")
        for key, value in (("threshold", route.threshold), ("keyword_threshold", route.keyword_threshold)):
            text, n = re.subn(rf'(?m)^(\s*"{key}": )[0-9.]+,$', rf"\g<1>{value},", text)
            if n != 1:
                raise SystemExit(f"no {key} in {path}")
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--examples", action="store_true", help="fit the examples' thresholds instead")
    parser.add_argument("--write", action="store_true", help="store what was fitted")
    parser.add_argument("--mistakes", action="store_true", help="list the messages routed wrongly")
    parser.add_argument("--no-sgd", action="store_true", help="fit without the SGD turns")
    parser.add_argument("--sgd-weight", type=float, default=SGD_WEIGHT, help="an SGD turn's weight")
    parser.add_argument(
        "--sgd-inform",
        type=float,
        default=0.0,
        help="the share of SGD's bare answers ('I leave from Vancouver') to fit as none (default none)",
    )
    args = parser.parse_args()
    sgd_weight = 0.0 if args.no_sgd else args.sgd_weight
    asyncio.run(
        fit_the_examples(args.write)
        if args.examples
        else fit_the_classifier(args.write, args.mistakes, sgd_weight, args.sgd_inform)
    )


if __name__ == "__main__":
    main()
