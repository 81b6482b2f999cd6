"""Ingest progress as it happens, and its estimate of what is left (pure)."""

from __future__ import annotations

from rag.ingest.progress import IngestProgress


def test_documents_and_chunk_batches_move_it_as_they_happen() -> None:
    seen: list[tuple[int, int]] = []
    p = IngestProgress(4, lambda q: seen.append((q.done, q.chunks_done)))
    p.document_read(None)  # unchanged: done at once
    p.document_read(10)
    p.chunks_embedded(8, 4.0)
    p.chunks_embedded(2, 1.0)
    p.document_written()
    assert seen == [(1, 0), (1, 0), (1, 8), (1, 10), (2, 10)]
    assert (p.done, p.skipped, p.read, p.chunks_read) == (2, 1, 2, 10)


def test_the_estimate_is_measured_from_the_chunks_embedded_so_far() -> None:
    p = IngestProgress(5)
    assert p.remaining_seconds() is None  # nothing measured yet: no guess
    p.document_read(None)
    p.document_read(10)
    p.chunks_embedded(10, 5.0)  # 0.5 s a chunk
    p.document_written()
    # three documents still unread, at the 10 chunks of the one written so far: 30 chunks, 15 s
    assert p.remaining_seconds() == 15.0
    p.document_read(20)
    p.chunks_embedded(10, 5.0)
    # 10 chunks of the one read still to embed, 2 unread documents at 15 chunks on average
    assert p.remaining_seconds() == (10 + 2 * 15) * 0.5
    assert p.describe() == "2/5 documents, 1 unchanged, 20 chunks embedded, about 20 s left"


def test_a_run_of_unchanged_documents_is_done_without_an_estimate() -> None:
    p = IngestProgress(3)
    for _ in range(3):
        p.document_read(None)
    assert (p.done, p.skipped, p.remaining_seconds()) == (3, 3, None)
    assert p.describe() == "3/3 documents, 3 unchanged"
    assert p.to_json() == {"done": 3, "total": 3, "skipped": 3, "chunks_embedded": 0, "seconds_left": None}
