"""What a chat answer sends, frame by frame, as typed models: what it is doing (``WsProgress``), its
pieces (``WsChunk``), the complete answer with its sources and tool calls (``ChatAnswer``), and a stop
(``WsCancelled``).

These are the models GET /openapi.json describes (rag.web.responses hands them on), and what the
handlers send: ``frame()`` is a model as JSON, one key for each field that says something (an answer
without an id, a chunk that is not a replay, an answer sent once leave those keys out). POST /v1/chat
answers with the complete frame; the WebSocket sends every frame (rag.chat.answers keeps them for
followers). Error frames are the error body of rag/errors.py (rag.web.responses WsError).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from connectors.models import (
    Activity,
    CheapestDate,
    FlightOffer,
    HotelOffer,
    Inspiration,
    Location,
    WeatherDay,
)

Frame = dict[str, Any]  # a frame as JSON, as it is sent


def _none(value: object) -> bool:
    return value is None


def _false(value: object) -> bool:
    return value is False


class Event(BaseModel):
    """A frame, typed."""

    def frame(self) -> Frame:
        """The frame as it is sent."""
        return self.model_dump(mode="json")


class ChatSource(BaseModel):
    """One cited item: its number is the [n] the answer's text and its Sources line use."""

    n: int = Field(ge=1, description="The [n] that cites it in the text")
    id: str
    kind: str = Field(description='"document", or the live result\'s kind ("hotel_offer", "weather", ...)')
    title: str
    section: str | None = Field(None, description="The guide's section the cited text comes from")
    source: str = Field(description='Where it comes from: the corpus ("seed", "upload", ...) or "live"')
    excerpt: str = Field("", description="The cited text")
    provider: str | None = Field(None, description="For live results: the provider that answered")
    fetched_at: str | None = None
    sandbox: bool = Field(False, description="Synthetic sandbox data, not a real fare or availability")
    indicative: bool = Field(False, description="An indicative (cached) price, not a bookable offer")
    attribution: str | None = Field(None, description="What the provider's terms ask answers to credit")


# The results of the built-in tools, as data: what a page draws as rows, cards or a chart.
TYPED_RESULTS = (FlightOffer, HotelOffer, Activity, Location, WeatherDay, Inspiration, CheapestDate)
ShownResult = Annotated[
    FlightOffer | HotelOffer | Activity | Location | WeatherDay | Inspiration | CheapestDate,
    Field(discriminator="kind"),
]


def _empty(value: object) -> bool:
    return value == []


# A tool call an answer made, or refused to make (``error``): the call POST /v1/tools/{name} answers
# with (connectors.tools ToolOutcome) summed up, its results counted here and cited in ``sources``.
# (A docstring would be its description in /openapi.json.)
class ChatToolCall(BaseModel):
    name: str
    params: dict[str, Any]
    provider: str | None
    sandbox: bool = Field(False, description="Whether the results are synthetic sandbox data")
    result_count: int = Field(description="How many results the call returned (the results are in sources)")
    from_index: bool
    ingested: int
    error: str | None = Field(None, description="The error code when the call failed", exclude_if=_none)
    results: list[ShownResult] = Field(
        default_factory=list,
        description="The results the answer shows, as data (the same ones its text says and its sources "
        "cite): a flight offer's itineraries, segments, times, cabin, price and currency; a hotel offer's "
        "name, dates, room, total price and currency; a forecast's days. None when the call failed.",
        exclude_if=_empty,
    )
    result_ids: list[str] = Field(
        default_factory=list,
        description="Each of `results`' ids, in the same order: the `id` of the source that cites it, so a "
        "page can make the row it draws the target of that source's [n] instead of listing it again.",
        exclude_if=_empty,
    )
    assumed: list[str] = Field(
        default_factory=list,
        description="The parameters taken from the conversation (trip state, last calls), not the message",
    )


class ChatAnswer(Event):
    """The complete answer (also the last WebSocket frame of an answer). Made once, whole: its frame,
    which the history and the reply both need, is made once too (and must not be changed)."""

    model_config = ConfigDict(frozen=True)
    _frame: Frame | None = PrivateAttr(None)

    type: Literal["response"]
    id: str | None = Field(
        None,
        description="The answer's id (the message frame's, or one the server made)",
        exclude_if=_none,
    )
    text: str
    complete: Literal[True]
    sources: list[ChatSource]
    tool_calls: list[ChatToolCall]
    redelivered: bool = Field(
        False,
        description="Sent again for a resume, from the conversation's history",
        exclude_if=_false,
    )

    def frame(self) -> Frame:
        if self._frame is None:
            self._frame = super().frame()
        return self._frame


class WsChunk(Event):
    """A piece of an answer, streamed before the complete answer (``replay``: all of it so far)."""

    type: Literal["response"]
    id: str | None = Field(None, exclude_if=_none)
    text: str
    chunk: Literal[True]
    replay: bool = Field(False, exclude_if=_false)


class WsCancelled(Event):
    """The answer stopped at a cancel; ``text`` is what had been sent."""

    type: Literal["cancelled"]
    id: str
    text: str


class WsProgress(Event):
    """What the answer is doing before it writes: a tool call going out ("Searching hotels in
    Lisbon…"), one frame per call, in the traveller's language."""

    type: Literal["progress"]
    id: str | None = Field(None, exclude_if=_none)
    tool: str = Field(description="The tool being called")
    text: str = Field(description="What it is doing, said for the traveller")


ChatEvent = (
    WsProgress | WsChunk | ChatAnswer
)  # what the chat yields for one message: progress, pieces, the answer


async def frames(events: AsyncIterator[ChatEvent]) -> AsyncIterator[Frame]:
    """The events as the frames that carry them."""
    async for event in events:
        yield event.frame()
