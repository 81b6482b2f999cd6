"""Month and weekday names of our six languages, from CLDR (babel). Pure, cached.

The one source of month and weekday names: the date reader (rag/routing/dates.py, date_words.py,
months.py), the slot tagger's word classes and the composer's vocabulary read them here. CLDR gives
each language's wide and abbreviated names, in their format and stand-alone forms; a few regions add
their own ("setiembre" in Peru, "Jänner" in Austria, "sept" in Britain), so each language reads the
names of the regions listed in ``REGIONS``. What CLDR does not give (Portuguese "segunda" for
"segunda-feira", German "Sonnabend", English "tues") is rag/i18n/date_words.yaml's ``weekday_variants``.

Names are lower case, abbreviations without their dot ("janv." is "janv"), and each comes with its
accent-free spelling too ("marz", "fevrier"); a name two months share in a region is dropped. Weekdays are numbered as ``datetime.date.weekday``: Monday 0 to Sunday 6.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping

import yaml
from babel.dates import get_day_names, get_month_names

from connectors.text import fold
from rag.i18n.phrases import DATE_WORDS_PATH

LANGUAGES = ("en", "es", "fr", "de", "it", "pt")
# The CLDR locales whose names each language reads: the language's own, and regions with other names.
REGIONS: Mapping[str, tuple[str, ...]] = {
    "en": ("en", "en_GB"),
    "es": ("es", "es_MX", "es_PE"),
    "fr": ("fr", "fr_CA", "fr_MA"),
    "de": ("de", "de_AT"),
    "it": ("it",),
    "pt": ("pt", "pt_PT"),
}
_CONTEXTS = ("format", "stand-alone")


@functools.cache
def month_names(lang: str, *, abbreviated: bool = True) -> Mapping[str, int]:
    """``lang``'s month names (lower case, and accent-free) -> 1..12; abbreviations too unless not
    ``abbreviated``. Empty for a language we do not speak."""
    widths = ("wide", "abbreviated") if abbreviated else ("wide",)
    return _names(lang, widths, get_month_names, {})


@functools.cache
def weekday_names(lang: str, *, abbreviated: bool = False) -> Mapping[str, int]:
    """``lang``'s weekday names (lower case, and accent-free) -> 0 (Monday)..6, with date_words.yaml's
    ``weekday_variants``; abbreviations ("mar", "dom": other words too) only if ``abbreviated``."""
    widths = ("wide", "abbreviated") if abbreviated else ("wide",)
    variants = _variants().get(lang, {})
    return _names(lang, widths, get_day_names, variants)


def month_name(month: int, lang: str) -> str:
    """How ``lang`` writes month ``month`` (1..12) in a date: "April", "abril", "avril", "April"; English
    for a language we do not speak."""
    return str(get_month_names("wide", "format", lang if lang in REGIONS else "en")[month])


def english_month(month: int) -> str:
    """The English name of month ``month`` (1..12), lower case: "april"."""
    return month_name(month, "en").lower()


def english_weekday(weekday: int) -> str:
    """The English name of ``weekday`` (0 = Monday), lower case: "monday"."""
    return str(get_day_names("wide", "format", "en")[weekday]).lower()


@functools.cache
def month_pattern(langs: Iterable[str] = LANGUAGES, *, abbreviated: bool = True) -> str:
    """A regular-expression alternation of every month name of ``langs`` (lower case, accent-free
    spellings included, longest first, abbreviations unless not ``abbreviated``), to be compiled
    case-insensitively and put between word edges: ``rf"\\b(?:{month_pattern()})\\.?(?!\\w)"``."""
    names = {name for lang in langs for name in month_names(lang, abbreviated=abbreviated)}
    return alternation(names)


def alternation(words: Iterable[str]) -> str:
    """``words`` as a regex alternation, longest first (so "junio" is tried before "jun"), a space
    matching any spacing."""
    return "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(set(words), key=lambda w: (-len(w), w))
    )


def _names(
    lang: str, widths: tuple[str, ...], get: Callable[..., Mapping[int, str]], variants: Mapping[str, int]
) -> Mapping[str, int]:
    out: dict[str, int] = {}
    for locale in REGIONS.get(lang, ()):
        region: dict[str, set[int]] = {}
        for width in widths:
            for context in _CONTEXTS:
                for number, name in get(width, context, locale).items():
                    region.setdefault(str(name).lower().rstrip("."), set()).add(int(number))
        for name, numbers in region.items():
            if len(numbers) == 1:  # a name two months share names neither
                out.setdefault(name, numbers.pop())
    out.update(variants)
    for name, number in list(out.items()):
        out.setdefault(fold(name), number)
    return out


@functools.cache
def _variants() -> Mapping[str, Mapping[str, int]]:
    """date_words.yaml's ``weekday_variants`` per language: name -> English weekday -> 0..6."""
    raw = yaml.safe_load(DATE_WORDS_PATH.read_text(encoding="utf-8"))
    english = {english_weekday(i): i for i in range(7)}
    return {
        str(lang): {str(k).lower(): english[str(v)] for k, v in (spec.get("weekday_variants") or {}).items()}
        for lang, spec in raw.items()
    }
