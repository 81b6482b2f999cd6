"""The router's rule layers as one pure function (``decide``): negative rules veto, then a tool's
keywords, the tool classifier's calibrated probabilities (or, for a tool it was not fitted on, the
examples' scores) and the message's slots decide which tools fire, and with which layer."""

from __future__ import annotations

import re

from rag.routing.config import RoutingConfig
from rag.routing.decision import Analysis
from rag.routing.semantic import NONE
from rag.routing.slots import build_params, slot_value

# A keyword and one of the tool's details fire it when the classifier gives it at least this much and
# this many times what it gives none.
KEYWORD_LEANING = 0.5
LEANING_RATIO = 5.0


def decide(a: Analysis, config: RoutingConfig, margin: float = -1.0) -> dict[str, tuple[float, str]]:
    """Tools to fire, with confidence and the layer that fired them, from an analysis. Pure."""
    chosen: dict[str, tuple[float, str]] = {}
    if a.negative:
        return chosen
    none = a.scores.get(NONE, 0.0)
    c = a.classification
    # The classifier is sure the message asks for no tool ("add this song to my road trip playlist"):
    # a keyword with complete parameters or an explicit ask is not enough then.
    vetoed = c is not None and c.vetoed
    for name, route in config.tools.items():
        if name in a.tool_negative or any(slot_value(a.slots, s) is not None for s in route.absent):
            continue
        score = a.scores.get(name, 0.0)
        if any(
            re.search(p, a.text, re.IGNORECASE) and all(slot_value(a.slots, s) is not None for s in slots)
            for p, slots in route.fires.items()
        ):
            chosen[name] = (score, "keyword")  # asked for in so many words
            continue
        keyword = name in a.keyword_hits
        known = c is not None and c.knows(name)
        if c is not None and known:
            # The classifier's calibrated probability replaces the examples' score for its tools.
            score = c.probabilities[name]
            if score >= c.thresholds.fire[name]:
                chosen[name] = (score, "semantic")
                continue
            if keyword and score >= c.thresholds.keyword[name]:
                chosen[name] = (score, "keyword")
                continue
        else:
            if score - none < margin:
                continue
            if score >= route.threshold:
                chosen[name] = (score, "semantic")
                continue
            if keyword and score >= route.keyword_threshold:
                chosen[name] = (score, "keyword")
                continue
        if not keyword or vetoed:
            continue
        params = build_params(route, a.slots, {})
        if route.required and all(params.get(p) is not None for p in route.required):
            chosen[name] = (score, "keyword")  # a complete request: the keyword and everything it needs
        elif a.request and not known and score >= none - 0.1:
            # "find me a hotel in Nairobi": asked for by name.
            chosen[name] = (score, "keyword")
        elif a.asked and known and c is not None and score >= c.probabilities.get(NONE, 1.0):
            # "get me a plane ticket to austin": the keyword, an ask, and the classifier leaning
            # more to this tool than to none.
            chosen[name] = (score, "keyword")
        elif (
            known
            and c is not None
            and score >= KEYWORD_LEANING
            and score >= LEANING_RATIO * c.probabilities.get(NONE, 1.0)
            and any(params.get(p) is not None for p in route.required)
        ):
            # "hotel en Madrid el 31 de febrero": its keyword, one of its details, and the classifier
            # leaning far more to it than to none, though below its keyword threshold.
            chosen[name] = (score, "keyword")
    if not chosen and not vetoed:
        # "lon par 5 may": nothing else claimed the message, and its slots alone say what it is.
        for name, route in config.tools.items():
            if (
                route.slots_suffice
                and not a.retrieval  # "how do I get from Narita to Shinjuku" is a question
                and name not in a.tool_negative
                and all(slot_value(a.slots, s) is not None for s in route.slots_suffice)
            ):
                chosen[name] = (a.scores.get(name, 0.0), "keyword")
    for name in list(chosen):
        for general in config.tools[name].suppresses:
            chosen.pop(general, None)
    return chosen
