"""Replay the journeys-dev set (traveller journeys) through the service's HTTP API and score every turn.

    python scripts/eval_journeys.py [--url http://127.0.0.1:8080] [--concurrency 4] [--only D01,D05]
                                    [--lang es,fr] [--json records.json] [--show-wrong]

Each journey of ../shared/data/journeys-dev/journeys.jsonl is one fresh user; its turns go in order (the
journeys run concurrently): ``POST /v1/route`` with the turn's body (its ``missing`` is kept for the
``ask`` expectation), then ``POST /v1/chat`` with ``{"user_id", "message", "timezone"}``. The journey's
today is the date in its timezone when its first turn is sent. Every turn is scored exactly as the set's
README says (scripts/journey_scoring.py, pure and unit-tested); a wrong turn carries a short reason.

Without ``--url`` the service starts in this process (``create_app`` on a loopback port) on a copy of a
seeded data directory cached in ~/.cache/wayfarer/eval-journeys (the seed corpus is embedded on the
first run only), with the real today, the offline sandbox, no LLM and no rate limits.

Printed: turn accuracy overall, by expectation kind (an ``any_of`` counts as "any_of"; tool turns also by
tool) and by language, and whole-journey success (every turn right). ``--json``: the figures and one
record per turn (user text, expectation, verdict and reason, tool calls, cited sources, the text's start,
the route preview's ``missing``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import sys
import time
import uuid
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from scripts.eval_dialogues import _call  # noqa: E402
from scripts.journey_scoring import (  # noqa: E402
    PlaceTables,
    format_summary,
    guided_cities,
    kind_of,
    offer_identity,
    offer_price,
    score_journey,
    summarise,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "journeys-dev" / "journeys.jsonl"
CACHE = Path.home() / ".cache" / "wayfarer" / "eval-journeys"
SETTINGS = {
    "WAYFARER_CONNECTORS__MODE": "sandbox",
    "WAYFARER_CONNECTORS__MIN_INTERVAL_MS": "0",
    "WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND": "100000",
    "WAYFARER_LOG_LEVEL": "WARNING",
}
UNSET = ("WAYFARER_LLM__BASE_URL", "WAYFARER_LLM__MODEL", "WAYFARER_LLM__API_KEY", "WAYFARER_FIXED_TODAY")


def load_journeys(
    path: Path = DATA, only: str | None = None, lang: str | None = None
) -> list[dict[str, Any]]:
    """The journeys of the file, in order, optionally only some ids (``D01,D05``) or languages."""
    journeys = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if only:
        ids = {x.strip() for x in only.split(",")}
        unknown = ids - {j["id"] for j in journeys}
        if unknown:
            raise SystemExit(f"no such journeys: {', '.join(sorted(unknown))}")
        journeys = [j for j in journeys if j["id"] in ids]
    if lang:
        langs = {x.strip() for x in lang.split(",")}
        journeys = [j for j in journeys if j["lang"] in langs]
    return journeys


async def replay(
    session: aiohttp.ClientSession, base: str, journey: Mapping[str, Any]
) -> tuple[dt.date, list[dict[str, Any]]]:
    """A journey's turns in order as one fresh user: route preview, then the chat turn."""
    user = f"journey-{journey['id']}-{uuid.uuid4().hex[:8]}"
    today: dt.date | None = None
    records = []
    for i, turn in enumerate(journey["turns"]):
        body = {"user_id": user, "message": turn["user"], "timezone": journey["timezone"]}
        if today is None:
            today = dt.datetime.now(ZoneInfo(journey["timezone"])).date()
        route, route_status, _ = await _call(session, "POST", f"{base}/v1/route", body)
        chat, status, ms = await _call(session, "POST", f"{base}/v1/chat", body)
        record: dict[str, Any] = {
            "journey": journey["id"],
            "lang": journey["lang"],
            "turn": i,
            "user": turn["user"],
            "expect": turn["expect"],
            "status": status,
            "chat": {k: chat.get(k) for k in ("text", "tool_calls", "sources")} if status == 200 else {},
            "missing": route.get("missing") if route_status == 200 else None,
            "action": route.get("action") if route_status == 200 else None,
            "route_status": route_status,
            "chat_ms": round(ms, 1),
        }
        if status != 200:
            record["error"] = chat.get("message") or chat.get("error") or json.dumps(chat)[:200]
        records.append(record)
    assert today is not None
    return today, records


def local_service() -> AbstractAsyncContextManager[str]:
    """The service in this process on a private copy of a seeded data directory (seeded once, cached)."""
    from scripts._common import NO_RATE_LIMITS, seeded_service

    return seeded_service(CACHE, {**SETTINGS, **NO_RATE_LIMITS})


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Replay and score the chosen journeys; the scored turn records, in file order."""
    journeys = load_journeys(Path(args.data), args.only, args.lang)
    tables = PlaceTables.load()
    guided = guided_cities()
    done: dict[str, list[dict[str, Any]]] = {}

    async def go(base: str) -> None:
        gate = asyncio.Semaphore(args.concurrency)
        timeout = aiohttp.ClientTimeout(total=300)
        start = time.perf_counter()
        async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0)) as session:

            async def one(j: Mapping[str, Any]) -> None:
                async with gate:
                    today, records = await replay(session, base, j)
                verdicts = score_journey(records, today, tables, guided)
                for r, reason in zip(records, verdicts, strict=True):
                    r.update(today=today.isoformat(), ok=reason is None, reason=reason)
                done[j["id"]] = records
                print(
                    f"{len(done)}/{len(journeys)} journeys, {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )

            await asyncio.gather(*(one(j) for j in journeys))

    if args.url:
        await go(args.url.rstrip("/"))
    else:
        async with local_service() as base:
            await go(base)
    return [r for j in journeys for r in done[j["id"]]]


def source(s: Mapping[str, Any]) -> dict[str, Any]:
    """A cited source as ``--json`` writes it: an offer with the identity and price the recall compares."""
    out = {k: s.get(k) for k in ("kind", "title", "section")}
    if str(s.get("kind")).endswith("_offer"):
        out |= {"offer": offer_identity(s), "price": offer_price(s)}
    return out


def brief(r: Mapping[str, Any]) -> dict[str, Any]:
    """A turn record as ``--json`` writes it."""
    chat = r.get("chat") or {}
    return {
        "journey": r["journey"],
        "turn": r["turn"],
        "lang": r["lang"],
        "today": r.get("today"),
        "user": r["user"],
        "kind": kind_of(r["expect"]),
        "expect": r["expect"],
        "ok": r["ok"],
        "reason": r["reason"],
        "status": r["status"],
        "tool_calls": [
            {k: c.get(k) for k in ("name", "params", "error", "result_count")}
            for c in chat.get("tool_calls") or []
        ],
        "sources": [source(s) for s in chat.get("sources") or []],
        "text": str(chat.get("text") or "")[:300],
        "missing": r.get("missing"),
        "action": r.get("action"),
        "chat_ms": r.get("chat_ms"),
    }


def show_wrong(records: list[dict[str, Any]]) -> str:
    """Each wrong turn: what it must do, why it is wrong, and what the service decided (the route
    preview's action, with the rule that chose it)."""
    return "\n".join(
        f"{r['journey']} #{r['turn']} [{kind_of(r['expect'])}] {r['user']!r}\n    -> {r['reason']}"
        + (f"\n    decided: {_decided(r['action'])}" if r.get("action") else "")
        for r in records
        if not r["ok"]
    )


def _decided(action: Mapping[str, Any]) -> str:
    about = ", ".join(f"{k}={v}" for k, v in action.items() if k not in ("kind", "why"))
    return f"{action.get('kind')} ({action.get('why')}){': ' + about if about else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default=None, help="a running service (default: start one in this process)")
    parser.add_argument("--data", default=str(DATA), help="the journeys file (JSON lines)")
    parser.add_argument("--only", default=None, help="only these journey ids, comma-separated (D01,D05)")
    parser.add_argument("--lang", default=None, help="only journeys in these languages (es,fr)")
    parser.add_argument("--concurrency", type=int, default=4, help="journeys replayed at once")
    parser.add_argument("--json", default=None, metavar="PATH", help="write the figures and per-turn records")
    parser.add_argument("--show-wrong", action="store_true", help="print each wrong turn with its reason")
    args = parser.parse_args()
    for name in UNSET:  # no LLM and the real today: the figures are the rules' own
        os.environ.pop(name, None)
    records = asyncio.run(run(args))
    summary = summarise(records)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"summary": summary, "turns": [brief(r) for r in records]}, indent=1, ensure_ascii=False
            )
            + "\n",
            encoding="utf-8",
        )
    if args.show_wrong and any(not r["ok"] for r in records):
        print(show_wrong(records) + "\n")
    print(format_summary(summary))


if __name__ == "__main__":
    main()
