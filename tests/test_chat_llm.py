"""Answers from an OpenAI-compatible model (a scripted stand-in), streamed, with fallbacks."""

from __future__ import annotations

from typing import Any

import pytest

from rag.chat.generate import trim_history


async def ask(client: Any, text: str) -> dict[str, Any]:
    resp = await client.post("/v1/chat", json={"user_id": "u1", "message": text})
    assert resp.status == 200, await resp.text()
    return dict(await resp.json())


async def test_the_model_answers_from_numbered_quoted_data(llm_chat) -> None:  # type: ignore[no-untyped-def]
    script, client = llm_chat
    script.replies = [("tools", {}), ("stream", "Autumn is lovely in Tokyo [1].")]
    body = await ask(client, "When is Tokyo at its best?")
    answer, line = body["text"].split("\n")
    assert answer == "Autumn is lovely in Tokyo [1]." and line.startswith("Sources: [1] ")
    [source] = body["sources"]  # what it cites, numbered as the prompt numbered it
    assert source["n"] == 1 and source["kind"] == "document" and source["title"] in line
    request = script.requests[-1]
    system = request["messages"][0]["content"]
    assert request["stream"] is True and "Today is" in system and "[1] (guide guides/" in system
    assert "not instructions" in system and request["messages"][-1] == {
        "role": "user",
        "content": "When is Tokyo at its best?",
    }


@pytest.mark.parametrize("reply", [("sleep", 2.0), ("status", 500), ("broken_stream", "")])
async def test_model_failures_fall_back_to_the_composer(llm_chat, reply: tuple[str, Any]) -> None:  # type: ignore[no-untyped-def]
    script, client = llm_chat
    script.replies = [("tools", {}), reply]
    body = await ask(client, "What should I pack for a humid tropical trip?")
    assert "Sources: [1]" in body["text"] and body["sources"][0]["id"] == "topics/packing-by-climate"


async def test_the_model_streams_and_its_citations_resolve_or_are_counted(llm_chat) -> None:  # type: ignore[no-untyped-def]
    script, client = llm_chat
    words = "Pack light breathable cotton [1] and a rain jacket [42]."
    script.replies = [("tools", {}), ("stream", words)]
    async with client.ws_connect("/v1/ws?user_id=streamer") as ws:
        await ws.send_json({"type": "message", "text": "What should I pack for a humid tropical trip?"})
        frames = []
        while not (frames and (frames[-1].get("complete") or frames[-1]["type"] == "error")):
            frames.append(await ws.receive_json(timeout=60))
    end = frames[-1]
    assert end.get("complete"), end
    pieces = [f["text"] for f in frames[:-1]]
    assert len(pieces) > len(words.split()) // 2  # streamed as the model wrote it, not all at once
    assert end["text"].startswith(words) and [s["n"] for s in end["sources"]] == [1]  # [42] is nothing
    metrics = await (await client.get("/metrics")).text()
    assert "wayfarer_chat_unresolved_citations_total 1.0" in metrics


async def test_a_model_that_breaks_off_mid_answer_keeps_what_it_said(llm_chat) -> None:  # type: ignore[no-untyped-def]
    script, client = llm_chat
    script.replies = [("tools", {}), ("broken_stream", "Cotton [1] helps a lot.")]
    body = await ask(client, "What should I pack for a humid tropical trip?")
    assert body["text"].startswith("Cotton [1]") and "cut off" in body["text"]
    assert [s["n"] for s in body["sources"]] == [1]


def test_history_keeps_the_first_turn_and_the_latest() -> None:
    history = [
        {"role": "user" if i % 2 == 0 else "assistant", "text": f"turn {i} " + "word " * 10}
        for i in range(20)
    ]
    kept = trim_history(history, budget=40, count=lambda t: len(t.split()))
    assert kept[0]["content"].startswith("turn 0") and kept[-1]["content"].startswith("turn 19")
    assert sum(len(t["content"].split()) for t in kept) <= 40 and len(kept) == 3
