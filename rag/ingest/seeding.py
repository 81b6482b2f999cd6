"""Seeding from files: the corpus in seed_data/ or any files and folders."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from rag.ingest.documents import SourceDocument
from rag.ingest.loaders import discover, load_file
from rag.ingest.pipeline import IngestCounts, Ingestor

SEED_SOURCE = "seed"


def load_documents(paths: list[Path], source: str = SEED_SOURCE) -> list[SourceDocument]:
    docs: list[SourceDocument] = []
    for file, root in discover(paths):
        docs.extend(load_file(file, root, source))
    return docs


async def seed_directory(
    ingestor: Ingestor,
    seed_dir: Path,
    progress: Callable[[int], None] | None = None,
) -> IngestCounts:
    """A full run over the seed corpus: documents removed from it are removed from the index."""
    docs = await asyncio.to_thread(lambda: load_documents([seed_dir]) if seed_dir.is_dir() else [])
    return await ingestor.ingest(docs, prune_source=SEED_SOURCE, progress=progress)
