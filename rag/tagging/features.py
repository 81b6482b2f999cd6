"""Tokens of a message and the features the slot tagger reads from each. Pure.

A token keeps its character offsets, so a tagged span is a slice of the message as written. Each
token's features are strings (CRFsuite's binary attributes): the word (another language's known word
as its English one: rag/tagging/words.py), its shape, prefix and suffix (lower-case words only),
number and ordinal flags, word classes (month, weekday, number, "to"/"from"/"in" cues, people, rooms,
nights ...), the same for the words around it (two each side), the last place cue and date cue of
its sentence however far back ("return on the 11th"), whether it starts or continues a known place
name (the place catalogue through ``PlaceNames``), how common it is as a word, and which slots the
assistant just asked for. The tagger was fitted on English only: reading other languages' words as
English ones is what lets it read "vuelo de Madrid a Lisboa el 3 de mayo" at all.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from rag.tagging.words import IN_CONTEXT, translations, word_classes

MAX_TOKENS = 256  # a longer message is tagged in its first 256 tokens only
# A day with its German dot before a word ("5. Mai"), a number with its separators and letters ("4.2",
# "10:30", "3/12", "3rd", "1er", "9am"), a word (with its apostrophes: "I'll", "aujourd'hui"), or one
# other character.
_TOKEN = re.compile(
    r"\d{1,2}\.(?=\s+[A-ZÄÖÜ][a-zäöüß])|\d+(?:[.,:/]\d+)*[^\W\d_]*|[^\W\d_]+(?:['’][^\W\d_]+)*|[^\w\s]|_+"
)
_ORDINAL = re.compile(r"^\d{1,2}(?:st|nd|rd|th|er|e|o|a|º|ª|°|\.)$")
_ORDINAL_WORDS = frozenset(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth".split()
)


class PlaceNames(Protocol):
    """What the features need of the place catalogue."""

    def kind(self, name: str) -> str | None:
        """The kind of place a name names ("city:xl", "country" ...) in any case or accents, or None."""

    def code(self, token: str) -> str | None:
        """The kind of code a token is as written ("iata" for "LAX", "state" for "WA"), or None."""


class Token(NamedTuple):
    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """The message's tokens with their offsets: ``text[t.start:t.end] == t.text``."""
    return [Token(m.group(), m.start(), m.end()) for m in itertools.islice(_TOKEN.finditer(text), MAX_TOKENS)]


@dataclass(frozen=True)
class FeatureConfig:
    """Which feature groups to read; the defaults are the ones the shipped model was fitted with."""

    window: int = 2
    classes: bool = True
    places: bool = True
    frequency: bool = True
    affixes: bool = True
    affixes_of_names: bool = False  # a capitalised word's "-ome" says little of Rome and much of SGD's cities
    cues: bool = True


class FeatureExtractor:
    """Per-token feature lists for a message. ``places`` None leaves the place features out;
    ``frequency`` says how common a folded word is (a Zipf number, 0 for unknown)."""

    def __init__(
        self,
        places: PlaceNames | None,
        frequency: Callable[[str], float] | None = None,
        config: FeatureConfig | None = None,
    ) -> None:
        self.places = places
        self.frequency = frequency
        self.config = config or FeatureConfig()
        self._word_cache: dict[str, tuple[str, ...]] = {}

    def features(self, tokens: Sequence[Token], asked: Sequence[str] = ()) -> list[list[str]]:
        cfg = self.config
        words = [self._word(t.text) for t in tokens]
        gaz = self._places(tokens) if cfg.places and self.places is not None else [""] * len(tokens)
        if cfg.classes:
            for i, t in enumerate(tokens[:-1]):
                context = IN_CONTEXT.get(t.text)
                if context is not None:
                    before_place = bool(gaz[i + 1]) and tokens[i + 1].text[:1].isupper()
                    english = context[0] if before_place else context[1]
                    if english:
                        words[i] = self._word(t.text, english)
        coarse = [_coarse(w, g) for w, g in zip(words, gaz, strict=True)]
        topics = sorted({f for w in words for f in w if f in ("c=flight", "c=hotel", "c=weather")})
        cues = _last_cues(tokens, words)
        out: list[list[str]] = []
        n = len(tokens)
        for i, token in enumerate(tokens):
            f = ["b", *words[i], f"k={coarse[i]}"]
            if gaz[i]:
                f.append(f"g={gaz[i]}")
            if cfg.affixes and (cfg.affixes_of_names or not token.text[:1].isupper()):
                low = token.text.lower()
                f += [f"p3={low[:3]}", f"s3={low[-3:]}", f"s2={low[-2:]}"]
            if i == 0:
                f.append("BOS")
            if i == n - 1:
                f.append("EOS")
            for d in range(1, cfg.window + 1):
                for j, side in ((i - d, "-"), (i + d, "+")):
                    if 0 <= j < n:
                        f += [f"{side}{d}{x}" for x in words[j] if x[0] in "wc"]
                        f.append(f"{side}{d}k={coarse[j]}")
                        if gaz[j]:
                            f.append(f"{side}{d}g={gaz[j]}")
            if i > 0:
                f.append(f"w-1|k={_plain_word(words[i - 1])}|{coarse[i]}")
            if cfg.cues:
                for kind, cue in zip("pd", cues[i], strict=True):
                    if cue:
                        f += [f"{kind}cue={cue}", f"{kind}cue={cue}|{coarse[i]}"]
            f += [f"{t}|{coarse[i]}" for t in topics]
            for label in asked:
                f += [f"a={label}", f"a={label}|{coarse[i]}"]
            out.append(f)
        return out

    def _word(self, text: str, english: str | None = None) -> tuple[str, ...]:
        """The token's own features: its word (as English, when it is a known word of another of our
        languages), shape, number and ordinal flags, word classes, frequency and code kind."""
        key = f"{text}\x00{english}" if english else text
        cached = self._word_cache.get(key)
        if cached is not None:
            return cached
        low = text.lower()
        if self.config.classes and english is None and not (text.isupper() and len(text) > 1):
            english = translations().get(low)
        word = english or low
        f = [f"w={word}", f"sh={_shape(text)}"]
        if text[:1].isupper():
            f.append("title")
        if text.isupper() and len(text) > 1:
            f.append("upper")
        if text.isdigit():
            f.append(f"digit{min(len(text), 4)}")
        if _ORDINAL.match(low) or word in _ORDINAL_WORDS:
            f.append("ordinal")
        if self.config.classes:
            f += [f"c={c}" for c in word_classes().get(word, ())]
        if self.frequency is not None and self.config.frequency and text[:1].isalpha():
            f.append(f"z={min(int(self.frequency(low)), 6)}")
        if self.places is not None and self.config.places:
            code = self.places.code(text)
            if code:
                f.append(f"code={code}")
        words = tuple(f)
        if len(self._word_cache) < 50_000 and len(text) <= 40:
            self._word_cache[key] = words
        return words

    def _places(self, tokens: Sequence[Token]) -> list[str]:
        """ "B-kind"/"I-kind" for the tokens of the longest known place names, left to right."""
        assert self.places is not None
        out = [""] * len(tokens)
        i = 0
        while i < len(tokens):
            for n in (3, 2, 1):
                piece = tokens[i : i + n]
                if len(piece) < n or not piece[0].text[0].isalpha() or not piece[-1].text[0].isalpha():
                    continue
                if any(not (t.text[0].isalpha() or t.text in "-.'’") for t in piece):
                    continue
                if n == 1 and self._function_word(piece[0].text):
                    continue
                if piece[-1].end - piece[0].start > 60:  # no place name is that long
                    continue
                kind = self.places.kind(" ".join(t.text for t in piece))
                if kind:
                    out[i : i + n] = [f"B-{kind}"] + [f"I-{kind}"] * (n - 1)
                    i += n
                    break
            else:
                i += 1
        return out

    def _function_word(self, text: str) -> bool:
        """A lower-case everyday word ("to", "la", "para"): no place, whatever town bears its name."""
        return self.frequency is not None and text.islower() and self.frequency(text) >= 5.0


_PLACE_CUES = frozenset(("to", "from", "in"))
_DATE_CUES = frozenset(("until", "return", "depart"))
_CLAUSE_END = frozenset(".!?;")


def _last_cues(tokens: Sequence[Token], words: Sequence[tuple[str, ...]]) -> list[tuple[str, str]]:
    """For each token, the last place cue ("to", "from", "in") and the last date cue ("return",
    "depart", "checkin", "checkout", "until") before it in its sentence, however far back: "return on
    the 11th" and "leave from Manchester on the 7th" put the date's cue three or more words back."""
    out: list[tuple[str, str]] = []
    place = date = ""
    for i, token in enumerate(tokens):
        out.append((place, date))
        if token.text in _CLAUSE_END:
            place = date = ""
            continue
        low = token.text.lower()
        if low in ("in", "out") and i > 0 and tokens[i - 1].text.lower() in ("check", "checking"):
            date = "check" + low
            continue
        classes = [c[2:] for c in words[i] if c.startswith("c=")]
        place = next((c for c in classes if c in _PLACE_CUES), place)
        date = next((c for c in classes if c in _DATE_CUES), date)
    return out


def _coarse(word: tuple[str, ...], gaz: str) -> str:
    """One word for what a token is: a place, a number, a date word, a cue, another word or punctuation."""
    tags = set(word)
    if "c=month" in tags or "c=weekday" in tags or "c=reldate" in tags:
        return "date"  # before the places: "March" and "Mai" are towns too
    if gaz:
        return "place"
    if "ordinal" in tags:
        return "ordinal"
    if any(t.startswith("digit") for t in tags) or "c=number" in tags:
        return "num"
    if "title" in tags:
        return "cap"
    shape = next(t for t in tags if t.startswith("sh="))
    return "punct" if "x" not in shape.lower() and "d" not in shape else "word"


def _plain_word(word: tuple[str, ...]) -> str:
    """The token's cue class if it has one ("to", "from" ...), else its lower-cased word."""
    for f in word:
        if f.startswith("c=") and f[2:] in ("to", "from", "in", "until"):
            return f[2:]
    return word[0][2:]


def _shape(text: str) -> str:
    """ "Seattle" -> "Xx", "4.2" -> "d.d", "3rd" -> "dx", "LAX" -> "X": runs of one kind collapsed."""
    out: list[str] = []
    for c in text[:12]:
        k = "X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c
        if not out or out[-1] != k:
            out.append(k)
    return "".join(out)
