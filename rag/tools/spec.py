"""What declaring a tool means: ``ToolSpec``, every fact about a tool in one value. Pure data.

A tool's declaration names its parameter model (validated against the place catalogue and the
traveller's date, the same for HTTP, the CLI and an LLM's function schema), its result model (whose
``kind`` literal keys stored results), how long a result stays current, the words a traveller uses for
its results, the words of a "what did you find" question about them, and the router's entry for it.
The description is the one text the LLM classifier, ``/v1/tools`` and the OpenAPI document show.

It also says what the tool needs from a conversation: which slot fills each parameter (the routing
entry's ``params``), which parameters earlier turns may fill (``from_trip``), the words that name it in
a short follow-up (``nouns``), what its results are about (``about``), whether it is offered by name,
and how far ahead its results reach (``horizon_days``). ``check`` holds all of it against the parameter
model, so a typo fails when the catalogue is built, not in a conversation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from connectors.models import Result
from connectors.params import ToolParams


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    # What the tool does: the LLM classifier's function description, /v1/tools and the OpenAPI docs.
    description: str
    params: type[ToolParams]
    result: type[Result]
    # Seconds a stored result stays current (WAYFARER_LIVE__FRESHNESS overrides it per result kind; a
    # provider's terms may shorten it).
    freshness: int
    # The results as said to a traveller, per language ("flights", "vuelos"); English is required.
    labels: Mapping[str, str]
    # One result as named in a Sources line, per language ("flight offer").
    result_labels: Mapping[str, str]
    # A regular expression: the words of a "what did you find" question about these results.
    recall: str
    # The router's entry (rag/routing/config.py ToolRoute: command, keywords, examples, thresholds,
    # required parameters, extractor slots, questions for what is missing), without the description.
    routing: Mapping[str, Any]
    # How to ask for a missing parameter in other languages: language -> parameter -> question (the
    # routing entry's ``ask`` holds the English).
    asks: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # Parameters earlier turns of the conversation may fill when a message leaves them out ("and a
    # hotel there": the trip's place and dates). Each reads the trip's value of its routing slot.
    from_trip: frozenset[str] = frozenset()
    # Words that name the tool in a short follow-up ("and the weather there?"), per language.
    nouns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # What its results are about: a place ("hotels in Lisbon") or a route between two places (flights);
    # the answer's places and the search's focus follow it.
    about: Literal["place", "route"] = "place"
    # Named when the assistant says what it can look up ("I can look up flights, hotels, ...").
    offered: bool = False
    # Results reach only this many days ahead (a forecast): for later days no call is made; a note says
    # when they become available, and the guides' climate for that month answers instead.
    horizon_days: int | None = None
    # A booking search (something to buy: flights, rooms, fares): a plan or a guide question never
    # starts one.
    books: bool = False
    # The guide topics (rag.chat.vocabulary) its results answer about a place without a guide
    # ("what is there to see in Portland, Maine?": things to do there).
    topics: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]{1,63}", self.name):
            raise ValueError(f"tool name {self.name!r}: lowercase letters, digits and _")
        if "en" not in self.labels or "en" not in self.result_labels:
            raise ValueError(f"tool {self.name}: labels and result_labels need English")
        if "kind" not in self.result.model_fields or not isinstance(self.kind, str):
            raise ValueError(f"tool {self.name}: the result model needs a default kind")
        if self.freshness <= 0:
            raise ValueError(f"tool {self.name}: freshness must be positive")
        re.compile(self.recall)

    def check(self) -> None:
        """Hold the conversation declarations against the parameter model: every parameter named in the
        routing entry, ``required``, ``args``, ``ask`` and ``from_trip`` exists, and every parameter
        taken from the trip has a slot to read. Raises ValueError naming the tool and the parameter."""
        fields = set(self.params.model_fields)
        slots = dict(self.routing.get("params", {}))
        named = {
            "routing params": set(slots),
            "required": set(self.routing.get("required", [])),
            "args": set(self.routing.get("args", [])),
            "ask": set(self.routing.get("ask", {})),
            "from_trip": set(self.from_trip),
        }
        for lang, asks in self.asks.items():
            named[f"asks[{lang}]"] = set(asks)
        for where, params in named.items():
            unknown = params - fields
            if unknown:
                raise ValueError(
                    f"tool {self.name}: {where} names {sorted(unknown)}, which {self.params.__name__} "
                    f"does not have (its fields: {sorted(fields)})"
                )
        unslotted = set(self.from_trip) - set(slots)
        if unslotted:
            raise ValueError(
                f"tool {self.name}: from_trip {sorted(unslotted)} have no slot in routing params"
            )
        if self.horizon_days is not None and self.horizon_days <= 0:
            raise ValueError(f"tool {self.name}: horizon_days must be positive")
        for lang, words in self.nouns.items():
            if any(not w or w != w.lower() for w in words):
                raise ValueError(f"tool {self.name}: nouns[{lang}] are lowercase words")

    @property
    def kind(self) -> str:
        """The result kind stored results are keyed by ("flight_offer")."""
        return str(self.result.model_fields["kind"].default)

    def label(self, lang: str) -> str:
        return self.labels.get(lang, self.labels["en"])

    def ask(self, lang: str, param: str) -> str:
        """How to ask for ``param`` in ``lang``: the declared question, the English one, else its name."""
        asked = self.asks.get(lang, {}).get(param) or self.asks.get("en", {}).get(param)
        return asked or str(self.routing.get("ask", {}).get(param) or param.replace("_", " "))

    def result_label(self, lang: str) -> str:
        return self.result_labels.get(lang, self.result_labels["en"])
