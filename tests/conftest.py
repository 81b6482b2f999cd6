"""Shared fixtures: the real packaged model, real embedded Qdrant, real SQLite, real Redis."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from aiohttp import web

from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.settings import SEED_DIR, EmbeddingSettings, Settings

REPO = Path(__file__).resolve().parent.parent

# A small slice of the real seed corpus, for tests that need a seeded service but not all of it.
SMALL_SEED = ["guides/paris.md", "guides/tokyo.md", "guides/lisbon.md", "topics/packing-by-climate.md"]


def redis_url() -> str | None:
    url = os.environ.get("WAYFARER_TEST_REDIS_URL")
    if not url and os.environ.get("CI"):
        pytest.fail("CI must provide a Redis server: set WAYFARER_TEST_REDIS_URL (scripts/test.sh does)")
    return url


@pytest.fixture
async def embedder() -> AsyncIterator[SentenceTransformerEmbedder]:
    emb = await SentenceTransformerEmbedder.load(EmbeddingSettings())
    yield emb
    await emb.close()


@pytest.fixture
def sparse() -> Bm25Encoder:
    return Bm25Encoder()


@pytest.fixture
def small_seed(tmp_path: Path) -> Path:
    root = tmp_path / "seed"
    for rel in SMALL_SEED:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SEED_DIR / rel, root / rel)
    return root


@pytest.fixture
def make_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Settings]:
    """Settings as the service reads them: from WAYFARER_ variables, with a private data dir."""
    for key in list(os.environ):
        if key.startswith("WAYFARER_") and key != "WAYFARER_TEST_REDIS_URL":
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)  # no stray .env

    def make(**env: str) -> Settings:
        monkeypatch.setenv("WAYFARER_SERVER__DATA_DIR", str(tmp_path / "data"))
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        return Settings()

    return make


@pytest.fixture
async def client(aiohttp_client, make_settings, small_seed):  # type: ignore[no-untyped-def]
    """The real app (cleanup contexts included) on a real port, seeded with a few real documents."""
    from rag.web.app import create_app

    settings = make_settings(
        WAYFARER_ADMIN_TOKEN="s3cret",
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_LIMITS__MAX_BODY_BYTES=str(8 * 1024 * 1024),
    )
    app: web.Application = create_app(settings)
    return await aiohttp_client(app)


@pytest.fixture
async def llm_chat(aiohttp_client, aiohttp_server, make_settings, small_seed):  # type: ignore[no-untyped-def]
    """The real app answering through a scripted OpenAI-compatible stub server: (script, client)."""
    from rag.web.app import create_app
    from tests.llm_stub import Script, create_stub

    script = Script()
    server = await aiohttp_server(create_stub(script))
    settings = make_settings(
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_LLM__BASE_URL=str(server.make_url("/v1")),
        WAYFARER_LLM__MODEL="stub",
        WAYFARER_LLM__TIMEOUT_SECONDS="1",
        WAYFARER_ROUTING__LLM_TIMEOUT_SECONDS="1",
    )
    return script, await aiohttp_client(create_app(settings))
