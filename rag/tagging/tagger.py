"""The slot tagger: which words of a message are a trip's places, dates and counts. Pure.

A linear-chain CRF (CRFsuite) over the features of rag/tagging/features.py, fitted by
scripts/fit_slots.py on the user turns of the Schema-Guided Dialogue travel dialogues (CC BY-SA 4.0;
the model file is derived from them) and shipped as ``slot_tagger.crfsuite``. It tags, it does not
resolve: "the 7th" is a ``start_date`` span, the date it means is the date parser's business, and
"Paris" is a ``destination`` span, the place it means the catalogue's. ``asked`` says which of our
labels the assistant's last turn asked for ("origin" after "Where from?"), as the dialogue state knows.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pycrfsuite

from rag.tagging.features import FeatureConfig, FeatureExtractor, PlaceNames, Token, tokenize
from rag.tagging.labels import LABELS

logger = logging.getLogger(__name__)

MODEL_PATH = Path(__file__).with_name("slot_tagger.crfsuite")
FREQUENCY_LANGUAGES = ("en", "es", "fr", "de", "pt", "it")


@dataclass(frozen=True, slots=True)
class Span:
    """A tagged piece of the message: ``text == message[start:end]``; ``confidence`` is the lowest
    marginal probability of its tokens' tags (0 to 1)."""

    label: str
    start: int
    end: int
    text: str
    confidence: float


class SlotTagger:
    """Tags messages with the shipped (or a given) CRF model. Thread-safe: one tagging at a time."""

    def __init__(self, model: Path, extractor: FeatureExtractor) -> None:
        self._tagger = pycrfsuite.Tagger()
        self._tagger.open(str(model))
        self._extractor = extractor
        self._lock = threading.Lock()
        self.labels = frozenset(
            str(t)[2:] for t in self._tagger.labels() if str(t) != "O"
        )  # the label set the model knows

    @classmethod
    def load(
        cls,
        path: Path = MODEL_PATH,
        places: PlaceNames | None = None,
        config: FeatureConfig | None = None,
    ) -> SlotTagger:
        """The model at ``path`` with the place catalogue's names (loaded here when not given: about a
        second, once per process) and word frequencies in our six languages."""
        start = time.perf_counter()
        if places is None:
            places = default_places()
        tagger = cls(path, FeatureExtractor(places, word_frequency(), config))
        logger.info("slot tagger: %s in %.2f s", path.name, time.perf_counter() - start)
        return tagger

    def tag(self, text: str, asked: Sequence[str] = ()) -> list[Span]:
        """The spans of ``text``, in order, none overlapping. ``asked``: labels the assistant just asked
        for (unknown ones are ignored)."""
        tokens = tokenize(text)
        if not tokens:
            return []
        asked = [a for a in dict.fromkeys(asked) if a in LABELS]
        xseq = self._extractor.features(tokens, asked)
        with self._lock:
            tags = [str(t) for t in self._tagger.tag(xseq)]
            marginals = [self._tagger.marginal(tag, i) if tag != "O" else 1.0 for i, tag in enumerate(tags)]
        return decode(text, tokens, tags, marginals)


def decode(text: str, tokens: Sequence[Token], tags: Sequence[str], marginals: Sequence[float]) -> list[Span]:
    """BIO tags to spans: a B- starts one, an I- of the same label goes on with it, an I- after
    anything else starts one (the CRF rarely does that, but a span is still a span)."""
    spans: list[Span] = []
    label = ""
    start = end = 0
    conf = 1.0

    def close() -> None:
        if label:
            spans.append(Span(label, start, end, text[start:end], round(conf, 4)))

    for token, tag, p in zip(tokens, tags, marginals, strict=True):
        kind, _, name = tag.partition("-")
        if kind == "I" and name == label:
            end, conf = token.end, min(conf, p)
            continue
        close()
        label = name if kind in ("B", "I") else ""
        start, end, conf = token.start, token.end, p
    close()
    return spans


@lru_cache(maxsize=1)
def default_places() -> PlaceNames:
    """The place catalogue's names, built once per process."""
    from connectors.places import CataloguePlaces, LocationCatalogue

    return CataloguePlaces.from_catalogue(LocationCatalogue.load())


@lru_cache(maxsize=1)
def word_frequency() -> Callable[[str], float]:
    """How common a folded word is in any of our languages (the highest Zipf number, 0 to 8)."""
    from wordfreq import zipf_frequency

    @lru_cache(maxsize=1 << 16)
    def frequency(word: str) -> float:
        if len(word) > 30:  # no word is that long; wordfreq would take its time to say so
            return 0.0
        return max(zipf_frequency(word, lang) for lang in FREQUENCY_LANGUAGES)

    frequency("warm")  # loads the six word lists now, not on the first message
    return frequency
