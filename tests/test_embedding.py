"""The real packaged model: offline, normalized, and micro-batched under concurrency."""

from __future__ import annotations

import asyncio
import math

import pytest

from rag.embedding.batching import MicroBatcher
from rag.embedding.sentence_transformer import SentenceTransformerEmbedder


async def test_packaged_model_embeds_meaningfully(embedder: SentenceTransformerEmbedder) -> None:
    assert embedder.dimension == 384
    a, b, c = await embedder.embed_documents(
        ["cheap flights to Tokyo", "low-cost airfare to Japan's capital", "how to bake sourdough bread"]
    )

    def cos(x: list[float], y: list[float]) -> float:
        return sum(i * j for i, j in zip(x, y, strict=True))

    assert math.isclose(cos(a, a), 1.0, rel_tol=1e-4)
    assert cos(a, b) > cos(a, c) + 0.3


async def test_concurrent_queries_are_batched_and_match(embedder: SentenceTransformerEmbedder) -> None:
    texts = [f"hotels near station number {i}" for i in range(48)]
    before = embedder.micro_batches
    results = await asyncio.gather(*(embedder.embed_query(t) for t in texts))
    batches = embedder.micro_batches - before
    assert batches < len(texts) / 4  # many queries per model call
    direct = await embedder.embed_documents(texts)
    for got, want in zip(results, direct, strict=True):
        assert sum(g * w for g, w in zip(got, want, strict=True)) > 0.999


async def test_token_count_uses_the_model_tokenizer(embedder: SentenceTransformerEmbedder) -> None:
    assert embedder.count_tokens("Eyjafjallajökull") > 1  # word pieces, not words
    assert embedder.count_tokens("") == 0


async def test_micro_batcher_spreads_errors_and_recovers() -> None:
    calls: list[list[int]] = []

    async def double(items: list[int]) -> list[int]:
        calls.append(items)
        await asyncio.sleep(0.01)
        if 13 in items:
            raise ValueError("unlucky")
        return [i * 2 for i in items]

    batcher: MicroBatcher[int, int] = MicroBatcher(double, max_batch=4)
    assert await asyncio.gather(*(batcher.submit(i) for i in range(10))) == [i * 2 for i in range(10)]
    assert max(len(c) for c in calls) == 4 and len(calls) < 10
    with pytest.raises(ValueError):
        await batcher.submit(13)
    assert await batcher.submit(5) == 10
    await batcher.close()
    with pytest.raises(RuntimeError):
        await batcher.submit(1)
