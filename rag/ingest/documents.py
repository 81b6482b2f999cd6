"""Source documents and the metadata rules every ingestion path shares. Pure."""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import pycountry

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


def chunk_id(document_id: str, position: int) -> str:
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{document_id}#{position}"))


def norm(text: str) -> str:
    """The form filters match on: case- and space-insensitive."""
    return " ".join(text.casefold().split())


def country_code(name: str) -> str | None:
    """ISO 3166 alpha-2 code for a country name or code, or None when unknown."""
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


def chunk_payload(doc: SourceDocument, position: int, count: int, heading: str, text: str) -> dict[str, Any]:
    payload: dict[str, Any] = {k: v for k, v in doc.metadata.items() if k not in RESERVED_KEYS}
    payload.setdefault("title", doc.title)
    payload.setdefault("source", doc.source)
    payload.setdefault("kind", "document")
    payload.update(
        document_id=doc.id,
        chunk_index=position,
        chunk_count=count,
        heading=heading,
        text=text,
        content_hash=doc.content_hash,
    )
    if isinstance(doc.metadata.get("city"), str):
        payload["city_norm"] = norm(doc.metadata["city"])
    if isinstance(doc.metadata.get("country"), str):
        code = country_code(doc.metadata["country"])
        if code:
            payload["country_code"] = code
    return payload


# Payload fields that are plumbing, left out of what search returns as metadata.
INTERNAL_KEYS = frozenset({"text", "city_norm", "content_hash"})
