"""Which tool calls people ask for most: counted in the KV store for the refresh-popular job."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from rag.kv.base import KVStore

PREFIX = "pop:"
MAX_SCOPES = 20  # the most recent users of one request who get its refreshed results


@dataclass(frozen=True, slots=True)
class PopularCall:
    tool: str
    params: dict[str, Any]
    count: int
    last: float
    scopes: list[str]


class PopularCalls:
    def __init__(self, kv: KVStore, window_seconds: float) -> None:
        self._kv = kv
        self._window = window_seconds

    @staticmethod
    def key(tool: str, params: dict[str, Any]) -> str:
        canonical = json.dumps([tool, params], sort_keys=True)
        return PREFIX + hashlib.sha256(canonical.encode()).hexdigest()[:32]

    async def record(self, tool: str, params: dict[str, Any], scope: str) -> None:
        """Count one request (approximately under races: this is a popularity signal, not a ledger)."""
        key = self.key(tool, params)
        raw = await self._kv.get(key)
        entry: dict[str, Any] = (
            json.loads(raw) if raw else {"tool": tool, "params": params, "count": 0, "scopes": []}
        )
        entry["count"] += 1
        entry["last"] = time.time()
        entry["scopes"] = ([scope] + [s for s in entry["scopes"] if s != scope])[:MAX_SCOPES]
        await self._kv.set(key, json.dumps(entry), ttl=self._window)

    async def most_requested(self) -> list[PopularCall]:
        """Requests seen within the window, most requested first."""
        found = []
        for raw in (await self._kv.scan_prefix(PREFIX)).values():
            try:
                e = json.loads(raw)
                found.append(
                    PopularCall(e["tool"], e["params"], int(e["count"]), float(e["last"]), list(e["scopes"]))
                )
            except (ValueError, KeyError, TypeError):
                continue
        return sorted(found, key=lambda c: (-c.count, -c.last))
