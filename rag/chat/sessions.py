"""Conversation history and trip state in the KV store, so any replica can serve any user."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from rag.chat.trip import TripState
from rag.kv.base import KVStore

HISTORY_LIMIT = 50


class SessionStore:
    def __init__(self, kv: KVStore, ttl: float | None = 30 * 86400) -> None:
        self._kv = kv
        self._ttl = ttl

    async def history(self, user_id: str) -> list[dict[str, Any]]:
        raw = await self._kv.get(f"session:{user_id}:history")
        return list(json.loads(raw)) if raw else []

    async def append(self, user_id: str, role: str, text: str, **extra: Any) -> None:
        turns = await self.history(user_id)
        turns.append({"role": role, "text": text, "at": dt.datetime.now(dt.UTC).isoformat(), **extra})
        # Keep the first turn (it usually sets the trip up) and the latest ones.
        if len(turns) > HISTORY_LIMIT:
            turns = turns[:1] + turns[-(HISTORY_LIMIT - 1) :]
        await self._kv.set(f"session:{user_id}:history", json.dumps(turns), self._ttl)

    async def trip(self, user_id: str) -> TripState:
        raw = await self._kv.get(f"session:{user_id}:trip")
        return TripState.model_validate_json(raw) if raw else TripState()

    async def save_trip(self, user_id: str, trip: TripState) -> None:
        await self._kv.set(f"session:{user_id}:trip", trip.model_dump_json(), self._ttl)

    async def forget(self, user_id: str) -> bool:
        a = await self._kv.delete(f"session:{user_id}:history")
        b = await self._kv.delete(f"session:{user_id}:trip")
        return a or b
