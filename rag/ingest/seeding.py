"""Seeding from files: the corpus in seed_data/ or any files and folders a user points at.

The two are kept apart. The seed corpus (``settings.index.seed_dir``) has source "seed" and origin
"seed", ids that are paths in it (``guides/tokyo``), and its sync deletes corpus documents that are
gone from the folder. Documents from a user's own paths have source "files", ids that name the folder
they came from (``user/<8 hex of the folder>/notes``, or an id the file states, never one of the
corpus's) and, as origin, the path they were seeded from: nothing but a pruning seed of that same path
ever deletes them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rag.ingest.documents import SourceDocument, user_id_prefix
from rag.ingest.loaders import discover, load_file
from rag.ingest.pipeline import SEED_ORIGIN, IngestCounts, Ingestor
from rag.ingest.progress import IngestProgress

SEED_SOURCE = "seed"
FILES_SOURCE = "files"


def load_documents(paths: list[Path], source: str = SEED_SOURCE) -> list[SourceDocument]:
    """Documents named as the seed corpus names its own: by their path under the folder given."""
    docs: list[SourceDocument] = []
    for file, root in discover(paths):
        docs.extend(load_file(file, root, source))
    return docs


def load_user_documents(paths: list[Path], source: str = FILES_SOURCE) -> list[SourceDocument]:
    """A user's files, named ``user/<8 hex of the folder>/<path in it>`` so that two folders, or a folder
    and the seed corpus, never share an id; an id a file states is kept unless it is the corpus's.

    A file given on its own is named from the folder it is in, as it is when its folder is seeded.
    """
    docs: list[SourceDocument] = []
    for file, root in discover(paths):
        docs.extend(load_file(file, root, source, user_id_prefix(str(root.resolve()))))
    return docs


def files_origin(path: Path) -> str:
    """The origin of documents seeded from ``path``: its absolute form, so each place prunes only its own."""
    return "files:" + str(path.resolve())


def load_corpus(seed_dir: Path) -> list[SourceDocument]:
    """The seed corpus's documents (none when the folder is missing)."""
    return load_documents([seed_dir]) if seed_dir.is_dir() else []


async def seed_directory(
    ingestor: Ingestor,
    seed_dir: Path,
    progress: IngestProgress | None = None,
    docs: list[SourceDocument] | None = None,
) -> IngestCounts:
    """A full run over the seed corpus: documents removed from it are removed from the index.

    ``docs`` are the corpus's documents when the caller has read them already (``load_corpus``).
    """
    if docs is None:
        docs = await asyncio.to_thread(load_corpus, seed_dir)
    return await ingestor.ingest(docs, origin=SEED_ORIGIN, prune=True, progress=progress)


def load_files(paths: list[Path]) -> list[tuple[str, list[SourceDocument]]]:
    """A user's files and folders (source "files"), read in full before anything is written, per origin."""
    return [(files_origin(path), load_user_documents([path])) for path in paths]


async def seed_files(
    ingestor: Ingestor,
    loaded: list[tuple[str, list[SourceDocument]]],
    *,
    prune: bool = False,
    progress: IngestProgress | None = None,
) -> IngestCounts:
    """Ingest what ``load_files`` read, one origin at a time.

    With ``prune``, documents seeded earlier from these same paths that are no longer there are deleted;
    documents from other paths, the seed corpus and the API are never touched.
    """
    await ingestor.check_ids([doc for _, docs in loaded for doc in docs])  # all, before any is written
    total = IngestCounts()
    for origin, docs in loaded:
        counts = await ingestor.ingest(docs, origin=origin, prune=prune, progress=progress)
        for name in ("added", "updated", "skipped", "deleted", "chunks"):
            setattr(total, name, getattr(total, name) + getattr(counts, name))
        total.document_ids.extend(counts.document_ids)
    return total
