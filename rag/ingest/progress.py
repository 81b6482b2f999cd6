"""How far an ingest run has gone, as it happens, and an honest estimate of what is left (pure).

The ingestor reports each document as it is done (written, or skipped as unchanged) and each batch of
chunks as it is embedded, since one batch of a long guide can take many seconds on a busy machine.
The estimate is measured, not assumed: seconds per chunk embedded so far, times the chunks still to
embed (those read already, plus the average per written document for the documents not yet read).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class IngestProgress:
    """One run's counts. ``on_change`` is called after every change (a document or a chunk batch)."""

    total: int
    on_change: Callable[[IngestProgress], None] | None = None
    done: int = 0  # documents finished: written or skipped
    skipped: int = 0  # documents unchanged since they were last ingested
    read: int = 0  # documents read and chunked (skipped ones included)
    chunks_read: int = 0  # chunks of the documents to write, read so far
    chunks_done: int = 0  # chunks embedded and written
    _embedding_seconds: float = field(default=0.0, repr=False)

    def document_read(self, chunks: int | None) -> None:
        """A document read: ``chunks`` to embed, or None when it is unchanged (skipped)."""
        self.read += 1
        if chunks is None:
            self.skipped += 1
            self.done += 1
        else:
            self.chunks_read += chunks
        self._changed()

    def chunks_embedded(self, n: int, seconds: float) -> None:
        self.chunks_done += n
        self._embedding_seconds += seconds
        self._changed()

    def document_written(self) -> None:
        self.done += 1
        self._changed()

    def remaining_seconds(self) -> float | None:
        """About how long the rest takes, from the rate measured so far; None before anything is measured."""
        if self.chunks_done == 0 or self._embedding_seconds <= 0:
            return None
        written_read = self.read - self.skipped
        per_document = self.chunks_read / written_read if written_read else 0.0
        chunks_left = (self.chunks_read - self.chunks_done) + per_document * (self.total - self.read)
        return max(0.0, chunks_left * self._embedding_seconds / self.chunks_done)

    def describe(self) -> str:
        """One line for a log: "12/41 documents, 130 chunks embedded, about 40 s left"."""
        parts = [f"{self.done}/{self.total} documents"]
        if self.skipped:
            parts.append(f"{self.skipped} unchanged")
        if self.chunks_done:
            parts.append(f"{self.chunks_done} chunks embedded")
        left = self.remaining_seconds()
        if left is not None and self.done < self.total:
            parts.append(f"about {left:.0f} s left")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        left = self.remaining_seconds()
        return {
            "done": self.done,
            "total": self.total,
            "skipped": self.skipped,
            "chunks_embedded": self.chunks_done,
            "seconds_left": None if left is None else round(left),
        }

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)
