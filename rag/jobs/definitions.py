"""The jobs themselves. Each is idempotent and safe to interrupt: a rerun finishes the work."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rag.errors import ToolValidationError, WayfarerError
from rag.ingest.pipeline import Ingestor
from rag.ingest.progress import IngestProgress
from rag.ingest.seeding import load_corpus, seed_directory
from rag.kv.base import KVStore
from rag.live.ingest import request_key
from rag.live.popular import PopularCalls
from rag.live.service import ToolService
from rag.settings import SchedulerSettings
from rag.store.base import Filter, VectorStore

logger = logging.getLogger(__name__)

LOG_EVERY_SECONDS = 2.0


async def seed_sync(
    ingestor: Ingestor, seed_dir: Path, report: Callable[[IngestProgress], None] | None = None
) -> dict[str, Any]:
    """Re-ingest changed seed documents (by content hash), delete removed ones, skip the rest.

    Unchanged documents cost one KV read each and no embedding. A document is recorded only after all
    its chunks are written, so a killed run is finished by the next. Progress goes to ``report`` as it
    happens, and to the log while documents are written, at most every LOG_EVERY_SECONDS ("seed corpus:
    12/41 documents, 130 chunks embedded, about 40 s left"); unchanged documents are one line at the end.
    """
    docs = await asyncio.to_thread(load_corpus, seed_dir)
    last_logged = time.monotonic()

    def changed(p: IngestProgress) -> None:
        nonlocal last_logged
        if report is not None:
            report(p)
        now = time.monotonic()
        if p.done > p.skipped and p.done < p.total and now - last_logged >= LOG_EVERY_SECONDS:
            logger.info("seed corpus: %s", p.describe())
            last_logged = now

    progress = IngestProgress(len(docs), changed)
    if report is not None:
        report(progress)
    counts = await seed_directory(ingestor, seed_dir, progress, docs)
    logger.info(
        "seed corpus: %d documents added, %d updated, %d unchanged, %d deleted (%d chunks embedded)",
        counts.added,
        counts.updated,
        counts.skipped,
        counts.deleted,
        counts.chunks,
    )
    return counts.as_dict()


async def purge_expired(
    store: VectorStore, kv: KVStore, settings: SchedulerSettings, now: float | None = None
) -> dict[str, Any]:
    """Delete live points past ``valid_until`` and their KV entries, a bounded batch at a time.

    Each batch drops the KV entries first, then the points: killed in between, the points are still
    expired (never searched) and the next run deletes them.
    """
    now = time.time() if now is None else now
    expired = Filter(equals={"source": "live"}, expired_at=now)
    deleted = batches = 0
    while batches < settings.purge_max_batches:
        hits, _ = await store.scroll(expired, settings.purge_batch)
        if not hits:
            break
        for h in hits:
            await kv.delete(f"live:{h.payload.get('user_scope', '*')}:{h.payload.get('identity', '')}")
        await store.delete([h.id for h in hits])
        deleted += len(hits)
        batches += 1
    remaining = await store.count(expired) if batches == settings.purge_max_batches else 0
    return {"deleted": deleted, "batches": batches, "remaining": remaining}


async def refresh_popular(
    tools: ToolService, popular: PopularCalls, kv: KVStore, settings: SchedulerSettings
) -> dict[str, Any]:
    """Re-run the most requested recent tool calls whose results expire soon, within a call budget."""
    now = time.time()
    ahead = settings.refresh_ahead_minutes * 60
    counts = {"considered": 0, "refreshed": 0, "written": 0, "fresh": 0, "failed": 0, "calls": 0}
    for entry in await popular.most_requested():
        if counts["calls"] >= settings.refresh_budget:
            break
        counts["considered"] += 1
        try:
            params = tools.runner.validate(entry.tool, entry.params)
        except ToolValidationError:  # e.g. the dates are past now: nothing to refresh
            continue
        due = []
        for scope in entry.scopes:
            raw = await kv.get(request_key(scope, entry.tool, params))
            valid_until = float(json.loads(raw).get("valid_until", 0)) if raw else 0.0
            if valid_until - ahead < now:
                due.append(scope)
        if not due:
            counts["fresh"] += 1
            continue
        counts["calls"] += 1
        try:
            counts["written"] += await tools.refresh(entry.tool, entry.params, due)
            counts["refreshed"] += 1
        except WayfarerError as exc:
            counts["failed"] += 1
            logger.warning("refreshing %s failed: %s", entry.tool, exc.message)
    return counts
