"""One chat message, end to end: history, trip state, retrieval and routing, tools, a streamed answer."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from connectors.tools import TOOLS
from rag.chat.composer import ToolAnswer, chunks, compose, passage_from_payload
from rag.chat.focus import focus, search_text
from rag.chat.generate import LLMWriter, render_data
from rag.chat.limits import RateLimit
from rag.chat.plan import Plan, ToolSpecs, plan
from rag.chat.sessions import SessionStore
from rag.chat.trip import TripState
from rag.errors import (
    ProviderTimeoutError,
    RateLimitedError,
    ToolValidationError,
    ValidationError,
    WayfarerError,
)
from rag.live.service import ToolOutcome, ToolService
from rag.observability.metrics import Metrics
from rag.retrieval.service import Retriever
from rag.routing.router import RouteDecision, Router
from rag.store.base import Hit

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
        today: Callable[[], dt.date] | None = None,
        grounding: bool = True,
    ) -> None:
        """``deadline_seconds`` bounds the tools of one answer, counted from the message's arrival.
        ``today``: the travellers' date (past dates are asked about); ``grounding``: passages only from
        the conversation's places (evaluations switch it off to compare)."""
        self._today = today or (lambda: dt.datetime.now(dt.UTC).date())
        self.grounding = grounding
        self._specs = ToolSpecs(
            router.config.tools,
            {
                name: frozenset(TOOLS[name].params.model_fields if name in TOOLS else route.params)
                for name, route in router.config.tools.items()
            },
        )
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

        text = self._checked(text)
        await self._check_rate(user_id)
        await self.sessions.append(user_id, "user", text)
        trip = await self.sessions.trip(user_id)
        vector = await self._retriever.embed(text)  # one embedding serves retrieval and routing
        mark("embed")
        decision = await self._router.route(text, vector, country=self._country(trip))
        lang = decision.lang
        planned = plan(decision, trip, self._specs, self._today(), lang)
        mark("route")
        hits, recalled = await asyncio.gather(
            self._search(text, vector, user_id, decision, planned), self._tools.recall(text, user_id)
        )
        mark("search_and_route")
        budget = None if self._deadline is None else max(0.0, self._deadline - (time.perf_counter() - start))
        calls = {c.name: c.params for c in planned.calls}
        outcomes = await self._call_tools(calls, user_id, budget)
        mark("tools")
        answers, tool_calls, live_sources, made = _results(planned, outcomes)
        await self.sessions.save_trip(user_id, planned.remember(made))

        passages = [passage_from_payload(h.id, h.payload) for h in hits]
        recalled_texts = [h.payload.get("text", "") for h in recalled] if recalled is not None else None
        clarify = planned.clarify
        answer = compose(text, passages, answers, clarify, recalled_texts, lang)
        full = answer.text
        cited = answer.cited
        mark("compose")
        written = None
        if self._writer is not None:
            written = await self._write(
                planned.trip.model_dump(mode="json", exclude_none=True, exclude={"last_calls", "pending"}),
                user_id,
                passages,
                answers,
                recalled_texts,
                lang,
            )
            mark("llm")
        pieces = list(chunks(full))
        if written is not None:
            pieces, full = written
            cited = list(range(len(passages)))
            if clarify:
                pieces.append("\n" + clarify)
                full += "\n" + clarify
        if planned.assumed_note:
            # Said first: the traveller sees at once what was taken from the conversation.
            pieces.insert(0, planned.assumed_note + "\n")
            full = planned.assumed_note + "\n" + full
        for piece in pieces:
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

    async def preview(self, user_id: str, text: str) -> dict[str, Any]:
        """What the chat would call and ask for ``text`` in ``user_id``'s conversation (trip state and
        follow-ups included), as /v1/route answers it: no tool is called and nothing is stored."""
        text = self._checked(text)
        trip = await self.sessions.trip(user_id)
        decision = await self._router.route(text, country=self._country(trip))
        planned = plan(decision, trip, self._specs, self._today(), decision.lang)
        out: dict[str, Any] = {
            "use_rag": decision.use_rag,
            "tools": [c.to_json() for c in planned.calls],
            "missing": planned.waiting,
        }
        if planned.followup:
            out["followup"] = True
        if planned.clarify:
            out["clarify"] = planned.clarify
        if planned.assumed_note:
            out["assumed"] = planned.assumed_note
        return out

    def _checked(self, text: str) -> str:
        text = " ".join(text.split())
        if not text:
            raise ValidationError("message: send some text")
        if len(text) > self._max_chars:
            raise ValidationError(f"message: at most {self._max_chars} characters")
        return text

    async def _check_rate(self, user_id: str) -> None:
        if self._rate_limit is not None:
            try:
                await self._rate_limit.check(user_id)
            except RateLimitedError:
                self._metrics.rate_limited.inc()
                raise

    def _country(self, trip: TripState) -> str | None:
        """The conversation's country (its destination's), which settles names several places share."""
        place = self._router.catalogue.resolve(trip.destination) if trip.destination else None
        return place.country_code if place else None

    async def _search(
        self, text: str, vector: list[float], user_id: str, decision: RouteDecision, planned: Plan
    ) -> list[Hit]:
        """Passages from the message's places (or the trip's) and topic documents: the index filters."""
        if not self.grounding:
            return await self._retriever.search(text, self._passages, user_id=user_id, vector=vector)
        places, countries = focus(
            decision.slots, planned.trip, [c.name for c in planned.calls], decision.unknown_places
        )
        query = search_text(text, decision.slots)
        if query != text:  # "Londres": the guide says "London"; worth a second embedding
            vector = await self._retriever.embed(query)
        return await self._retriever.search(
            query, self._passages, user_id=user_id, vector=vector, places=places, countries=countries
        )

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
        lang: str,
    ) -> tuple[list[str], str] | None:
        """The model's answer as streamed pieces, or None (then the composer answers) on any failure."""
        assert self._writer is not None
        system = self._writer.system_prompt(trip, render_data(passages, answers, recalled), lang)
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


def _results(
    planned: Plan, outcomes: list[ToolOutcome | BaseException]
) -> tuple[list[ToolAnswer], list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """The tool answers for the composer, the complete event's tool calls, the live sources, and the
    calls that went out (a follow-up changes those; a call the tool refused as invalid is not one)."""
    answers, tool_calls, live_sources, made = [], [], [], []
    for call, outcome in zip(planned.calls, outcomes, strict=True):
        if isinstance(outcome, WayfarerError):
            answers.append(ToolAnswer(call.name, error=outcome.message, code=outcome.code))
            tool_calls.append(
                {
                    "name": call.name,
                    "params": call.params,
                    "provider": None,
                    "results": 0,
                    "from_index": False,
                    "ingested": 0,
                    "error": outcome.code,
                    "assumed": call.assumed,
                }
            )
            if not isinstance(outcome, ToolValidationError):
                made.append(call.name)
            continue
        if isinstance(outcome, BaseException):
            raise outcome
        answers.append(_answer(outcome))
        tool_calls.append({**_tool_call(outcome), "assumed": call.assumed})
        live_sources.extend(_live_sources(outcome))
        made.append(call.name)
    return answers, tool_calls, live_sources, made


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
