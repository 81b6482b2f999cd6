"""What a traveller feels in an answer, scored without the service. Pure: text in, marks out.

Used by scripts/eval_answers.py for the multilingual set (tests/data/answers_multilingual.jsonl) and
tested in tests/test_eval_answers.py. The guides are read here on their own terms (Markdown headings,
bullets, leading bold labels), not through the composer's parser, so the composer is not graded by
its own reading of the text. Per answer (``score_row``):

- section_right: the first guide source (by its number) is the labelled guide's labelled section;
  on_section: every guide source cited is that section (a pickpocket warning in a food answer is not);
- list_whole: list questions: the answer names at least 5 of the section's items (all when fewer);
- no_fragment: no quoted line opens on a pronoun, loses its list item's label, or wears another
  item's label (``fragments`` has the heuristic and its examples);
- plan_ok: plan questions: one "Day n" block per day asked (``day_markers``, six languages), every
  line in those blocks cited, every source the city's own guide;
- no_guide_ok: the answer says in the message's language that there is no guide for the place (the
  catalogue's no_guide / nothing_place / lead_no_guide phrases), and each other guide it quotes is either
  about the place or named as the guide it is (``misattributed``);
- clean: every cited source is a guide or topic document, no tool or live result;
- lang_right: the answer's own words (not its quotes) are in the message's language.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

KINDS = ("section", "list", "plan", "no_guide")
LANGS = ("en", "es", "fr", "de", "pt", "it")
METRICS = tuple(
    "section_right on_section list_whole no_fragment plan_ok no_guide_ok clean lang_right".split()
)

_CITE = re.compile(r"\[(\d+)\]")
_SOURCES_LINE = re.compile(r"^\s*[^\W\d_]+\s*:\s*\[\d+\]")  # "Sources: [1] ...", "Fuentes: [1] ..."
_FOLD = str.maketrans(
    {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2018": "'"}
    | {"\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\u202f": " ", "*": None, "`": None}
)
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_LEAD_BOLD = re.compile(r"^\*\*(.+?)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_ESCAPED = re.compile(r"\\(.)")
# Words a quote may not open on: they point back at a subject the quote left behind.
PRONOUNS = frozenset("it its it's they their theirs them this these those he she his her both such".split())
# Day markers: "Day 1", "Día 2", "Jour 3", "Tag 4", "Dia 5", "Giorno 6", "2. Tag", "1er jour", "3º dia",
# "Day one", "Primer día", "Erster Tag", "Premier jour", "Primo giorno" (words folded: no accents).
_WORDS = (
    "one uno una un eins ein um first primer primero premier premiere erster erste primeiro primo prima",
    "two dos deux zwei dois due second segundo deuxieme zweiter zweite secondo seconda",
    "three tres trois drei tre third tercer tercero troisieme dritter dritte terceiro terzo terza",
    "four cuatro quatre vier quatro quattro fourth cuarto quatrieme vierter vierte quarto",
    "five cinco cinq funf cinque fifth quinto cinquieme funfter funfte",
)
_NUMBERS = {w: i for i, ws in enumerate(_WORDS, start=1) for w in ws.split()}
_DAY_WORD = r"(?:day|dia|jour|tag|giorno)"
_DAY = re.compile(rf"{_DAY_WORD}\s+(\d{{1,2}}|[a-z]+)(?![\w'])")
_DAY_AFTER = re.compile(rf"(\d{{1,2}}|[a-z]+)(?:\.|er|re|e|º|°|o)?\s*{_DAY_WORD}(?!\w)")


def fold(text: str) -> str:
    """Lower case, accents, dashes, quotes, spacing and Markdown emphasis folded, for matching."""
    text = unicodedata.normalize("NFKD", text.translate(_FOLD))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(text.split())


def has_phrase(folded: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in the folded text as whole words ("hat" is not in "what")."""
    return re.search(rf"(?<!\w){re.escape(fold(phrase))}(?!\w)", folded) is not None


def split_answer(text: str) -> tuple[str, str | None]:
    """(body, Sources line): the last line that starts with a word, a colon and a citation."""
    lines = text.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if _SOURCES_LINE.match(lines[i]):
            return "\n".join(lines[:i] + lines[i + 1 :]), lines[i]
    return text, None


# --- the guides, read as a traveller reads them --------------------------------------------------


@dataclass(frozen=True)
class Item:
    """A paragraph or bullet of a guide: its section, its leading bold label ("" if none), plain text."""

    section: str
    label: str
    text: str
    bullet: bool = False


def plain(markdown: str) -> str:
    """Markdown emphasis, links and escapes removed, spacing collapsed."""
    s = _LINK.sub(r"\1", markdown).replace("**", "").replace("`", "")
    return " ".join(_ESCAPED.sub(r"\1", _EMPHASIS.sub(r"\1", s)).split())


def guide_items(markdown: str) -> list[Item]:
    """A guide's items in order: each "- " bullet and each paragraph under a "## " heading."""
    items: list[Item] = []
    section = ""
    for block in re.split(
        r"\n\s*\n", markdown.split("\n---", 1)[-1] if markdown.startswith("---") else markdown
    ):
        lines = [x for x in block.strip().splitlines() if x.strip()]
        pieces: list[tuple[bool, str]] = []
        for line in lines:
            bullet = line.startswith(("- ", "* "))
            if line.startswith("#"):
                section = line.lstrip("#").strip()
            elif bullet or not pieces:
                pieces.append((bullet, line[2:] if bullet else line))
            else:
                pieces[-1] = (pieces[-1][0], pieces[-1][1] + " " + line)
        for bullet, piece in pieces:
            bold = _LEAD_BOLD.match(piece.strip())
            label = plain(bold.group(1)).rstrip(":").strip() if bold else ""
            items.append(Item(section, label, plain(piece), bullet))
    return items


def bold_names(markdown: str) -> set[str]:
    """Every bold span of a guide, folded: what a label shown in an answer may be."""
    return {fold(plain(m.group(1))).rstrip(":").strip() for m in _BOLD.finditer(markdown)}


# --- quotes and fragments ------------------------------------------------------------------------


@dataclass(frozen=True)
class Quote:
    line: str  # as shown, without "- " and its [n]
    numbers: tuple[int, ...]


def quotes(body: str) -> list[Quote]:
    """The lines of an answer's body that cite something: the quoted text, one item's run a line."""
    out = []
    for raw in body.splitlines():
        numbers = tuple(int(n) for n in _CITE.findall(raw))
        if not numbers:
            continue
        line = _CITE.sub("", re.sub(r"^\s*(?:[-*•]\s+|#+\s+|\d{1,2}[.)]\s+)", "", raw)).strip()
        out.append(Quote(_ESCAPED.sub(r"\1", line), numbers))
    return out


def _locate(text: str, items: Sequence[Item]) -> tuple[Item, int] | None:
    probe = fold(text)[:50].rstrip(" .")
    if len(probe) < 8:
        return None
    for item in items:
        at = fold(item.text).find(probe)
        if at >= 0:
            return item, at
    return None


def fragments(quoted: Sequence[Quote], items: Sequence[Item], labels: set[str]) -> list[str]:
    """Why quoted lines read as fragments (empty when none do). ``items``: the cited guides' items;
    ``labels``: their bold spans, folded. A line is located in the guides by its first 50 characters,
    directly, or after a "Label: " or "intro: " prefix the answer put in front of it. Then:

    - pronoun: the quote (no label in front) opens on a pronoun or demonstrative (``PRONOUNS``),
      wherever it comes from;
    - no_subject: it starts inside a labelled bullet (not at the bullet's start) and the label is not
      shown, so its subject is gone ("Comfortable and well connected.", "Central but pricey."); a
      labelled paragraph ("**From the airport**: ...") heads a topic, and its later sentences stand alone;
    - label_mismatch: a guide label is shown in front of text from another item ("Ginjinha: Many tascas
      (simple taverns) offer a prato do dia...").
    Lines not found in the documents (tool results) are judged by their first word only."""
    problems = []
    for q in quoted:
        found, shown = _locate(q.line, items), ""
        if found is None and ": " in q.line:
            shown, rest = q.line.split(": ", 1)
            found = _locate(rest, items)
        if found is None:
            if _first_word(q.line) in PRONOUNS:
                problems.append(f"pronoun: {q.line[:90]!r}")
            continue
        item, at = found
        if shown:
            if fold(shown) in labels and fold(shown) != fold(item.label):
                problems.append(
                    f"label_mismatch: {q.line[:90]!r} (its item: {item.label or item.text[:40]!r})"
                )
            continue
        if _first_word(q.line) in PRONOUNS:
            problems.append(f"pronoun: {q.line[:90]!r}")
        elif at > 0 and item.bullet and item.label and fold(item.label) not in fold(q.line):
            problems.append(f"no_subject: {q.line[:90]!r} (inside {item.label!r})")
    return problems


# --- lists, plans, languages ---------------------------------------------------------------------


def _first_word(text: str) -> str:
    return (re.split(r"[^\w']+", fold(text).lstrip(" \"'(")) + [""])[0]


def item_keys(name: str) -> list[str]:
    """The ways an answer may name a list item: its name, without parentheses, and a capitalised
    parenthesis ("Museu Nacional do Azulejo"), not "(3rd and 4th)" or "(viewpoints)"."""
    keys = [name, re.sub(r"\s*\([^)]*\)", "", name).strip()]
    keys += [p for p in re.findall(r"\(([^)]+)\)", name) if any(c.isupper() for c in p) and len(p) >= 3]
    return [k for k in dict.fromkeys(keys) if k]


def items_quoted(quoted: Sequence[Quote], items: Sequence[str]) -> list[str]:
    """The list items the answer quotes: a quoted line opens on the item's name (any of its
    ``item_keys``). A name met inside another item's text ("calmer than the Blue Mosque") or in a
    neighbourhood's description is not the item quoted."""
    heads = [fold(q.line) for q in quoted]
    return [
        i
        for i in items
        if any(re.match(rf"{re.escape(fold(k))}(?!\w)", h) for k in item_keys(i) for h in heads)
    ]


def day_markers(text: str) -> list[int]:
    """The day numbers a plan's lines open on ("Day 2", "**Día 3:**", "Jour 1 -", "2. Tag", "1er jour"),
    in order; a day mentioned mid-sentence ("on day 2 we...") is not a marker."""
    out = []
    for line in text.splitlines():
        head = fold(re.sub(r"^[\s#>*_\-•]+", "", line))[:24]
        m = _DAY.match(head) or _DAY_AFTER.match(head)
        n = (int(m.group(1)) if m.group(1).isdigit() else _NUMBERS.get(m.group(1))) if m else None
        if n:
            out.append(n)
    return out


def plan_marks(body: str, days: int, cited_ids: Sequence[str], doc: str) -> dict[str, Any]:
    """One block per day asked, each block's lines cited, all sources the city's guide."""
    markers = day_markers(body)
    blocks: list[list[str]] = []  # a day's lines; its heading counts when it cites something
    for line in body.splitlines():
        if day_markers(line):
            blocks.append([line] if _CITE.search(line) else [])
        elif blocks and line.strip():
            blocks[-1].append(line)
    cited = bool(blocks) and all(blocks) and all(_CITE.search(x) for b in blocks for x in b)
    own = bool(cited_ids) and all(i == doc for i in cited_ids)
    has_days = sorted(set(markers)) == list(range(1, days + 1))
    return {
        "day_blocks": len(set(markers)),
        "plan_days": has_days,
        "plan_cited": cited,
        "plan_own_guide": own,
    }


def _fixed(template: str) -> list[str]:
    return [p.strip(" :;,.") for p in re.split(r"\{[^}]*\}", template) if len(p.strip(" :;,.")) >= 10]


def language_of(body: str, catalogue: Mapping[str, Mapping[str, str]]) -> str | None:
    """The language whose catalogue phrases the answer's own lines (those citing nothing) use most;
    None when they use none. Quotes are left out: the guides are in English whatever was asked."""
    own = fold("\n".join(x for x in body.splitlines() if not _CITE.search(x)))
    best, score = None, 0
    for lang, table in catalogue.items():
        found = sum(len(p) for t in table.values() for p in _fixed(t) if fold(p) in own)
        if found > score:
            best, score = lang, found
    return best


def says_no_guide(
    text: str, lang: str, place: Sequence[str], catalogue: Mapping[str, Mapping[str, str]]
) -> bool:
    """Whether the answer says, in ``lang``, that it has no guide for the place: the words before
    {place} of the catalogue's no_guide / nothing_place / lead_no_guide phrase, then the place (any of
    its names: the catalogue's own may differ, "Cusco", "Nara-shi", "Florence") before the clause ends.
    What follows may differ ("I don't have a guide for Porto; the Lisbon guide says...")."""
    folded = fold(text)
    for key in ("no_guide", "nothing_place", "lead_no_guide"):
        head = fold(catalogue[lang][key].partition("{place}")[0])
        for m in re.finditer(re.escape(head), folded):
            clause = re.split(r"[.;:!?]", folded[m.end() : m.end() + 80])[0]
            if any(has_phrase(clause, p) for p in place):
                return True
    return False


def city_of(title: str) -> str:
    """ "Lisbon City Guide" -> "Lisbon"; "Mexico City Guide" -> "Mexico"."""
    return re.sub(r"\s+(City\s+)?Guide$", "", title.strip())


def misattributed(body: str, guide_sources: Sequence[Mapping[str, Any]], place: Sequence[str]) -> list[str]:
    """Other cities' guides quoted as if about the place: the excerpt does not name the place and the
    answer's own lines do not name the guide's city."""
    own = fold("\n".join(x for x in body.splitlines() if not _CITE.search(x)))
    out = []
    for s in guide_sources:
        about = fold(str(s.get("excerpt") or ""))
        if any(has_phrase(about, p) for p in place) or has_phrase(own, city_of(str(s.get("title") or ""))):
            continue
        out.append(f"{s.get('id')} — {s.get('section')}")
    return out


# --- one answer ----------------------------------------------------------------------------------


def score_row(
    row: Mapping[str, Any],
    text: str,
    sources: Sequence[Mapping[str, Any]],
    documents: Mapping[str, str],
    catalogue: Mapping[str, Mapping[str, str]],
) -> dict[str, Any]:
    """One answer's marks (see the module docstring); a mark that does not apply to the row is absent.
    ``documents``: id ("guides/lisbon", "topics/rail-travel") -> its Markdown; ``catalogue``: lang ->
    key -> phrase."""
    body, _ = split_answer(text)
    numbers = dict.fromkeys(int(n) for n in _CITE.findall(text))
    by_n = {int(s["n"]): s for s in sources if "n" in s} or {i + 1: s for i, s in enumerate(sources)}
    cited = [by_n[n] for n in numbers if n in by_n]
    docs = [s for s in cited if s.get("kind") == "document"]
    in_guides = [s for s in docs if str(s.get("id", "")).startswith("guides/")]
    kind, doc = row["kind"], row.get("doc") or row.get("near_doc")
    shown = [
        f"[{n}] {s.get('id')} — {s.get('section') or s.get('kind')}" for n, s in by_n.items() if n in numbers
    ]
    marks: dict[str, Any] = {"cited": shown, "clean": len(docs) == len(cited)}
    detected = language_of(body, catalogue)
    if detected is not None:
        marks["lang_right"] = detected == row["lang"]
        marks["lang_detected"] = detected
    if doc and row.get("section"):
        first = in_guides[0] if in_guides else {}
        marks["section_right"] = first.get("id") == doc and first.get("section") == row["section"]
        marks["on_section"] = bool(in_guides) and all(
            s.get("id") == doc and s.get("section") == row["section"] for s in in_guides
        )
    ids = sorted({str(s.get("id")) for s in docs} & set(documents))
    items = [x for d in ids for x in guide_items(documents[d])]
    labels = set().union(*(bold_names(documents[d]) for d in ids))
    quoted = quotes(body)
    if quoted:
        marks["fragments"] = fragments(quoted, items, labels)
        marks["no_fragment"] = not marks["fragments"]
    if kind == "list":
        named = items_quoted(quoted, row["items"])
        marks["items_quoted"] = named
        marks["list_whole"] = len(named) >= min(5, len(row["items"]))
    elif kind == "plan":
        plan = plan_marks(body, int(row["days"]), [str(s.get("id")) for s in cited], str(row["doc"]))
        marks |= plan
        marks["plan_ok"] = plan["plan_days"] and plan["plan_cited"] and plan["plan_own_guide"]
    elif kind == "no_guide":
        place = [row["place"], *row.get("aliases", [])]
        marks["says_no_guide"] = says_no_guide(body, row["lang"], place, catalogue)
        marks["misattributed"] = misattributed(body, in_guides, place)
        marks["no_guide_ok"] = marks["says_no_guide"] and not marks["misattributed"]
    return marks


def summarise(
    rows: Sequence[Mapping[str, Any]], marks: Sequence[Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per language, per kind and overall: each metric's share over the rows it applies to, and n."""
    groups: dict[str, list[int]] = {name: [] for name in (*LANGS, *KINDS)}
    for i, row in enumerate(rows):
        groups.setdefault(row["lang"], []).append(i)
        groups.setdefault(row["kind"], []).append(i)
    groups["all"] = list(range(len(rows)))
    out: dict[str, dict[str, Any]] = {}
    for name, idx in groups.items():
        if not idx:
            continue
        stats: dict[str, Any] = {"n": len(idx)}
        for m in METRICS:
            values = [bool(marks[i][m]) for i in idx if m in marks[i]]
            stats[m] = round(sum(values) / len(values), 3) if values else None
            stats[f"{m}_n"] = len(values)
        out[name] = stats
    return out


def table(stats: Mapping[str, Mapping[str, Any]]) -> str:
    """The summary as a text table: a row per language, per kind and overall."""
    heads = ["section", "on sect.", "list", "no frag", "plan", "no guide", "clean", "language"]
    lines = [f"{'':<9} {'n':>3}  " + "  ".join(f"{h:>10}" for h in heads)]
    for name, s in stats.items():
        cells = ["-" if s[m] is None else f"{s[m]:.0%} ({s[f'{m}_n']})" for m in METRICS]
        lines.append(f"{name:<9} {s['n']:>3}  " + "  ".join(f"{c:>10}" for c in cells))
    return "\n".join(lines)
