"""What the assistant does with one message: one typed action, chosen by rag.dialogue.policy. Pure data.

- ``Search``: call tools (``calls``); other tools may wait for details, asked about in ``questions``;
- ``Ask``: call nothing yet: ask for what the searches lack (``waiting``: tool -> parameters);
- ``Guide``: answer from the guide of ``city`` on ``topics`` (a section of it);
- ``Plan``: a day-by-day plan of ``days`` days from the guide of ``city``;
- ``Compare``: the guides of several places side by side;
- ``Recall``: results already shown (``tool``'s latest search), the one ``pick`` asks for first;
- ``NoGuide``: say there is no guide for ``city`` and what the tools can do (``offer``: a search made
  instead, e.g. things to do there); the guide of a guided city ``near`` it may say something of it;
- ``General``: answer from the topic documents, about no one place;
- ``Reply``: thanks, goodbye, hello, or a "yes"/"no" with nothing asked, answered in kind.

Every action carries the ``notes`` said before its answer and the ``questions`` asked after it, and
``why``: one line saying which rule chose it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rag.dialogue.forecast import Climate
from rag.dialogue.phrasing import Pick, Social


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


@dataclass(frozen=True)
class Said:
    """What every action may say besides its answer."""

    questions: tuple[str, ...] = ()  # asked after the answer
    notes: tuple[str, ...] = ()  # said right after its lead
    assumed: str | None = None  # "I assumed Lisbon, ... from our conversation", said first
    why: str = ""


@dataclass(frozen=True)
class Search:
    calls: tuple[PlannedCall, ...]
    waiting: dict[str, list[str]] = field(default_factory=dict)
    followup: bool = False
    climate: Climate | None = None  # a forecast beyond its horizon: the guides' climate instead
    said: Said = Said()
    kind: Literal["search"] = "search"


@dataclass(frozen=True)
class Ask:
    waiting: dict[str, list[str]]
    followup: bool = False
    climate: Climate | None = None
    said: Said = Said()
    kind: Literal["ask"] = "ask"


@dataclass(frozen=True)
class Guide:
    city: str
    topics: tuple[str, ...] = ()
    climate: Climate | None = None
    said: Said = Said()
    kind: Literal["guide"] = "guide"


@dataclass(frozen=True)
class Plan:
    city: str
    days: int
    said: Said = Said()
    kind: Literal["plan"] = "plan"


@dataclass(frozen=True)
class Compare:
    places: tuple[str, ...]
    said: Said = Said()
    kind: Literal["compare"] = "compare"


@dataclass(frozen=True)
class Recall:
    tool: str | None  # whose results; None: any tool's
    pick: Pick | None
    shown: tuple[str, ...]  # the identities of the results shown by its latest search, in order
    params: dict[str, Any] = field(default_factory=dict)  # that search's parameters
    # The results are those about the places and days the message names ("the hotels you found in
    # Lisbon", "the flights for next Friday"), of any search, rather than the latest search's.
    named: bool = False
    said: Said = Said()
    kind: Literal["recall"] = "recall"


@dataclass(frozen=True)
class NoGuide:
    city: str
    offer: tuple[PlannedCall, ...] = ()
    near: str | None = None  # a guided city next to it, whose guide may say something of it
    said: Said = Said()
    kind: Literal["no_guide"] = "no_guide"


@dataclass(frozen=True)
class General:
    said: Said = Said()
    kind: Literal["general"] = "general"


@dataclass(frozen=True)
class Reply:
    social: Social | Literal["nothing_pending"]
    said: Said = Said()
    kind: Literal["reply"] = "reply"


Action = Search | Ask | Guide | Plan | Compare | Recall | NoGuide | General | Reply


def calls_of(action: Action) -> tuple[PlannedCall, ...]:
    """The tool calls an action makes."""
    if isinstance(action, Search):
        return action.calls
    if isinstance(action, NoGuide):
        return action.offer
    return ()


def waiting_of(action: Action) -> dict[str, list[str]]:
    """The searches an action leaves waiting for details, with what they lack."""
    return action.waiting if isinstance(action, Search | Ask) else {}
