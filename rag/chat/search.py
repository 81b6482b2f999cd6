"""The passages a chat message is answered from, as its action needs them (rag.dialogue.actions).

A guide answer or a plan reads the place's guide whole (the composer quotes the section that answers,
which a search may have found only in part), with the topic documents the search finds beside it; a
comparison searches each place on its own; a place without a guide gets the topic documents only (no
other city's guide speaks for it); a question about no one place searches every document; a search,
a question asked back, a recall and a reply need none. Documents only: stored tool results answer "what
did you find?" (the recall, rag.live), never a knowledge question.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Sequence

from rag.chat.steps import Turn
from rag.dialogue.actions import Compare, General, Guide, NoGuide, Plan
from rag.ingest.documents import norm
from rag.retrieval.service import Retriever
from rag.store.base import Hit

# Seconds the list of guided places is kept before it is read again (documents come and go by upload).
GUIDES_TTL = 30.0
# Guides kept whole in memory, the least recently read forgotten first (about 30 kB each).
GUIDES_KEPT = 64


class GuideSearch:
    """Up to ``passages`` documents, each with up to ``chunks`` chunks, for the composer to choose from."""

    def __init__(self, retriever: Retriever, passages: int = 3, chunks: int = 3) -> None:
        self.retriever = retriever
        self.passages = passages
        self.chunks = chunks
        self._guides: tuple[float, dict[str, str]] | None = None
        self._read: OrderedDict[str, tuple[str, list[Hit]]] = OrderedDict()  # id -> (content hash, chunks)

    async def guides(self) -> dict[str, str]:
        """Every place that has a guide (``norm`` name -> its document's id), read at most every
        ``GUIDES_TTL`` seconds."""
        now = time.monotonic()
        if self._guides is None or now - self._guides[0] > GUIDES_TTL:
            self._guides = (now, await self.retriever.guides())
        return self._guides[1]

    async def find(
        self, turn: Turn, vector: list[float], user_id: str, *, grounding: bool = True
    ) -> list[Hit]:
        """The passages ``turn``'s action answers from. ``grounding`` off: from anywhere, whatever the
        action (evaluations compare)."""
        action = turn.action
        if not isinstance(action, Guide | Plan | Compare | NoGuide | General):
            return []
        k = self.passages * self.chunks
        query = turn.query
        if query != turn.text:  # "Londres": the guide says "London"; worth a second embedding
            vector = await self.retriever.embed(query)
        if not grounding:
            return await self._search(query, k, user_id, vector)
        if isinstance(action, Compare):
            found = await asyncio.gather(
                *(self._search(query, 2 * self.chunks, user_id, vector, places=[p]) for p in action.places)
            )
            return [hit for hits in found for hit in hits]
        if isinstance(action, General):
            countries = [c.upper() for c in turn.decision.slots.countries] if turn.decision.slots else []
            return await self._search(query, k, user_id, vector, countries=countries)
        if isinstance(action, NoGuide):
            # The topic documents, and the guide of a guided city next to it (Sintra: Lisbon's); for
            # a name no catalogue knows ("Victoria Peak"), any guide, of which the composer quotes
            # only the sentences that name it (rag.chat.selection.candidates).
            unplaced = action.near is None and action.city in turn.decision.unknown_places
            near = [action.near] if action.near else [] if unplaced else [action.city]
            return await self._search(query, k, user_id, vector, places=near)
        hits = await self._search(query, k, user_id, vector, places=[action.city])
        doc = turn.guides.get(norm(action.city))
        if doc is None:
            return hits
        have = {h.id for h in hits}
        return hits + [h for h in await self.document(doc, hits) if h.id not in have]

    async def document(self, doc: str, hits: Sequence[Hit]) -> list[Hit]:
        """Every chunk of the guide ``doc``: as read before when the search's ``hits`` show its content
        unchanged since (each chunk carries its document's content hash), else read now."""
        now = next((h.payload.get("content_hash") for h in hits if h.payload.get("document_id") == doc), None)
        kept = self._read.get(doc)
        if now is not None and kept is not None and kept[0] == now:
            self._read.move_to_end(doc)
            return kept[1]
        chunks = await self.retriever.document(doc)
        if now is not None and chunks and all(h.payload.get("content_hash") == now for h in chunks):
            self._read[doc] = (now, chunks)
            self._read.move_to_end(doc)
            while len(self._read) > GUIDES_KEPT:
                self._read.popitem(last=False)
        return chunks

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
