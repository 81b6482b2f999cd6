"""The chunker loses no text, keeps its bound, and is deterministic."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rag.ingest.chunking import chunk_markdown, count_words

words = st.text(alphabet=st.characters(categories=("L", "N")), min_size=1, max_size=12)
sentence = st.lists(words, min_size=1, max_size=40).map(lambda ws: " ".join(ws) + ".")
paragraph = st.lists(sentence, min_size=1, max_size=8).map(" ".join)
section = st.tuples(st.sampled_from(["#", "##", "###"]), words, st.lists(paragraph, max_size=4))
document = st.lists(section, max_size=6).map(
    lambda secs: "\n\n".join(f"{h} {title}\n\n" + "\n\n".join(paras) for h, title, paras in secs)
)


def body_words(text: str) -> list[str]:
    return [w for line in text.splitlines() if not line.lstrip().startswith("#") for w in line.split()]


@given(document, st.integers(min_value=8, max_value=120), st.integers(min_value=0, max_value=20))
@settings(max_examples=150, deadline=None)
def test_no_text_is_lost_and_bound_holds(doc: str, max_tokens: int, overlap: int) -> None:
    overlap = min(overlap, max_tokens - 1)
    chunks = chunk_markdown(doc, "Title", max_tokens=max_tokens, overlap=overlap)
    content_words = [w for c in chunks for w in c.content.split()]
    assert content_words == body_words(doc)
    for c in chunks:
        assert count_words(c.overlap) + count_words(c.content) <= max(
            max_tokens - count_words(c.heading) - 1, max_tokens // 4
        )
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert chunks == chunk_markdown(doc, "Title", max_tokens=max_tokens, overlap=overlap)
    # Each chunk knows its length, as the pipeline's batches by length read it.
    assert [c.tokens for c in chunks] == [count_words(c.text) for c in chunks]


def test_heading_path_and_overlap() -> None:
    text = "# Guide\n\nIntro line.\n\n## Food\n\n" + " ".join(f"Sentence {i} about food." for i in range(40))
    chunks = chunk_markdown(text, "Guide", max_tokens=30, overlap=8)
    assert chunks[0].heading == "Guide" and chunks[0].content == "Intro line."
    food = [c for c in chunks if c.heading == "Guide > Food"]
    assert len(food) > 2
    # Each later chunk repeats the end of the one before it.
    for before, after in zip(food, food[1:], strict=False):
        assert after.overlap and before.text.endswith(after.overlap)
    assert food[1].text.startswith("Guide > Food\n\n")


def test_overlong_sentence_and_word_are_cut() -> None:
    text = "## A\n\n" + " ".join(["word"] * 500) + " " + "x" * 5000

    def pieces(s: str) -> int:  # a word-piece-like count: one token per 4 characters of each word
        return sum(-(-len(w) // 4) for w in s.split())

    chunks = chunk_markdown(text, "T", max_tokens=50, overlap=5, count_tokens=pieces)
    assert "".join(c.content.replace(" ", "") for c in chunks) == ("word" * 500) + "x" * 5000
    assert all(pieces(c.text) <= 50 for c in chunks)


def test_fenced_code_hash_is_not_a_heading() -> None:
    text = "## Real\n\n```\n# not a heading\n```\n"
    chunks = chunk_markdown(text, "T")
    assert [c.heading for c in chunks] == ["T > Real"]
    assert "# not a heading" in chunks[0].content
