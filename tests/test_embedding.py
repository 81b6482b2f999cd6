"""The real packaged model: offline, normalized, micro-batched under concurrency, and every text cut to
the model's window before padding, in runs of bounded size."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag.embedding.batching import MicroBatcher, token_batches
from rag.embedding.onnx import OnnxEmbedder, model_window
from rag.embedding.sentence_transformer import SentenceTransformerEmbedder, packaged_model_path
from rag.settings import EmbeddingSettings


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


@given(
    st.lists(st.integers(min_value=1, max_value=256), max_size=80),
    st.integers(min_value=1, max_value=64),
    st.integers(min_value=64, max_value=8192),
)
def test_token_batches_take_every_text_once_within_the_budget(
    lengths: list[int], max_texts: int, max_tokens: int
) -> None:
    runs = token_batches(lengths, max_texts, max_tokens)
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))
    for run in runs:
        padded = len(run) * max(lengths[i] for i in run)
        assert len(run) <= max_texts
        assert padded <= max_tokens or len(run) == 1  # a text over the budget runs alone
    order = [lengths[i] for run in runs for i in run]
    assert order == sorted(order)  # short texts are not padded to a long one's length


def test_a_batch_of_long_texts_runs_a_few_at_a_time() -> None:
    runs = token_batches([256] * 32 + [12] * 30, 32, 2048)
    assert [len(r) for r in runs] == [30, 8, 8, 8, 8]


@pytest.fixture(scope="module")
def long_text() -> str:
    return " ".join(f"museum{i} and a walk along the river to the old harbour" for i in range(120))


@pytest.mark.parametrize("arena", ["shrink", "off", "keep"])
async def test_the_query_model_reads_a_text_up_to_its_window(arena: str, long_text: str) -> None:
    embedder = await OnnxEmbedder.load(EmbeddingSettings(query_arena=arena, max_batch_tokens=512))
    try:
        window = model_window(Path(packaged_model_path()))
        assert window == 256  # what the packaged model declares
        assert embedder.count_tokens(long_text) > 4 * window
        assert embedder.count_tokens("hello world") == 2  # counted, never padded (it was to 128)
        # Words past the window change nothing: the text was cut before it reached the model.
        cut, longer = await embedder.embed_documents([long_text, long_text + " and a ferry to Porto"])
        assert sum(a * b for a, b in zip(cut, longer, strict=True)) > 0.99999
        # In a batch, split into runs (padded to their own longest) or alone: the same vectors.
        texts = ["hotels in Rome", long_text, "weather in Lisbon tomorrow", long_text[:400]] * 3
        together = await embedder.embed_documents(texts)
        for text, got in zip(texts, together, strict=True):
            [alone] = await embedder.embed_documents([text])
            assert sum(a * b for a, b in zip(got, alone, strict=True)) > 0.9999
    finally:
        await embedder.close()


async def test_documents_are_cut_at_the_same_window(
    embedder: SentenceTransformerEmbedder, long_text: str
) -> None:
    assert embedder._model.max_seq_length == model_window(Path(packaged_model_path()))
    cut, longer = await embedder.embed_documents([long_text, long_text + " and a ferry to Porto"])
    assert sum(a * b for a, b in zip(cut, longer, strict=True)) > 0.99999
