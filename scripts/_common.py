"""Shared by the scripts: build the service's own components from settings, outside the web app."""

from __future__ import annotations

import contextlib
import resource
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.embedding.base import SparseEncoder
from rag.embedding.factory import create_embedder, create_query_embedder, create_sparse_encoder
from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.ingest.pipeline import Ingestor
from rag.kv.base import KVStore
from rag.kv.factory import create_kv
from rag.retrieval.service import Retriever
from rag.settings import ServerSettings, Settings
from rag.store.base import VectorStore
from rag.store.factory import create_store


@dataclass
class Parts:
    settings: Settings
    kv: KVStore
    embedder: SentenceTransformerEmbedder
    sparse: SparseEncoder
    store: VectorStore
    ingestor: Ingestor
    retriever: Retriever


@contextlib.asynccontextmanager
async def open_parts(data_dir: Path, collection: str | None = None) -> AsyncIterator[Parts]:
    settings = Settings(server=ServerSettings(data_dir=data_dir))
    kv = create_kv(settings)
    await kv.open()
    embedder = await create_embedder(settings)
    assert isinstance(embedder, SentenceTransformerEmbedder)
    query_embedder = await create_query_embedder(settings, embedder)  # what the service searches with
    store = create_store(settings, embedder.dimension, collection)
    await store.open()
    sparse = create_sparse_encoder(settings)
    ingestor = Ingestor(
        store,
        embedder,
        sparse,
        kv,
        max_tokens=settings.index.chunk_tokens,
        overlap=settings.index.chunk_overlap,
    )
    retriever = Retriever.from_settings(store, query_embedder, sparse, settings.index)
    try:
        yield Parts(settings, kv, embedder, sparse, store, ingestor, retriever)
    finally:
        await store.close()
        if query_embedder is not embedder:
            await query_embedder.close()
        await embedder.close()
        await kv.close()


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mib(part: str = "VmRSS") -> float:
    """This process's resident set now (Linux ``/proc``), where ``peak_rss_mib`` gives its high-water mark.

    ``part``: ``RssAnon`` (heap and other private memory) or ``RssFile`` (mapped files) for one share.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(part + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mib()


# The scripts play many users from this one loopback address, which the per-address rate limit (without
# a chat secret) would take for one client rotating its user ids: off unless a script sets it.
ONE_ADDRESS = {"WAYFARER_SERVER__ADDRESS_LIMIT_MULTIPLE": "0"}


@contextlib.asynccontextmanager
async def serve_in_process(env: dict[str, str]) -> AsyncIterator[tuple[str, Any]]:
    """The service on a loopback port in this process, with extra settings (and ONE_ADDRESS); yields
    (base URL, app)."""
    import os
    import tempfile

    from aiohttp import web

    from rag.web.app import create_app

    env = {**ONE_ADDRESS, **env}
    saved = {k: os.environ.get(k) for k in env}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update({"WAYFARER_SERVER__DATA_DIR": tmp, **env})
        try:
            app = create_app(Settings())
            runner = web.AppRunner(app)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            try:
                yield f"http://127.0.0.1:{port}", app
            finally:
                await runner.cleanup()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


# Evaluations send many requests as few callers: the per-caller rate limits would refuse them, and
# refusals are not what an evaluation measures. A benchmark of the defaults (bench_soak) keeps them.
NO_RATE_LIMITS = {
    "WAYFARER_SERVER__CHAT_RATE_LIMIT": "0",
    "WAYFARER_SERVER__ROUTE_RATE_LIMIT": "0",
    "WAYFARER_SERVER__TOOL_RATE_LIMIT": "0",
}


async def wait_ready(base: str, within: float = 3600) -> None:
    """Until ``base``/readyz says 200 (the index seeded), or SystemExit after ``within`` seconds."""
    import asyncio
    import time

    import aiohttp

    deadline = time.monotonic() + within
    async with aiohttp.ClientSession() as session:
        while True:
            try:
                async with session.get(f"{base}/readyz") as resp:
                    if resp.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"the service at {base} did not get ready in {within:.0f} s")
            await asyncio.sleep(1)


@contextlib.asynccontextmanager
async def seeded_service(cache: Path, env: dict[str, str]) -> AsyncIterator[str]:
    """The service in this process with ``env``, ready, on a private copy of a data directory seeded
    once and kept in ``cache``; yields its base URL."""
    import shutil
    import sys
    import tempfile
    import time

    template = cache / "data"
    if not (cache / "seeded").exists():
        print(f"seeding {template} (first run only)", file=sys.stderr, flush=True)
        template.mkdir(parents=True, exist_ok=True)
        async with serve_in_process({**env, "WAYFARER_SERVER__DATA_DIR": str(template)}) as (url, _):
            await wait_ready(url)
        (cache / "seeded").write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(template, data)
        async with serve_in_process({**env, "WAYFARER_SERVER__DATA_DIR": str(data)}) as (url, _):
            await wait_ready(url)
            yield url
