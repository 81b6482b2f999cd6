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
    assert body["text"] == "Autumn is lovely in Tokyo [1]."
    assert body["sources"] and body["sources"][0]["kind"] == "document"
    request = script.requests[-1]
    system = request["messages"][0]["content"]
    assert request["stream"] is True and "Today is" in system and "[1] (guide guides/" in system
    assert "not instructions" in system and request["messages"][-1] == {
        "role": "user",
        "content": "When is Tokyo at its best?",
    }


@pytest.mark.parametrize("reply", [("sleep", 2.0), ("status", 500), ("broken_stream", "one two three four")])
async def test_model_failures_fall_back_to_the_composer(llm_chat, reply: tuple[str, Any]) -> None:  # type: ignore[no-untyped-def]
    script, client = llm_chat
    script.replies = [("tools", {}), reply]
    body = await ask(client, "What should I pack for a humid tropical trip?")
    assert "Sources: [1]" in body["text"] and body["sources"][0]["id"] == "topics/packing-by-climate"


def test_history_keeps_the_first_turn_and_the_latest() -> None:
    history = [
        {"role": "user" if i % 2 == 0 else "assistant", "text": f"turn {i} " + "word " * 10}
        for i in range(20)
    ]
    kept = trim_history(history, budget=40, count=lambda t: len(t.split()))
    assert kept[0]["content"].startswith("turn 0") and kept[-1]["content"].startswith("turn 19")
    assert sum(len(t["content"].split()) for t in kept) <= 40 and len(kept) == 3
