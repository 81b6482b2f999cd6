"""Stop, however soon or late it is pressed, and one user's messages at once, over real WebSockets.

The real app (one for the module, each test its own user) answers through a stand-in model: an
OpenAI-compatible server that writes an answer's first word, then waits at a gate the test opens, so
"mid-answer" and "all questions in before any answer" are states the test waits for, not timings.
Every wait is on a frame or on the history; ``WAIT`` only turns a hang into a failure.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from rag.web import keys
from tests.conftest import env_settings, serve
from tests.llm_stub import completion, delta_event

pytestmark = pytest.mark.asyncio(loop_scope="module")
WAIT = 30.0  # a hang guard, not a timing assertion
WORDS = ["Pack", "light", "layers", "and", "an", "umbrella."]
ANSWER = " ".join(WORDS)


@dataclass
class Pen:
    """The stand-in model's state: streams wait after their first word until ``gate`` is set."""

    gate: asyncio.Event = field(default_factory=asyncio.Event)
    streams: int = 0


PEN = web.AppKey("pen", Pen)


async def _completions(request: web.Request) -> web.StreamResponse:
    pen = request.app[PEN]
    body = await request.json()
    if not body.get("stream"):  # the router asking which tools: none
        return web.json_response(completion({"role": "assistant", "content": None, "tool_calls": []}))
    pen.streams += 1
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    for i, word in enumerate(WORDS):
        if i == 1:
            await pen.gate.wait()
        await resp.write(delta_event((" " if i else "") + word))
    await resp.write(b"data: [DONE]\n\n")
    return resp


@pytest.fixture(scope="module")
def pen() -> Pen:
    return Pen()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(pen: Pen, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    model = web.Application()
    model[PEN] = pen
    model.router.add_post("/v1/chat/completions", _completions)
    async with TestServer(model) as server:
        settings = env_settings(
            tmp_path_factory.mktemp("ws-cancel"),
            WAYFARER_INDEX__SEED_ON_START="false",
            WAYFARER_LLM__BASE_URL=str(server.make_url("/v1")),
            WAYFARER_LLM__MODEL="stub",
            WAYFARER_LLM__TIMEOUT_SECONDS=str(2 * WAIT),
        )
        async with serve(settings) as app_client:
            yield app_client


@pytest.fixture(autouse=True)
def open_gate(pen: Pen) -> Iterator[None]:
    """Each test starts with answers flowing, and leaves no stream waiting whatever it did."""
    pen.gate.set()
    yield
    pen.gate.set()


def new_user(what: str) -> str:
    return f"{what}-{uuid.uuid4().hex[:8]}"


async def frame(ws: Any) -> dict[str, Any]:
    return dict(await asyncio.wait_for(ws.receive_json(), WAIT))


def ends(f: dict[str, Any]) -> bool:
    return f["type"] in ("cancelled", "error") or bool(f.get("complete"))


async def until_end(ws: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Frames up to the first that ends an answer: (it, those before)."""
    seen = []
    while not ends(f := await frame(ws)):
        seen.append(f)
    return f, seen


async def nothing_more(ws: Any) -> None:
    """No frame is left after the one that ended the answer: a probe's reply is the very next frame."""
    await ws.send_json({"type": "cancel"})
    probe = await frame(ws)
    assert probe["type"] == "error" and probe["error"]["code"] == "nothing_to_cancel", probe


async def history(client: Any, user: str) -> list[dict[str, Any]]:
    resp = await client.get(f"/v1/sessions/{user}?limit=50")
    assert resp.status == 200
    return list((await resp.json())["history"])


async def questions_saved(client: Any, user: str, count: int) -> None:
    """Wait until ``count`` of the user's questions are in the history."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while sum(t["role"] == "user" for t in await history(client, user)) < count:
        assert asyncio.get_running_loop().time() < deadline, f"{user}'s {count} questions were never saved"
        await asyncio.sleep(0.02)


def shape(turns: list[dict[str, Any]]) -> list[tuple[str, str | None, bool]]:
    return [(t["role"], t.get("id"), bool(t.get("cancelled"))) for t in turns]


@pytest.mark.parametrize("with_id", [True, False], ids=["cancel-with-id", "cancel-without-id"])
async def test_a_stop_pressed_at_once_ends_the_answer_and_saves_the_turn(client, with_id: bool) -> None:  # type: ignore[no-untyped-def]
    user = new_user("hasty")
    async with client.ws_connect(f"/v1/ws?user_id={user}") as ws:
        await ws.send_json({"type": "message", "text": "What should I pack for Lisbon?", "id": "s1"})
        await ws.send_json({"type": "cancel", "id": "s1"} if with_id else {"type": "cancel"})
        end, before = await until_end(ws)
        assert end["type"] == "cancelled" and end["id"] == "s1", end
        assert end["text"] == "".join(f["text"] for f in before if f.get("chunk"))
        await nothing_more(ws)
        # the connection is free again: the next message is answered
        await ws.send_json({"type": "message", "text": "And for Tokyo?", "id": "s2"})
        done, _ = await until_end(ws)
        assert done.get("complete") and done["id"] == "s2" and done["text"] == ANSWER, done
    turns = await history(client, user)
    assert shape(turns) == [
        ("user", "s1", False),
        ("assistant", "s1", True),
        ("user", "s2", False),
        ("assistant", "s2", False),
    ]
    assert turns[0]["text"] == "What should I pack for Lisbon?" and turns[1]["text"] == end["text"]


@pytest.mark.parametrize("with_id", [True, False], ids=["cancel-with-id", "cancel-without-id"])
async def test_a_stop_mid_answer_keeps_what_was_written(client, pen: Pen, with_id: bool) -> None:  # type: ignore[no-untyped-def]
    user = new_user("midway")
    pen.gate.clear()
    async with client.ws_connect(f"/v1/ws?user_id={user}") as ws:
        await ws.send_json({"type": "message", "text": "What should I pack for Lisbon?", "id": "m1"})
        first = await frame(ws)  # the model has written its first word and waits
        assert first.get("chunk") and first["text"] == WORDS[0], first
        await ws.send_json({"type": "cancel", "id": "m1"} if with_id else {"type": "cancel"})
        end, before = await until_end(ws)
        assert before == [] and end == {"type": "cancelled", "id": "m1", "text": WORDS[0]}
        await nothing_more(ws)
    turns = await history(client, user)
    assert shape(turns) == [("user", "m1", False), ("assistant", "m1", True)]
    assert turns[1]["text"] == WORDS[0]


async def test_a_stop_after_the_answer_changes_nothing_and_says_so(client) -> None:  # type: ignore[no-untyped-def]
    user = new_user("late")
    async with client.ws_connect(f"/v1/ws?user_id={user}") as ws:
        await ws.send_json({"type": "message", "text": "What should I pack for Lisbon?", "id": "d1"})
        end, _ = await until_end(ws)
        assert end.get("complete") and end["text"] == ANSWER, end
        for cancel, code in [
            ({"type": "cancel", "id": "d1"}, "nothing_to_cancel"),  # finished: its complete frame said so
            ({"type": "cancel"}, "nothing_to_cancel"),
            ({"type": "cancel", "id": "never-sent"}, "unknown_answer"),
        ]:
            await ws.send_json(cancel)
            reply = await frame(ws)
            assert reply["type"] == "error" and reply["error"]["code"] == code, (cancel, reply)
            assert "id" not in reply  # a reply to the cancel, not a second end for the answer
    # from a new connection (a reload) the same answer is as finished
    async with client.ws_connect(f"/v1/ws?user_id={user}") as ws:
        await ws.send_json({"type": "cancel", "id": "d1"})
        reply = await frame(ws)
        assert reply["type"] == "error" and reply["error"]["code"] == "nothing_to_cancel", reply
    turns = await history(client, user)
    assert shape(turns) == [("user", "d1", False), ("assistant", "d1", False)]
    assert turns[1]["text"] == ANSWER


async def test_a_stop_from_another_tab_ends_the_answer_on_both(client, pen: Pen) -> None:  # type: ignore[no-untyped-def]
    user = new_user("tabs")
    pen.gate.clear()
    async with (
        client.ws_connect(f"/v1/ws?user_id={user}") as asking,
        client.ws_connect(f"/v1/ws?user_id={user}") as stopping,
    ):
        await asking.send_json({"type": "message", "text": "What should I pack for Lisbon?", "id": "t1"})
        assert (await frame(asking))["text"] == WORDS[0]
        await stopping.send_json({"type": "cancel", "id": "t1"})
        for ws in (asking, stopping):
            end, before = await until_end(ws)
            assert end == {"type": "cancelled", "id": "t1", "text": WORDS[0]}, end
            assert all(f.get("chunk") for f in before)
            await nothing_more(ws)
    assert shape(await history(client, user)) == [("user", "t1", False), ("assistant", "t1", True)]


async def test_one_users_messages_at_once_are_stored_each_question_then_its_answer(client, pen: Pen) -> None:  # type: ignore[no-untyped-def]
    user = new_user("burst")
    pen.gate.clear()  # every answer waits after its first word: all the questions are in first
    async with (
        client.ws_connect(f"/v1/ws?user_id={user}") as a,
        client.ws_connect(f"/v1/ws?user_id={user}") as b,
        client.ws_connect(f"/v1/ws?user_id={user}") as c,
    ):
        tabs = [a, b, c]
        for i, ws in enumerate(tabs):
            await ws.send_json(
                {"type": "message", "text": f"What should I pack, question {i}?", "id": f"q{i}"}
            )
        posts = [
            asyncio.create_task(
                client.post(
                    "/v1/chat", json={"user_id": user, "message": f"Packing, question {i}?", "id": f"q{i}"}
                )
            )
            for i in (3, 4)
        ]
        for ws in tabs:
            assert (await frame(ws)).get("chunk")
        await questions_saved(client, user, 5)
        pen.gate.set()
        answers = {}
        for ws in tabs:
            end, _ = await until_end(ws)
            assert end.get("complete"), end
            answers[end["id"]] = end["text"]
        for resp in await asyncio.wait_for(asyncio.gather(*posts), WAIT):
            assert resp.status == 200
            end = await resp.json()
            answers[end["id"]] = end["text"]
    turns = await history(client, user)
    assert len(turns) == 10
    for question, answer in zip(turns[::2], turns[1::2], strict=True):
        assert (question["role"], answer["role"]) == ("user", "assistant"), shape(turns)
        assert question["id"] == answer["id"] and answer["text"] == answers[answer["id"]], shape(turns)
        assert answer["seq"] > question["seq"]
    assert sorted(t["id"] for t in turns[::2]) == [f"q{i}" for i in range(5)]


async def test_a_question_keeps_its_answers_place_and_no_reader_sees_the_mark(client) -> None:  # type: ignore[no-untyped-def]
    user = new_user("kept")
    sessions = client.app[keys.CHAT].sessions
    first = await sessions.ask(user, "one", id="k1")
    second = await sessions.ask(user, "two", id="k2")
    await sessions.append(user, "assistant", "a note")  # any other turn goes after the kept places
    pending = await history(client, user)
    assert [(t["text"], t["seq"]) for t in pending] == [("one", 0), ("two", 2), ("a note", 4)]
    await sessions.answer(user, second, "answer two", id="k2")
    await sessions.answer(user, first, "answer one", id="k1")
    turns = await history(client, user)
    assert [(t["text"], t["seq"]) for t in turns] == [
        ("one", 0),
        ("answer one", 1),
        ("two", 2),
        ("answer two", 3),
        ("a note", 4),
    ]
    assert not any("answer_seq" in t for t in [*pending, *turns, *await sessions.history(user)])
    for part in ("history", "recent"):
        assert "answer_seq" not in (await client.app[keys.KV].get(f"session:{user}:{part}") or "")
    # an answer whose place is gone (the history was forgotten meanwhile) is simply the next turn
    late = await sessions.ask(user, "three")
    await sessions.forget(user)
    await sessions.answer(user, late, "answer three")
    assert [(t["text"], t["seq"]) for t in await history(client, user)] == [("answer three", 0)]
