"""Other languages' date phrases rewritten as English ones, with a map back to the original text. Pure.

"del 12 al 15 de mayo" becomes "del 12 to 15 may", "am 5. Mai" "am 5 may", "el próximo viernes" "next
friday", "demain" "tomorrow", and days without their month "the 16th" ("el 16", "Lieber am 8.", "no
dia 8"; "de 9 a 12" "the 9th to the 12th"): the English parser (rag/routing/dates.py) then reads them
with the very same rules as English messages, so "next week", weekends, impossible days ("31 de
febrero"), ranges and bare days mean the same in every language. Month and weekday names are CLDR's
(rag/i18n/calendar_words.py); the other words are data (rag/i18n/date_words.yaml).

Why not dateparser: measured on travel messages it is fast enough (about 1 ms a message once warm,
0.3 s to import and up to 0.3 s on a language's first message) but not right enough: its search reads
"31 de febrero" as 21 February, "pasado mañana" as tomorrow, "Que voir à Rome en deux jours" as a date,
keeps only the last day of "del 12 al 15 de mayo", and does not know "el próximo viernes", "vendredi
prochain" or weekends. Re-measured (dateparser 1.5.0, ``search_dates`` with the anchor as its relative
base) on the phrases of tests/test_dates_extract.py, it reads 5 of 20 ranges, 3 of 17 bare days and 4 of
8 non-dates right ("the 2nd floor" is a date). A wrong date is worse than none, so the rewriting stays
small and explicit.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from connectors.text import fold
from rag.i18n import DATE_WORDS_PATH
from rag.i18n.calendar_words import english_month, english_weekday, month_names, weekday_names

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
    """The languages whose date phrases are rewritten (all but English, which is read as it is)."""
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
            # A rule may read words around what it rewrites: then only its "sub" group is replaced.
            start, end = m.span("sub") if "sub" in pattern.groupindex else m.span()
            out.append(current[last:start])
            new_starts.extend(starts[last:start])
            new_ends.extend(ends[last:start])
            english = repl(m)
            if end > start:
                out.append(english)
                new_starts.extend([starts[start]] * len(english))
                new_ends.extend([ends[end - 1]] * len(english))
            last = end
        if last == 0 and not out:
            continue
        out.append(current[last:])
        new_starts.extend(starts[last:])
        new_ends.extend(ends[last:])
        current, starts, ends = "".join(out), new_starts, new_ends
    return Rewritten(current, tuple(starts), tuple(ends))


def _with_plain(table: dict[str, str]) -> dict[str, str]:
    out = dict(table)
    for word, english in table.items():
        out.setdefault(fold(word), english)
    return out


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


@functools.cache
def _rules() -> dict[str, list[Rule]]:
    raw = yaml.safe_load(WORDS_PATH.read_text(encoding="utf-8"))
    return {lang: _compile(lang, spec) for lang, spec in raw.items() if lang != "en"}


def _compile(lang: str, spec: dict[str, Any]) -> list[Rule]:
    months = {name: english_month(n) for name, n in month_names(lang).items()}
    weekdays = {name: english_weekday(n) for name, n in weekday_names(lang).items()}
    numbers = _with_plain({str(k): str(v) for k, v in spec["numbers"].items()})
    not_alone = {str(w) for w in spec.get("not_alone", [])}
    lone = [w for w in weekdays if w not in not_alone | {fold(x) for x in not_alone}]
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
    return rules + _bare_day_rules(lang, spec, to, english_months)


def _bare_day_rules(lang: str, spec: dict[str, Any], to: str, english_months: str) -> list[Rule]:
    """Days without a month ("de 9 a 12", "el 16", "Lieber am 8.", "au 10") as "the 9th to the 12th",
    "the 16th": the English parser reads them as bare days, which the trip's dates anchor. Read after
    every other rule, so a day with its month ("el 16 de mayo", now "16 may") is never one."""

    def words(key: str) -> str:
        split = [w for w in str(spec.get(key) or "").split("|") if w]
        return _alternation(list(dict.fromkeys(split + [fold(w) for w in split])))

    not_days = words("not_days") or "(?!)"
    # Not a day: a time, a price, a decimal, a date written with numbers, a count of something, a month.
    guard = (
        rf"(?!\s*(?:[:/,.]?\d|%|€|\$|£|°|h{_E}|(?:{not_days}){_E}|(?:of\s+)?(?:{english_months}){_E}"
        r"|(?:days?|weeks?|nights?|ago)\b))"
    )

    # German writes a day with its period ("am 8."); elsewhere a period after a bare day ends the sentence.
    suffix = _SUFFIX if lang == "de" else r"(?:er|º|°|ª)?"

    def day(name: str) -> str:
        return rf"(?P<{name}>\d{{1,2}}){suffix}(?![\w])"

    def the(n: str) -> str:
        return f"the {int(n)}{_ordinal(int(n))}"

    def one_day(m: re.Match[str]) -> str:
        return the(m["d"])

    rules: list[Rule] = []
    if spec.get("range_from"):
        rules.append(
            (
                re.compile(rf"{_B}(?:{words('range_from')})\s+(?P<sub>{day('a')}{to}{day('b')}){guard}"),
                lambda m: f"{the(m['a'])} to {the(m['b'])}",
            )
        )
    if spec.get("day_words"):
        rules.append(
            (
                re.compile(rf"(?P<sub>{_B}(?:{words('day_words')})(?:\s+|(?<=['’])){day('d')}){guard}"),
                one_day,
            )
        )
    if spec.get("day_kept"):
        rules.append(
            (
                re.compile(rf"{_B}(?:{words('day_kept')})(?:\s+|(?<=['’]))(?P<sub>{day('d')}){guard}"),
                one_day,
            )
        )
    return rules


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


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
