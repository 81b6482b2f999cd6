"""What the plan is made of: what it knows of the tools (``ToolSpecs``), the calls it makes
(``PlannedCall``) and the plan for one message (``Plan``), with the requests it weighs. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rag.dialogue.forecast import Climate
from rag.dialogue.trip import ToolRequest, TripState
from rag.routing.config import ToolRoute
from rag.tools.catalog import ToolCatalogue


@dataclass(frozen=True, slots=True)
class ToolSpecs:
    """What the plan needs to know of the tools: their routes (required parameters, slots, as the
    routing configuration may override them) and their declarations (what each takes from the trip,
    how far ahead its results reach, its words)."""

    routes: Mapping[str, ToolRoute]
    declared: ToolCatalogue


@dataclass
class PlannedCall:
    name: str
    params: dict[str, Any]
    assumed: list[str]  # parameters taken from the conversation, not from this message
    confidence: float
    via: str  # the router's layer, "conversation" (completed from the trip) or "followup"

    def to_json(self) -> dict[str, Any]:
        """As /v1/route lists a tool (``assumed`` only when the conversation filled something)."""
        out = {
            "name": self.name,
            "params": self.params,
            "confidence": round(self.confidence, 4),
            "via": self.via,
        }
        if self.assumed:
            out["assumed"] = self.assumed
        return out


@dataclass
class Plan:
    trip: TripState  # the trip after this message; the chat stores it, /v1/route does not
    calls: list[PlannedCall] = field(default_factory=list)
    waiting: dict[str, list[str]] = field(default_factory=dict)  # tool -> parameters to ask for
    questions: list[str] = field(default_factory=list)
    followup: bool = False
    assumed_note: str | None = None
    # Sentences said before the answer ("The forecast for April 2027 becomes available around ..."),
    # in the traveller's language, and the guides' climate to search when a forecast cannot answer yet.
    notes: list[str] = field(default_factory=list)
    climate: Climate | None = None

    @property
    def clarify(self) -> str | None:
        return " ".join(self.questions) or None

    def remember(self, made: list[str]) -> TripState:
        """The trip with ``made`` (the calls that went out) as the calls a follow-up will change."""
        if not made:
            return self.trip
        last = [
            ToolRequest(name=c.name, params=c.params, turn=self.trip.turn or 0)
            for c in self.calls
            if c.name in made
        ]
        return self.trip.model_copy(update={"last_calls": last})


Request = tuple[str, dict[str, Any], list[str], float, str]  # name, params, assumed, confidence, via
