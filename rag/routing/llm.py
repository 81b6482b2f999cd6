"""The LLM intent classifier: an OpenAI-compatible endpoint chooses tools, by function calling or JSON mode.

Its answer is advice with a deadline: a timeout, an HTTP error, a refusal or malformed JSON gives None,
and the router's other layers decide. It never raises into the request.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal

from openai import AsyncOpenAI, OpenAIError

logger = logging.getLogger(__name__)


# What the classifier is told of the conversation, after its instructions.
CONTEXT = (
    "The conversation so far: {context}\n"
    "If the message answers what the assistant asked for, call that tool with the values the answer gives; "
    "the service fills the rest from the conversation."
)


class LLMIntentClassifier:
    def __init__(
        self,
        client: AsyncOpenAI,
        model: str,
        prompt: str,
        tools: Mapping[str, tuple[str, dict[str, Any]]],  # name -> (description, JSON schema)
        *,
        today: Callable[[], dt.date],
        timeout: float = 8.0,
        mode: Literal["tools", "json"] = "tools",
        max_tokens: int = 300,
    ) -> None:
        self._client = client
        self.max_tokens = max_tokens
        self._model = model
        self._prompt = prompt
        self._tools = dict(tools)
        self._today = today
        self._timeout = timeout
        self.mode = mode
        self.failures = 0

    def _system(self, today: dt.date | None = None) -> str:
        listing = "\n".join(f"- {name}: {desc}" for name, (desc, _) in self._tools.items())
        return self._prompt.format(today=(today or self._today()).isoformat(), tools=listing)

    async def classify(
        self, message: str, today: dt.date | None = None, context: str | None = None
    ) -> dict[str, dict[str, Any]] | None:
        """``today``: the traveller's date, which relative dates in the arguments count from;
        ``context``: the conversation's state (the trip, what the assistant asked and waits for), so a
        reply to its question ("Seattle", "the 7th") is read as the answer it is."""
        messages: list[Any] = [{"role": "system", "content": self._system(today)}]
        if context:
            messages.append({"role": "system", "content": CONTEXT.format(context=context)})
        messages.append({"role": "user", "content": message})
        try:
            async with asyncio.timeout(self._timeout):
                if self.mode == "tools":
                    return await self._by_tool_calls(messages)
                return await self._by_json(messages)
        except (
            TimeoutError,
            OpenAIError,
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            IndexError,
        ) as exc:
            self.failures += 1
            logger.warning(
                "LLM intent classifier gave no usable answer (%s: %s); using the other layers",
                type(exc).__name__,
                exc,
            )
            return None

    async def _by_tool_calls(self, messages: list[Any]) -> dict[str, dict[str, Any]]:
        specs: list[Any] = [
            {"type": "function", "function": {"name": name, "description": desc, "parameters": schema}}
            for name, (desc, schema) in self._tools.items()
        ]
        resp = await self._client.chat.completions.create(
            model=self._model,
            messages=messages,
            tools=specs,
            tool_choice="auto",
            temperature=0,
            max_tokens=self.max_tokens,
        )
        out: dict[str, dict[str, Any]] = {}
        for call in resp.choices[0].message.tool_calls or []:
            name = call.function.name  # type: ignore[union-attr]
            if name in self._tools:
                args = json.loads(call.function.arguments or "{}")  # type: ignore[union-attr]
                out[name] = args if isinstance(args, dict) else {}
        return out

    async def _by_json(self, messages: list[Any]) -> dict[str, dict[str, Any]]:
        resp = await self._client.chat.completions.create(
            model=self._model,
            messages=messages,
            response_format={"type": "json_object"},
            temperature=0,
            max_tokens=self.max_tokens,
        )
        content = resp.choices[0].message.content or ""
        data = json.loads(content)
        if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
            raise ValueError(f"JSON answer without a tools list: {content[:200]!r}")
        out: dict[str, dict[str, Any]] = {}
        for item in data["tools"]:
            name = item.get("name") if isinstance(item, dict) else item
            if isinstance(name, str) and name in self._tools:
                args = item.get("arguments") if isinstance(item, dict) else {}
                out[name] = args if isinstance(args, dict) else {}
        return out
