"""Answer quality over a labelled question set, through the real chat service.

    python scripts/eval_answers.py [--data tests/data/answers.jsonl] [--show] [--json out.json]

Each line of the data: {"text", "lang", "doc": "guides/tokyo" | null, "docs"?: [...], "facts": [[alt, ...], ...],
"kind": "guide" | "topic" | "compare" | "climate" | "none"}. The service starts in this process on the
embedded defaults and seeds the seed corpus; every question is a new conversation's first message
(POST /v1/chat). Per answer:

- cites_right_doc: an expected document ("doc" or any of "docs") is among the sources the text cites;
- facts / all_facts: the share of the row's facts found in the answer (Sources line left out), and
  whether all are; a fact is a list of case-insensitive alternatives;
- citations_resolve: every [n] in the body and in the Sources line names exactly one item of the
  complete answer's ``sources`` (by its "n" when the items carry one, else the n-th item, as before
  the numbered scheme), the body and the Sources line cite the same numbers, each Sources-line label
  names its item's title (or, for a live result, its provider), and no listed item goes uncited;
- honest (for "none" rows, which the corpus cannot answer): the answer cites no seed document passage
  (guides/ or topics/); live results may be cited;
- words: the answer's length in words without the Sources line and the [n] marks.

The scoring functions are pure, so scripts/bench_llm_answers.py scores the LLM path with the same rules.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "answers.jsonl"
KINDS = ("guide", "topic", "compare", "climate", "none")

_CITE = re.compile(r"\[(\d+)\]")
# "Sources: [1] ...", "Fuentes: [1] ...", "Sources : [1] ..." - a word, a colon, then a citation.
_SOURCES_LINE = re.compile(r"^\s*[^\W\d_]+\s*:\s*\[\d+\]")
_FOLD = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00a0": " ",
        "\u202f": " ",
        "*": None,
        "`": None,
    }
)


def fold(text: str) -> str:
    """Lower case, accents, dashes, quotes, spacing and Markdown emphasis folded, for matching facts."""
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


def source_labels(line: str) -> list[tuple[int, str]]:
    """The Sources line's (n, label) pairs in order."""
    marks = list(_CITE.finditer(line))
    out = []
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(line)
        out.append((int(m.group(1)), line[m.end() : end].strip().rstrip(";").strip()))
    return out


def resolve(n: int, sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items [n] names: by their "n" when the frame numbers its items, else the n-th item."""
    if any("n" in s for s in sources):
        return [s for s in sources if s.get("n") == n]
    return [sources[n - 1]] if 1 <= n <= len(sources) else []


def _number(s: dict[str, Any], position: int, numbered: bool) -> int:
    return int(s["n"]) if numbered and "n" in s else position + 1


def citation_problems(text: str, sources: list[dict[str, Any]]) -> list[str]:
    """Why the answer's citations do not resolve; empty when they all do."""
    body, line = split_answer(text)
    in_body = [int(n) for n in _CITE.findall(body)]
    labels = source_labels(line) if line else []
    in_line = [n for n, _ in labels]
    problems = []
    if len(in_line) != len(set(in_line)):
        problems.append("a number is listed twice in the Sources line")
    if set(in_body) != set(in_line):
        problems.append(f"body cites {sorted(set(in_body))}, Sources line lists {sorted(set(in_line))}")
    for n in sorted(set(in_body) | set(in_line)):
        found = resolve(n, sources)
        if len(found) != 1:
            problems.append(f"[{n}] names {len(found)} items")
    for n, label in labels:
        found = resolve(n, sources)
        if len(found) == 1 and not _label_names(label, found[0]):
            problems.append(f"[{n}] label {label!r} does not name {found[0].get('title')!r}")
    numbered = any("n" in s for s in sources)
    cited = set(in_body) | set(in_line)
    for i, s in enumerate(sources):
        if _number(s, i, numbered) not in cited:
            problems.append(f"item {_number(s, i, numbered)} ({s.get('id')}) is listed but not cited")
    return problems


def _label_names(label: str, source: dict[str, Any]) -> bool:
    title = fold(str(source.get("title") or ""))
    if title and title in fold(label):
        return True
    provider = fold(str(source.get("provider") or ""))
    return source.get("kind") != "document" and bool(provider) and provider in fold(label)


def cited_sources(text: str, sources: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """The item each cited number names (None when it names none or several), in citing order."""
    numbers = dict.fromkeys(int(n) for n in _CITE.findall(text))
    out: list[dict[str, Any] | None] = []
    for n in numbers:
        found = resolve(n, sources)
        out.append(found[0] if len(found) == 1 else None)
    return out


def expected_docs(row: dict[str, Any]) -> list[str]:
    return list(row.get("docs") or ([row["doc"]] if row.get("doc") else []))


def score(row: dict[str, Any], text: str, sources: list[dict[str, Any]]) -> dict[str, Any]:
    """One answer's marks (see the module docstring)."""
    body, _ = split_answer(text)
    cited = cited_sources(text, sources)
    cited_ids = {s.get("id") for s in cited if s is not None}
    problems = citation_problems(text, sources)
    marks: dict[str, Any] = {
        "citations_resolve": not problems,
        "citation_problems": problems,
        "words": len(_CITE.sub(" ", body).split()),
        "cited": sorted(str(i) for i in cited_ids),
    }
    docs = expected_docs(row)
    if row["kind"] == "none":
        marks["honest"] = all(s is not None and s.get("kind") != "document" for s in cited)
        return marks
    marks["cites_right_doc"] = any(d in cited_ids for d in docs)
    marks["cites_all_docs"] = all(d in cited_ids for d in docs)
    marks["doc_listed"] = any(d in {s.get("id") for s in sources} for d in docs)
    folded = fold(body)
    found = [any(has_phrase(folded, alt) for alt in fact) for fact in row["facts"]]
    marks["facts"] = sum(found) / len(found) if found else 1.0
    marks["all_facts"] = all(found)
    marks["facts_missing"] = [fact[0] for fact, ok in zip(row["facts"], found, strict=True) if not ok]
    return marks


def summary(rows: list[dict[str, Any]], marks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per kind and overall: shares of each mark and the median words (facts over answerable rows)."""
    groups = {k: [i for i, r in enumerate(rows) if r["kind"] == k] for k in KINDS}
    groups["all"] = list(range(len(rows)))
    out = {}
    for name, idx in groups.items():
        if not idx:
            continue
        ms = [marks[i] for i in idx]
        answerable = [m for m, i in zip(ms, idx, strict=True) if rows[i]["kind"] != "none"]
        out[name] = {
            "n": len(idx),
            "cites_right_doc": _mean([m["cites_right_doc"] for m in answerable]),
            "cites_all_docs": _mean([m["cites_all_docs"] for m in answerable]),
            "doc_listed": _mean([m["doc_listed"] for m in answerable]),
            "facts": _mean([m["facts"] for m in answerable]),
            "all_facts": _mean([m["all_facts"] for m in answerable]),
            "honest": _mean([m["honest"] for m in ms if "honest" in m]),
            "citations_resolve": _mean([m["citations_resolve"] for m in ms]),
            "words_median": statistics.median(m["words"] for m in ms),
            "words_mean": round(statistics.fmean(m["words"] for m in ms), 1),
        }
    return out


def _mean(values: list[Any]) -> float | None:
    return round(sum(float(v) for v in values) / len(values), 3) if values else None


def table(stats: dict[str, dict[str, Any]]) -> str:
    cols = ["cites_right_doc", "doc_listed", "facts", "all_facts", "honest", "citations_resolve"]
    heads = ["right doc", "listed", "facts", "all facts", "honest", "resolve"]
    lines = [f"{'kind':<8} {'n':>3}  " + "  ".join(f"{h:>9}" for h in heads) + "  words (median)"]
    for name, s in stats.items():
        cells = ["-" if s[c] is None else f"{s[c]:.0%}" for c in cols]
        lines.append(
            f"{name:<8} {s['n']:>3}  " + "  ".join(f"{c:>9}" for c in cells) + f"  {s['words_median']:>6.0f}"
        )
    if "compare" in stats:
        lines.append(f"compare: every place's guide cited in {stats['compare']['cites_all_docs']:.0%}")
    lines.append("right doc, listed and facts: over the answerable rows; honest: over the 'none' rows")
    return "\n".join(lines)


async def ask_all(url: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The complete answer to each question, each from a new user, with its time in seconds."""
    answers = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=180)) as session:
        for i, row in enumerate(rows):
            body = {"user_id": f"answers-{i}", "message": row["text"]}
            start = time.perf_counter()
            async with session.post(url.rstrip("/") + "/v1/chat", json=body) as resp:
                answer = await resp.json()
            if resp.status != 200:
                raise SystemExit(f"chat failed ({resp.status}) for {row['text']!r}: {answer}")
            answer["seconds"] = round(time.perf_counter() - start, 3)
            answers.append(answer)
    return answers


async def run(rows: list[dict[str, Any]], url: str | None) -> list[dict[str, Any]]:
    if url:
        return await ask_all(url, rows)
    import rag
    from scripts._common import serve_in_process

    print(f"rag imported from {rag.__file__}", file=sys.stderr)
    start = time.perf_counter()
    async with serve_in_process({"WAYFARER_SCHEDULER__ENABLED": "false"}) as (base, _app):
        print(f"service up and seeded in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        return await ask_all(base, rows)


def show(rows: list[dict[str, Any]], answers: list[dict[str, Any]], marks: list[dict[str, Any]]) -> None:
    for row, answer, m in zip(rows, answers, marks, strict=True):
        flags = " ".join(
            f"{k}={'yes' if m[k] else 'NO'}"
            for k in ("cites_right_doc", "all_facts", "honest", "citations_resolve")
            if k in m
        )
        print(f"\n=== [{row['kind']}/{row['lang']}] {row['text']}  ({flags}, {m['words']} words)")
        print(answer.get("text", ""))
        print(
            f"--- sources: {[(s.get('n'), s.get('id'), s.get('title')) for s in answer.get('sources', [])]}"
        )
        for p in m["citation_problems"]:
            print(f"--- citation: {p}")
        if m.get("facts_missing"):
            print(f"--- facts missing: {m['facts_missing']}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--url", help="score a running service instead of one started in this process")
    parser.add_argument("--show", action="store_true", help="print every question's answer and marks")
    parser.add_argument("--json", type=Path, help="save the answers, marks and summary here")
    args = parser.parse_args()
    rows = [json.loads(x) for x in args.data.read_text(encoding="utf-8").splitlines() if x.strip()]
    answers = asyncio.run(run(rows, args.url))
    marks = [score(r, a.get("text", ""), a.get("sources", [])) for r, a in zip(rows, answers, strict=True)]
    stats = summary(rows, marks)
    if args.show:
        show(rows, answers, marks)
        print()
    print(table(stats))
    secs = [a["seconds"] for a in answers]
    print(f"seconds per answer: median {statistics.median(secs):.2f}, max {max(secs):.2f}")
    if args.json:
        out = {
            "summary": stats,
            "rows": [
                {
                    **r,
                    "answer": a.get("text", ""),
                    "sources": a.get("sources", []),
                    "seconds": a["seconds"],
                    **m,
                }
                for r, a, m in zip(rows, answers, marks, strict=True)
            ],
        }
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
