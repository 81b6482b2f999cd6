"""Answer quality over two labelled question sets, through the real chat service.

    python scripts/eval_answers.py [--set answers|multilingual|both] [--show] [--json [FILE]] [--out FILE]

The service starts once in this process on the embedded defaults (no LLM: the extractive composer) and
seeds the seed corpus; every question is a new conversation (POST /v1/chat, a new user_id), after the
row's "context" messages when it has some ("What about Porto?" after "What should I see in Lisbon?").
``--json`` alone prints the summaries as JSON; ``--json FILE`` saves summaries, answers and marks;
``--out FILE`` writes one JSON line per question (the answer, its sources, its marks) for inspection.

**answers** (tests/data/answers.jsonl, ``--data``). Each line: {"text", "lang", "doc": "guides/tokyo" |
null, "docs"?: [...], "facts": [[alt, ...], ...], "kind": "guide" | "topic" | "compare" | "climate" |
"none"}. Per answer:

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

**multilingual** (tests/data/answers_multilingual.jsonl, ``--ml-data``): 114 questions, 19 in each of
en, es, fr, de, pt and it, about the 29 seeded cities and a few places without a guide. Method: the
questions were written first, as travellers ask them, with only the list of cities known, and saved in
that order ("order"); only then was each labelled by reading the guide: "doc", "section" (the heading
that answers it), "kind" ("section" | "list" | "plan" | "no_guide"), "items" for a list (the section's
bullets by their bold names, else first words), "days" for a plan, "place" / "aliases" / "near_doc"
for a place without a guide. Scored by scripts/answer_scoring.py (its docstring has the rules): section
right and on section, list whole, no fragment, plans, no guide, clean (no tool result cited in a
knowledge answer) and the answer's language; per language, per kind and overall, then up to 10
failures per category, spread over kinds and languages.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from scripts import answer_scoring as ml  # noqa: E402
from scripts.answer_scoring import fold, has_phrase, split_answer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT / "tests" / "data" / "answers.jsonl"
MULTILINGUAL_DATA = ROOT / "tests" / "data" / "answers_multilingual.jsonl"
KINDS = ("guide", "topic", "compare", "climate", "none")
FAILURES = ("section_right", "list_whole", "no_fragment", "plan_ok", "no_guide_ok", "clean", "lang_right")

_CITE = re.compile(r"\[(\d+)\]")


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


async def ask_all(url: str, rows: list[dict[str, Any]], user: str = "answers") -> list[dict[str, Any]]:
    """The complete answer to each question, each from a new user (after the row's "context"
    messages, in the same conversation), with the question's own time in seconds."""
    answers = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=180)) as session:
        for i, row in enumerate(rows):
            for message in [*row.get("context", []), row["text"]]:
                body = {"user_id": f"{user}-{i}", "message": message}
                start = time.perf_counter()
                async with session.post(url.rstrip("/") + "/v1/chat", json=body) as resp:
                    answer = await resp.json()
                if resp.status != 200:
                    raise SystemExit(f"chat failed ({resp.status}) for {message!r}: {answer}")
            answer["seconds"] = round(time.perf_counter() - start, 3)
            answers.append(answer)
    return answers


async def run(sets: dict[str, list[dict[str, Any]]], url: str | None) -> dict[str, list[dict[str, Any]]]:
    """Each set's answers, from one service: ``url``'s, or one started and seeded in this process."""
    if url:
        return {name: await ask_all(url, rows, name) for name, rows in sets.items()}
    import rag
    from scripts._common import serve_in_process

    print(f"rag imported from {rag.__file__}", file=sys.stderr)
    start = time.perf_counter()
    async with serve_in_process({"WAYFARER_SCHEDULER__ENABLED": "false"}) as (base, _app):
        print(f"service up and seeded in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        return {name: await ask_all(base, rows, name) for name, rows in sets.items()}


def show_answers(
    rows: list[dict[str, Any]], answers: list[dict[str, Any]], marks: list[dict[str, Any]]
) -> None:
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


def score_set(name: str, rows: list[dict[str, Any]], answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    said = [(a.get("text", ""), a.get("sources", [])) for a in answers]
    if name != "multilingual":
        return [score(r, t, s) for r, (t, s) in zip(rows, said, strict=True)]
    from rag.i18n import phrases

    docs, phrases = documents(), phrases()
    return [ml.score_row(r, t, s, docs, phrases) for r, (t, s) in zip(rows, said, strict=True)]


def documents() -> dict[str, str]:
    """The seed corpus's Markdown by document id ("guides/lisbon", "topics/rail-travel")."""
    return {
        f"{p.parent.name}/{p.stem}": p.read_text(encoding="utf-8")
        for p in (ROOT / "seed_data").glob("*/*.md")
    }


def _round_robin(queues: list[list[int]]) -> list[int]:
    return [i for turn in itertools.zip_longest(*queues) for i in turn if i is not None]


def failures(rows: list[dict[str, Any]], texts: list[str], marks: list[dict[str, Any]], metric: str) -> str:
    """Up to 10 questions failing ``metric``, spread over kinds and languages (round-robin over the
    kinds, each kind's failures round-robin over the languages): what they quoted, from where."""
    queues: dict[str, dict[str, list[int]]] = {}
    for i, m in enumerate(marks):
        if m.get(metric) is False:
            queues.setdefault(rows[i]["kind"], {}).setdefault(rows[i]["lang"], []).append(i)
    spread = [_round_robin(list(by_lang.values())) for by_lang in queues.values()]
    picked = _round_robin(spread)
    out = [f"--- {metric}: {sum(m.get(metric) is False for m in marks)} failing"]
    why = {
        "no_fragment": ("fragments",),
        "list_whole": ("items_quoted",),
        "plan_ok": ("day_blocks", "plan_cited", "plan_own_guide"),
        "no_guide_ok": ("says_no_guide", "misattributed"),
        "lang_right": ("lang_detected",),
    }
    for i in picked[:10]:
        r, m = rows[i], marks[i]
        want = r.get("section") or r.get("place") or f"{r.get('days')} days"
        out.append(
            f"[{r['lang']}/{r['kind']}] {r['text']}  (wants {r.get('doc') or r.get('near_doc')} / {want})"
        )
        body = split_answer(texts[i])[0].strip()
        said = [q.line for q in ml.quotes(body)] or [body.splitlines()[0] if body else "(empty)"]
        out += [f"    > {line[:110]}" for line in said[:3]] + [
            f"    cites {'; '.join(m['cited']) or 'nothing'}"
        ]
        if why.get(metric):
            out.append("    " + ", ".join(f"{k}={m.get(k)}" for k in why[metric]))
    return "\n".join(out)


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--set", choices=("answers", "multilingual", "both"), default="both")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the answers set")
    parser.add_argument("--ml-data", type=Path, default=MULTILINGUAL_DATA, help="the multilingual set")
    parser.add_argument("--url", help="score a running service instead of one started in this process")
    parser.add_argument("--show", action="store_true", help="print every question's answer and marks")
    parser.add_argument(
        "--json", nargs="?", const="-", help="print the summaries as JSON, or save all to FILE"
    )
    parser.add_argument(
        "--out", type=Path, help="write each question's answer, sources and marks (JSON lines)"
    )
    args = parser.parse_args()
    sets = {"answers": load(args.data)} if args.set != "multilingual" else {}
    if args.set != "answers":
        sets["multilingual"] = load(args.ml_data)
    answers = asyncio.run(run(sets, args.url))
    marks = {name: score_set(name, rows, answers[name]) for name, rows in sets.items()}
    stats = {
        n: (ml.summarise if n == "multilingual" else summary)(rows, marks[n]) for n, rows in sets.items()
    }
    if args.json == "-":
        print(json.dumps(stats, ensure_ascii=False, indent=1))
    else:
        report(sets, answers, marks, stats, show=args.show)
    joined = {
        name: [
            {**r, **answer_fields(a), **m} for r, a, m in zip(rows, answers[name], marks[name], strict=True)
        ]
        for name, rows in sets.items()
    }
    if args.json and args.json != "-":
        out: dict[str, Any] = {name: {"summary": stats[name], "rows": joined[name]} for name in sets}
        out |= out.pop("answers", {})  # the answers set at the top, where earlier files had it
        Path(args.json).write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    if args.out:
        lines = [
            json.dumps({"set": name, **row}, ensure_ascii=False) + "\n"
            for name in sets
            for row in joined[name]
        ]
        args.out.write_text("".join(lines), encoding="utf-8")


def answer_fields(a: dict[str, Any]) -> dict[str, Any]:
    keep = ("n", "id", "kind", "title", "section", "excerpt")
    sources = [{k: s.get(k) for k in keep} for s in a.get("sources", [])]
    return {"answer": a.get("text", ""), "sources": sources, "seconds": a["seconds"]}


def report(
    sets: dict[str, Any], answers: dict[str, Any], marks: dict[str, Any], stats: dict[str, Any], show: bool
) -> None:
    if "answers" in sets:
        if show:
            show_answers(sets["answers"], answers["answers"], marks["answers"])
            print()
        print(table(stats["answers"]))
    if "multilingual" in sets:
        rows, texts, ms = (
            sets["multilingual"],
            [a.get("text", "") for a in answers["multilingual"]],
            marks["multilingual"],
        )
        for r, t, m in zip(rows, texts, ms, strict=True) if show else ():
            flags = " ".join(f"{k}={'yes' if m[k] else 'NO'}" for k in ml.METRICS if k in m)
            print(f"\n=== [{r['lang']}/{r['kind']}] {r['text']}  ({flags})\n{t}")
        print(f"\nmultilingual set ({len(rows)} questions): share passing (of the rows it applies to)")
        print(ml.table(stats["multilingual"]))
        for metric in FAILURES:
            print(failures(rows, texts, ms, metric))
    secs = [a["seconds"] for name in sets for a in answers[name]]
    print(f"seconds per answer: median {statistics.median(secs):.2f}, max {max(secs):.2f}")


if __name__ == "__main__":
    main()
