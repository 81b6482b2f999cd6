"""Reliability, round three (issue 24): smaller items, through the real app and the sandbox over HTTP."""

from __future__ import annotations

import json
import time
from typing import Any

from rag.ingest.uploads import PREFIX
from rag.web import keys
from tests.conftest import ADMIN_TOKEN, CLIENT_ENV
from tests.test_hostile_providers import api, faults, make_api, tool  # noqa: F401  (fixtures)

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


async def test_a_nan_coordinate_from_geocoding_is_refused_at_the_boundary(api: Any) -> None:  # noqa: F811
    """A geocoder answering NaN (or infinite) coordinates is a broken upstream: a 502 with its code,
    and no forecast is asked for a place that is nowhere."""
    for bad in ("NaN", "Infinity", 123.0):
        faults(api).rewrite = {"latitude": bad}
        status, body = await tool(api, "weather_forecast", {"city": "Oslo"})
        assert (status, body["error"]["code"]) == (502, "provider_bad_response"), (bad, body)
    faults(api).rewrite = {}
    status, body = await tool(api, "weather_forecast", {"city": "Oslo"})
    assert status == 200 and body["results"], body


def left_by_a_killed_process(job_id: str, seconds_ago: float) -> str:
    """A job's record as a process killed mid-job leaves it: running, its heartbeat stopped."""
    then = time.time() - seconds_ago
    status = {"id": job_id, "status": "running", "documents": 3, "done": 1, "chars": 900}
    return json.dumps({**status, "started_at": then - 5, "heartbeat_at": then})


async def test_a_job_of_a_killed_process_is_interrupted_not_running_forever(
    aiohttp_client: Any, make_settings: Any, small_seed: Any
) -> None:
    from rag.web.app import create_app

    settings = make_settings(WAYFARER_INDEX__SEED_DIR=str(small_seed), **CLIENT_ENV)
    first = await aiohttp_client(create_app(settings))
    kv = first.app[keys.KV]
    await kv.set(PREFIX + "polled", left_by_a_killed_process("polled", 3600), 3600)
    await kv.set(PREFIX + "alive", left_by_a_killed_process("alive", 1), 3600)  # another replica's, beating
    # A poll sees the dead job as interrupted (and records it so); a live heartbeat stays running.
    polled = await (await first.get("/v1/uploads/polled", headers=ADMIN)).json()
    assert polled["status"] == "interrupted" and polled["done"] == 1, polled
    assert json.loads(await kv.get(PREFIX + "polled"))["status"] == "interrupted"
    alive = await (await first.get("/v1/uploads/alive", headers=ADMIN)).json()
    assert alive["status"] == "running", alive
    await kv.set(PREFIX + "unpolled", left_by_a_killed_process("unpolled", 3600), 3600)
    await first.close()

    # The next start marks a dead job nobody polled.
    second = await aiohttp_client(create_app(settings))
    recorded = json.loads(await second.app[keys.KV].get(PREFIX + "unpolled"))
    assert recorded["status"] == "interrupted" and "finished_at" in recorded, recorded
