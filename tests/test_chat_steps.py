"""The chat's steps one at a time (rag.chat.steps), on the real app's parts: its router and plan, its
index seeded with real guides, the sandbox tools over real HTTP, the real composer; and the typed
frames they end in (rag.chat.events), as the handlers send them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from pydantic import ValidationError

from rag.chat.events import ChatAnswer, ChatToolCall, WsCancelled, WsChunk
from rag.chat.outcomes import RESULTS_SHOWN, ToolResults, tool_results
from rag.chat.service import ChatService
from rag.chat.steps import (
    Turn,
    call_tools,
    compose_answer,
    model_sources,
    read_message,
    route_json,
)
from rag.errors import ProviderTimeoutError, ToolNotStartedError
from rag.live.service import ToolOutcome
from rag.web import keys

pytestmark = pytest.mark.asyncio(loop_scope="module")


def ahead(days: int) -> dt.date:
    return dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)


def chat_of(client: TestClient) -> ChatService:
    return client.app[keys.CHAT]


async def read(client: TestClient, user: str, text: str) -> tuple[Turn, list[float]]:
    chat = chat_of(client)
    vector = await client.app[keys.RETRIEVER].embed(text)
    return await chat.read_turn(user, text, chat.today(), vector), vector


async def test_a_message_is_read_as_its_words_one_space_apart() -> None:
    assert read_message("  flights\n from  London\tto Lisbon ") == "flights from London to Lisbon"


async def test_a_turn_is_routed_and_planned_and_previewed_as_route_answers(shared_client: TestClient) -> None:
    text = f"flights from London to Lisbon on {ahead(40).isoformat()}"
    turn, _ = await read(shared_client, "steps-route", text)
    [call] = turn.calls
    assert call.name == "flight_search" and call.params["destination"] == "LIS"
    assert turn.action.kind == "search" and not turn.compare and turn.preface is None
    resp = await shared_client.post("/v1/route", json={"user_id": "steps-route", "message": text})
    assert await resp.json() == route_json(turn)  # the preview and the chat read a turn alike


async def test_the_search_reads_the_asked_place_s_guide_whole(shared_client: TestClient) -> None:
    turn, vector = await read(shared_client, "steps-search", "When is the best time to visit Tokyo?")
    found = await chat_of(shared_client).find(turn, vector, "steps-search")
    assert found.recalled is None  # not a "what did you find?"
    guide = await shared_client.app[keys.RETRIEVER].document("guides/tokyo")
    assert {h.id for h in guide} <= {h.id for h in found.hits}  # every chunk of it, after the hits


async def test_the_composer_answers_from_what_was_found_and_numbers_its_sources(
    shared_client: TestClient,
) -> None:
    turn, vector = await read(shared_client, "steps-compose", "What should I pack for a humid tropical trip?")
    found = await chat_of(shared_client).find(turn, vector, "steps-compose")
    draft = compose_answer(turn, found, ToolResults([], [], [], []), shared_client.app[keys.CATALOGUE])
    first = draft.sources[0]
    assert first["n"] == 1 and first["id"] == "topics/packing-by-climate"
    assert "[1]" in draft.answer.text and "Sources: [1] " in draft.answer.text
    assert "".join([p async for p in draft.pieces()]) == draft.answer.text  # streamed as composed
    # What a model writing the answer instead may cite: the same passages, numbered as its prompt.
    sources, unresolved, tail = model_sources(
        "Pack light [1], and a jacket [42].", turn, draft, shared_client.app[keys.CATALOGUE]
    )
    assert [s["n"] for s in sources] == [1] and unresolved == 1
    assert tail.startswith("\nSources: [1] ")


async def test_calls_the_answer_s_budget_left_no_time_for_are_not_started(shared_client: TestClient) -> None:
    tools, today = shared_client.app[keys.TOOL_SERVICE], chat_of(shared_client).today()
    calls: dict[str, Any] = {"weather_forecast": {"city": "Lisbon"}}
    made = tools.provider_calls
    [late] = await call_tools(tools, calls, "steps-tools", today, budget=0.0, deadline=5)
    assert isinstance(late, ToolNotStartedError) and not isinstance(late, ProviderTimeoutError)
    assert (late.code, late.status) == ("tool_not_started", 504)
    assert late.message == "weather_forecast was not called: the answer's 5 s ran out before its turn came"
    assert tools.provider_calls == made  # the provider was never asked
    [done] = await call_tools(tools, calls, "steps-tools", today, budget=None)
    assert isinstance(done, ToolOutcome) and done.call.results


async def test_a_tool_call_is_one_shape_whole_or_summed_up(shared_client: TestClient) -> None:
    text = f"flights from London to Lisbon on {ahead(40).isoformat()}"
    turn, _ = await read(shared_client, "steps-shape", text)
    calls = {c.name: c.params for c in turn.calls}
    outcomes = await call_tools(shared_client.app[keys.TOOL_SERVICE], calls, "steps-shape", turn.today, None)
    [outcome] = outcomes
    assert isinstance(outcome, ToolOutcome)
    whole = outcome.to_json()  # what POST /v1/tools/{name} answers
    assert whole["tool"] == "flight_search" and whole["notice"] and "fetched_at" not in whole
    [summed] = tool_results(turn.calls, outcomes).tool_calls  # what a chat answer lists
    dumped = summed.model_dump(mode="json")
    shown = dumped.pop("results")  # the offers the answer shows, as data: the first of the call's
    assert 0 < len(shown) == min(RESULTS_SHOWN, len(whole["results"]))
    assert [r["price"] for r in shown] == [w["data"]["price"] for w in whole["results"][: len(shown)]]
    assert all(r["kind"] == "flight_offer" and r["itineraries"] for r in shown)
    # Beside each, the id its source carries (whole["results"][i]["id"] is the result's identity).
    ids = dumped.pop("result_ids")
    assert ids == [w["id"] for w in whole["results"][: len(shown)]] and len(set(ids)) == len(ids)
    assert dumped == {
        "name": "flight_search",
        "params": whole["params"],
        "provider": whole["provider"],
        "sandbox": True,
        "result_count": len(whole["results"]),
        "from_index": False,
        "ingested": whole["ingesting"],
        "assumed": [],
    }


async def test_frames_carry_only_what_they_say() -> None:
    assert WsChunk(type="response", text="Lis", chunk=True).frame() == {
        "type": "response",
        "text": "Lis",
        "chunk": True,
    }
    replay = WsChunk(type="response", id="a1", text="Lisbon", chunk=True, replay=True)
    assert replay.frame() == {"type": "response", "id": "a1", "text": "Lisbon", "chunk": True, "replay": True}
    assert WsCancelled(type="cancelled", id="a1", text="").frame() == {
        "type": "cancelled",
        "id": "a1",
        "text": "",
    }
    refused = ChatToolCall(
        name="hotel_search",
        params={"city": "Atlantis"},
        provider=None,
        result_count=0,
        from_index=False,
        ingested=0,
        error="unknown_location",
    )
    answer = ChatAnswer(
        type="response",
        text="Where is Atlantis?",
        complete=True,
        sources=[{"n": 1, "id": "guides/lisbon", "kind": "document", "title": "Lisbon", "source": "seed"}],
        tool_calls=[refused],
    )
    frame = answer.frame()
    assert "id" not in frame and "redelivered" not in frame  # none yet, and sent once
    assert (
        frame["tool_calls"][0]["error"] == "unknown_location" and frame["tool_calls"][0]["sandbox"] is False
    )
    assert frame["sources"][0]["attribution"] is None and frame["sources"][0]["excerpt"] == ""
    made = refused.model_copy(update={"error": None, "provider": "liteapi", "result_count": 3})
    assert "error" not in made.model_dump(mode="json")  # a call that went out has no error key
    again = ChatAnswer.model_validate({**frame, "id": "a1", "redelivered": True}).frame()
    assert again == {**frame, "id": "a1", "redelivered": True}
    # The history and the reply share one frame, made once: the answer it stands for cannot change.
    assert answer.frame() is frame
    with pytest.raises(ValidationError):
        answer.text = "Somewhere else"  # type: ignore[misc]
