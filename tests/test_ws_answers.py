"""Answers over the WebSocket as a browser uses them: stop, reconnect and resume, one numbering of
citations, and the history a reload shows. The real app, the sandbox over HTTP, real WebSockets.

One app for the module: each test talks as its own user, and the sandbox's latency is reset after each.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from connectors.sandbox.app import FAULTS
from rag.web import keys

pytestmark = pytest.mark.asyncio(loop_scope="module")
WAIT = 90.0  # a hang guard, not a timing assertion


@pytest.fixture(scope="module")
def client(shared_client: TestClient) -> TestClient:
    return shared_client


@pytest.fixture(autouse=True)
def prompt_tools(client: TestClient) -> Iterator[None]:
    """The sandbox answers at once again after a test that slowed it down."""
    yield
    slow_tools(client, 0)


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


async def frame(ws: Any) -> dict[str, Any]:
    return dict(await asyncio.wait_for(ws.receive_json(), WAIT))


async def until(ws: Any, *types: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Frames up to the first that ends an answer (complete, cancelled or error): (it, those before)."""
    seen = []
    while True:
        f = await frame(ws)
        if f["type"] in types or f.get("complete"):
            return f, seen
        seen.append(f)


async def history(client: Any, user: str) -> list[dict[str, Any]]:
    resp = await client.get(f"/v1/sessions/{user}")
    assert resp.status == 200
    return list((await resp.json())["history"])


async def started(client: Any, user: str) -> None:
    """Wait until the message's user turn is saved: its answer is being written from then on."""
    for _ in range(int(WAIT / 0.05)):
        if await history(client, user):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{user}'s message was never saved")


def slow_tools(client: Any, ms: int) -> None:
    client.app[keys.TOOLS].sandbox_runner.app[FAULTS].latency_ms = ms


async def test_stop_cancels_on_the_server_and_the_history_stays_consistent(client) -> None:  # type: ignore[no-untyped-def]
    slow_tools(client, 60_000)  # the flights call would hang for a minute: only a cancel ends it soon
    async with client.ws_connect("/v1/ws?user_id=stopper") as ws:
        await ws.send_json(
            {"type": "message", "text": f"flights from London to Tokyo on {ahead(30)}", "id": "a1"}
        )
        await started(client, "stopper")
        for _ in range(3):  # many cancels are one cancel
            await ws.send_json({"type": "cancel", "id": "a1"})
        end, _ = await until(ws, "cancelled", "error")
        assert end == {"type": "cancelled", "id": "a1", "text": ""}
        await ws.send_json({"type": "cancel"})  # nothing streams now
        late = await frame(ws)
        assert late["type"] == "error" and late["error"]["code"] in ("nothing_to_cancel",), late
        # still usable, and its answers are its own again
        slow_tools(client, 0)
        await ws.send_json(
            {"type": "message", "text": "What should I pack for a humid tropical trip?", "id": "a2"}
        )
        done, _ = await until(ws, "error")
        assert done.get("complete") and done["id"] == "a2"
    turns = await history(client, "stopper")
    assert [(t["role"], t.get("id"), t.get("cancelled", False)) for t in turns] == [
        ("user", "a1", False),
        ("assistant", "a1", True),
        ("user", "a2", False),
        ("assistant", "a2", False),
    ]


async def test_a_reload_while_a_tool_runs_is_told_what_the_answer_is_doing(client) -> None:  # type: ignore[no-untyped-def]
    slow_tools(client, 60_000)  # the hotel call hangs: the answer is still at its progress frame
    text = f"hotels in Lisbon from {ahead(26)} for 2 nights"
    async with client.ws_connect("/v1/ws?user_id=reloader") as ws:
        await ws.send_json({"type": "message", "text": text, "id": "p1"})
        first = await frame(ws)
    assert first == {
        "type": "progress",
        "id": "p1",
        "tool": "hotel_search",
        "text": "Searching hotels in Lisbon…",
    }
    async with client.ws_connect("/v1/ws?user_id=reloader") as ws:  # the page reloaded
        await ws.send_json({"type": "resume", "id": "p1"})
        assert await frame(ws) == first  # not a blank bubble: what it is doing
        await ws.send_json({"type": "cancel", "id": "p1"})
        end, _ = await until(ws, "cancelled", "error")
        assert end == {"type": "cancelled", "id": "p1", "text": ""}
    slow_tools(client, 0)


async def test_a_dropped_connection_does_not_lose_the_answer_and_resume_delivers_it(client) -> None:  # type: ignore[no-untyped-def]
    slow_tools(client, 1500)
    text = f"hotels in Lisbon from {ahead(25)} for 2 nights"
    async with client.ws_connect("/v1/ws?user_id=roamer") as ws:
        await ws.send_json({"type": "message", "text": text, "id": "r1"})
        await started(client, "roamer")
    # gone mid-answer; a new connection follows it to its end
    async with client.ws_connect("/v1/ws?user_id=roamer") as ws:
        await ws.send_json({"type": "resume", "id": "r1"})
        end, before = await until(ws, "error", "cancelled")
        assert end.get("complete") and end["id"] == "r1", end
        pieces = "".join(f["text"] for f in before if f.get("chunk"))
        assert end.get("redelivered") or pieces == end["text"]
        # once finished, a resume re-delivers the same complete answer
        await ws.send_json({"type": "resume", "id": "r1"})
        again = await frame(ws)
        assert again["complete"] and again["text"] == end["text"] and again["sources"] == end["sources"]
        await ws.send_json({"type": "resume", "id": "never-asked"})
        unknown = await frame(ws)
        assert unknown["type"] == "error" and unknown["error"]["code"] == "unknown_answer"
    saved = [t for t in await history(client, "roamer") if t["role"] == "assistant"]
    assert len(saved) == 1 and saved[0]["text"] == end["text"] and saved[0]["sources"] == end["sources"]


async def test_every_citation_has_one_number_in_text_sources_line_and_frame(client) -> None:  # type: ignore[no-untyped-def]
    async with client.ws_connect("/v1/ws?user_id=citer") as ws:
        await ws.send_json(
            {
                "type": "message",
                "text": f"hotels in Tokyo from {ahead(20)} for 2 nights, and what to eat there?",
            }
        )
        end, _ = await until(ws, "error")
    assert end.get("complete"), end
    body, _, line = end["text"].rpartition("\n")
    assert line.startswith("Sources: ")
    in_text = {int(n) for n in re.findall(r"\[(\d+)\]", body)}
    in_line = [int(n) for n in re.findall(r"\[(\d+)\]", line)]
    numbers = [s["n"] for s in end["sources"]]
    assert in_text and in_text == set(in_line) == set(numbers) and numbers == sorted(numbers)
    for s in end["sources"]:
        assert s["excerpt"], s
        if s["source"] == "live":
            assert s["provider"] and s["fetched_at"] and s["sandbox"] is True
            assert "sandbox data" in line
        else:
            assert s["kind"] == "document" and s["title"] in line


async def test_frames_that_are_wrong_get_clear_errors(client) -> None:  # type: ignore[no-untyped-def]
    async with client.ws_connect("/v1/ws?user_id=odd") as ws:
        for bad, code in [
            ({"type": "message", "text": "hi", "timezone": "Mars/Olympus_Mons"}, "validation_error"),
            ({"type": "message", "text": "hi", "id": "has spaces"}, "validation_error"),
            ({"type": "resume"}, "validation_error"),
            ({"type": "stop"}, "unknown_frame_type"),
            ({"type": "cancel"}, "nothing_to_cancel"),
        ]:
            await ws.send_json(bad)
            got = await frame(ws)
            assert got["type"] == "error" and got["error"]["code"] == code, (bad, got)
        await ws.send_json({"type": "message", "text": "hello", "timezone": "Pacific/Kiritimati"})
        end, _ = await until(ws, "error")
        assert end.get("complete")
