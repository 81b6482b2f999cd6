"""Read documents from files: Markdown with front matter, plain text, JSONL of {id, text, metadata}."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import frontmatter

from rag.errors import IngestError
from rag.ingest.documents import SourceDocument, check_document_id

SUFFIXES = (".md", ".markdown", ".txt", ".jsonl")


def discover(paths: list[Path]) -> list[tuple[Path, Path]]:
    """(file, root) pairs for every loadable file under ``paths``, sorted; root names document ids."""
    found: list[tuple[Path, Path]] = []
    for path in paths:
        if path.is_dir():
            found.extend((f, path) for f in sorted(path.rglob("*")) if f.is_file() and f.suffix in SUFFIXES)
        elif path.is_file():
            if path.suffix not in SUFFIXES:
                raise IngestError(f"{path}: unsupported file type (use .md, .txt or .jsonl)")
            found.append((path, path.parent))
        else:
            raise IngestError(f"{path}: no such file or directory")
    return found


def load_file(
    path: Path, root: Path, source: str = "seed", id_prefix: str | None = None
) -> Iterator[SourceDocument]:
    """The documents of one file, named by its path under ``root`` without the suffix (the seed corpus's
    ``guides/tokyo``), or by the id it states (front matter ``id``, each JSONL line's ``id``).

    ``id_prefix`` is for a user's files: it goes before a path-derived id, and a stated id is kept but
    may not be one of the seed corpus's (ReservedDocumentIdError, naming the file).
    """
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    if path.suffix == ".jsonl":
        yield from _load_jsonl(path, rel, source, id_prefix is not None)
        return
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(f"{path}: cannot read: {exc}") from exc
    metadata: dict[str, Any] = {}
    text = raw
    if path.suffix in (".md", ".markdown"):
        try:
            post = frontmatter.loads(raw)
        except Exception as exc:
            raise IngestError(f"{path}: bad front matter: {exc}") from exc
        metadata = {k: _plain(v) for k, v in post.metadata.items()}
        text = post.content
    stated = metadata.pop("id", None)
    if stated and id_prefix is not None:
        check_document_id(str(stated), str(path))
    doc_id = str(stated) if stated else (id_prefix or "") + rel.rsplit(".", 1)[0]
    metadata.setdefault("title", path.stem.replace("-", " ").replace("_", " ").title())
    metadata.setdefault("source", source)
    metadata["path"] = rel
    if text.strip():
        yield SourceDocument(doc_id, text, metadata)


def _load_jsonl(path: Path, rel: str, source: str, users: bool) -> Iterator[SourceDocument]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise IngestError(f"{path}: cannot read: {exc}") from exc
    with handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise IngestError(f"{path}:{lineno}: not JSON: {exc.msg}") from exc
            if (
                not isinstance(obj, dict)
                or not isinstance(obj.get("id"), str | int)
                or not isinstance(obj.get("text"), str)
            ):
                raise IngestError(f"{path}:{lineno}: each line needs a string 'id' and 'text'")
            if users:
                check_document_id(str(obj["id"]), f"{path}:{lineno}")
            metadata = obj.get("metadata") or {}
            if not isinstance(metadata, dict):
                raise IngestError(f"{path}:{lineno}: 'metadata' must be an object")
            metadata = {**metadata, "path": f"{rel}#{lineno}"}
            metadata.setdefault("source", source)
            if obj["text"].strip():
                yield SourceDocument(str(obj["id"]), obj["text"], metadata)


def _plain(value: Any) -> Any:
    """Front matter values as JSON-safe payload values."""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
