"""One chat message, end to end: history, trip state, retrieval and routing, tools, a streamed answer."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from rag.chat.answers import finish
from rag.chat.citations import cite_written, numbered, sources_line
from rag.chat.composer import Passage, ToolAnswer, chunks, compose, is_comparison, passage_from_payload
from rag.chat.focus import focus, search_text
from rag.chat.generate import LLMWriter, render_data
from rag.chat.limits import RateLimit
from rag.chat.outcomes import citable, recall_focus, recalled_items, tool_results
from rag.chat.sections import trip_days
from rag.chat.sessions import SessionStore
from rag.dialogue.plan import Plan, ToolSpecs, asked_slots, describe_state, plan
from rag.dialogue.trip import TripState
from rag.errors import (
    ProviderTimeoutError,
    RateLimitedError,
    ValidationError,
    WayfarerError,
)
from rag.i18n import message
from rag.ingest.documents import norm
from rag.live.service import ToolOutcome, ToolService
from rag.observability.metrics import Metrics
from rag.retrieval.service import Retriever
from rag.routing.router import RouteDecision, Router
from rag.store.base import Hit

logger = logging.getLogger(__name__)


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
        chunks_per_passage: int = 3,
        writer: LLMWriter | None = None,
        rate_limit: RateLimit | None = None,
        metrics: Metrics | None = None,
        deadline_seconds: float | None = None,
        today: Callable[[], dt.date] | None = None,
        timezone: str = "UTC",
        grounding: bool = True,
    ) -> None:
        """``deadline_seconds`` bounds the tools of one answer, counted from the message's arrival.
        ``today``: a fixed date for the travellers (tests), else today in the traveller's ``timezone``
        (a message's own, else this default); past dates are asked about. ``grounding``: passages only from
        the conversation's places (evaluations switch it off to compare)."""
        self._fixed_today = today
        self._zone = ZoneInfo(timezone)
        self.grounding = grounding
        self._specs = ToolSpecs(router.config.tools, router.tools)
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
        # Up to ``passages`` documents, each with up to this many chunks, for the composer to choose from.
        self._chunks = chunks_per_passage

    async def respond(
        self, user_id: str, text: str, *, answer_id: str | None = None, timezone: str | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Chunk events as the answer is produced, then the complete answer with sources and tool calls.

        ``answer_id`` names the answer in the history (for resume); ``timezone`` is the traveller's IANA
        zone, what "today" and "this weekend" mean. Logs one structured line per message with its
        timings, and counts it in the metrics. Cancelled, even before its question is saved, it saves
        the question and what was said as a stopped turn.
        """
        start = time.perf_counter()
        log: dict[str, Any] = {
            "user": hashlib.sha256(user_id.encode()).hexdigest()[:12],  # not the id itself
            "chars": len(text),
            "timings_ms": {},
        }
        outcome = "cancelled"
        try:
            async for event in self._respond(user_id, text, answer_id, timezone, log["timings_ms"]):
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
        except asyncio.CancelledError:
            raise
        except Exception:
            outcome = "internal_error"
            raise
        finally:
            self._metrics.chat_messages.labels(outcome).inc()
            log["outcome"] = outcome
            logger.info("chat message", extra={"chat": log})

    async def _respond(
        self,
        user_id: str,
        text: str,
        answer_id: str | None,
        timezone: str | None,
        timings: dict[str, float],
    ) -> AsyncIterator[dict[str, Any]]:
        start = last = time.perf_counter()

        def mark(step: str) -> None:
            """How long ``step`` took, in ms (first_chunk and complete count from the message's arrival)."""
            nonlocal last
            now = time.perf_counter()
            timings[step] = round((now - last) * 1000, 2)
            last = now

        text = self._checked(text)
        sent: list[str] = []
        asked: asyncio.Future[int] | None = None  # the question being saved; then its answer's place
        try:  # from the first wait on, so a cancel however early still saves the turn
            await self._check_rate(user_id)
            today = self.today(timezone)
            asked = asyncio.ensure_future(self.sessions.ask(user_id, text, **_with_id(answer_id)))
            await finish(asked)
            place = asked.result()
            trip = await self.sessions.trip(user_id)
            vector = await self._retriever.embed(text)  # one embedding serves retrieval and routing
            mark("embed")
            decision = await self._router.route(
                text,
                vector,
                country=self._country(trip),
                today=today,
                context=describe_state(trip, self._specs),
                asked=asked_slots(trip, self._specs),
            )
            planned = plan(decision, trip, self._specs, today, decision.lang)
            mark("route")
            places = _place_names(decision, planned)
            compare = not planned.calls and not planned.waiting and is_comparison(text, places)
            hits, recalled = await asyncio.gather(
                self._search(text, vector, user_id, decision, planned, compare),
                self._tools.recall(text, user_id, about=recall_focus(decision.slots)),
            )
            hits = await self._whole_guide(hits, places, compare or recalled is not None)
            mark("search")
            budget = (
                None if self._deadline is None else max(0.0, self._deadline - (time.perf_counter() - start))
            )
            calls = {c.name: c.params for c in planned.calls}
            outcomes = await self._call_tools(calls, user_id, budget, today)
            mark("tools")
            done = tool_results(planned, outcomes)
            await self.sessions.save_trip(user_id, planned.remember(done.made))
            passages = [passage_from_payload(h.id, h.payload) for h in hits]
            recalled_texts = recalled_items(recalled, decision.lang, self._specs.declared)
            data, catalog, excerpts = citable(hits, done, recalled)
            question = planned.climate.query if planned.climate else search_text(text, decision.slots)
            answer = compose(
                question,
                passages,
                done.answers,
                planned.clarify,
                recalled_texts,
                decision.lang,
                places=places,
                compare=compare,
                notes=planned.notes,
                declared=self._specs.declared,
                days=None if planned.calls else trip_days(text),
            )
            mark("compose")
            full = answer.text
            sources = numbered([(k + 1, c.ref, c.excerpt) for k, c in enumerate(answer.citations)], catalog)
            stream: AsyncIterator[str] = _pieces(chunks(full))
            written = None
            if self._writer is not None:
                trip_json = planned.trip.model_dump(
                    mode="json", exclude_none=True, exclude={"last_calls", "pending"}
                )
                written = await self._write(
                    trip_json, user_id, passages, done.answers, recalled_texts, decision.lang, today
                )
                mark("llm_first_piece")
                if written is not None:
                    stream = written
            if planned.assumed_note:
                # Said first: the traveller sees at once what was taken from the conversation.
                stream = _chain([planned.assumed_note + "\n\n"], stream)
            async for piece in stream:
                sent.append(piece)
                yield {"type": "response", "text": piece, "chunk": True}
            if written is not None:
                sources, unresolved = cite_written("".join(sent), data, catalog, excerpts)
                if unresolved:
                    self._metrics.unresolved_citations.inc(unresolved)
                tail = "\n".join(
                    [
                        *([planned.clarify] if planned.clarify else []),
                        *([sources_line(decision.lang, sources, self._specs.declared)] if sources else []),
                    ]
                )
                if tail:
                    tail = "\n" + tail
                    sent.append(tail)
                    yield {"type": "response", "text": tail, "chunk": True}
            full = "".join(sent)
            mark("answer")
        except asyncio.CancelledError:
            await finish(_save_stopped(self.sessions, user_id, text, answer_id, asked, "".join(sent)))
            raise
        turn = {"sources": sources, "tool_calls": done.tool_calls, **_with_id(answer_id)}
        # Saved whole even if a cancel arrives now: the answer is complete, and the history says so.
        # At the place its question kept: after it, whatever this user's other messages stored since.
        await finish(self.sessions.answer(user_id, place, full, **turn), complete=True)
        yield {"type": "response", "text": full, "complete": True, **turn}

    async def preview(self, user_id: str, text: str, timezone: str | None = None) -> dict[str, Any]:
        """What the chat would call and ask for ``text`` in ``user_id``'s conversation (trip state and
        follow-ups included), as /v1/route answers it: no tool is called and nothing is stored."""
        text = self._checked(text)
        trip = await self.sessions.trip(user_id)
        today = self.today(timezone)
        decision = await self._router.route(
            text,
            country=self._country(trip),
            today=today,
            context=describe_state(trip, self._specs),
            asked=asked_slots(trip, self._specs),
        )
        planned = plan(decision, trip, self._specs, today, decision.lang)
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
        if planned.notes:
            out["notes"] = planned.notes
        if planned.climate:
            out["climate"] = planned.climate.to_json()
        return out

    def today(self, timezone: str | None = None) -> dt.date:
        """The traveller's date: in their time zone (an IANA name), else UTC; a fixed one in tests."""
        if self._fixed_today is not None:
            return self._fixed_today()
        return dt.datetime.now(ZoneInfo(timezone) if timezone else self._zone).date()

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

    async def _whole_guide(self, hits: list[Hit], places: Sequence[str], skip: bool) -> list[Hit]:
        """The hits, and every other chunk of the asked place's own guide after them: the composer answers
        from the section that answers (rag.chat.sections), which the search may have found only in part."""
        if skip or len(places) != 1:
            return hits
        place = norm(places[0])
        own = next(
            (h for h in hits if h.payload.get("city_norm") == place and h.payload.get("source") != "live"),
            None,
        )
        if own is None:
            return hits
        doc = str(own.payload.get("document_id", ""))
        have = {h.id for h in hits}
        rest = [h for h in await self._retriever.document(doc) if h.id not in have]
        return hits + rest

    async def _search(
        self,
        text: str,
        vector: list[float],
        user_id: str,
        decision: RouteDecision,
        planned: Plan,
        compare: bool,
    ) -> list[Hit]:
        """Passages from the message's places (or the trip's) and topic documents: the index filters.
        A comparison ("Lisbon or Porto?") searches each place on its own, so each has its passages; a
        question about a month beyond the forecast searches the guides' climate for that month.
        Documents only: stored tool results answer "what did you find?" (the recall), never a
        knowledge question, so they are never quoted as the guides."""
        if not self.grounding:
            return await self._retriever.search(
                text,
                self._passages * self._chunks,
                user_id=user_id,
                vector=vector,
                per_document=self._chunks,
                documents_only=True,
            )
        declared = self._specs.declared
        route = any(c.name in declared and declared[c.name].about == "route" for c in planned.calls)
        in_places, countries = focus(decision.slots, planned.trip, route, decision.unknown_places)
        query = planned.climate.query if planned.climate else search_text(text, decision.slots)
        if query != text:  # "Londres": the guide says "London"; worth a second embedding
            vector = await self._retriever.embed(query)
        if len(in_places) > 1 and compare:
            found = await asyncio.gather(
                *(
                    self._retriever.search(
                        query,
                        2 * self._chunks,
                        user_id=user_id,
                        vector=vector,
                        places=[place],
                        per_document=self._chunks,
                        documents_only=True,
                    )
                    for place in in_places
                )
            )
            return [hit for hits in found for hit in hits]
        k = self._passages * self._chunks
        hits = await self._retriever.search(
            query,
            k,
            user_id=user_id,
            vector=vector,
            places=in_places,
            countries=countries,
            per_document=self._chunks,
            documents_only=True,
        )
        if in_places and not any(h.payload.get("city_norm") in in_places for h in hits):
            # No guide of its own ("Sintra", "Fushimi Inari"): another guide may say something about it;
            # the composer quotes only its sentences that name the place.
            hits = await self._retriever.search(
                query, k, user_id=user_id, vector=vector, per_document=self._chunks, documents_only=True
            )
        return hits

    async def _call_tools(
        self, calls: dict[str, Any], user_id: str, budget: float | None, today: dt.date
    ) -> list[ToolOutcome | BaseException]:
        """Each call's outcome or error, in order; calls still running after ``budget`` seconds are
        cancelled and answer ProviderTimeoutError, so one stalled provider cannot hold the answer."""
        tasks = [
            asyncio.create_task(
                self._tools.call(name, params, user_id, today=today), name=f"chat-tool-{name}"
            )
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
        passages: list[Passage],
        answers: list[ToolAnswer],
        recalled: list[str] | None,
        lang: str,
        today: dt.date,
    ) -> AsyncIterator[str] | None:
        """The model's answer as it streams, or None (then the composer answers) when it fails before
        its first piece. A failure later ends the answer with a note rather than losing what was said."""
        assert self._writer is not None
        system = self._writer.system_prompt(trip, render_data(passages, answers, recalled), lang, today)
        history = await self.sessions.history(user_id)
        pieces = self._writer.stream(system, history)
        try:
            first = await anext(pieces)
        except (Exception, StopAsyncIteration) as exc:  # timeouts, HTTP errors, empty answers
            logger.warning(
                "LLM answer failed (%s: %s); using the extractive composer", type(exc).__name__, exc
            )
            return None

        async def rest() -> AsyncIterator[str]:
            yield first
            try:
                async for piece in pieces:
                    yield piece
            except Exception as exc:
                logger.warning("LLM answer broke off (%s: %s)", type(exc).__name__, exc)
                yield "\n" + message(lang, "answer_cut")

        return rest()


def _place_names(decision: RouteDecision, planned: Plan) -> list[str]:
    """The places the message asks about, as the guides name them; else the conversation's. A name
    no catalogue knows ("Grimsby-on-the-Wold") is one: no other city's guide answers for it."""
    names = [p.place.city_name for p in decision.slots.places] if decision.slots is not None else []
    names += decision.unknown_places
    if not names and planned.trip.destination_name:
        names = [planned.trip.destination_name]
    return list(dict.fromkeys(n for n in names if n))


def _with_id(answer_id: str | None) -> dict[str, str]:
    return {"id": answer_id} if answer_id else {}


async def _save_stopped(
    sessions: SessionStore,
    user_id: str,
    text: str,
    answer_id: str | None,
    asked: asyncio.Future[int] | None,
    said: str,
) -> None:
    """A stopped turn: the question (unless ``asked`` saved it already) and what was said of the answer."""
    place = asked.result() if asked is not None else await sessions.ask(user_id, text, **_with_id(answer_id))
    await sessions.answer(user_id, place, said, cancelled=True, **_with_id(answer_id))


async def _pieces(pieces: Iterable[str]) -> AsyncIterator[str]:
    for piece in pieces:
        yield piece


async def _chain(first: Iterable[str], rest: AsyncIterator[str]) -> AsyncIterator[str]:
    for piece in first:
        yield piece
    async for piece in rest:
        yield piece
