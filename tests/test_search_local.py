"""``wayfarer search`` without a running service: the service's own start-up steps, opened in this
process over the index the service left (tests/test_cli.py runs the command itself, as slow tests)."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from pathlib import Path

from rag.cli_search import search_local
from rag.settings import Settings
from tests.conftest import serve


async def test_a_search_here_reads_the_index_the_service_seeded_and_leaves_no_thread_behind(
    make_settings: Callable[..., Settings], small_seed: Path
) -> None:
    settings = make_settings(WAYFARER_INDEX__SEED_DIR=str(small_seed))
    async with serve(settings) as client:
        served = await (await client.post("/v1/search", json={"query": "tram 28 Alfama", "top_k": 3})).json()
    before = {t.ident for t in threading.enumerate()}
    notes: list[str] = []
    here = await search_local(settings, "tram 28 Alfama", 3, notes.append)
    assert [r["id"] for r in here["results"]] == [r["id"] for r in served["results"]]
    assert here["results"][0]["metadata"]["city"] == "Lisbon" and not notes
    # A thread the search left running would keep the command from exiting (executors' idle workers do
    # not: they are named by their executor and stop at exit; a bare thread does), or would hold a
    # database open (the key-value store's own thread). A closed database's thread ends just after the
    # close returns: each is given time to end.
    bare = [
        t
        for t in threading.enumerate()
        if t.ident not in before and not t.daemon and re.match(r"Thread-\d+|kv-sqlite", t.name)
    ]
    for thread in bare:
        await asyncio.to_thread(thread.join, 30)
    assert not [t.name for t in bare if t.is_alive()]
