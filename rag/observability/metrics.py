"""Prometheus metrics: one registry per service, handed to the parts that count things."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "wayfarer_http_requests",
            "HTTP requests by route and status",
            ["method", "route", "status"],
            registry=r,
        )
        self.request_seconds = Histogram(
            "wayfarer_http_request_seconds",
            "HTTP request latency",
            ["route"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.chat_messages = Counter(
            "wayfarer_chat_messages",
            "Chat messages by outcome (ok or an error code)",
            ["outcome"],
            registry=r,
        )
        self.unresolved_citations = Counter(
            "wayfarer_chat_unresolved_citations_total",
            "Citations in a model's answer that point at no item of its data",
            registry=r,
        )
        self.chat_first_chunk_seconds = Histogram(
            "wayfarer_chat_first_chunk_seconds",
            "Time to the first streamed chunk",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.chat_complete_seconds = Histogram(
            "wayfarer_chat_complete_seconds",
            "Time to the complete answer",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.tool_calls = Counter(
            "wayfarer_tool_calls",
            "Tool calls by tool and outcome (provider; shared: joined an identical call in flight or just answered; index; or an error code)",
            ["tool", "outcome"],
            registry=r,
        )
        self.tool_seconds = Histogram(
            "wayfarer_tool_call_seconds",
            "Provider call latency",
            ["tool"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.cache_hits = Counter(
            "wayfarer_cache_hits", "Tool calls answered from fresh ingested results", ["tool"], registry=r
        )
        self.ingested = Counter(
            "wayfarer_live_ingested_results",
            "Live results written back into the index (added, updated, skipped)",
            ["how"],
            registry=r,
        )
        self.ingest_queue = Gauge(
            "wayfarer_live_queue_calls",
            "Tool calls waiting to be written to the index, or being written",
            registry=r,
        )
        self.ingest_wait_seconds = Histogram(
            "wayfarer_live_queue_wait_seconds",
            "How long a tool call waited in the queue before its results were written (the lag)",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.ingest_batch_calls = Histogram(
            "wayfarer_live_batch_calls",
            "Tool calls written together in one batch",
            buckets=(1, 2, 4, 8, 16, 32),
            registry=r,
        )
        self.ingest_refused = Counter(
            "wayfarer_live_queue_full",
            "Calls that found the queue full: waited (a user's) or not queued (no user)",
            ["how"],
            registry=r,
        )
        self.live_vectors = Counter(
            "wayfarer_live_vectors",
            "Tool result texts by where their vector came from: cached, shared (KV), embedded",
            ["how"],
            registry=r,
        )
        self.ingest_failures = Counter(
            "wayfarer_background_failures", "Background tasks that failed", registry=r
        )
        self.rate_limited = Counter(
            "wayfarer_rate_limited",
            "Chat messages, route requests and tool calls refused by the rate limits",
            registry=r,
        )
        self.overloaded = Counter(
            "wayfarer_overloaded",
            "Chat messages and route requests refused because no slot would free soon enough",
            registry=r,
        )
        self.job_runs = Counter(
            "wayfarer_job_runs", "Scheduled job runs by job and outcome", ["job", "outcome"], registry=r
        )

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
