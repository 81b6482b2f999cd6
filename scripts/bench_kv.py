"""What a SQLite store operation costs the process, the way the chat's history and trip writes come.

    python scripts/bench_kv.py [--callers 40] [--rounds 3]

``--callers`` coroutines at once, each writing a 3 kB value and reading it back 500 times (a
conversation's ``recent`` turns), on a fresh database file: through ``SQLiteKV``, whose thread answers
the operations that queued while it was busy together, and through the pattern it replaced in the same
process, the same statements on one thread with one ``run_in_executor`` each (a concurrent future, a
thread hand-over and an event-loop wake-up per operation). Reported per round: microseconds of CPU
(the whole process's) and of wall time per operation, and the ratio of the two ways' CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.kv.sqlite import SQLiteKV  # noqa: E402

VALUE = "x" * 3000
TIMES = 500

Set = Callable[[str, str], Awaitable[object]]
Get = Callable[[str], Awaitable[object]]


async def measure(set_: Set, get: Get, callers: int) -> tuple[float, float]:
    """(CPU, wall) microseconds per operation of ``callers`` writers and readers at once."""

    async def caller(c: int) -> None:
        for i in range(TIMES):
            await set_(f"session:u{c}-{i % 50}:recent", VALUE)
            await get(f"session:u{c}-{i % 50}:recent")

    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(caller(c) for c in range(callers)))
    n = callers * TIMES * 2
    return (time.process_time() - cpu) / n * 1e6, (time.perf_counter() - wall) / n * 1e6


class OneHandOverEach:
    """The same statements as SQLiteKV's ``set`` and ``get``, one ``run_in_executor`` each."""

    def __init__(self, path: Path) -> None:
        self._thread = ThreadPoolExecutor(1)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at REAL)")

    async def set(self, key: str, value: str) -> None:
        sql = "INSERT OR REPLACE INTO kv (key, value, expires_at) VALUES (?, ?, ?)"
        args = (key, value, time.time() + 1000)
        await asyncio.get_running_loop().run_in_executor(self._thread, lambda: self._db.execute(sql, args))

    async def get(self, key: str) -> str | None:
        sql = "SELECT value FROM kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)"
        args = (key, time.time())
        rows = await asyncio.get_running_loop().run_in_executor(
            self._thread, lambda: self._db.execute(sql, args).fetchall()
        )
        return str(rows[0][0]) if rows else None

    def close(self) -> None:
        self._thread.submit(self._db.close).result()
        self._thread.shutdown()


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteKV(Path(folder) / "kv.sqlite3")
        await store.open()
        old = OneHandOverEach(Path(folder) / "old.sqlite3")
        print("| round | SQLiteKV: CPU / wall µs an operation | one hand-over each | CPU ratio |")
        print("| --- | --- | --- | --- |")
        try:
            for r in range(args.rounds):
                cpu, wall = await measure(lambda k, v: store.set(k, v, 1000), store.get, args.callers)
                old_cpu, old_wall = await measure(old.set, old.get, args.callers)
                print(
                    f"| {r + 1} | {cpu:.0f} / {wall:.0f} | {old_cpu:.0f} / {old_wall:.0f} | {cpu / old_cpu:.2f} |"
                )
        finally:
            await store.close()
            old.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--callers", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
