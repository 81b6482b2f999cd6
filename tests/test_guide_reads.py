"""A guide read whole for an answer is kept, and read again as soon as its content changes: the search's
own hits carry each chunk's document hash, so a kept guide is never older than the index. Real parts:
the packaged model, the embedded index, SQLite."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rag.chat.search import GUIDES_KEPT, GuideSearch
from rag.embedding.sentence_transformer import SentenceTransformerEmbedder
from rag.embedding.sparse import Bm25Encoder
from rag.ingest.documents import SourceDocument
from rag.ingest.pipeline import Ingestor
from rag.kv.sqlite import SQLiteKV
from rag.retrieval.service import Retriever
from rag.store.base import Hit
from rag.store.edge import EdgeStore

GUIDE = "quoxville"
PARAGRAPH = "## {0}\n\nThe {0} of Quoxville: {1} is what travellers remember of it, season after season.\n\n"


def guide(word: str) -> SourceDocument:
    text = "".join(PARAGRAPH.format(h, f"{word} {h.lower()}") for h in ("Markets", "Harbour", "Weather"))
    return SourceDocument(GUIDE, "# Quoxville\n\n" + text, {"city": "Quoxville", "source": "seed"})


class Counted(Retriever):
    """The real retriever, its whole-document reads counted."""

    reads = 0

    async def document(self, document_id: str, most: int = 200) -> list[Hit]:
        self.reads += 1
        return await super().document(document_id, most)


@pytest.fixture
async def parts(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, sparse: Bm25Encoder
) -> AsyncIterator[tuple[Ingestor, Counted]]:
    kv = SQLiteKV(tmp_path / "kv.db")
    await kv.open()
    store = EdgeStore(tmp_path / "index", "docs", embedder.dimension, 60, 40)
    await store.open()
    yield Ingestor(store, embedder, sparse, kv, max_tokens=40, overlap=5), Counted(store, embedder, sparse)
    await store.close()
    await kv.close()


async def read(search: GuideSearch, retriever: Retriever) -> list[Hit]:
    hits = await retriever.search("Quoxville harbour", 3, documents_only=True)
    assert any(h.payload["document_id"] == GUIDE for h in hits)
    return await search.document(GUIDE, hits)


async def test_a_guide_is_read_once_until_its_content_changes(parts) -> None:  # type: ignore[no-untyped-def]
    ingestor, retriever = parts
    await ingestor.ingest([guide("Zorblat")])
    search = GuideSearch(retriever)
    first = await read(search, retriever)
    assert len(first) > 1 and all(
        "Zorblat" in h.payload["text"] for h in first if "Quoxville:" in h.payload["text"]
    )
    assert await read(search, retriever) == first and retriever.reads == 1  # kept
    await ingestor.ingest([guide("Vexmoor")])  # the same guide, new content
    changed = await read(search, retriever)
    assert retriever.reads == 2
    texts = " ".join(h.payload["text"] for h in changed)
    assert "Vexmoor" in texts and "Zorblat" not in texts


async def test_without_the_guide_among_the_hits_it_is_read_again(parts) -> None:  # type: ignore[no-untyped-def]
    ingestor, retriever = parts
    await ingestor.ingest([guide("Zorblat")])
    search = GuideSearch(retriever)
    await read(search, retriever)
    assert await search.document(GUIDE, []) and retriever.reads == 2  # no hash to vouch for it
    assert GUIDES_KEPT >= 1
