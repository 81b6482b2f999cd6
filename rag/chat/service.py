"""One chat message, end to end: history, trip state, retrieval and routing, tools, a streamed answer."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from connectors.tools import TOOLS
from rag.chat.composer import ToolAnswer, chunks, compose, passage_from_payload
from rag.chat.generate import LLMWriter, render_data
from rag.chat.limits import RateLimit
from rag.chat.sessions import SessionStore
from rag.chat.trip import complete_params, update_trip
from rag.errors import ProviderTimeoutError, RateLimitedError, ValidationError, WayfarerError
from rag.ingest.documents import norm
from rag.live.service import ToolOutcome, ToolService
from rag.observability.metrics import Metrics
from rag.retrieval.service import Retriever
from rag.routing.router import Router

logger = logging.getLogger(__name__)

RESULTS_SHOWN = 5


class ChatService:
    def __init__(
        self,
        sessions: SessionStore,
        router: Router,
        retriever: Retriever,
        tools: ToolService,
        *,
        max_message_chars: int = 2000,
        passages: int = 3,
        writer: LLMWriter | None = None,
        rate_limit: RateLimit | None = None,
        metrics: Metrics | None = None,
        deadline_seconds: float | None = None,
    ) -> None:
        """``deadline_seconds`` bounds the tools of one answer, counted from the message's arrival."""
        self._deadline = deadline_seconds
        self._writer = writer
        self._rate_limit = rate_limit
        self._metrics = metrics or Metrics()
        self.sessions = sessions
        self._router = router
        self._retriever = retriever
        self._tools = tools
        self._max_chars = max_message_chars
        self._passages = passages

    async def respond(self, user_id: str, text: str) -> AsyncIterator[dict[str, Any]]:
        """Chunk events as the answer is produced, then the complete answer with sources and tool calls.

        Logs one structured line per message with its timings, and counts it in the metrics.
        """
        start = time.perf_counter()
        log: dict[str, Any] = {
            "user": hashlib.sha256(user_id.encode()).hexdigest()[:12],  # not the id itself
            "chars": len(text),
            "timings_ms": {},
        }
        outcome = "cancelled"
        try:
            async for event in self._respond(user_id, text, log["timings_ms"]):
                if event.get("complete"):
                    complete = time.perf_counter() - start
                    self._metrics.chat_complete_seconds.observe(complete)
                    log["timings_ms"]["complete"] = round(complete * 1000, 1)
                    log["tools"] = {
                        c["name"]: c.get("error", "index" if c["from_index"] else "provider")
                        for c in event["tool_calls"]
                    }
                    log["sources"] = len(event["sources"])
                elif "first_chunk" not in log["timings_ms"]:
                    first = time.perf_counter() - start
                    self._metrics.chat_first_chunk_seconds.observe(first)
                    log["timings_ms"]["first_chunk"] = round(first * 1000, 1)
                yield event
            outcome = "ok"
        except WayfarerError as exc:
            outcome = exc.code
            raise
        except Exception:
            outcome = "internal_error"
            raise
        finally:
            self._metrics.chat_messages.labels(outcome).inc()
            log["outcome"] = outcome
            logger.info("chat message", extra={"chat": log})

    async def _respond(
        self, user_id: str, text: str, timings: dict[str, float]
    ) -> AsyncIterator[dict[str, Any]]:
        start = time.perf_counter()

        def mark(step: str) -> None:
            timings[step] = round((time.perf_counter() - start) * 1000, 1)

        text = " ".join(text.split())
        if not text:
            raise ValidationError("message: send some text")
        if len(text) > self._max_chars:
            raise ValidationError(f"message: at most {self._max_chars} characters")
        if self._rate_limit is not None:
            try:
                await self._rate_limit.check(user_id)
            except RateLimitedError:
                self._metrics.rate_limited.inc()
                raise
        await self.sessions.append(user_id, "user", text)
        trip = await self.sessions.trip(user_id)
        vector = await self._retriever.embed(text)  # one embedding serves retrieval and routing
        mark("embed")
        hits, decision = await asyncio.gather(
            self._retriever.search(text, self._passages, user_id=user_id, vector=vector),
            self._router.route(text, vector),
        )
        mark("search_and_route")
        if decision.slots is not None:
            trip = update_trip(trip, decision.slots)
            await self.sessions.save_trip(user_id, trip)
        recalled = await self._tools.recall(text, user_id)

        calls = {t.name: t.params for t in decision.tools}
        waiting: dict[str, list[str]] = {}
        for name in decision.missing:
            route = self._router.config.tools[name]
            allowed = set(TOOLS[name].params.model_fields) if name in TOOLS else set(route.params)
            params = complete_params(decision.partial.get(name, {}), route.required, allowed, trip)
            gaps = [p for p in route.required if params.get(p) in (None, "")]
            if gaps:
                waiting[name] = gaps
            else:
                calls[name] = params
        budget = None if self._deadline is None else max(0.0, self._deadline - (time.perf_counter() - start))
        outcomes = await self._call_tools(calls, user_id, budget)
        mark("tools")
        answers, tool_calls, live_sources = [], [], []
        for (name, params), outcome in zip(calls.items(), outcomes, strict=True):
            if isinstance(outcome, WayfarerError):
                answers.append(ToolAnswer(name, error=outcome.message))
                tool_calls.append(
                    {
                        "name": name,
                        "params": params,
                        "provider": None,
                        "results": 0,
                        "from_index": False,
                        "ingested": 0,
                        "error": outcome.code,
                    }
                )
                continue
            if isinstance(outcome, BaseException):
                raise outcome
            answers.append(_answer(outcome))
            tool_calls.append(_tool_call(outcome))
            live_sources.extend(_live_sources(outcome))

        if calls and trip.destination_name:
            # Tool results are about one place: guide passages about another city would only confuse.
            here = norm(trip.destination_name)
            hits = [h for h in hits if h.payload.get("city_norm") in (None, here)]
        passages = [passage_from_payload(h.id, h.payload) for h in hits]
        recalled_texts = [h.payload.get("text", "") for h in recalled] if recalled is not None else None
        clarify = self._router._clarify(waiting) if waiting else None
        answer = compose(text, passages, answers, clarify, recalled_texts)
        full = answer.text
        cited = answer.cited
        mark("compose")
        written = None
        if self._writer is not None:
            written = await self._write(
                trip.model_dump(mode="json", exclude_none=True), user_id, passages, answers, recalled_texts
            )
            mark("llm")
        if written is not None:
            pieces, full = written
            cited = list(range(len(passages)))
            if clarify:
                pieces.append("\n" + clarify)
                full += "\n" + clarify
            for piece in pieces:
                yield {"type": "response", "text": piece, "chunk": True}
        else:
            for piece in chunks(full):
                yield {"type": "response", "text": piece, "chunk": True}
        sources = [_doc_source(hits[i].id, hits[i].payload) for i in cited]
        sources += [_doc_source(h.id, h.payload) for h in recalled or []]
        sources += live_sources
        await self.sessions.append(user_id, "assistant", full, sources=[s["id"] for s in sources])
        yield {
            "type": "response",
            "text": full,
            "complete": True,
            "sources": sources,
            "tool_calls": tool_calls,
        }

    async def _call_tools(
        self, calls: dict[str, Any], user_id: str, budget: float | None
    ) -> list[ToolOutcome | BaseException]:
        """Each call's outcome or error, in order; calls still running after ``budget`` seconds are
        cancelled and answer ProviderTimeoutError, so one stalled provider cannot hold the answer."""
        tasks = [
            asyncio.create_task(self._tools.call(name, params, user_id), name=f"chat-tool-{name}")
            for name, params in calls.items()
        ]
        if not tasks:
            return []
        try:
            _, late = await asyncio.wait(tasks, timeout=budget)
        finally:
            for task in tasks:
                task.cancel()  # a no-op for finished ones; also when this message itself is cancelled
        if late:
            await asyncio.gather(*late, return_exceptions=True)
        outcomes: list[ToolOutcome | BaseException] = []
        for name, task in zip(calls, tasks, strict=True):
            if task in late:
                logger.warning("chat: %s did not finish within the %g s answer deadline", name, budget)
                outcomes.append(
                    ProviderTimeoutError(
                        f"{name} timed out: no answer within the chat's {self._deadline:g} s"
                    )
                )
            elif task.cancelled():
                outcomes.append(asyncio.CancelledError())
            elif (exc := task.exception()) is not None:
                outcomes.append(exc)
            else:
                outcomes.append(task.result())
        return outcomes

    async def _write(
        self,
        trip: dict[str, Any],
        user_id: str,
        passages: list[Any],
        answers: list[ToolAnswer],
        recalled: list[str] | None,
    ) -> tuple[list[str], str] | None:
        """The model's answer as streamed pieces, or None (then the composer answers) on any failure."""
        assert self._writer is not None
        system = self._writer.system_prompt(trip, render_data(passages, answers, recalled))
        history = await self.sessions.history(user_id)
        pieces: list[str] = []
        try:
            async for piece in self._writer.stream(system, history):
                pieces.append(piece)
        except Exception as exc:  # timeouts, HTTP errors, broken streams: the composer answers instead
            logger.warning(
                "LLM answer failed (%s: %s); using the extractive composer", type(exc).__name__, exc
            )
            return None
        full = "".join(pieces).strip()
        return (pieces, full) if full else None


def _answer(o: ToolOutcome) -> ToolAnswer:
    results = o.call.results[:RESULTS_SHOWN]
    fetched = min((r.fetched_at for r in results), default=None)
    return ToolAnswer(
        o.call.tool,
        [r.render() for r in results],
        sandbox=o.call.sandbox,
        indicative=any(getattr(r, "indicative", False) for r in results),
        from_index=o.from_index,
        fetched_at=fetched.strftime("%Y-%m-%d %H:%M UTC") if fetched else None,
    )


def _tool_call(o: ToolOutcome) -> dict[str, Any]:
    return {
        "name": o.call.tool,
        "params": o.call.params.model_dump(mode="json", exclude_none=True),
        "provider": o.call.provider,
        "results": len(o.call.results),
        "from_index": o.from_index,
        "ingested": o.ingesting,
    }


def _live_sources(o: ToolOutcome) -> list[dict[str, Any]]:
    return [
        {
            "id": r.identity,
            "kind": r.kind,
            "title": r.render()[:100],
            "source": "live",
            "fetched_at": r.fetched_at.isoformat(),
        }
        for r in o.call.results[:RESULTS_SHOWN]
    ]


def _doc_source(point_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    live = payload.get("source") == "live"
    source = {
        "id": str(payload.get("identity") if live else payload.get("document_id", point_id)),
        "kind": str(payload.get("kind", "document")) if live else "document",
        "title": str(payload.get("heading") or payload.get("title", "")),
        "source": str(payload.get("source", "")),
    }
    if live and payload.get("fetched_at_iso"):
        source["fetched_at"] = payload["fetched_at_iso"]
    return source
