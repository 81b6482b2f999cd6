"""The service's jobs, wired to its resources."""

from __future__ import annotations

import functools
from collections.abc import Callable

from rag.embedding.base import Embedder, SparseEncoder
from rag.ingest.pipeline import Ingestor
from rag.ingest.progress import IngestProgress
from rag.jobs import definitions
from rag.jobs.names import PURGE_EXPIRED, REBUILD, REFRESH_POPULAR, SEED_SYNC
from rag.jobs.rebuild import rebuild
from rag.jobs.runner import Job, JobRunner
from rag.kv.base import KVStore
from rag.live.popular import PopularCalls
from rag.live.service import ToolService
from rag.observability.metrics import Metrics
from rag.settings import Settings
from rag.store.base import VectorStore, generation_name
from rag.store.factory import create_store
from rag.store.switch import SwitchableStore


def create_jobs(
    settings: Settings,
    *,
    kv: KVStore,
    store: SwitchableStore,
    ingestor: Ingestor,
    embedder: Embedder,
    sparse: SparseEncoder,
    tools: ToolService,
    metrics: Metrics,
    seed_progress: Callable[[IngestProgress], None] | None = None,
) -> JobRunner:
    s = settings.scheduler
    popular = tools.popular or PopularCalls(kv, s.refresh_window_hours * 3600)

    def new_generation() -> VectorStore:
        name = generation_name(settings.index.collection)
        return create_store(settings, embedder.dimension, name, generation=True)

    jobs = [
        Job(
            SEED_SYNC,
            functools.partial(definitions.seed_sync, ingestor, settings.index.seed_dir, seed_progress),
            s.seed_sync_minutes,
        ),
        Job(
            PURGE_EXPIRED, functools.partial(definitions.purge_expired, store, kv, s), s.purge_expired_minutes
        ),
        Job(
            REFRESH_POPULAR,
            functools.partial(definitions.refresh_popular, tools, popular, kv, s),
            s.refresh_popular_minutes,
            enabled=s.refresh_popular,
        ),
        Job(
            REBUILD,
            functools.partial(rebuild, store, new_generation, embedder, sparse, s.rebuild_batch),
            None,
            locks=(SEED_SYNC,),
        ),
    ]
    return JobRunner(kv, jobs, s.lock_ttl_seconds, metrics)
