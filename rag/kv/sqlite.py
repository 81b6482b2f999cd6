"""Embedded default: one SQLite file (WAL mode) under the data directory."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import aiosqlite

from rag.errors import KVUnavailableError

logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_at REAL
)
"""

_SWEEP = "DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?"


class SQLiteKV:
    # Expired rows are invisible at once, and deleted every this many writes (Redis expires them itself).
    SWEEP_EVERY = 1000

    def __init__(self, path: Path) -> None:
        self._path = path
        self._db: aiosqlite.Connection | None = None
        self._writes = 0

    async def open(self) -> None:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._db = await aiosqlite.connect(self._path, timeout=30)
            await self._db.execute("PRAGMA journal_mode=WAL")
            await self._db.execute("PRAGMA synchronous=NORMAL")
            await self._db.execute(_SCHEMA)
            await self._db.execute(_SWEEP, (time.time(),))
            await self._db.commit()
        except (sqlite3.Error, OSError) as exc:
            raise KVUnavailableError(f"cannot open the key-value store at {self._path}: {exc}") from exc

    async def _wrote(self) -> None:
        self._writes += 1
        if self._writes % self.SWEEP_EVERY == 0:
            await self._conn.execute(_SWEEP, (time.time(),))
            await self._conn.commit()

    @property
    def _conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise KVUnavailableError("the key-value store is not open")
        return self._db

    async def set_if_absent(self, key: str, value: str, ttl: float | None = None) -> bool:
        now = time.time()
        expires = now + ttl if ttl is not None else None
        try:
            # One statement: insert, or take over a key whose value has expired.
            cur = await self._conn.execute(
                "INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at "
                "WHERE kv.expires_at IS NOT NULL AND kv.expires_at <= ?",
                (key, value, expires, now),
            )
            await self._conn.commit()
            await self._wrote()
        except sqlite3.Error as exc:
            raise KVUnavailableError(f"key-value write failed: {exc}") from exc
        return cur.rowcount == 1

    async def set(self, key: str, value: str, ttl: float | None = None) -> None:
        expires = time.time() + ttl if ttl is not None else None
        try:
            await self._conn.execute(
                "INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, ?)", (key, value, expires)
            )
            await self._conn.commit()
            await self._wrote()
        except sqlite3.Error as exc:
            raise KVUnavailableError(f"key-value write failed: {exc}") from exc

    async def get(self, key: str) -> str | None:
        try:
            async with self._conn.execute(
                "SELECT value FROM kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)",
                (key, time.time()),
            ) as cur:
                row = await cur.fetchone()
        except sqlite3.Error as exc:
            raise KVUnavailableError(f"key-value read failed: {exc}") from exc
        return None if row is None else str(row[0])

    async def delete(self, key: str) -> bool:
        try:
            cur = await self._conn.execute(
                "DELETE FROM kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)", (key, time.time())
            )
            await self._conn.execute("DELETE FROM kv WHERE key = ?", (key,))
            await self._conn.commit()
        except sqlite3.Error as exc:
            raise KVUnavailableError(f"key-value delete failed: {exc}") from exc
        return cur.rowcount == 1

    async def incr(self, key: str, ttl: float) -> int:
        now = time.time()
        try:
            cur = await self._conn.execute(
                "INSERT INTO kv (key, value, expires_at) VALUES (?, '1', ?) "
                "ON CONFLICT(key) DO UPDATE SET "
                "value = CASE WHEN kv.expires_at IS NOT NULL AND kv.expires_at <= ? THEN '1' "
                "ELSE CAST(CAST(kv.value AS INTEGER) + 1 AS TEXT) END, "
                "expires_at = CASE WHEN kv.expires_at IS NOT NULL AND kv.expires_at <= ? "
                "THEN excluded.expires_at ELSE kv.expires_at END "
                "RETURNING value",
                (key, now + ttl, now, now),
            )
            row = await cur.fetchone()
            await self._conn.commit()
            await self._wrote()
        except sqlite3.Error as exc:
            raise KVUnavailableError(f"key-value write failed: {exc}") from exc
        return int(row[0]) if row else 1

    async def renew(self, key: str, value: str, ttl: float) -> bool:
        now = time.time()
        return await self._update(
            "UPDATE kv SET expires_at = ? WHERE key = ? AND value = ? AND (expires_at IS NULL OR expires_at > ?)",
            (now + ttl, key, value, now),
        )

    async def delete_if(self, key: str, value: str) -> bool:
        now = time.time()
        return await self._update(
            "DELETE FROM kv WHERE key = ? AND value = ? AND (expires_at IS NULL OR expires_at > ?)",
            (key, value, now),
        )

    async def _update(self, sql: str, args: tuple[object, ...]) -> bool:
        try:
            cur = await self._conn.execute(sql, args)
            await self._conn.commit()
        except sqlite3.Error as exc:
            raise KVUnavailableError(f"key-value write failed: {exc}") from exc
        return cur.rowcount == 1

    async def scan_prefix(self, prefix: str) -> dict[str, str]:
        # Range scan on the primary key; no LIKE, so '%' and '_' in keys are literal.
        upper = prefix + "\U0010ffff"
        try:
            async with self._conn.execute(
                "SELECT key, value FROM kv WHERE key >= ? AND key < ? AND (expires_at IS NULL OR expires_at > ?)",
                (prefix, upper, time.time()),
            ) as cur:
                rows = await cur.fetchall()
        except sqlite3.Error as exc:
            raise KVUnavailableError(f"key-value scan failed: {exc}") from exc
        return {str(k): str(v) for k, v in rows}

    async def ping(self) -> bool:
        try:
            await self._conn.execute("SELECT 1")
        except (sqlite3.Error, KVUnavailableError):
            return False
        return True

    async def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            await db.close()
