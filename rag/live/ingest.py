"""Tool results into the index: one point per result identity and user scope, deduplicated through the KV store.

Per result, ``live:<scope>:<identity>`` is claimed with set-if-absent and a TTL equal to the kind's
freshness: the caller that claims it writes the point; a later caller with the same version skips it;
one with a new version (a new price, a new forecast) updates the point in place. Point ids are uuid5 of
scope and identity, never of an ordinal, a price or a time, so a result can never be stored twice.
``req:<scope>:<tool>:<hash of params>`` lists the points a request produced, for answering it again.

A scope is a user id, or ``ANONYMOUS_SCOPE`` for calls made without one. Search reads only the asking
user's own results (the chat's knowledge answers none: rag.retrieval), recall only the asking user's,
so anonymous results are read by nothing but the same anonymous request asked again while they are fresh.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pydantic

from connectors.base import Terms
from connectors.models import Result, Where
from connectors.params import ToolParams
from connectors.places import LocationCatalogue
from connectors.tools import ToolCall
from rag.embedding.base import Embedder, SparseEncoder, SparseVector
from rag.ingest.documents import norm
from rag.kv.base import KVStore
from rag.live.recall import RecallFocus, matches, whereabouts
from rag.settings import LiveSettings
from rag.store.base import Filter, Hit, Point, VectorStore
from rag.tools.catalog import ToolCatalogue

logger = logging.getLogger(__name__)

LIVE_NAMESPACE = uuid.UUID("0b7a9c1e-4d2f-5e6a-8b9c-0d1e2f3a4b5c")
# The scope of calls made without a user id: a user id is never "*" (rag.web.schemas refuses it).
ANONYMOUS_SCOPE = "*"
# What a sandbox result's stored text ends with, so that a search for it says what it is.
SANDBOX_NOTE = " (sandbox data, not a real offer)"


def live_point_id(scope: str, identity: str) -> str:
    return str(uuid.uuid5(LIVE_NAMESPACE, f"{scope}|{identity}"))


def request_key(scope: str, tool: str, params: ToolParams) -> str:
    canonical = json.dumps(params.model_dump(mode="json"), sort_keys=True)
    return f"req:{scope}:{tool}:{hashlib.sha256(canonical.encode()).hexdigest()[:32]}"


def version(result: Result) -> str:
    """What changes when the result changes (price, forecast), and nothing else."""
    data = result.model_dump(mode="json", exclude={"fetched_at"})
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class LiveCounts:
    added: int = 0
    updated: int = 0
    skipped: int = 0


class LiveIngestor:
    def __init__(
        self,
        store: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        kv: KVStore,
        catalogue: LocationCatalogue,
        tools: ToolCatalogue,
        settings: LiveSettings,
    ) -> None:
        self.tools = tools  # the declarations: each result kind's model and freshness
        self._store = store
        self._embedder = embedder
        self._sparse = sparse
        self._kv = kv
        self._catalogue = catalogue
        self._settings = settings
        self.totals = LiveCounts()

    def ttl(self, kind: str, terms: Terms | None = None) -> int:
        """Seconds a result of ``kind`` stays current: the settings' override, else its tool's declared
        freshness, shortened by the provider's terms (``max_age``)."""
        spec = self.tools.of_kind(kind)
        seconds = self._settings.freshness.get(kind) or (spec.freshness if spec else 3600)
        if terms is not None and terms.max_age is not None:
            seconds = min(seconds, terms.max_age)
        return seconds

    def _result_model(self, kind: str) -> type[Result] | None:
        """The declared result model of a stored result's kind."""
        spec = self.tools.of_kind(kind)
        return spec.result if spec else None

    def _left(self, result: Result, terms: Terms) -> float:
        """Seconds the result may still be stored and answered from: its freshness counts from when it
        was fetched (a cached fare's from when it was found), so an already stale one gets none."""
        return result.fetched_at.timestamp() + self.ttl(result.kind, terms) - time.time()

    async def ingest(self, call: ToolCall, scope: str, req_key: str) -> LiveCounts:
        """Write the call's top results (deduplicated) and index the request; safe to run concurrently."""
        return await self.ingest_many([(call, scope, req_key)])

    async def ingest_many(
        self, items: Sequence[tuple[ToolCall, str, str]], *, rewrite: bool = False
    ) -> LiveCounts:
        """Several calls at once: one embedding batch and one upsert for all their new results.

        ``rewrite`` writes unchanged results too, renewing their freshness (a scheduled refresh).
        """
        counts = LiveCounts()
        to_write: list[tuple[Result, ToolCall, str, str]] = []  # result, call, scope, added|updated
        # Keys this call set, each with the value it wrote: a key must never claim a version whose
        # point was not written, or that result is skipped (never indexed, never recalled) until it expires.
        taken: list[tuple[str, str]] = []
        try:
            for call, scope, _ in items:
                if not call.terms.store:  # the provider's terms do not allow keeping its results
                    counts.skipped += len(call.results[: self._settings.top_n])
                    continue
                for result in call.results[: self._settings.top_n]:
                    left = self._left(result, call.terms)
                    if left <= 0:  # stale already (an old cached fare): never answered from the index
                        counts.skipped += 1
                        continue
                    ttl = max(1, math.ceil(left))
                    key = f"live:{scope}:{result.identity}"
                    value = json.dumps({"version": version(result)})
                    if await self._kv.set_if_absent(key, value, ttl):
                        taken.append((key, value))
                        to_write.append((result, call, scope, "added"))
                        continue
                    existing = await self._kv.get(key)
                    if (
                        not rewrite
                        and existing is not None
                        and json.loads(existing).get("version") == version(result)
                    ):
                        counts.skipped += 1
                        continue
                    taken.append((key, value))
                    await self._kv.set(key, value, ttl)  # a new price or forecast: update the point in place
                    to_write.append((result, call, scope, "updated"))
            await self._write([(r, call, scope) for r, call, scope, _ in to_write])
        except BaseException:  # a KV or index error, or a cancelled request: let the next caller write them
            await self._release(taken)
            raise
        counts.added = sum(1 for *_, how in to_write if how == "added")
        counts.updated = sum(1 for *_, how in to_write if how == "updated")
        for call, scope, req_key in items:
            top = call.results[: self._settings.top_n]
            # Answer the request again from the index only if all of its results are stored.
            if top and call.terms.store and all(self._left(r, call.terms) > 0 for r in top):
                ttl = max(1, math.ceil(min(self._left(r, call.terms) for r in top)))
                now = time.time()
                index = {
                    "ids": [live_point_id(scope, r.identity) for r in top],
                    "fetched_at": now,
                    "valid_until": now + ttl,
                }
                await self._kv.set(req_key, json.dumps(index), ttl)
        for field in ("added", "updated", "skipped"):
            setattr(self.totals, field, getattr(self.totals, field) + getattr(counts, field))
        logger.info("ingested results of %d calls: %s", len(items), counts)
        return counts

    async def _release(self, taken: Sequence[tuple[str, str]]) -> None:
        """Drop the keys this call set (only while they still hold its value); never masks the first error."""
        for key, value in taken:
            try:
                await self._kv.delete_if(key, value)
            except Exception:
                logger.warning("could not release live key %s; it expires with its TTL", key, exc_info=True)

    async def _write(self, results: Sequence[tuple[Result, ToolCall, str]]) -> None:
        if not results:
            return
        # Rendering, BM25 and payloads are Python work: off the event loop, so requests keep flowing.
        texts, sparse, payloads = await asyncio.to_thread(self._prepare, results)
        vectors = await self._embedder.embed_documents(texts)
        points = [
            Point(live_point_id(scope, r.identity), vec, sp, payload)
            for (r, _, scope), vec, sp, payload in zip(results, vectors, sparse, payloads, strict=True)
        ]
        await self._store.upsert(points)

    def _prepare(
        self, results: Sequence[tuple[Result, ToolCall, str]]
    ) -> tuple[list[str], list[SparseVector], list[dict[str, Any]]]:
        texts = [self._text(r) for r, _, _ in results]
        sparse = [self._sparse.encode_document(t) for t in texts]
        payloads = [
            self._payload(r, call, scope, t) for (r, call, scope), t in zip(results, texts, strict=True)
        ]
        return texts, sparse, payloads

    def _text(self, r: Result) -> str:
        text = r.render()
        description = getattr(r, "description", None)
        if description:
            text += f" Description from the provider: {description}"
        if r.sandbox:
            text += SANDBOX_NOTE
        return text

    def _payload(self, r: Result, call: ToolCall, scope: str, text: str) -> dict[str, Any]:
        fetched = r.fetched_at.timestamp()
        payload: dict[str, Any] = {
            "source": "live",
            "kind": r.kind,
            "tool": call.tool,
            "provider": r.provider,
            "sandbox": r.sandbox,
            "fetched_at": fetched,
            "fetched_at_iso": r.fetched_at.isoformat(),
            "valid_until": fetched + self.ttl(r.kind, call.terms),
            "user_scope": scope,
            "document_id": f"live:{r.identity}",
            "identity": r.identity,
            "title": text.split(".")[0][:120],
            "text": text,
            "result": r.model_dump(mode="json"),
        }
        if getattr(r, "indicative", False):
            payload["indicative"] = True
        if r.attribution:
            payload["attribution"] = r.attribution
        price, currency = getattr(r, "price", None), getattr(r, "currency", None)
        if price is not None:
            payload["price"], payload["currency"] = price, currency
        payload.update(self._geography(r))
        return payload

    def _geography(self, r: Result) -> dict[str, Any]:
        """The index's place fields of a result (``iata``, ``city``, ``city_norm``, ``country_code``),
        from where the result says it is (``Result.where``)."""
        where = r.where()
        city = None
        for how, code in where.lookups:
            city = self._catalogue.city_of_airport(code) if how == "airport" else self._catalogue.city(code)
            if city is not None:
                break
        if city is None and where.point is not None and not where.lookups:
            near, km = self._catalogue.nearest_city(*where.point)
            city = near if km < 60 else None
        out: dict[str, Any] = {}
        if where.codes:
            out["iata"] = list(where.codes)
        if city is not None:
            out.update(city=city.name, city_norm=norm(city.name), country_code=city.country_code)
        else:
            # Not one of the destination cities: the gazetteer still knows where it is (Kansas City).
            name, country = self._anywhere(where)
            if name:
                out.update(city=name, city_norm=norm(name), country_code=country)
        return out

    def _anywhere(self, where: Where) -> tuple[str | None, str | None]:
        if where.lookups:
            place = self._catalogue.resolve(where.lookups[0][1])
            return (place.city_name, place.country_code) if place else (None, None)
        if where.point is not None:
            near = self._catalogue.gazetteer.by_point.nearest(*where.point, 30)
            if near is not None:
                return near[0].name, near[0].country_code
        return None, None

    async def cached(self, req_key: str, now: float | None = None) -> list[Result] | None:
        """The results of a recent identical request, if every one of them is still fresh."""
        raw = await self._kv.get(req_key)
        if raw is None:
            return None
        ids = json.loads(raw).get("ids") or []
        hits = {h.id: h for h in await self._store.get(ids)}
        now = time.time() if now is None else now
        if not ids or any(i not in hits or float(hits[i].payload.get("valid_until", 0)) <= now for i in ids):
            return None
        try:
            models = [self._result_model(str(hits[i].payload["kind"])) for i in ids]
            return [
                m.model_validate(hits[i].payload["result"]) for m, i in zip(models, ids, strict=True) if m
            ]
        except (KeyError, pydantic.ValidationError) as exc:
            # Stored under older or looser rules than today's models: ask the provider again.
            logger.warning(
                "cached results for %s no longer validate (%s); calling the provider", req_key, exc
            )
            return None

    async def recall(
        self,
        scope: str,
        kinds: Sequence[str] | None = None,
        limit: int = 5,
        cheapest: bool = False,
        about: RecallFocus | None = None,
        *,
        unwritten: Sequence[ToolCall] = (),
    ) -> list[Hit]:
        """This user's fresh ingested results, newest first (or cheapest first); with ``about``, only
        those whose own places and days are the ones asked about. ``unwritten``: this user's calls still
        waiting to be ingested, whose results count as if stored (and replace a stored older version)."""
        equals: dict[str, Any] = {"source": "live", "user_scope": scope}
        if kinds:
            equals["kind"] = list(kinds)
        now = time.time()
        stored, _ = await self._store.scroll(Filter(equals=equals, fresh_at=now), 500)
        waiting = {
            h.id: h
            for h in self.unwritten_hits(unwritten, scope, now)
            if not kinds or h.payload["kind"] in kinds
        }
        hits = [*waiting.values(), *(h for h in stored if h.id not in waiting)]
        if about is not None and not about.empty:
            hits = [h for h in hits if self._is_about(h, about)]
        if cheapest:
            hits.sort(key=lambda h: (h.payload.get("price") is None, h.payload.get("price") or 0.0))
        else:
            hits.sort(key=lambda h: -float(h.payload.get("fetched_at", 0)))
        return hits[:limit]

    async def shown(
        self,
        scope: str,
        kinds: Sequence[str],
        identities: Sequence[str],
        *,
        unwritten: Sequence[ToolCall] = (),
    ) -> list[Hit]:
        """``scope``'s fresh results of ``kinds`` with these identities, in that order (those still in
        the ingestion queue included); results that expired or were never stored are left out."""
        if not identities:
            return []
        ids = [live_point_id(scope, i) for i in identities]
        now = time.time()
        waiting = {h.id: h for h in self.unwritten_hits(unwritten, scope, now)}
        stored = {h.id: h for h in await self._store.get([i for i in ids if i not in waiting])}
        found = {**stored, **waiting}
        return [
            found[i]
            for i in ids
            if i in found
            and found[i].payload.get("kind") in kinds
            and found[i].payload.get("user_scope") == scope
            and float(found[i].payload.get("valid_until", 0)) > now
        ]

    def unwritten_hits(self, calls: Sequence[ToolCall], scope: str, now: float) -> list[Hit]:
        """The points ``calls`` will write for ``scope``, as a recall reads them (no vectors)."""
        out = []
        for call in calls:
            if not call.terms.store:
                continue
            for r in call.results[: self._settings.top_n]:
                payload = self._payload(r, call, scope, self._text(r))
                if payload["valid_until"] > now:
                    out.append(Hit(live_point_id(scope, r.identity), 0.0, payload))
        return out

    def _is_about(self, hit: Hit, focus: RecallFocus) -> bool:
        """Whether a stored result is about what ``focus`` asks, read from the result itself; one that no
        longer validates cannot say, so it is left out."""
        model = self._result_model(str(hit.payload.get("kind", "")))
        try:
            result = model.model_validate(hit.payload["result"]) if model else None
        except (KeyError, pydantic.ValidationError):
            result = None
        if result is None:
            return False
        return matches(whereabouts(result, hit.payload, self._catalogue.resolve), focus)
