"""A document's identity (issue 24): a user's files never take each other's ids nor the seed corpus's.

Real parts throughout: the packaged model, the embedded index, SQLite, the real app and the real CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient

from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.errors import WayfarerError
from rag.ingest.documents import SourceDocument
from rag.ingest.pipeline import Ingestor
from rag.ingest.seeding import load_files, seed_directory, seed_files
from rag.jobs.definitions import seed_sync
from rag.kv.sqlite import SQLiteKV
from rag.retrieval.service import Retriever
from rag.store.base import Filter, Hit
from rag.store.edge import EdgeStore

ADMIN = {"Authorization": "Bearer s3cret"}
TOKYO = Filter(equals={"document_id": "guides/tokyo"})


@pytest.fixture
async def parts(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, sparse: Bm25Encoder
) -> AsyncIterator[tuple[Ingestor, EdgeStore, Retriever]]:
    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    store = EdgeStore(tmp_path / "index", "docs", embedder.dimension, 60, 40)
    await store.open()
    yield (
        Ingestor(store, embedder, sparse, kv, max_tokens=120, overlap=20),
        store,
        Retriever(store, embedder, sparse),
    )
    await store.close()
    await kv.close()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def top(retriever: Retriever, query: str) -> Hit:
    hits = await retriever.search(query, 1)
    assert hits, query
    return hits[0]


async def test_the_same_file_name_in_two_folders_is_two_documents(parts, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    pa, pb = tmp_path / "pa", tmp_path / "pb"
    write(pa / "notes.md", "The Quoxalind ferry leaves Setubal at dawn.")
    write(pb / "notes.md", "The Drellfast night bus runs from Porto to Braga.")
    first = await seed_files(ingestor, load_files([pa]))
    second = await seed_files(ingestor, load_files([pb]))
    assert (first.added, second.added, second.updated) == (1, 1, 0)
    ferry, bus = await top(retriever, "Quoxalind ferry"), await top(retriever, "Drellfast night bus")
    assert "Quoxalind" in ferry.payload["text"] and "Drellfast" in bus.payload["text"]
    assert ferry.payload["document_id"] != bus.payload["document_id"]
    # Seeding either folder again finds its own document unchanged.
    again = await seed_files(ingestor, load_files([pa, pb]))
    assert (again.added, again.updated, again.skipped) == (0, 0, 2)


async def test_pruning_one_folder_leaves_the_other_folders_file(parts, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    pa, pb = tmp_path / "pa", tmp_path / "pb"
    write(pa / "notes.md", "The Quoxalind ferry leaves Setubal at dawn.")
    write(pb / "notes.md", "The Drellfast night bus runs from Porto to Braga.")
    await seed_files(ingestor, load_files([pa]))
    await seed_files(ingestor, load_files([pb]))
    (pb / "notes.md").unlink()
    pruned = await seed_files(ingestor, load_files([pb]), prune=True)
    assert pruned.deleted == 1
    ferry = await top(retriever, "Quoxalind ferry")
    assert "Quoxalind" in ferry.payload["text"]  # pa/notes.md is still on disk, and still indexed
    assert all("Drellfast" not in h.payload["text"] for h in await retriever.search("Drellfast night bus", 5))
    # pa's own pruning seed keeps it: it is there.
    kept = await seed_files(ingestor, load_files([pa]), prune=True)
    assert (kept.skipped, kept.deleted) == (1, 0)


async def test_a_users_guides_tokyo_neither_replaces_the_built_in_guide_nor_is_synced_over(
    parts, small_seed: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    ingestor, store, retriever = parts
    await seed_directory(ingestor, small_seed)
    guide_chunks = await store.count(TOKYO)
    assert guide_chunks > 1
    mine = tmp_path / "mine"
    write(mine / "guides" / "tokyo.md", "My Tokyo note: the Zorblax ramen stand under the Yurikamome line.")
    seeded = await seed_files(ingestor, load_files([mine]))
    assert (seeded.added, seeded.updated) == (1, 0)
    assert await store.count(TOKYO) == guide_chunks  # the built-in guide is whole
    note = await top(retriever, "Zorblax ramen stand")
    assert "Zorblax" in note.payload["text"] and note.payload["source"] == "files"
    assert note.payload["document_id"] != "guides/tokyo"
    # The seed-sync job (at start and hourly) changes neither the guide nor the user's note.
    synced = await seed_sync(ingestor, small_seed)
    assert (synced["added"], synced["updated"], synced["deleted"]) == (0, 0, 0)
    assert await store.count(TOKYO) == guide_chunks
    hits, _ = await store.scroll(TOKYO, 100)
    assert {h.payload["source"] for h in hits} == {"seed"}
    assert "Zorblax" in (await top(retriever, "Zorblax ramen stand")).payload["text"]


async def test_an_id_the_seed_corpus_holds_is_refused(parts, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A seed folder set elsewhere (WAYFARER_INDEX__SEED_DIR) names its own ids: they are reserved too."""
    ingestor, store, _ = parts
    corpus = tmp_path / "corpus"
    write(corpus / "faq.md", "---\ntitle: FAQ\n---\nThe Vexmoor tram climbs to the castle every ten minutes.")
    await seed_directory(ingestor, corpus)
    before = await store.count(Filter(equals={"document_id": "faq"}))
    with pytest.raises(WayfarerError) as refused:
        await ingestor.ingest([SourceDocument("faq", "Something else entirely.", {"source": "api"})])
    assert refused.value.code == "reserved_document_id"
    hits, _ = await store.scroll(Filter(equals={"document_id": "faq"}), 10)
    assert len(hits) == before and {h.payload["source"] for h in hits} == {"seed"}


async def test_an_explicit_reserved_id_is_refused_over_http(client: TestClient) -> None:
    for doc_id in ("guides/tokyo", "topics/packing-by-climate", "Guides/Kyoto"):
        for wait in ("true", "false"):  # refused at once, never accepted as a job that then fails
            body = {"documents": [{"id": doc_id, "text": "My own Tokyo note."}]}
            resp = await client.post("/v1/documents", params={"wait": wait}, json=body, headers=ADMIN)
            assert resp.status == 422, await resp.text()
            error = (await resp.json())["error"]
            assert error["code"] == "reserved_document_id" and doc_id in error["message"]
    found = await client.post("/v1/search", json={"query": "Narita airport into Tokyo", "top_k": 1})
    [hit] = (await found.json())["results"]
    assert hit["metadata"]["document_id"] == "guides/tokyo" and hit["metadata"]["source"] == "seed"
    # Any other explicit id is the client's to choose, as before.
    resp = await client.post(
        "/v1/documents", json={"documents": [{"id": "tips/tokyo", "text": "x y"}]}, headers=ADMIN
    )
    assert resp.status == 200 and (await resp.json())["added"] == 1


def test_the_cli_refuses_a_file_that_names_a_reserved_id(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write(notes / "tokyo.md", "---\nid: guides/tokyo\ntitle: Mine\n---\nMy own Tokyo note.")
    write(notes / "more.jsonl", json.dumps({"id": "topics/visas-and-entry", "text": "Mine too."}) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAYFARER_")}
    for path, where in [(notes / "tokyo.md", "tokyo.md"), (notes / "more.jsonl", "more.jsonl:1")]:
        run = subprocess.run(
            [sys.executable, "-m", "rag.cli", "seed", str(path), "--data-dir", str(tmp_path / "data")],
            cwd=tmp_path,
            env={**env, "WAYFARER_LOG_LEVEL": "WARNING"},
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert run.returncode == 2, run.stderr
        assert "reserved_document_id" in run.stderr and where in run.stderr
        assert "Traceback" not in run.stderr
