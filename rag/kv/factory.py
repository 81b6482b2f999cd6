"""Map settings to a key-value store."""

from __future__ import annotations

from rag.kv.base import KVStore
from rag.settings import Settings


def create_kv(settings: Settings) -> KVStore:
    if settings.kv.url:
        from rag.kv.redis import RedisKV

        return RedisKV(settings.kv.url, settings.kv.namespace)
    from rag.kv.sqlite import SQLiteKV

    return SQLiteKV(settings.kv_path)
