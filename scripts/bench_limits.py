"""What the limits let one client do, at the service's defaults (no chat secret).

    python scripts/bench_limits.py [--no-edge]

The service runs in this process on a loopback port with its default limits (nothing seeded: none of
this reads the guides), and a client measures, each part from a loopback address of its own (127.0.0.x)
so that no part counts against another's:

- edge: ``POST /v1/route`` as one user, as fast as four connections go, from 1.9 s before a clock
  minute's edge to 1.9 s after it (it waits for the next edge, up to a minute; ``--no-edge`` skips it).
  Answered: at most the route limit (60), where per-minute windows answered twice that.
- rotating: 300 route requests from one address, a new ``user_id`` each. Answered: the address's bound,
  ``ADDRESS_LIMIT_MULTIPLE`` x the route limit (240), where all 300 were.
- shared: 50 identical hotel searches from 50 users at once, then 10 from new users. Provider calls: 1,
  then 0 more, where sharing only calls in flight made about 26.
- encoding: bodies in ``Content-Encoding: x-nonsense`` and ``gzip, gzip``. Status: 415, where they were
  read as plain and answered 200.

Exit status 1 if a part is past what the limits promise.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gzip
import json
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from rag.settings import ServerSettings  # noqa: E402
from rag.web import keys  # noqa: E402
from scripts._common import serve_in_process  # noqa: E402

DEFAULTS = ServerSettings()
SETTINGS = {
    "WAYFARER_LOG_LEVEL": "ERROR",
    "WAYFARER_INDEX__SEED_ON_START": "false",
    "WAYFARER_SCHEDULER__ENABLED": "false",
    # serve_in_process turns the address limit off for scripts that play many users: this one measures it.
    "WAYFARER_SERVER__ADDRESS_LIMIT_MULTIPLE": str(DEFAULTS.address_limit_multiple),
}


def client(n: int) -> aiohttp.ClientSession:
    """A client whose connections come from 127.0.0.``n``."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(f"127.0.0.{n}", 0), limit=8))


async def route(session: aiohttp.ClientSession, base: str, user: str) -> int:
    body = {"message": "hotels in Lisbon", "user_id": user}
    async with session.post(f"{base}/v1/route", json=body) as resp:
        await resp.read()
        return resp.status


async def edge(base: str) -> tuple[int, int, float]:
    """Route answers and refusals for one user across the next minute's edge, and the seconds it took."""
    now = time.time()
    start = (now // 60 + 1) * 60 - 1.9
    if start < now + 0.5:
        start += 60
    print(f"edge: waiting {start - now:.0f} s for 1.9 s before a minute's edge", file=sys.stderr)
    await asyncio.sleep(start - time.time())
    end = start + 3.8
    statuses: list[int] = []
    async with client(2) as session:

        async def worker() -> None:
            while time.time() < end:
                statuses.append(await route(session, base, "edge-user"))

        await asyncio.gather(*(worker() for _ in range(4)))
    return statuses.count(200), statuses.count(429), time.time() - start


async def rotating(base: str, n: int = 300) -> tuple[int, int]:
    async with client(3) as session:
        statuses = [await route(session, base, f"rot-{uuid.uuid4().hex[:10]}") for _ in range(n)]
    return statuses.count(200), statuses.count(429)


async def shared(base: str, app: object) -> tuple[int, int]:
    """Provider calls for 50 identical hotel searches from 50 users, then for 10 more from new users."""
    service = app[keys.TOOL_SERVICE]  # type: ignore[index]
    day = (dt.date.today() + dt.timedelta(days=20)).isoformat()
    body = {"city": "Lisbon", "check_in": day, "nights": 2}

    async def search(session: aiohttp.ClientSession, user: str) -> None:
        url = f"{base}/v1/tools/hotel_search"
        async with session.post(url, params={"user_id": user}, json=body) as resp:
            if resp.status != 200:
                raise SystemExit(f"hotel search answered {resp.status}: {await resp.text()}")

    async with client(4) as session:
        before = service.provider_calls
        await asyncio.gather(*(search(session, f"guest-{i}") for i in range(50)))
        burst = service.provider_calls - before
        await asyncio.gather(*(search(session, f"latecomer-{i}") for i in range(10)))
    return burst, service.provider_calls - before - burst


async def encoding(base: str) -> dict[str, int]:
    body = json.dumps({"query": "Lisbon trams"}).encode()
    out = {}
    async with client(5) as session:
        for coding, data in (("x-nonsense", body), ("gzip, gzip", gzip.compress(gzip.compress(body)))):
            headers = {"Content-Encoding": coding, "Content-Type": "application/json"}
            async with session.post(f"{base}/v1/search", data=data, headers=headers) as resp:
                await resp.read()
                out[coding] = resp.status
    return out


async def main_async(with_edge: bool) -> int:
    async with serve_in_process(SETTINGS) as (base, app):
        server = app[keys.SETTINGS].server
        limit, bound = server.route_rate_limit, server.route_rate_limit * server.address_limit_multiple
        failed = []
        codes = await encoding(base)
        print(f"encoding: {', '.join(f'{c!r} -> {s}' for c, s in codes.items())} (415 expected)")
        failed += [f"encoding {c}" for c, s in codes.items() if s != 415]
        burst, repeat = await shared(base, app)
        print(
            f"shared: 50 identical hotel searches from 50 users: {burst} provider call(s); 10 more: {repeat}"
        )
        failed += ["shared"] if (burst, repeat) != (1, 0) else []
        answered, refused = await rotating(base)
        print(f"rotating: 300 route requests, a new user_id each: {answered} answered, {refused} refused")
        print(f"          (the address's bound: {bound} per {server.route_rate_window_seconds} s)")
        failed += ["rotating"] if answered > bound else []
        if with_edge:
            answered, refused, took = await edge(base)
            print(
                f"edge: one user across a minute's edge: {answered} answered, {refused} refused in {took:.1f} s"
            )
            print(f"      (the limit: {limit} per {server.route_rate_window_seconds} s)")
            failed += ["edge"] if answered > limit else []
    if failed:
        print(f"past the limits: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-edge", action="store_true", help="skip the part that waits for a minute's edge")
    args = parser.parse_args()
    sys.exit(asyncio.run(main_async(not args.no_edge)))


if __name__ == "__main__":
    main()
