"""What declaring a tool means: ``ToolSpec``, every fact about a tool in one value. Pure data.

A tool's declaration names its parameter model (validated against the place catalogue and the
traveller's date, the same for HTTP, the CLI and an LLM's function schema), its result model (whose
``kind`` literal keys stored results), how long a result stays current, the words a traveller uses for
its results, the words of a "what did you find" question about them, and the router's entry for it.
The description is the one text the LLM classifier, ``/v1/tools`` and the OpenAPI document show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
