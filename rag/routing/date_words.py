"""Other languages' date phrases rewritten as English ones, with a map back to the original text. Pure.

"del 12 al 15 de mayo" becomes "del 12 to 15 may", "am 5. Mai" "am 5 may", "el próximo viernes" "next
friday", "demain" "tomorrow": the English parser (rag/routing/dates.py) then reads them with the very
same rules as English messages, so "next week", weekends, impossible days ("31 de febrero") and
ranges mean the same in every language. The words are data (rag/i18n/date_words.yaml).

Why not dateparser: measured on travel messages it is fast enough (about 1 ms a message once warm,
0.3 s to import and up to 0.3 s on a language's first message) but not right enough: its search reads
"31 de febrero" as 21 February, "pasado mañana" as tomorrow, "Que voir à Rome en deux jours" as a date,
keeps only the last day of "del 12 al 15 de mayo", and does not know "el próximo viernes", "vendredi
prochain" or weekends. A wrong date is worse than none, so the rewriting stays small and explicit.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from rag.i18n import DATE_WORDS_PATH

WORDS_PATH = DATE_WORDS_PATH

_SUFFIX = r"(?:er|º|°|ª|\.)?"  # 1er, 1º, 1°, 5.
_ARTICLE = r"(?:(?:el|le|la|o|a|il|lo|den|dem)\s+)?"
_B = r"(?<![\w])"  # word edges that also work next to accents, hyphens and apostrophes
_E = r"(?![\w])"

Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A message with its date phrases in English; each character knows where its piece came from."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original text's span for the rewritten text's [start, end)."""
        return self.starts[start], self.ends[end - 1]


def languages() -> frozenset[str]:
    return frozenset(_rules())


def to_english(text: str, lang: str) -> Rewritten:
    """``text`` lower-cased with ``lang``'s date phrases in English (unchanged for an unknown language)."""
    chars = [c.lower() if len(c.lower()) == 1 else c for c in text]  # keep one character per character
    current = "".join(chars)
    starts = list(range(len(text)))
    ends = list(range(1, len(text) + 1))
    for pattern, repl in _rules().get(lang, []):
        out: list[str] = []
        new_starts: list[int] = []
        new_ends: list[int] = []
        last = 0
        for m in pattern.finditer(current):
            out.append(current[last : m.start()])
            new_starts.extend(starts[last : m.start()])
            new_ends.extend(ends[last : m.start()])
            english = repl(m)
            if m.end() > m.start():
                out.append(english)
                new_starts.extend([starts[m.start()]] * len(english))
                new_ends.extend([ends[m.end() - 1]] * len(english))
            last = m.end()
        if last == 0 and not out:
            continue
        out.append(current[last:])
        new_starts.extend(starts[last:])
        new_ends.extend(ends[last:])
        current, starts, ends = "".join(out), new_starts, new_ends
    return Rewritten(current, tuple(starts), tuple(ends))


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def _with_plain(table: dict[str, str]) -> dict[str, str]:
    out = dict(table)
    for word, english in table.items():
        out.setdefault(_plain(word), english)
    return out


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


@functools.cache
def _rules() -> dict[str, list[Rule]]:
    raw = yaml.safe_load(WORDS_PATH.read_text(encoding="utf-8"))
    return {lang: _compile(spec) for lang, spec in raw.items()}


def _compile(spec: dict[str, Any]) -> list[Rule]:
    months = _with_plain({str(k): str(v) for k, v in spec["months"].items()})
    weekdays = _with_plain({str(k): str(v) for k, v in spec["weekdays"].items()})
    numbers = _with_plain({str(k): str(v) for k, v in spec["numbers"].items()})
    not_alone = {str(w) for w in spec.get("not_alone", [])}
    lone = [w for w in weekdays if w not in not_alone | {_plain(x) for x in not_alone}]
    month = rf"({_alternation(list(months))})\.?{_E}"
    of = rf"(?:(?:{spec['of']})\s+)?" if spec["of"] else ""
    year = rf"(?:,?\s+{of}(\d{{4}}))?{_E}"
    words_to = [w for w in str(spec["to"]).split("|") if w not in ("-", "–")]
    to = rf"(?:\s*[-–]\s*|\s+(?:{_alternation(words_to)})\s+{_ARTICLE})"

    def day_month(m: re.Match[str]) -> str:
        return f"{int(m[1])} {months[m[2]]}" + (f" {m[3]}" if m[3] else "")

    def day_range(m: re.Match[str]) -> str:
        return f"{int(m[1])} to {int(m[2])} {months[m[3]]}" + (f" {m[4]}" if m[4] else "")

    english_months = _alternation(sorted(set(months.values())))
    rules: list[Rule] = [
        # 5.5. and 5.5.2027 (German, Portuguese) as 5/5 and 5/5/2027
        (
            re.compile(r"(?<![\d./])(\d{1,2})\.(\d{1,2})\.(\d{4})?(?![\d])"),
            lambda m: f"{m[1]}/{m[2]}" + (f"/{m[3]}" if m[3] else ""),
        ),
        (re.compile(rf"{_B}(\d{{1,2}}){_SUFFIX}{to}(\d{{1,2}}){_SUFFIX}\s*{of}{month}{year}"), day_range),
        (re.compile(rf"{_B}(\d{{1,2}}){_SUFFIX}\s*{of}{month}{year}"), day_month),
        # "30 may al 2 june", "30/12 bis 2/1": the English parser joins two dates glued by "to"
        (
            re.compile(
                rf"{_B}((?:{english_months})(?:\s+\d{{4}})?|\d{{1,2}}/\d{{1,2}}(?:/\d{{4}})?){to}(?=\d)"
            ),
            lambda m: f"{m[1]} to ",
        ),
    ]
    phrases = _with_plain({str(k): str(v) for k, v in (spec.get("phrases") or {}).items()})
    if phrases:
        rules.append(_phrase_rule(phrases, weekdays, numbers))
    if lone:
        rules.append((re.compile(rf"{_B}({_alternation(lone)}){_E}"), lambda m: weekdays[m[1]]))
    return rules


def _phrase_rule(phrases: dict[str, str], weekdays: dict[str, str], numbers: dict[str, str]) -> Rule:
    """One pattern for every phrase, longest first, so the leftmost phrase wins ("pasado mañana por la
    mañana" is the day after tomorrow, not "pasado" and tomorrow)."""
    order = sorted(phrases, key=len, reverse=True)
    weekday = _alternation(list(weekdays))
    number = rf"\d{{1,3}}|{_alternation(list(numbers))}"
    alternatives = []
    for i, phrase in enumerate(order):
        parts = []
        for piece in re.split(r"(\{weekday\}|\{n\})", phrase):
            if piece == "{weekday}":
                parts.append(rf"(?P<w{i}>{weekday})")
            elif piece == "{n}":
                parts.append(rf"(?P<n{i}>{number})")
            else:
                parts.append(re.escape(piece).replace(r"\ ", r"\s+"))
        alternatives.append(rf"(?P<p{i}>{''.join(parts)})")
    pattern = re.compile(_B + "(?:" + "|".join(alternatives) + ")" + _E)

    def repl(m: re.Match[str]) -> str:
        i = int(str(m.lastgroup)[1:])
        out = phrases[order[i]]
        found = m.groupdict()
        if found.get(f"w{i}"):
            out = out.replace("{weekday}", weekdays[re.sub(r"\s+", " ", found[f"w{i}"])])
        if found.get(f"n{i}"):
            n = re.sub(r"\s+", " ", found[f"n{i}"])
            out = out.replace("{n}", n if n.isdigit() else numbers[n])
        return out

    return pattern, repl
