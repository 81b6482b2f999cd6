"""Embedded default: one SQLite file (WAL mode) under the data directory."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

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
_LIVE = "(expires_at IS NULL OR expires_at > ?)"


class SQLiteKV:
    """One aiosqlite connection in autocommit mode; every operation is one statement run under a lock.

    Each operation executes, reads its rows and closes its cursor in one round trip to the database's
    thread before the next one starts, so no
    coroutine can commit (or step) while another's statement is still open on the shared connection
    ("cannot commit transaction - SQL statements in progress"), and no two operations interleave.
    """

    # Expired rows are invisible at once, and deleted every this many writes (Redis expires them itself).
    SWEEP_EVERY = 1000

    replicated = False

    def __init__(self, path: Path) -> None:
        self._path = path
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._writes = 0

    async def open(self) -> None:
        """Open the database; a cancelled open (Ctrl-C while the service starts) still finishes and
        closes, since aiosqlite's thread would otherwise outlive the event loop."""
        opening = asyncio.ensure_future(self._open())
        try:
            await asyncio.shield(opening)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await opening
            await self.close()
            raise

    async def _open(self) -> None:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: autocommit, so each single-statement operation is its own transaction.
            self._db = await aiosqlite.connect(self._path, timeout=30, isolation_level=None)
            await self._db.execute("PRAGMA journal_mode=WAL")
            await self._db.execute("PRAGMA synchronous=NORMAL")
            await self._db.execute(_SCHEMA)
            await self._db.execute(_SWEEP, (time.time(),))
        except (sqlite3.Error, OSError) as exc:
            await self.close()  # a connection that opened a file it cannot use: its thread must end too
            raise KVUnavailableError(
                f"cannot open the key-value store at {self._path}: {exc}; move the file away to start "
                "afresh, or pick another data directory with --data-dir"
            ) from exc

    @property
    def _conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise KVUnavailableError("the key-value store is not open")
        return self._db

    async def _run(self, what: str, sql: str, args: tuple[object, ...], *, write: bool = True) -> list[Any]:
        """Run one statement to completion in one round trip to the database's thread (execute, fetch
        and close together); return its rows. Writes that must say whether they changed a row say it
        with ``RETURNING``."""
        async with self._lock:
            conn = self._conn
            try:
                rows = await conn.execute_fetchall(sql, args)
                if write:
                    self._writes += 1
                    if self._writes % self.SWEEP_EVERY == 0:
                        await conn.execute_fetchall(_SWEEP, (time.time(),))
            except sqlite3.Error as exc:
                raise KVUnavailableError(f"key-value {what} failed: {exc}") from exc
        return list(rows)

    async def set_if_absent(self, key: str, value: str, ttl: float | None = None) -> bool:
        now = time.time()
        expires = now + ttl if ttl is not None else None
        # One statement: insert, or take over a key whose value has expired.
        rows = await self._run(
            "write",
            "INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at "
            "WHERE kv.expires_at IS NOT NULL AND kv.expires_at <= ? RETURNING 1",
            (key, value, expires, now),
        )
        return len(rows) == 1

    async def set(self, key: str, value: str, ttl: float | None = None) -> None:
        expires = time.time() + ttl if ttl is not None else None
        await self._run(
            "write",
            "INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, ?)",
            (key, value, expires),
        )

    async def get(self, key: str) -> str | None:
        rows = await self._run(
            "read", f"SELECT value FROM kv WHERE key = ? AND {_LIVE}", (key, time.time()), write=False
        )
        return str(rows[0][0]) if rows else None

    async def delete(self, key: str) -> bool:
        # One statement removes the row, expired or not; only a live one counts as deleted.
        now = time.time()
        rows = await self._run("delete", "DELETE FROM kv WHERE key = ? RETURNING expires_at", (key,))
        return any(expires is None or expires > now for (expires,) in rows)

    async def incr(self, key: str, ttl: float) -> int:
        now = time.time()
        rows = await self._run(
            "write",
            "INSERT INTO kv (key, value, expires_at) VALUES (?, '1', ?) "
            "ON CONFLICT(key) DO UPDATE SET "
            "value = CASE WHEN kv.expires_at IS NOT NULL AND kv.expires_at <= ? THEN '1' "
            "ELSE CAST(CAST(kv.value AS INTEGER) + 1 AS TEXT) END, "
            "expires_at = CASE WHEN kv.expires_at IS NOT NULL AND kv.expires_at <= ? "
            "THEN excluded.expires_at ELSE kv.expires_at END "
            "RETURNING value",
            (key, now + ttl, now, now),
        )
        return int(rows[0][0]) if rows else 1

    async def slide(self, key: str, now: float, window: float, limit: int) -> float:
        # The log is the hits' times in the value, read and written in one IMMEDIATE transaction: a
        # second process on the same file waits for it, as coroutines here wait for the lock. Shielded:
        # a caller cancelled mid-way (a chat message stopped at once) must not leave the transaction
        # open on the shared connection, where every later BEGIN would fail.
        running = asyncio.ensure_future(self._slide_once(key, now, window, limit))
        running.add_done_callback(lambda done: done.cancelled() or done.exception())
        return await asyncio.shield(running)

    async def _slide_once(self, key: str, now: float, window: float, limit: int) -> float:
        async with self._lock:
            conn = self._conn
            try:
                await conn.execute("BEGIN IMMEDIATE")
                try:
                    wait = await self._slide(conn, key, now, window, limit)
                    await conn.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        await conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise KVUnavailableError(f"key-value write failed: {exc}") from exc
        return wait

    async def _slide(
        self, conn: aiosqlite.Connection, key: str, now: float, window: float, limit: int
    ) -> float:
        async with conn.execute(f"SELECT value FROM kv WHERE key = ? AND {_LIVE}", (key, time.time())) as cur:
            row = await cur.fetchone()
        hits = [t for t in _times(str(row[0]) if row else "") if t > now - window]
        if len(hits) >= limit:
            return min(hits) + window - now
        hits.append(now)
        await conn.execute(
            "INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, ?)",
            (key, " ".join(map(repr, hits)), time.time() + window),
        )
        self._writes += 1
        if self._writes % self.SWEEP_EVERY == 0:
            await conn.execute(_SWEEP, (time.time(),))
        return 0.0

    async def renew(self, key: str, value: str, ttl: float) -> bool:
        now = time.time()
        rows = await self._run(
            "write",
            f"UPDATE kv SET expires_at = ? WHERE key = ? AND value = ? AND {_LIVE} RETURNING 1",
            (now + ttl, key, value, now),
        )
        return len(rows) == 1

    async def delete_if(self, key: str, value: str) -> bool:
        rows = await self._run(
            "write",
            f"DELETE FROM kv WHERE key = ? AND value = ? AND {_LIVE} RETURNING 1",
            (key, value, time.time()),
        )
        return len(rows) == 1

    async def scan_prefix(self, prefix: str) -> dict[str, str]:
        # Range scan on the primary key; no LIKE, so '%' and '_' in keys are literal.
        upper = prefix + "\U0010ffff"
        rows = await self._run(
            "scan",
            f"SELECT key, value FROM kv WHERE key >= ? AND key < ? AND {_LIVE}",
            (prefix, upper, time.time()),
            write=False,
        )
        return {str(k): str(v) for k, v in rows}

    async def ping(self) -> bool:
        try:
            await self._run("ping", "SELECT 1", (), write=False)
        except KVUnavailableError:
            return False
        return True

    async def close(self) -> None:
        async with self._lock:
            db, self._db = self._db, None
        if db is not None:
            await db.close()


def _times(value: str) -> list[float]:
    """The hit times a sliding-window log holds; none if the value is not one."""
    try:
        return [float(t) for t in value.split()]
    except ValueError:
        return []
