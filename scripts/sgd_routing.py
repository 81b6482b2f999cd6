"""SGD user turns as labelled routing messages: plain requests and replies from travel conversations.

    python scripts/sgd_routing.py            # counts per split and kind
    python scripts/sgd_routing.py --router   # the shipped router's figures on SGD dev

From the Schema-Guided Dialogue dataset (Rastogi et al., "Towards Scalable Multi-domain Conversational
Agents: The Schema-Guided Dialogue Dataset", AAAI 2020), CC BY-SA 4.0: the travel dialogues in
../shared/data/sgd-travel (read by scripts/sgd_data.py). The tool classifier is fitted on the train
split's turns (scripts/fit_routing.py); the dev split is only measured. Each user turn is labelled by
its dialogue acts, one of four kinds:

- "intent": a frame's acts hold INFORM_INTENT (the user states a new intent). Labelled with our tool
  for the intent (scripts/sgd_data.METHODS: flight searches and reservations -> flight_search, hotel
  and house searches and bookings -> hotel_search, FindAttractions -> activity_search, GetWeather ->
  weather_forecast). A reservation is an ask for that tool too ("can you help me buy tickets for a
  one-way flight from Phoenix?"): whether to search again is the conversation's to say, not the
  message's.
- "reply": no INFORM_INTENT, and every act is one of REPLY_ACTS: choosing, confirming or declining a
  result or an offer, thanks, goodbye, questions about a result ("when does the flight arrive?"), and
  REQUEST_ALTS ("anything else?"). Labelled none: REQUEST_ALTS asks to run the search again with the
  conversation's parameters, which the dialogue layer does; the message alone asks for no tool.
- "inform": anything else, mostly bare answers ("I'll leave from Vancouver", "two people") and
  REQUEST_ALTS with new values ("any other flights? Economy please"). Out of context these are
  ambiguous: they are not fitted on (see scripts/README.md for the measurement behind that choice).
  AFFIRM_INTENT turns ("yes, please reserve this house") are "inform" too: they accept an intent the
  assistant offered, and the offer, not the message, says what the yes is for.
- "forecast": a question about a forecast just given ("is it going to be windy?", "how humid will it
  be?"). SGD calls it a question about a result, but alone it reads as the forecast request the public
  data labels it; not fitted on and not scored.

Texts are deduplicated within a split (case and spaces folded); a text labelled two ways is dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.sgd_data import DATA_DIR, METHODS, TODAY, Turn, load_dialogues  # noqa: E402

REPLY_ACTS = frozenset(
    {"SELECT", "AFFIRM", "NEGATE", "THANK_YOU", "GOODBYE", "REQUEST", "REQUEST_ALTS", "NEGATE_INTENT"}
)
FORECAST_SERVICES = frozenset({"Weather_1"})  # whose results are what the traveller asks for
KINDS = ("intent", "reply", "inform", "forecast")
SOURCE = "SGD (CC BY-SA 4.0, Rastogi et al., AAAI 2020) travel dialogues, train split"


def turn_label(turn: Turn) -> tuple[str, list[str]] | None:
    """(kind, expected tools) of a user turn; None for an intent none of our tools serves."""
    acts = [(service, a) for service, a in turn.actions()]
    tools = set()
    for service, a in acts:
        if a["act"] == "INFORM_INTENT":
            m = METHODS.get((service, a["values"][0]))
            if m is None:
                return None
            tools.add(m.tool)
    if tools:
        return "intent", sorted(tools)
    if acts and all(a["act"] in REPLY_ACTS for _, a in acts):
        if any(a["act"] == "REQUEST" and service in FORECAST_SERVICES for service, a in acts):
            return "forecast", []
        return "reply", []
    return "inform", []


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def sgd_rows(
    split: str, kinds: tuple[str, ...] = ("intent", "reply"), data_dir: Path = DATA_DIR
) -> list[dict[str, Any]]:
    """The split's user turns of ``kinds`` as ``{"text", "expected_tools", "kind"}``, deduplicated, in
    file order."""
    first: dict[str, dict[str, Any]] = {}
    clash: set[str] = set()
    for d in load_dialogues(split, data_dir):
        for turn in d.user_turns():
            label = turn_label(turn)
            if label is None or label[0] not in kinds:
                continue
            key = _fold(turn.utterance)
            row = {"text": " ".join(turn.utterance.split()), "expected_tools": label[1], "kind": label[0]}
            seen = first.setdefault(key, row)
            if seen["expected_tools"] != row["expected_tools"]:
                clash.add(key)
    return [r for k, r in first.items() if k not in clash]


def sample(rows: list[dict[str, Any]], n: int, seed: int = 0) -> list[dict[str, Any]]:
    """A fixed random sample (the same every run), in file order."""
    if len(rows) <= n:
        return rows
    keep = sorted(random.Random(seed).sample(range(len(rows)), n))
    return [rows[i] for i in keep]


async def _shipped_router_figures(split: str) -> None:
    from connectors.places import LocationCatalogue
    from rag.routing.config import load_config
    from rag.routing.evaluation import format_report, report
    from rag.routing.router import Router
    from rag.tools.catalog import ToolCatalogue
    from scripts.routing_data import CachedEmbed

    config = load_config()
    # The labelled turns as fit_routing.py scores them, then the unlabelled kinds apart.
    parts = {"scored": sgd_rows(split), **{k: sgd_rows(split, (k,)) for k in ("inform", "forecast")}}
    got: dict[str, list[set[str]]] = {}
    async with CachedEmbed() as embed:
        router = await Router.create(
            config, LocationCatalogue.load(), ToolCatalogue.builtin(), embed, today=lambda: TODAY
        )
        for name, rows in parts.items():
            vectors = await embed.matrix([r["text"] for r in rows])
            got[name] = [
                (await router.route(r["text"], v.tolist(), today=TODAY)).intended
                for r, v in zip(rows, vectors, strict=True)
            ]
    scored = list(zip(parts["scored"], got["scored"], strict=True))
    for kind in ("intent", "reply"):
        pairs = [(set(r["expected_tools"]), g) for r, g in scored if r["kind"] == kind]
        print(f"\n== SGD {split}, {kind} turns\n{format_report(report(pairs, config.tools))}")
    pairs = [(set(r["expected_tools"]), g) for r, g in scored]
    print(f"\n== SGD {split}, intent and reply turns\n{format_report(report(pairs, config.tools))}")
    for kind in ("inform", "forecast"):
        fired = Counter(t for g in got[kind] for t in g or {"-"})
        n = len(got[kind])
        print(f"\n{kind} turns ({n}), share calling each tool (- for none): ", end="")
        print(", ".join(f"{t} {c / n:.3f}" for t, c in fired.most_common()))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--router", action="store_true", help="score the shipped router on a split")
    parser.add_argument("--split", default="dev", choices=("train", "dev"))
    args = parser.parse_args()
    if args.router:
        asyncio.run(_shipped_router_figures(args.split))
        return
    for split in ("train", "dev"):
        rows = sgd_rows(split, KINDS)
        counts = Counter((r["kind"], ",".join(r["expected_tools"]) or "none") for r in rows)
        print(split, len(rows), dict(sorted(counts.items())))


if __name__ == "__main__":
    main()
