"""The per-language phrases: Wayfarer's fixed sentences, read once from messages.yaml. Pure."""

from __future__ import annotations

import functools
import string
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from rag.i18n.detect import LANGUAGES

# The date and number words of the six languages (months, weekdays, "tomorrow"s, number words): data the
# routing's date reader and the slot tagger's word classes both read.
DATE_WORDS_PATH = Path(__file__).with_name("date_words.yaml")

MESSAGES_PATH = Path(__file__).with_name("messages.yaml")


@functools.cache
def phrases() -> Mapping[str, Mapping[str, str]]:
    """language -> key -> template, as the data file holds it."""
    raw = yaml.safe_load(MESSAGES_PATH.read_text(encoding="utf-8"))
    return {lang: {str(k): str(v) for k, v in raw[lang].items()} for lang in LANGUAGES}


def placeholders(template: str) -> frozenset[str]:
    """The {names} a template needs."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def message(lang: str, key: str, **kwargs: object) -> str:
    """The phrase ``key`` in ``lang`` (English for a language we do not speak), filled with ``kwargs``.

    A key missing from the phrases is a programming error and raises KeyError.
    """
    table = phrases()
    return table.get(lang, table["en"])[key].format(**kwargs)


def join_list(lang: str, items: Sequence[str]) -> str:
    """ "a, b and c" in ``lang``."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {message(lang, 'and')} {items[-1]}"
