"""The README says what the code does: every setting it documents exists, with the default it states,
every setting is documented, and every relative link in README.md and scripts/README.md leads somewhere.

Pure: reads Markdown and builds ``Settings`` from an empty environment; no app, no model.

The reference tables this reads have ``variable`` and ``default`` as their first two columns, one
variable a row, written in full (`` `WAYFARER_INDEX__RRF_K` ``). A default is either ``unset`` (None),
with any explanation after it, or a code span holding the value as the code has it (`` `3` ``,
`` `hybrid` ``, `` `true` ``, `` `{}` ``, a path relative to the repository), with any explanation after
it: `` `67108864` (64 MiB) ``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, SecretStr

from rag.settings import Settings

REPO = Path(__file__).resolve().parent.parent
DOCS = (REPO / "README.md", REPO / "scripts" / "README.md")
# Settings documented as a group (one row with a wildcard) rather than a row each.
GROUPS = ("connectors.sandbox_faults",)
# Variables the test command reads, not the service.
NOT_SETTINGS = re.compile(r"WAYFARER_TEST_\w+")

FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.M | re.S)
CODE_SPAN = re.compile(r"`([^`]+)`")
VARIABLE = re.compile(r"WAYFARER_[A-Z0-9_]+")


@dataclass(frozen=True)
class Row:
    doc: str
    line: int
    variable: str
    default: str  # "unset", or the text of the default's code span


def without_code_blocks(text: str) -> str:
    """The text with fenced code blocks blanked out, keeping the line numbers."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def cells(line: str) -> list[str]:
    """The cells of a Markdown table row (``\\|`` inside a cell is not a separator)."""
    parts = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [p.strip() for p in parts]


def reference_rows(path: Path) -> list[Row]:
    """Every row of the tables whose first two header cells are ``variable`` and ``default``."""
    rows: list[Row] = []
    in_table = False
    lines = without_code_blocks(path.read_text(encoding="utf-8")).splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.lstrip().startswith("|"):
            in_table = False
            continue
        row = cells(line)
        if [c.lower() for c in row[:2]] == ["variable", "default"]:
            in_table = True
            continue
        if not in_table or set("".join(row)) <= set("-: "):
            continue
        where = f"{path.name}:{number}"
        names = CODE_SPAN.fullmatch(row[0])
        assert names and VARIABLE.fullmatch(names.group(1)), (
            f"{where}: the variable cell holds one variable in a code span, e.g. `WAYFARER_INDEX__URL`"
        )
        default = row[1]
        if default == "unset" or default.startswith(("unset ", "unset:", "unset (")):
            value = "unset"
        else:
            span = re.match(r"`([^`]*)`", default)
            assert span, f"{where}: the default is `unset` or starts with the value in a code span"
            value = span.group(1)
        rows.append(Row(path.name, number, names.group(1), value))
    return rows


def setting_path(variable: str) -> list[str]:
    """``WAYFARER_INDEX__RRF_K`` → ``["index", "rrf_k"]`` (prefix WAYFARER_, sections split by ``__``)."""
    return variable.removeprefix("WAYFARER_").lower().split("__")


def lookup(settings: BaseModel, path: list[str]) -> Any:
    """The value at ``path`` in ``settings``; KeyError naming the first part that is not a field."""
    node: Any = settings
    for part in path:
        if not isinstance(node, BaseModel) or part not in type(node).model_fields:
            raise KeyError(part)
        node = getattr(node, part)
    return node


def leaves(model: BaseModel, prefix: tuple[str, ...] = ()) -> list[str]:
    """Every setting that is not itself a section, as a dotted path (``index.rrf_k``)."""
    out: list[str] = []
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            out += leaves(value, (*prefix, name))
        else:
            out.append(".".join((*prefix, name)))
    return out


def as_written(value: Any) -> str:
    """A default as the README writes it."""
    if value is None:
        return "unset"
    if isinstance(value, SecretStr):
        return "set"  # a secret never has a default; shows up as a mismatch if one is added
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, Path):
        return value.relative_to(REPO).as_posix() if value.is_relative_to(REPO) else value.as_posix()
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


@pytest.fixture
def defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings as the service builds them with no WAYFARER_ variable set and no .env file."""
    for key in list(os.environ):
        if key.startswith("WAYFARER_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    return Settings()


@pytest.fixture(scope="module")
def rows() -> list[Row]:
    found = [row for doc in DOCS for row in reference_rows(doc)]
    assert len(found) > 50, "the README's configuration tables were not found"
    return found


def test_documented_defaults_are_the_codes(rows: list[Row], defaults: Settings) -> None:
    wrong = []
    for row in rows:
        try:
            actual = as_written(lookup(defaults, setting_path(row.variable)))
        except KeyError as exc:
            wrong.append(
                f"{row.doc}:{row.line}: {row.variable} is not a setting ({exc.args[0]!r} is unknown)"
            )
            continue
        if actual != row.default:
            wrong.append(
                f"{row.doc}:{row.line}: {row.variable} defaults to {actual!r}, documented {row.default!r}"
            )
    assert not wrong, "\n".join(wrong)


def test_each_setting_is_documented_once(rows: list[Row], defaults: Settings) -> None:
    documented = [".".join(setting_path(row.variable)) for row in rows]
    twice = sorted({d for d in documented if documented.count(d) > 1})
    assert not twice, f"documented in more than one row: {twice}"
    missing = [
        leaf
        for leaf in leaves(defaults)
        if leaf not in documented and not leaf.startswith(tuple(g + "." for g in GROUPS))
    ]
    assert not missing, "settings with no row in the README's configuration tables: " + ", ".join(
        "WAYFARER_" + m.upper().replace(".", "__") for m in missing
    )


def test_every_variable_named_in_the_docs_is_a_setting(defaults: Settings) -> None:
    """Prose too: `WAYFARER_LIMITS__*` names a section, `WAYFARER_INDEX__URL` a setting."""
    unknown = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
            for name in VARIABLE.findall(line):
                if NOT_SETTINGS.fullmatch(name):
                    continue
                try:
                    lookup(defaults, setting_path(name.rstrip("_")))
                except KeyError:
                    unknown.append(f"{doc.name}:{number}: {name}")
    assert not unknown, "not a setting in rag/settings.py:\n" + "\n".join(unknown)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = CODE_SPAN.sub(r"\1", heading.strip()).lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in without_code_blocks(path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        base = slug(heading.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[tuple[int, str]]:
    """Every Markdown link target outside code, with its line."""
    out = []
    text = without_code_blocks(path.read_text(encoding="utf-8"))
    for number, line in enumerate(text.splitlines(), start=1):
        line = CODE_SPAN.sub("", line)
        out += [
            (number, m.group(1)) for m in re.finditer(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", line)
        ]
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_lead_somewhere(doc: Path) -> None:
    assert doc.exists(), f"{doc} is missing"
    broken = []
    for number, target in links(doc):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(f"{doc.name}:{number}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{doc.name}:{number}: {target} (no such heading in {dest.name})")
    assert not broken, "\n".join(broken)


def test_the_slugs_are_githubs() -> None:
    assert slug("Retrieval that generalises (TravelDest)") == "retrieval-that-generalises-traveldest"
    assert slug("`wayfarer serve` and `/readyz`") == "wayfarer-serve-and-readyz"
    assert slug("Running at scale: Qdrant, Redis, replicas") == "running-at-scale-qdrant-redis-replicas"
