"""Typed application keys for every long-lived resource."""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web
from openai import AsyncOpenAI

from connectors.factory import ToolSession
from rag.background import BackgroundTasks
from rag.chat.answers import AnswerBook
from rag.chat.service import ChatService
from rag.embedding.base import Embedder, SparseEncoder
from rag.ingest.pipeline import Ingestor
from rag.ingest.uploads import DocumentJobs
from rag.jobs.runner import JobRunner
from rag.kv.base import KVStore
from rag.limits.callers import CallerLimits
from rag.live.service import ToolService
from rag.observability.metrics import Metrics
from rag.retrieval.service import Retriever
from rag.routing.router import Router
from rag.settings import Settings
from rag.store.switch import SwitchableStore
from rag.tools.catalog import ToolCatalogue
from rag.web.startup import Startup

SETTINGS = web.AppKey("settings", Settings)
KV = web.AppKey("kv", KVStore)
EMBEDDER = web.AppKey("embedder", Embedder)
QUERY_EMBEDDER = web.AppKey("query_embedder", Embedder)
LIVE_EMBEDDER = web.AppKey("live_embedder", Embedder)  # writes tool results
SPARSE = web.AppKey("sparse", SparseEncoder)
STORE = web.AppKey("store", SwitchableStore)
INGESTOR = web.AppKey("ingestor", Ingestor)
RETRIEVER = web.AppKey("retriever", Retriever)
CATALOGUE = web.AppKey("catalogue", ToolCatalogue)  # the tools' declarations
TOOLS = web.AppKey("tools", ToolSession)  # their runner and providers
LLM = web.AppKey("llm", AsyncOpenAI)
ROUTER = web.AppKey("router", Router)
TASKS = web.AppKey("tasks", BackgroundTasks)
TOOL_SERVICE = web.AppKey("tool_service", ToolService)
CHAT = web.AppKey("chat", ChatService)
ANSWERS = web.AppKey("answers", AnswerBook)
METRICS = web.AppKey("metrics", Metrics)
JOBS = web.AppKey("jobs", JobRunner)
DOCUMENT_JOBS = web.AppKey("document_jobs", DocumentJobs)
STARTUP = web.AppKey("startup", Startup)
LIMITS = web.AppKey("limits", CallerLimits)  # the rate limits of chat, route and tool calls
# Wall-clock seconds the rate limits count by (time.time; tests hand create_app their own).
CLOCK = web.AppKey[Callable[[], float]]("clock")
