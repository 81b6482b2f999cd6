"""What the router decides and observes: the tools chosen (``ToolChoice``), the decision for one
message (``RouteDecision``), what its layers observed (``Analysis``), and the LLM classifier it may
ask (``IntentClassifier``). Pure."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Protocol

from rag.routing.classifier import Classification
from rag.routing.extracted import Slots


@dataclass(frozen=True, slots=True)
class ToolChoice:
    name: str
    params: dict[str, Any]
    confidence: float
    via: str  # command, keyword, semantic or llm


@dataclass
class RouteDecision:
    use_rag: bool
    tools: list[ToolChoice] = field(default_factory=list)
    missing: dict[str, list[str]] = field(default_factory=dict)
    clarify: str | None = None
    slots: Slots | None = None
    # Parameters found so far for the tools in ``missing`` (a conversation's trip state may complete them).
    partial: dict[str, dict[str, Any]] = field(default_factory=dict)
    unknown_places: list[str] = field(default_factory=list)  # place-like names nothing matched
    lang: str = "en"  # the message's language, for the questions asked back
    # How each tool in ``tools`` and ``missing`` was chosen (command, keyword, semantic, llm), and the
    # tools whose own words the message holds: a tool named outright, not only scored.
    vias: dict[str, str] = field(default_factory=dict)
    keywords: set[str] = field(default_factory=set)

    @property
    def intended(self) -> set[str]:
        """Every tool the message asks for: those to call and those waiting for parameters."""
        return {t.name for t in self.tools} | set(self.missing)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "use_rag": self.use_rag,
            "tools": [
                {"name": t.name, "params": t.params, "confidence": round(t.confidence, 4), "via": t.via}
                for t in self.tools
            ],
            "missing": self.missing,
        }
        if self.clarify:
            out["clarify"] = self.clarify
        if self.unknown_places:
            out["unknown_places"] = self.unknown_places
        return out


@dataclass
class Analysis:
    """Everything the layers observed about a message; ``decide`` turns it into tools (pure)."""

    text: str
    slots: Slots
    commands: list[tuple[str, str]]  # (command, rest of its segment)
    keyword_hits: set[str]
    negative: bool
    tool_negative: set[str]
    retrieval: bool
    scores: dict[str, float]
    # An explicit ask ("find me", "book", "busca", "je cherche") or a message of a few words: with a
    # tool's keyword, that is the tool asked for, even when its examples score low.
    request: bool = False
    asked: bool = False  # the explicit ask alone, not only a short message
    lang: str = "en"  # the message's language (its dates are read in it)
    # The tool classifier's probabilities and thresholds (None when no classifier is loaded).
    classification: Classification | None = None


class IntentClassifier(Protocol):
    async def classify(
        self, message: str, today: dt.date | None = None, context: str | None = None
    ) -> dict[str, dict[str, Any]] | None:
        """Tool name -> arguments, or None when the classifier could not answer (fall back).
        ``context``: the conversation's state, as rag.dialogue describes it."""
        ...
