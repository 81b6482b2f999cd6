"""create_app(settings): the service, its resources owned by cleanup contexts."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Callable

from aiohttp import web

from connectors.factory import open_tools
from rag.background import BackgroundTasks
from rag.chat.admission import Admission
from rag.chat.answers import AnswerBook
from rag.chat.generate import LLMWriter
from rag.chat.service import ChatService
from rag.chat.sessions import SessionStore
from rag.embedding.factory import (
    create_embedder,
    create_live_embedder,
    create_query_embedder,
    create_sparse_encoder,
)
from rag.errors import JobRunningError
from rag.ingest.pipeline import Ingestor
from rag.ingest.uploads import DocumentJobs
from rag.jobs.factory import create_jobs
from rag.jobs.names import SEED_SYNC
from rag.kv.base import KVStore
from rag.kv.factory import create_kv
from rag.limits.callers import CallerLimits, Rate
from rag.live.ingest import LiveIngestor
from rag.live.popular import PopularCalls
from rag.live.service import ToolService
from rag.observability.metrics import Metrics
from rag.retrieval.service import Retriever
from rag.routing.factory import build_router
from rag.settings import Settings
from rag.store.factory import create_store
from rag.store.switch import SwitchableStore
from rag.tools.catalog import ToolCatalogue
from rag.web import keys
from rag.web.chat import routes as chat_routes
from rag.web.middleware import error_middleware, json_protocol_errors, metrics_middleware
from rag.web.openapi import routes as openapi_routes
from rag.web.page import routes as page_routes
from rag.web.routes import routes
from rag.web.startup import Startup, tracked

logger = logging.getLogger(__name__)


async def kv_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    settings = app[keys.SETTINGS]
    kv = create_kv(settings)
    app[keys.LIMITS] = caller_limits(settings, kv, app[keys.CLOCK], app[keys.METRICS].rate_limited.inc)
    await kv.open()
    app[keys.KV] = kv
    try:
        yield
    finally:  # also when a later step of this one fails: its thread would keep the process alive
        await kv.close()


def caller_limits(
    settings: Settings, kv: KVStore, clock: Callable[[], float], on_refused: Callable[[], object]
) -> CallerLimits:
    """The rate limits of chat messages, route requests and tool calls; per address too unless a chat
    secret proves each user id (rag.limits.callers)."""
    s = settings.server
    return CallerLimits(
        kv,
        {
            "chat": Rate(s.chat_rate_limit, s.chat_rate_window_seconds, "messages"),
            "route": Rate(s.route_rate_limit, s.route_rate_window_seconds, "route requests"),
            "tools": Rate(s.tool_rate_limit, s.tool_rate_window_seconds, "tool calls"),
        },
        address_multiple=s.address_limit_multiple if settings.chat_secret is None else 0,
        clock=clock,
        on_refused=on_refused,
    )


async def model_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    settings = app[keys.SETTINGS]
    vectors = app[keys.METRICS].live_vectors
    async with contextlib.AsyncExitStack() as opened:  # closes what opened when a later step fails
        embedder = await create_embedder(settings)
        opened.push_async_callback(embedder.close)
        app[keys.EMBEDDER] = embedder
        query = await create_query_embedder(settings, embedder)
        if query is not embedder:
            opened.push_async_callback(query.close)
        app[keys.QUERY_EMBEDDER] = query
        # Tool results are short sentences: a background copy of the one-thread int8 ONNX model writes
        # them (torch would take both cores), each text once, and never ahead of a query.
        app[keys.LIVE_EMBEDDER], own = await create_live_embedder(
            settings, embedder, query, app[keys.KV], lambda how, n: vectors.labels(how).inc(n)
        )
        if own is not None:
            opened.push_async_callback(own.close)
        app[keys.SPARSE] = create_sparse_encoder(settings)
        yield


async def store_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    settings = app[keys.SETTINGS]
    store = SwitchableStore(create_store(settings, app[keys.EMBEDDER].dimension), settings.index.collection)
    await store.open()
    app[keys.STORE] = store
    try:
        yield
    finally:
        await store.close()


async def tools_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    async with open_tools(app[keys.SETTINGS], app[keys.CATALOGUE].params_models()) as session:
        app[keys.TOOLS] = session
        yield


async def llm_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    """An OpenAI-compatible client when WAYFARER_LLM__BASE_URL is set."""
    llm = app[keys.SETTINGS].llm
    if not llm.base_url:
        yield
        return
    from openai import AsyncOpenAI

    client = AsyncOpenAI(
        base_url=llm.base_url,
        api_key=llm.api_key.get_secret_value() if llm.api_key else "unused",
        timeout=llm.timeout_seconds,
        max_retries=0,
    )
    app[keys.LLM] = client
    yield
    await client.close()


async def router_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    app[keys.ROUTER] = await build_router(
        app[keys.SETTINGS],
        app[keys.QUERY_EMBEDDER],
        app[keys.TOOLS].tools.catalogue,
        app[keys.CATALOGUE],
        app.get(keys.LLM),
    )
    yield


async def services_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    settings = app[keys.SETTINGS]
    ingestor = Ingestor(
        app[keys.STORE],
        app[keys.EMBEDDER],
        app[keys.SPARSE],
        app[keys.KV],
        max_tokens=settings.index.chunk_tokens,
        overlap=settings.index.chunk_overlap,
    )
    app[keys.INGESTOR] = ingestor
    app[keys.RETRIEVER] = Retriever.from_settings(
        app[keys.STORE], app[keys.QUERY_EMBEDDER], app[keys.SPARSE], settings.index
    )
    yield


async def live_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    """Cache-aware tool calls whose results are ingested by tracked background tasks."""
    settings = app[keys.SETTINGS]
    metrics = app[keys.METRICS]
    tasks = BackgroundTasks(on_failure=metrics.ingest_failures.inc)
    tools = app[keys.TOOLS].tools
    ingestor = LiveIngestor(
        app[keys.STORE],
        app[keys.LIVE_EMBEDDER],
        app[keys.SPARSE],
        app[keys.KV],
        tools.catalogue,
        app[keys.CATALOGUE],
        settings.live,
    )
    app[keys.TASKS] = tasks
    app[keys.DOCUMENT_JOBS] = DocumentJobs(app[keys.INGESTOR], app[keys.KV], tasks)
    await app[keys.DOCUMENT_JOBS].recover()
    popular = (
        PopularCalls(app[keys.KV], settings.scheduler.refresh_window_hours * 3600)
        if settings.scheduler.refresh_popular
        else None
    )
    app[keys.TOOL_SERVICE] = ToolService(tools, ingestor, tasks, settings.live, metrics, popular)
    app[keys.CHAT] = ChatService(
        SessionStore(app[keys.KV]),
        app[keys.ROUTER],
        app[keys.RETRIEVER],
        app[keys.TOOL_SERVICE],
        max_message_chars=settings.limits.max_message_chars,
        timezone=settings.timezone,
        today=settings.today if settings.fixed_today else None,
        writer=(
            LLMWriter(
                app[keys.LLM],
                settings.llm.model,
                today=settings.today,
                timeout=settings.llm.timeout_seconds,
                max_tokens=settings.llm.answer_max_tokens,
            )
            if keys.LLM in app and settings.llm.model
            else None
        ),
        limits=app[keys.LIMITS],
        metrics=metrics,
        deadline_seconds=settings.limits.chat_deadline_seconds,
        admission=Admission(
            settings.limits.admission_slots,
            settings.limits.admission_wait_seconds,
            on_refused=metrics.overloaded.inc,
        ),
    )
    app[keys.ANSWERS] = AnswerBook()
    yield
    await app[keys.ANSWERS].close()  # answers being written stop first: they use the tools' tasks
    await tasks.close(settings.live.shutdown_grace_seconds)


async def jobs_ctx(app: web.Application) -> AsyncGenerator[None, None]:
    """The re-indexing jobs, and their scheduler unless WAYFARER_SCHEDULER__ENABLED=false."""
    settings = app[keys.SETTINGS]
    jobs = create_jobs(
        settings,
        kv=app[keys.KV],
        store=app[keys.STORE],
        ingestor=app[keys.INGESTOR],
        embedder=app[keys.EMBEDDER],
        sparse=app[keys.SPARSE],
        tools=app[keys.TOOL_SERVICE],
        metrics=app[keys.METRICS],
        seed_progress=app[keys.STARTUP].seeded if keys.STARTUP in app else None,
    )
    app[keys.JOBS] = jobs
    if settings.index.seed_on_start:  # under seed-sync's lock: replicas starting together seed once
        try:
            await jobs.run(SEED_SYNC)  # it logs what it did
        except JobRunningError:
            logger.info("seed corpus: another replica is syncing it")
    if settings.scheduler.enabled:
        jobs.start()
    yield
    await jobs.stop()


# Start-up steps, in order, as /readyz names them while the service loads.
STEPS = (
    ("key-value store", kv_ctx),
    ("travel tools", tools_ctx),
    ("LLM client", llm_ctx),
    ("embedding model", model_ctx),
    ("router", router_ctx),
    ("index", store_ctx),
    ("services", services_ctx),
    ("live tools", live_ctx),
    ("seed corpus", jobs_ctx),
)


def create_app(
    settings: Settings,
    startup: Startup | None = None,
    tools: ToolCatalogue | None = None,
    *,
    clock: Callable[[], float] = time.time,
) -> web.Application:
    """The service. ``startup`` records its start-up steps as they run (``wayfarer serve`` answers
    /readyz with them while loading); ``tools``: the tool catalogue (the built-in tools by default; a
    caller adds tools of its own with ``ToolCatalogue.builtin(spec, ...)``); ``clock``: the wall clock
    the rate limits count by."""
    json_protocol_errors()
    app = web.Application(
        middlewares=[metrics_middleware, error_middleware], client_max_size=settings.limits.max_body_bytes
    )
    app[keys.SETTINGS] = settings
    app[keys.METRICS] = Metrics()
    app[keys.CLOCK] = clock
    app[keys.CATALOGUE] = tools or ToolCatalogue.builtin()
    if startup is not None:
        app[keys.STARTUP] = startup
    app.cleanup_ctx.extend(tracked(startup or Startup(), list(STEPS)))
    app.add_routes(routes)
    app.add_routes(chat_routes)
    app.add_routes(page_routes)
    app.add_routes(openapi_routes)
    return app
