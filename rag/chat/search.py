"""The passages a chat message is answered from: the guides of the places it asks about, read whole.

A comparison ("Lisbon or Porto?") searches each place on its own, so each has its passages; a question
about a month beyond the forecast searches the guides' climate for that month. Documents only: stored
tool results answer "what did you find?" (the recall, rag.live), never a knowledge question, so they
are never quoted as the guides.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from rag.chat.focus import focus
from rag.chat.steps import Turn
from rag.ingest.documents import norm
from rag.retrieval.service import Retriever
from rag.store.base import Hit
from rag.tools.catalog import ToolCatalogue


@dataclass(frozen=True)
class GuideSearch:
    """Up to ``passages`` documents, each with up to ``chunks`` chunks, for the composer to choose from;
    ``declared``: the tools' declarations (a route's origin is not where the trip goes)."""

    retriever: Retriever
    declared: ToolCatalogue
    passages: int = 3
    chunks: int = 3

    async def find(
        self, turn: Turn, vector: list[float], user_id: str, *, grounding: bool = True
    ) -> list[Hit]:
        """Passages from the message's places (or the trip's) and topic documents: the index filters.
        ``grounding`` off: from anywhere (evaluations compare)."""
        if not grounding:
            return await self._search(turn.text, self.passages * self.chunks, user_id, vector)
        route = any(
            c.name in self.declared and self.declared[c.name].about == "route" for c in turn.planned.calls
        )
        slots, unknown = turn.decision.slots, turn.decision.unknown_places
        in_places, countries = focus(slots, turn.planned.trip, route, unknown)
        query = turn.query
        if query != turn.text:  # "Londres": the guide says "London"; worth a second embedding
            vector = await self.retriever.embed(query)
        if len(in_places) > 1 and turn.compare:
            found = await asyncio.gather(
                *(self._search(query, 2 * self.chunks, user_id, vector, places=[p]) for p in in_places)
            )
            return [hit for hits in found for hit in hits]
        k = self.passages * self.chunks
        hits = await self._search(query, k, user_id, vector, places=in_places, countries=countries)
        if in_places and not any(h.payload.get("city_norm") in in_places for h in hits):
            # No guide of its own ("Sintra", "Fushimi Inari"): another guide may say something about it;
            # the composer quotes only its sentences that name the place.
            hits = await self._search(query, k, user_id, vector)
        return hits

    async def whole_guide(self, hits: list[Hit], places: Sequence[str], skip: bool) -> list[Hit]:
        """The hits, and every other chunk of the asked place's own guide after them: the composer answers
        from the section that answers (rag.chat.sections), which the search may have found only in part."""
        if skip or len(places) != 1:
            return hits
        place = norm(places[0])
        own = next(
            (h for h in hits if h.payload.get("city_norm") == place and h.payload.get("source") != "live"),
            None,
        )
        if own is None:
            return hits
        doc = str(own.payload.get("document_id", ""))
        have = {h.id for h in hits}
        rest = [h for h in await self.retriever.document(doc) if h.id not in have]
        return hits + rest

    async def _search(
        self,
        query: str,
        k: int,
        user_id: str,
        vector: list[float],
        places: Sequence[str] = (),
        countries: Sequence[str] = (),
    ) -> list[Hit]:
        return await self.retriever.search(
            query,
            k,
            user_id=user_id,
            vector=vector,
            places=places,
            countries=countries,
            per_document=self.chunks,
            documents_only=True,
        )
