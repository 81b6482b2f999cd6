"""Shared fixtures: the real packaged model, real embedded Qdrant, real SQLite, real Redis.

Two kinds of app fixture. ``client`` and ``llm_chat`` build a fresh app for each test (a test may change
it). ``shared_client`` and ``shared_tools_client`` build one app per test module, for tests that leave it
as they found it (their own user ids, nothing left in the index): the app's start-up (model, index,
seeding) is most of a test's time. A module-scoped app lives on a module-scoped event loop, so a module
that uses one sets ``pytestmark = pytest.mark.asyncio(loop_scope="module")``; collection fails with a
clear message if it does not. ``serve`` starts any other app on that loop, for a test that needs its own.
"""

from __future__ import annotations

import ctypes
import gc
import os
import shutil
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp import web, web_app
from aiohttp.test_utils import TestClient, TestServer

from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.settings import SEED_DIR, EmbeddingSettings, Settings

REPO = Path(__file__).resolve().parent.parent

# A small slice of the real seed corpus, for tests that need a seeded service but not all of it.
SMALL_SEED = ["guides/paris.md", "guides/tokyo.md", "guides/lisbon.md", "topics/packing-by-climate.md"]
ADMIN_TOKEN = "s3cret"
# What ``client`` and ``shared_client`` run with besides their seed corpus.
CLIENT_ENV = {
    "WAYFARER_ADMIN_TOKEN": ADMIN_TOKEN,
    "WAYFARER_LIMITS__MAX_BODY_BYTES": str(8 * 1024 * 1024),
}
SHARED_FIXTURES = {"shared_client", "shared_tools_client"}
# What every app a test builds runs with unless the test says otherwise: tests play many users from one
# loopback address, which the per-address rate limit would take for one client rotating its user ids.
# The tests of that limit (test_caller_limits.py) set it themselves.
TEST_ENV = {"WAYFARER_SERVER__ADDRESS_LIMIT_MULTIPLE": "0"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse a test that uses a module's shared app from a loop of its own: it would fail obscurely."""
    for item in items:
        used = SHARED_FIXTURES & set(getattr(item, "fixturenames", ()))
        marker = item.get_closest_marker("asyncio")
        if used and (marker is None or marker.kwargs.get("loop_scope") != "module"):
            raise pytest.UsageError(
                f"{item.nodeid} uses {', '.join(sorted(used))}, one app for the module: mark the module "
                'with pytestmark = pytest.mark.asyncio(loop_scope="module")'
            )


@pytest.fixture(autouse=True)
def _release_finished_apps() -> Iterator[None]:
    """Give back the memory of the apps a test built once it is over.

    aiohttp keeps the middleware chain it built for each (handler, apps) pair in a module-level LRU
    cache of 1,024 entries, so every app that answered a request stayed alive with its query model
    (about 180 MiB each) and the suite's process grew to gigabytes. One service runs one app, so only
    tests see this. After the cache is cleared, glibc is asked to return the freed arenas.
    """
    yield
    cache = getattr(web_app, "_cached_build_middleware", None)
    if cache is None or not cache.cache_info().currsize:
        return
    cache.cache_clear()
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to trim
        return None
    return libc if hasattr(libc, "malloc_trim") else None


_LIBC = _libc()


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


def copy_seed(root: Path, paths: Sequence[str] = SMALL_SEED) -> Path:
    """A private copy of some of the real seed corpus at ``root``: a test may edit or delete its files."""
    for rel in paths:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SEED_DIR / rel, root / rel)
    return root


@pytest.fixture
def small_seed(tmp_path: Path) -> Path:
    return copy_seed(tmp_path / "seed")


def env_settings(tmp: Path, **env: str) -> Settings:
    """Settings as the service reads them (WAYFARER_ variables, no stray .env, TEST_ENV), with a private
    data dir under ``tmp``; the environment is restored at once, so the app may outlive the test
    (``make_settings`` keeps it changed until the test ends)."""
    with pytest.MonkeyPatch.context() as mp:
        for key in list(os.environ):
            if key.startswith("WAYFARER_") and key != "WAYFARER_TEST_REDIS_URL":
                mp.delenv(key)
        mp.chdir(tmp)
        mp.setenv("WAYFARER_SERVER__DATA_DIR", str(tmp / "data"))
        for key, value in {**TEST_ENV, **env}.items():
            mp.setenv(key, value)
        return Settings()


@asynccontextmanager
async def serve(settings: Settings) -> AsyncIterator[TestClient]:
    """The real app (cleanup contexts included) on a real port until the block ends."""
    from rag.web.app import create_app

    async with TestClient(TestServer(create_app(settings))) as client:
        yield client


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    """As ``client`` (seeded with a few real documents, the admin token), one app for the module."""
    tmp = tmp_path_factory.mktemp("shared")
    settings = env_settings(tmp, WAYFARER_INDEX__SEED_DIR=str(copy_seed(tmp / "seed")), **CLIENT_ENV)
    async with serve(settings) as client:
        yield client


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_tools_client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    """The real app with the sandbox and no documents (nothing seeded), one for the module."""
    tmp = tmp_path_factory.mktemp("shared-tools")
    async with serve(env_settings(tmp, WAYFARER_INDEX__SEED_ON_START="false")) as client:
        yield client


@pytest.fixture
def make_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Settings]:
    """Settings as the service reads them: from WAYFARER_ variables (and TEST_ENV), with a private data
    dir."""
    for key in list(os.environ):
        if key.startswith("WAYFARER_") and key != "WAYFARER_TEST_REDIS_URL":
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)  # no stray .env

    def make(**env: str) -> Settings:
        monkeypatch.setenv("WAYFARER_SERVER__DATA_DIR", str(tmp_path / "data"))
        for key, value in {**TEST_ENV, **env}.items():
            monkeypatch.setenv(key, value)
        return Settings()

    return make


@pytest.fixture
async def client(aiohttp_client, make_settings, small_seed):  # type: ignore[no-untyped-def]
    """The real app (cleanup contexts included) on a real port, seeded with a few real documents."""
    from rag.web.app import create_app

    settings = make_settings(WAYFARER_INDEX__SEED_DIR=str(small_seed), **CLIENT_ENV)
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
