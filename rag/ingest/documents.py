"""Source documents and the metadata rules every ingestion path shares. Pure."""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import pycountry

from rag.errors import ReservedDocumentIdError

# uuid5 namespace of chunk point ids: uuid5(NS, f"{document_id}#{position}").
CHUNK_NAMESPACE = uuid.UUID("8f0f4a34-6a55-4f7e-9c4e-5a1b2d3c4e5f")

# Payload keys the pipeline owns; document metadata cannot override them.
RESERVED_KEYS = frozenset(
    {
        "document_id",
        "chunk_index",
        "chunk_count",
        "text",
        "heading",
        "content_hash",
        "city_norm",
        "country_code",
    }
)


# Fields that tool results and the pipeline set, which search, recall and freshness filters rely on.
PIPELINE_KEYS = RESERVED_KEYS | frozenset(
    {
        "kind",
        "user_scope",
        "valid_until",
        "fetched_at",
        "fetched_at_iso",
        "identity",
        "sandbox",
        "provider",
        "tool",
        "result",
        "price",
        "indicative",
        "iata",
    }
)
# Sources the service itself writes: the seed corpus and tool results.
RESERVED_SOURCES = frozenset({"seed", "live"})
_INT64 = 2**63


def check_metadata(metadata: dict[str, Any], max_depth: int, max_keys: int, max_bytes: int) -> None:
    """Raise ValueError when client metadata is too deep, too large, or sets what the pipeline owns.

    The index stores metadata as payload: a value nested too deep or an integer past 64 bits would be
    accepted here and then fail every search that touches it.
    """
    owned = sorted(k for k in metadata if k.casefold() in PIPELINE_KEYS)
    if owned:
        raise ValueError(f"{', '.join(owned)}: set by the service, not by document metadata")
    source = metadata.get("source")
    if source is not None:
        if not isinstance(source, str) or not source.strip():
            raise ValueError("source: a non-empty string")
        if norm(source) in RESERVED_SOURCES:
            raise ValueError(f"source: {source!r} is reserved for the service's own documents")
    keys = 0
    stack: list[tuple[Any, int]] = [(metadata, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth > max_depth:
                raise ValueError(f"nested more than {max_depth} levels deep")
            keys += len(value)
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            if depth > max_depth:
                raise ValueError(f"nested more than {max_depth} levels deep")
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
            raise ValueError("an integer is outside the 64-bit range")
        if keys > max_keys:
            raise ValueError(f"more than {max_keys} keys")
    size = len(json.dumps(metadata, ensure_ascii=False).encode())
    if size > max_bytes:
        raise ValueError(f"{size} bytes as JSON, more than the limit of {max_bytes}")


@dataclass(frozen=True, slots=True)
class SourceDocument:
    id: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return str(self.metadata.get("title") or self.id)

    @property
    def source(self) -> str:
        return str(self.metadata.get("source") or "api")

    @property
    def content_hash(self) -> str:
        """Changes when the text or any metadata changes, so either re-ingests the document."""
        h = hashlib.sha256()
        h.update(self.text.encode("utf-8"))
        h.update(b"\0")
        h.update(json.dumps(self.metadata, sort_keys=True, default=str).encode("utf-8"))
        return h.hexdigest()


# The seed corpus names its documents by their path in it (guides/tokyo, topics/visas-and-entry); no other
# document may take an id under these folders.
CORPUS_ID_PREFIXES = ("guides/", "topics/")
# A user's files are named user/<8 hex of the folder seeded>/<path in it>, so folders never collide.
USER_ID_PREFIX = "user/"


def user_id_prefix(root: str) -> str:
    """The id prefix of files seeded from the folder ``root`` (an absolute, resolved path): stable for
    the folder, and distinct from every other folder's and from the seed corpus's ids."""
    return f"{USER_ID_PREFIX}{hashlib.sha256(root.encode('utf-8')).hexdigest()[:8]}/"


def check_document_id(doc_id: str, where: str = "id") -> None:
    """Refuse an id under the seed corpus's folders for any document that is not the corpus's.

    Case is ignored, so ``Guides/Tokyo`` cannot pass for a corpus document either.
    """
    if doc_id.casefold().startswith(CORPUS_ID_PREFIXES):
        raise ReservedDocumentIdError(
            f"{where}: {doc_id!r} is reserved: ids under {' and '.join(CORPUS_ID_PREFIXES)} belong to "
            "the service's seed corpus; give the document another id"
        )


def chunk_id(document_id: str, position: int) -> str:
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{document_id}#{position}"))


def norm(text: str) -> str:
    """The form filters match on: case- and space-insensitive."""
    return " ".join(text.casefold().split())


@functools.lru_cache(maxsize=1024)
def country_code(name: str) -> str | None:
    """ISO 3166 alpha-2 code for a country name or code, or None when unknown.

    Cached: a fuzzy lookup takes tens of milliseconds, and every chunk of a guide names the same country.
    """
    aliases = {"usa": "US", "uk": "GB", "united states of america": "US", "england": "GB", "scotland": "GB"}
    key = norm(name)
    if key in aliases:
        return aliases[key]
    try:
        return str(pycountry.countries.lookup(name).alpha_2)
    except LookupError:
        try:
            found = pycountry.countries.search_fuzzy(name)
        except LookupError:
            return None
        return str(found[0].alpha_2) if len(found) == 1 else None


def document_payload(doc: SourceDocument) -> dict[str, Any]:
    """What every chunk of ``doc`` carries (metadata, ids, hash, place), worked out once a document."""
    payload: dict[str, Any] = {k: v for k, v in doc.metadata.items() if k not in RESERVED_KEYS}
    payload.setdefault("title", doc.title)
    payload.setdefault("source", doc.source)
    payload.setdefault("kind", "document")
    # The chunk's own fields are filled in by chunk_payload; set here, they keep the payload's key order.
    payload.update(
        document_id=doc.id, chunk_index=0, chunk_count=0, heading="", text="", content_hash=doc.content_hash
    )
    if isinstance(doc.metadata.get("city"), str):
        payload["city_norm"] = norm(doc.metadata["city"])
    if isinstance(doc.metadata.get("country"), str):
        code = country_code(doc.metadata["country"])
        if code:
            payload["country_code"] = code
    return payload


def chunk_payload(
    doc: SourceDocument,
    position: int,
    count: int,
    heading: str,
    text: str,
    shared: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A chunk's payload; ``shared`` is ``document_payload(doc)`` when the caller has it already."""
    payload = dict(document_payload(doc) if shared is None else shared)
    payload.update(chunk_index=position, chunk_count=count, heading=heading, text=text)
    return payload


# Payload fields that are plumbing, left out of what search returns as metadata.
INTERNAL_KEYS = frozenset({"text", "city_norm", "content_hash"})
