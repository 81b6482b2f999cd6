"""What both embedders share: model work on a dedicated executor, micro-batched queries, token counting."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rag.embedding.batching import MicroBatcher
from rag.errors import EmbeddingError

logger = logging.getLogger(__name__)
# How much less CPU a background model thread gets than a request's when both want a core (Linux nice).
BACKGROUND_NICENESS = 10


def model_executor(prefix: str, workers: int = 1, *, background: bool = False) -> ThreadPoolExecutor:
    """A dedicated executor for model work. ``background``: its threads yield the cores to the threads
    that serve requests (the event loop, the query model) whenever both are runnable."""
    return ThreadPoolExecutor(
        max_workers=workers, thread_name_prefix=prefix, initializer=_lower_priority if background else None
    )


def _lower_priority() -> None:
    """This thread's scheduling priority lowered (a thread is a task of its own on Linux)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICENESS)
    except (AttributeError, OSError):  # not Linux, or not allowed: the thread keeps the usual priority
        logger.debug("could not lower a background model thread's priority", exc_info=True)


class ExecutorEmbedder:
    """Subclasses give ``_encode`` (blocking, on the executor), ``dimension`` and ``name``."""

    def __init__(self, executor: ThreadPoolExecutor, counter: Any, max_micro_batch: int) -> None:
        self._executor = executor
        self._counter = counter  # a private tokenizer: chunking counts tokens on other threads
        self._batcher: MicroBatcher[str, list[float]] = MicroBatcher(
            self.embed_documents, max_batch=max_micro_batch
        )

    def _encode(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError

    @property
    def micro_batches(self) -> int:
        return self._batcher.batches

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, self._encode, list(texts))
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc

    async def embed_query(self, text: str) -> list[float]:
        return await self._batcher.submit(text)

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def encode_sync(self, texts: list[str]) -> list[list[float]]:
        """The bare model call, for benchmarks that compare against it."""
        return self._encode(texts)

    async def close(self) -> None:
        await self._batcher.close()
        self._executor.shutdown(wait=True, cancel_futures=True)
