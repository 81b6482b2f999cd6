"""Tool calls as the service makes them: cache-aware, sanitized, ingested in the background, recallable."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from connectors.params import ToolParams
from connectors.places import fold
from connectors.tools import ToolCall, ToolRunner
from rag.background import BackgroundTasks
from rag.dialogue import phrasing
from rag.errors import WayfarerError
from rag.live.ingest import ANONYMOUS_SCOPE, LiveIngestor, request_key
from rag.live.popular import PopularCalls
from rag.live.recall import RecallFocus
from rag.live.sanitize import clean_result
from rag.live.share import Clock, SharedCalls
from rag.observability.metrics import Metrics
from rag.settings import LiveSettings
from rag.store.base import Hit
from rag.tools.catalog import ToolCatalogue

logger = logging.getLogger(__name__)


def recall_request(message: str, tools: ToolCatalogue) -> tuple[list[str], bool] | None:
    """The result kinds a "what did you find" question is about (those whose words it names), and
    whether it asks for the cheapest; None when it asks about no results. In six languages, read as
    the dialogue reads it (rag.dialogue.phrasing)."""
    if not phrasing.recall_cue(message):
        return None
    folded = fold(message)
    kinds = [t.kind for t in tools.values() if re.search(t.recall, folded, re.I)]
    return kinds, phrasing.pick(message) == "cheapest"


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    call: ToolCall
    from_index: bool
    ingesting: int  # results handed to background ingestion
    shared: bool = False  # joined an identical provider call another caller had made

    def to_json(self) -> dict[str, Any]:
        """What POST /v1/tools/{name} answers (connectors.tools ToolOutcome)."""
        fetched = self.from_index and self.call.results
        return self.call.outcome(
            from_index=self.from_index,
            ingesting=self.ingesting,
            fetched_at=min(r.fetched_at for r in self.call.results).isoformat() if fetched else None,
        ).model_dump(mode="json")


class IngestQueue:
    """Finished calls wait here; one worker ingests everything queued together, a batch at a time.

    Coalescing turns many small embedding calls and writes into a few larger ones, which takes much less
    CPU from the requests being served than a task per call. The queue is bounded: past ``max_calls``
    waiting, a user's call waits for room before its request answers (back-pressure: recall must find
    every result a user was shown), and a call without a user is not queued (its results would answer
    nothing but the same request again). The metrics show the queue's length, how long calls wait in it,
    the batches written and what was refused.
    """

    def __init__(
        self,
        ingestor: LiveIngestor,
        tasks: BackgroundTasks,
        metrics: Metrics,
        max_calls: int = 256,
        batch_calls: int = 8,
    ) -> None:
        self._ingestor = ingestor
        self._metrics = metrics
        self._tasks = tasks
        self._max_calls = max_calls
        self._batch_calls = batch_calls
        self._pending: list[tuple[ToolCall, str, str, float]] = []  # call, scope, key, when queued
        self._writing: list[tuple[ToolCall, str, str]] = []  # the batch being written now
        self._running = False
        self._room = asyncio.Condition()

    def __len__(self) -> int:
        return len(self._pending) + len(self._writing)

    async def submit(self, call: ToolCall, scope: str, key: str) -> bool:
        """Queue ``call``'s results under ``scope``; False when it was not queued (no user, queue full)."""
        if len(self._pending) >= self._max_calls:
            if scope == ANONYMOUS_SCOPE:
                self._metrics.ingest_refused.labels("no_user").inc()
                return False
            self._metrics.ingest_refused.labels("waited").inc()
            async with self._room:
                await self._room.wait_for(lambda: len(self._pending) < self._max_calls)
        self._pending.append((call, scope, key, time.monotonic()))
        self._metrics.ingest_queue.set(len(self))
        if not self._running:
            self._running = True
            self._tasks.spawn(self._run(), name="live-ingest")
        return True

    async def _run(self) -> None:
        try:
            await asyncio.sleep(0)  # let the response that queued this go out first
            while self._pending:
                taken = self._pending[: self._batch_calls]
                del self._pending[: self._batch_calls]
                async with self._room:
                    self._room.notify_all()
                now = time.monotonic()
                for *_, queued in taken:
                    self._metrics.ingest_wait_seconds.observe(now - queued)
                self._metrics.ingest_batch_calls.observe(len(taken))
                batch = [(call, scope, key) for call, scope, key, _ in taken]
                self._writing = batch
                try:
                    counts = await self._ingestor.ingest_many(batch)
                    for how in ("added", "updated", "skipped"):
                        self._metrics.ingested.labels(how).inc(getattr(counts, how))
                except Exception as exc:
                    self._tasks.record_failure(f"ingesting {len(batch)} tool calls", exc)
                finally:
                    self._writing = []
                    self._metrics.ingest_queue.set(len(self))
        finally:
            self._running = False

    def unwritten(self, scope: str) -> list[ToolCall]:
        """``scope``'s calls queued or being written now, oldest first: what a recall reads besides the
        index, so that it never says nothing was found while the queue lags behind."""
        queued = [(call, s) for call, s, _, _ in self._pending]
        return [call for call, s in (*((c, s) for c, s, _ in self._writing), *queued) if s == scope]


class ToolService:
    """Tool calls for users: answered from the index when fresh, else from the provider, then ingested.

    Identical calls (same provider, tool and canonical parameters) share one provider call, whoever
    makes them, while it is in flight and for ``share_seconds`` after its answer: the provider's answer
    does not depend on the user. Each caller's results are still ingested under its own scope. A failure
    is shared like a result while in flight, and a caller that gives up (is cancelled) does not cancel
    the call for the others (rag.live.share).

    A call without a user id is stored under ``ANONYMOUS_SCOPE``, which no search and no recall reads:
    its results answer only the same anonymous request again while they are fresh (and the
    refresh-popular job renews them like any user's), never another user's question.
    """

    def __init__(
        self,
        runner: ToolRunner,
        ingestor: LiveIngestor,
        tasks: BackgroundTasks,
        settings: LiveSettings,
        metrics: Metrics | None = None,
        popular: PopularCalls | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        """``clock``: monotonic seconds, how long a shared answer has been kept (tests pass their own)."""
        self.popular = popular
        self.runner = runner
        self.ingestor = ingestor
        self.tasks = tasks
        self.metrics = metrics or Metrics()
        self.queue = IngestQueue(ingestor, tasks, self.metrics, settings.queue_max_calls)
        self._settings = settings
        self.provider_calls = 0
        self.index_answers = 0
        self.shared = SharedCalls(settings.share_seconds, clock=clock)

    async def call(
        self,
        name: str,
        raw: Any,
        user_id: str | None = None,
        *,
        strict: bool = False,
        today: dt.date | None = None,
        started: asyncio.Event | None = None,
    ) -> ToolOutcome:
        """One tool call for ``user_id``; ``strict`` validates ``raw`` as client JSON (no type coercion);
        ``today`` is the traveller's date, which dates are checked against; ``started`` is set when the
        provider is asked (or a call in flight joined), so a caller that gives up can say which it was."""
        try:
            outcome = await self._call(name, raw, user_id, strict, today, started)
        except WayfarerError as exc:
            self.metrics.tool_calls.labels(name if name in self.ingestor.tools else "unknown", exc.code).inc()
            raise
        # A provider call shared by several callers counts once as "provider", then "shared" for the others.
        source = "index" if outcome.from_index else "shared" if outcome.shared else "provider"
        self.metrics.tool_calls.labels(name, source).inc()
        if self.popular is not None:
            params = outcome.call.params.model_dump(mode="json", exclude_none=True)
            await self.popular.record(name, params, user_id or ANONYMOUS_SCOPE)
        if outcome.from_index:
            self.metrics.cache_hits.labels(name).inc()
        elif not outcome.shared:
            self.metrics.tool_seconds.labels(name).observe(outcome.call.elapsed_ms / 1000)
        return outcome

    async def _call(
        self,
        name: str,
        raw: Any,
        user_id: str | None,
        strict: bool,
        today: dt.date | None,
        started: asyncio.Event | None = None,
    ) -> ToolOutcome:
        params = self.runner.validate(name, raw, strict=strict, today=today)
        scope = user_id or ANONYMOUS_SCOPE
        key = request_key(scope, name, params)
        provider = self.runner.provider(name)
        if self._settings.cache:
            cached = await self.ingestor.cached(key)
            if cached is not None:
                self.index_answers += 1
                return ToolOutcome(
                    ToolCall(name, provider.name, provider.sandbox, params, cached, 0.0), True, 0
                )
        if started is not None:
            started.set()
        call, shared = await self._provider_call(name, params)
        ingesting = 0
        if self._settings.ingest and call.results and await self.queue.submit(call, scope, key):
            ingesting = min(self._settings.top_n, len(call.results))
        return ToolOutcome(call, False, ingesting, shared)

    async def _provider_call(self, name: str, params: ToolParams) -> tuple[ToolCall, bool]:
        """The provider's answer, with its third-party text sanitized; shared by identical calls in flight
        or just answered (then True: this caller joined a call another had made; rag.live.share)."""
        provider = self.runner.provider(name)
        # The same canonical form as stored requests, for any user, and for this provider only.
        key = f"{provider.name}:{int(provider.sandbox)}:{request_key('*', name, params)}"
        return await self.shared.call(key, lambda: self._fetch(name, params))

    async def _fetch(self, name: str, params: ToolParams) -> ToolCall:
        call = await self.runner.call(name, params)
        self.provider_calls += 1
        limit = self._settings.max_text_chars
        return replace(call, results=[clean_result(r, limit) for r in call.results])

    async def refresh(self, name: str, raw: Any, scopes: list[str]) -> int:
        """Call ``name`` once and write its results afresh for each scope (renewing their freshness)."""
        params = self.runner.validate(name, raw)
        call, _ = await self._provider_call(name, params)
        self.metrics.tool_calls.labels(name, "refresh").inc()
        if not call.results:
            return 0
        items = [(call, scope, request_key(scope, name, params)) for scope in scopes]
        counts = await self.ingestor.ingest_many(items, rewrite=True)
        return counts.added + counts.updated

    async def recall_shown(
        self,
        user_id: str,
        kinds: Sequence[str],
        identities: Sequence[str],
        *,
        about: RecallFocus | None = None,
        limit: int = 5,
    ) -> list[Hit]:
        """The results a search showed ``user_id`` (their identities, in the order shown), still fresh;
        when none of them is (none given, or an older conversation kept none), this user's latest
        results of ``kinds`` about ``about``."""
        unwritten = self.queue.unwritten(user_id)
        hits = await self.ingestor.shown(user_id, kinds, identities, unwritten=unwritten)
        if hits:
            return hits[:limit]
        return await self.ingestor.recall(user_id, list(kinds), limit, False, about, unwritten=unwritten)

    async def recall(
        self, message: str, user_id: str | None, limit: int = 5, *, about: RecallFocus | None = None
    ) -> list[Hit] | None:
        """This user's earlier results that a "what did you find" message asks about, or None when it
        asks about none. ``about``: the places and days the message names (the chat reads them), which
        each result's own must match. Without a user id there is nothing to recall: the results of
        anonymous calls are no one's."""
        request = recall_request(message, self.ingestor.tools)
        if request is None:
            return None
        if user_id is None:
            return []
        kinds, cheapest = request
        # Results still in the ingestion queue are read as they are, however long the queue: a recall
        # right after a search sees what it found under any load.
        unwritten = self.queue.unwritten(user_id)
        return await self.ingestor.recall(user_id, kinds or None, limit, cheapest, about, unwritten=unwritten)
