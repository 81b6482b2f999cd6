"""Replay SGD's travel dialogues (dev) through the running service and score when and how it calls tools.

    python scripts/eval_dialogues.py [--limit 20] [--url http://127.0.0.1:8080] [--concurrency 4]
                                     [--sample N] [--json] [--out records.jsonl]

Each dev dialogue (../shared/data/sgd-travel, Schema-Guided Dialogue, CC BY-SA 4.0; never a test split)
is one user, named by its dialogue id. Its USER utterances go in order over real HTTP: ``POST /v1/route``
(the preview: which calls, and ``missing``, what it would ask for), ``POST /v1/chat`` (the real turn;
its ``tool_calls``), then ``GET /v1/sessions/{id}`` (the trip). The service knows nothing of SGD's
assistant turns, so from the first turn it handles differently the replay is off SGD's script: the
figures measure how the service follows the traveller's side of a real conversation.

Without ``--url`` the service starts in this process (``create_app`` on a loopback port) on a copy of
a seeded data directory cached in ~/.cache/wayfarer/eval-dialogues (the seed corpus is embedded on the
first run only), with every traveller's today fixed to SGD's 2019-03-01 (WAYFARER_FIXED_TODAY), the
offline sandbox, no LLM and no chat rate limit.

Scored (see scripts/sgd_data.py for the map of SGD's services onto our tools): at each user turn after
which SGD's assistant made a mapped call, whether the traveller had given everything our tool requires.
If so our tool must be called in that turn, and its parameters are compared with SGD's (places through
our catalogue by city, dates, counts, cabin). If not, the tool must not be called, and /v1/route's
``missing`` must name exactly what was not given. Also: places entering the trip that SGD never
annotates in the dialogue, calls made where SGD made none, and /v1/chat latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from connectors.places import (
    LocationCatalogue,  # noqa: E402
    fold,  # noqa: E402
)
from scripts.sgd_data import (  # noqa: E402
    COUNTS,
    DATES,
    METHODS,
    TODAY,
    Dialogue,
    Expected,
    expectations,
    load_dialogues,
    load_schema,
    place_values,
    said_values,
)

CACHE = Path.home() / ".cache" / "wayfarer" / "eval-dialogues"
PLACES = frozenset({"origin", "destination", "city"})
GROUPS = {"places": PLACES, "dates": DATES, "counts": COUNTS, "cabin": frozenset({"cabin"})}
SETTINGS = {
    "WAYFARER_FIXED_TODAY": TODAY.isoformat(),
    "WAYFARER_TIMEZONE": "UTC",
    "WAYFARER_SERVER__CHAT_RATE_LIMIT": "0",
    "WAYFARER_CONNECTORS__MODE": "sandbox",
    "WAYFARER_CONNECTORS__MIN_INTERVAL_MS": "0",
    "WAYFARER_CONNECTORS__RATE_LIMIT_PER_SECOND": "100000",
    "WAYFARER_LOG_LEVEL": "WARNING",
}
UNSET = ("WAYFARER_LLM__BASE_URL", "WAYFARER_LLM__MODEL", "WAYFARER_LLM__API_KEY")


def required_params() -> dict[str, list[str]]:
    """Tool -> the parameters it cannot be called without, as its declaration's routing entry says."""
    from rag.tools.catalog import ToolCatalogue

    return {name: list(spec.routing.get("required", [])) for name, spec in ToolCatalogue.builtin().items()}


class Places:
    """Places compared as our catalogue resolves them: the same city code or the same city name."""

    def __init__(self, catalogue: LocationCatalogue) -> None:
        self._catalogue = catalogue
        self.keys = lru_cache(maxsize=None)(self._keys)

    def _keys(self, text: str) -> frozenset[str]:
        text = text.strip()
        out = {fold(text), fold(text.split(",")[0])}
        place = self._catalogue.resolve(text)
        if place is not None:
            out |= {"@" + place.city_code, fold(place.city_name)}
        return frozenset(k for k in out if k)

    def same(self, a: str, b: str) -> bool:
        return bool(self.keys(a) & self.keys(b))

    def resolves(self, text: str) -> bool:
        return any(k.startswith("@") for k in self.keys(text))


def _nights(params: Mapping[str, Any]) -> int | None:
    if params.get("nights") is not None:
        return int(params["nights"])
    if params.get("check_in") and params.get("check_out"):
        from datetime import date

        return (
            date.fromisoformat(str(params["check_out"])) - date.fromisoformat(str(params["check_in"]))
        ).days
    return None


def compare(expected: Mapping[str, Any], ours: Mapping[str, Any], places: Places) -> dict[str, bool]:
    """Each parameter SGD's call settles -> whether our call holds the same. Our defaults count (one
    adult, economy, today's weather); a one-way search's return date must be absent."""
    out: dict[str, bool] = {}
    for name, want in expected.items():
        got = ours.get(name)
        if name in PLACES:
            out[name] = got is not None and places.same(str(want), str(got))
        elif name == "nights":
            out[name] = _nights(ours) == want
        elif name in DATES:
            if got is None and name == "start_date":
                got = TODAY.isoformat()
            out[name] = (str(got) if got is not None else None) == want
        elif name in ("adults", "rooms"):
            out[name] = int(got if got is not None else 1) == want
        elif name == "cabin":
            out[name] = str(got or "ECONOMY").upper() == want
    return out


@dataclass
class TurnScore:
    dialogue_id: str
    turn: int
    utterance: str
    tool: str
    method: str
    kind: str
    complete: bool
    # complete: "called" | "asks" (asked for something instead) | "silent" (neither called nor asked);
    # incomplete: "asks exactly" | "asks more" | "asks less" | "asks other" | "silent" |
    # "calls (carried over)" (values said elsewhere in the conversation) | "calls (guessed)".
    outcome: str
    expected: dict[str, Any]
    missing: list[str]
    asked: list[str] | None
    params: dict[str, Any] | None
    fields: dict[str, bool] = field(default_factory=dict)
    error: str | None = None
    earlier: bool = False  # not called this turn, but an earlier turn's call had every parameter right
    # SGD's call holds the same values for our parameters as its previous call of this tool: it only
    # changed what our tool cannot filter on (an airline, a star rating, "anything else?").
    repeat: bool = False

    @property
    def all_right(self) -> bool:
        return bool(self.fields) and all(self.fields.values())


def _carried(
    missing: Iterable[str], ours: Mapping[str, Any], said: Mapping[str, set[Any]], places: Places
) -> bool:
    """Whether the values our call holds for parameters the traveller had not given this service were
    said elsewhere in the conversation (a flight's date reused as a check-in) rather than invented."""
    for name in missing:
        got = ours.get(name)
        if name in PLACES:
            if got is None or not any(places.same(str(got), str(v)) for v in said["place"]):
                return False
        elif str(got) not in {str(v) for v in said["date" if name in DATES else "count"]}:
            return False
    return True


def score_turn(
    e: Expected,
    record: Mapping[str, Any],
    said: Mapping[str, set[Any]],
    earlier_calls: list[dict[str, Any]],
    places: Places,
    dialogue_id: str = "",
) -> TurnScore:
    """One expected call against what the service did in that turn (``record``: the route preview and
    the chat's complete body)."""
    calls = [c for c in (record.get("chat") or {}).get("tool_calls", []) if c.get("name") == e.tool]
    call = calls[0] if calls else None
    missing = (record.get("route") or {}).get("missing") or {}
    asked = sorted(missing[e.tool]) if e.tool in missing else None
    ours = dict(call.get("params") or {}) if call else None
    fields = compare(e.params, ours, places) if ours is not None else {}
    if e.complete:
        outcome = "called" if call else "asks" if asked else "silent"
    elif call:
        outcome = (
            "calls (carried over)" if _carried(e.missing, ours or {}, said, places) else "calls (guessed)"
        )
    elif asked is None:
        outcome = "silent"
    else:
        want, got = set(e.missing), set(asked)
        outcome = (
            "asks exactly"
            if got == want
            else "asks more"
            if got > want
            else "asks less"
            if got < want
            else "asks other"
        )
    earlier = (
        e.complete
        and call is None
        and any(all(compare(e.params, c.get("params") or {}, places).values()) for c in earlier_calls)
    )
    return TurnScore(
        dialogue_id,
        e.turn,
        str(record.get("utterance", "")),
        e.tool,
        e.method,
        e.kind,
        e.complete,
        outcome,
        e.params,
        e.missing,
        asked,
        ours,
        fields,
        call.get("error") if call else None,
        earlier,
    )


@dataclass
class DialogueScore:
    dialogue_id: str
    turns: list[TurnScore]
    extra: list[dict[str, Any]]  # calls made where SGD made no mapped call of that tool
    spurious: list[dict[str, Any]]  # trip places SGD never annotates in the dialogue
    chat_ms: list[float]
    user_turns: int
    failures: int  # HTTP errors
    errors: list[str]  # "tool: code" for each call of ours that failed


def extra_calls(
    dialogue: Dialogue, records: Sequence[Mapping[str, Any]], expected: list[Expected]
) -> list[dict[str, Any]]:
    """Tools we called in a turn where no expectation names them, with SGD's reason: it booked (a
    booking after a search is not scored), called another tool, or called nothing."""
    wanted = {(e.turn, e.tool) for e in expected}
    out = []
    for r in records:
        reply = dialogue.reply(dialogue.turns[r["turn"]])
        sgd = reply.service_calls() if reply else []
        for c in (r.get("chat") or {}).get("tool_calls", []):
            if (r["turn"], c["name"]) in wanted:
                continue
            tools = {METHODS[(s.service, s.method)].tool for s in sgd if (s.service, s.method) in METHODS}
            reason = (
                "SGD booked"
                if c["name"] in tools
                else "SGD called another tool"
                if sgd
                else "SGD called nothing"
            )
            out.append(
                {
                    "turn": r["turn"],
                    "utterance": r["utterance"],
                    "tool": c["name"],
                    "params": c.get("params"),
                    "reason": reason,
                }
            )
    return out


def spurious_places(
    dialogue: Dialogue, records: Sequence[Mapping[str, Any]], places: Places
) -> list[dict[str, Any]]:
    """Places that entered the trip (origin, destination) and match no place SGD annotates anywhere in
    the dialogue, each once, with the utterance after which it appeared."""
    known: set[str] = set()
    for v in place_values(dialogue):
        known |= places.keys(v)
    seen: set[str] = set()
    out = []
    for r in records:
        trip = r.get("trip") or {}
        for role in ("origin", "destination"):
            code, name = trip.get(role), trip.get(f"{role}_name")
            if not code or code in seen:
                continue
            seen.add(code)
            keys = places.keys(str(code)) | (places.keys(str(name)) if name else frozenset())
            if not keys & known:
                out.append(
                    {"turn": r["turn"], "utterance": r["utterance"], "role": role, "code": code, "name": name}
                )
    return out


def score_dialogue(
    dialogue: Dialogue,
    records: Sequence[Mapping[str, Any]],
    schema: Mapping[str, Mapping[str, Any]],
    required: Mapping[str, list[str]],
    places: Places,
) -> DialogueScore:
    """Every expected call of a dialogue against the records of its replay (one per user turn: ``turn``,
    ``utterance``, ``route``, ``chat``, ``trip``, ``chat_ms``; ``status`` when a request failed)."""
    expected = expectations(dialogue, schema, required)
    by_turn = {r["turn"]: r for r in records}
    turns = []
    last: dict[str, dict[str, Any]] = {}  # tool -> SGD's previous values for it
    for e in expected:
        repeat, last[e.tool] = last.get(e.tool) == e.params, e.params
        if e.turn not in by_turn:
            continue
        earlier = [
            c
            for r in records
            if r["turn"] < e.turn
            for c in (r.get("chat") or {}).get("tool_calls", [])
            if c["name"] == e.tool
        ]
        said = said_values(dialogue.turns[e.turn], dialogue)
        scored = score_turn(e, by_turn[e.turn], said, earlier, places, dialogue.dialogue_id)
        scored.repeat = repeat
        turns.append(scored)
    return DialogueScore(
        dialogue.dialogue_id,
        turns,
        extra_calls(dialogue, list(records), expected),
        spurious_places(dialogue, list(records), places),
        [float(r["chat_ms"]) for r in records if r.get("chat_ms") is not None],
        len(records),
        sum(1 for r in records if r.get("status")),
        [
            f"{c['name']}: {c['error']}"
            for r in records
            for c in (r.get("chat") or {}).get("tool_calls", [])
            if c.get("error")
        ],
    )


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 3) if d else None


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarise(scores: list[DialogueScore]) -> dict[str, Any]:
    """The figures of a run, as plain data (what ``--json`` prints)."""
    turns = [t for s in scores for t in s.turns]
    complete = [t for t in turns if t.complete]
    called = [t for t in complete if t.outcome == "called"]
    not_called = [t for t in complete if t.outcome != "called"]
    incomplete = [t for t in turns if not t.complete]
    fields: dict[str, list[bool]] = {}
    for t in called:
        for name, ok in t.fields.items():
            fields.setdefault(name, []).append(ok)
    groups = {}
    for group, names in GROUPS.items():
        oks = [ok for n in names for ok in fields.get(n, [])]
        groups[group] = {"right": _rate(sum(oks), len(oks)), "compared": len(oks)}
    by_tool: dict[str, dict[str, Any]] = {}
    for key in sorted({(t.tool, t.kind) for t in turns}):
        mine = [t for t in turns if (t.tool, t.kind) == key]
        comp = [t for t in mine if t.complete]
        done = [t for t in comp if t.outcome == "called"]
        inc = [t for t in mine if not t.complete]
        by_tool[f"{key[0]} ({key[1]})"] = {
            "turns": len(mine),
            "complete": len(comp),
            "called": _rate(len(done), len(comp)),
            "all_right": _rate(sum(t.all_right for t in done), len(done)),
            "incomplete": len(inc),
            "asks_exactly": _rate(sum(t.outcome == "asks exactly" for t in inc), len(inc)),
        }
    spurious = [{"dialogue_id": s.dialogue_id, **p} for s in scores for p in s.spurious]
    extra = [{"dialogue_id": s.dialogue_id, **x} for s in scores for x in s.extra]
    chat_ms = [ms for s in scores for ms in s.chat_ms]
    return {
        "dialogues": len(scores),
        "user_turns": sum(s.user_turns for s in scores),
        "scored_turns": len(turns),
        "complete": {
            "turns": len(complete),
            "called": _rate(len(called), len(complete)),
            "called_new": _rate(sum(not t.repeat for t in called), sum(not t.repeat for t in complete)),
            "repeats": sum(t.repeat for t in complete),
            "outcomes": dict(Counter(t.outcome for t in complete).most_common()),
            "not_called_but_called_right_earlier": sum(t.earlier for t in not_called),
        },
        "params": {
            "calls": len(called),
            "all_right": _rate(sum(t.all_right for t in called), len(called)),
            "groups": groups,
            "by_param": {n: _rate(sum(v), len(v)) for n, v in sorted(fields.items())},
        },
        "incomplete": {
            "turns": len(incomplete),
            "asks_exactly": _rate(sum(t.outcome == "asks exactly" for t in incomplete), len(incomplete)),
            "outcomes": dict(Counter(t.outcome for t in incomplete).most_common()),
        },
        "by_tool": by_tool,
        "call_errors": dict(Counter(e for s in scores for e in s.errors).most_common()),
        "spurious_places": {
            "count": len(spurious),
            "dialogues": len({p["dialogue_id"] for p in spurious}),
            # The most frequent places first, one example each.
            "examples": [
                {**next(p for p in spurious if p["code"] == code), "times": n}
                for code, n in Counter(p["code"] for p in spurious).most_common(5)
            ],
        },
        "extra_calls": {
            "count": len(extra),
            "by_tool": dict(Counter(x["tool"] for x in extra).most_common()),
            "by_reason": dict(Counter(x["reason"] for x in extra).most_common()),
        },
        "chat_latency_ms": {
            "mean": round(statistics.fmean(chat_ms), 1) if chat_ms else None,
            "p50": _percentile(chat_ms, 0.5),
            "p90": _percentile(chat_ms, 0.9),
        },
        "http_failures": sum(s.failures for s in scores),
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def format_summary(m: Mapping[str, Any]) -> str:
    c, p, i = m["complete"], m["params"], m["incomplete"]
    lat = m["chat_latency_ms"]
    lines = [
        f"{m['dialogues']} dialogues, {m['user_turns']} user turns, {m['scored_turns']} scored turns "
        f"({c['turns']} complete, {i['turns']} incomplete for our tools)",
        "",
        f"complete: called in that turn {_pct(c['called'])} of {c['turns']} "
        f"({_pct(c['called_new'])} leaving out {c['repeats']} repeats of SGD's previous values)  "
        + ", ".join(f"{k} {v}" for k, v in c["outcomes"].items())
        + f"; of those not called, {c['not_called_but_called_right_earlier']} had a right call earlier",
        f"parameters of those calls: all right {_pct(p['all_right'])} of {p['calls']}; "
        + ", ".join(f"{g} {_pct(v['right'])} ({v['compared']})" for g, v in p["groups"].items()),
        "  by parameter: " + ", ".join(f"{n} {_pct(v)}" for n, v in p["by_param"].items()),
        f"incomplete: asks exactly {_pct(i['asks_exactly'])} of {i['turns']}  "
        + ", ".join(f"{k} {v}" for k, v in i["outcomes"].items()),
        "",
        f"{'tool (kind)':34} {'turns':>5} {'compl':>5} {'called':>7} {'all ok':>7} {'incompl':>7} {'asks ok':>7}",
    ]
    for name, t in m["by_tool"].items():
        lines.append(
            f"{name:34} {t['turns']:5d} {t['complete']:5d} {_pct(t['called']):>7} {_pct(t['all_right']):>7} "
            f"{t['incomplete']:7d} {_pct(t['asks_exactly']):>7}"
        )
    s, x = m["spurious_places"], m["extra_calls"]
    lines += [
        "",
        f"spurious trip places: {s['count']} in {s['dialogues']} dialogues",
        *(
            f"  {e['code']} ({e['name']}) {e['times']}x, e.g. {e['dialogue_id']} {e['role']} after {e['utterance']!r}"
            for e in s["examples"]
        ),
        f"extra calls: {x['count']}  by tool {x['by_tool']}  by reason {x['by_reason']}",
        f"errors of our calls: {m['call_errors']}",
        f"/v1/chat latency: mean {lat['mean']} ms, p50 {lat['p50'] and round(lat['p50'])} ms, "
        f"p90 {lat['p90'] and round(lat['p90'])} ms; HTTP failures {m['http_failures']}",
    ]
    return "\n".join(lines)


# Talking to the service.


async def _call(
    session: aiohttp.ClientSession, method: str, url: str, body: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], int, float]:
    start = time.perf_counter()
    async with session.request(method, url, json=body) as resp:
        try:
            data = await resp.json(content_type=None)
        except (json.JSONDecodeError, aiohttp.ContentTypeError):
            data = {"error": await resp.text()}
    return (
        data if isinstance(data, dict) else {"body": data},
        resp.status,
        (time.perf_counter() - start) * 1000,
    )


async def replay(session: aiohttp.ClientSession, base: str, dialogue: Dialogue) -> list[dict[str, Any]]:
    """A dialogue's user turns, in order, as one user: route preview, chat turn, trip after it."""
    user = dialogue.dialogue_id
    await _call(session, "DELETE", f"{base}/v1/sessions/{user}")
    records = []
    for turn in dialogue.user_turns():
        body = {"user_id": user, "message": turn.utterance}
        route, route_status, route_ms = await _call(session, "POST", f"{base}/v1/route", body)
        chat, chat_status, chat_ms = await _call(session, "POST", f"{base}/v1/chat", body)
        state, state_status, _ = await _call(session, "GET", f"{base}/v1/sessions/{user}")
        record: dict[str, Any] = {
            "dialogue_id": user,
            "turn": turn.index,
            "utterance": turn.utterance,
            "route": route,
            "route_ms": round(route_ms, 1),
            "chat": {"text": chat.get("text"), "tool_calls": chat.get("tool_calls", [])},
            "chat_ms": round(chat_ms, 1),
            "trip": state.get("trip"),
        }
        failed = {
            k: v
            for k, v in (("route", route_status), ("chat", chat_status), ("session", state_status))
            if v != 200
        }
        if failed:
            record["status"] = failed
            record["error"] = chat if chat_status != 200 else route if route_status != 200 else state
        records.append(record)
    return records


def local_service() -> AbstractAsyncContextManager[str]:
    """The service in this process on a private copy of a seeded data directory (seeded once, cached)."""
    from scripts._common import NO_RATE_LIMITS, seeded_service

    return seeded_service(CACHE, {**SETTINGS, **NO_RATE_LIMITS})


def subset(dialogues: list[Dialogue], limit: int | None, sample: int | None) -> list[Dialogue]:
    """``limit``: the first N in file order; ``sample``: N spread over the file (every k-th), stable."""
    if sample is not None and sample < len(dialogues):
        step = len(dialogues) / sample
        dialogues = [dialogues[int(i * step)] for i in range(sample)]
    return dialogues[:limit] if limit is not None else dialogues


async def run(args: argparse.Namespace) -> dict[str, Any]:
    dialogues = subset(load_dialogues("dev"), args.limit, args.sample)
    schema = load_schema("dev")
    required = required_params()
    places = Places(LocationCatalogue.load())
    records: dict[str, list[dict[str, Any]]] = {}

    async def go(base: str) -> None:
        gate = asyncio.Semaphore(args.concurrency)
        done = 0
        start = time.perf_counter()
        timeout = aiohttp.ClientTimeout(total=300)
        async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0)) as session:

            async def one(d: Dialogue) -> None:
                nonlocal done
                async with gate:
                    records[d.dialogue_id] = await replay(session, base, d)
                done += 1
                if done % 10 == 0 or done == len(dialogues):
                    elapsed = time.perf_counter() - start
                    print(
                        f"{done}/{len(dialogues)} dialogues, {elapsed:.0f} s, "
                        f"about {elapsed / done * (len(dialogues) - done):.0f} s left",
                        file=sys.stderr,
                        flush=True,
                    )

            await asyncio.gather(*(one(d) for d in dialogues))

    if args.url:
        await go(args.url.rstrip("/"))
    else:
        async with local_service() as base:
            await go(base)
    scores = [score_dialogue(d, records[d.dialogue_id], schema, required, places) for d in dialogues]
    if args.out:
        write_records(Path(args.out), dialogues, records, scores)
    return summarise(scores)


def write_records(
    path: Path,
    dialogues: list[Dialogue],
    records: Mapping[str, list[dict[str, Any]]],
    scores: list[DialogueScore],
) -> None:
    """One line per user turn: what was sent and answered, the trip, and that turn's scores."""
    by_id = {s.dialogue_id: s for s in scores}
    with path.open("w", encoding="utf-8") as fh:
        for d in dialogues:
            s = by_id[d.dialogue_id]
            for r in records[d.dialogue_id]:
                reply = d.reply(d.turns[r["turn"]])
                row = {
                    **r,
                    "sgd_reply": reply.utterance if reply else None,
                    "sgd_calls": [
                        asdict(c) | {"parameters": dict(c.parameters)} for c in reply.service_calls()
                    ]
                    if reply
                    else [],
                    "scored": [asdict(t) for t in s.turns if t.turn == r["turn"]],
                    "extra": [x for x in s.extra if x["turn"] == r["turn"]],
                    "spurious": [x for x in s.spurious if x["turn"] == r["turn"]],
                }
                fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default=None, help="a running service (default: start one in this process)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N dev dialogues")
    parser.add_argument(
        "--sample", type=int, default=None, help="N dev dialogues spread evenly over the file"
    )
    parser.add_argument("--concurrency", type=int, default=4, help="dialogues replayed at once")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--out", default=None, help="write per-turn records (JSON lines) to this file")
    args = parser.parse_args()
    for name in UNSET:  # no LLM: the figures are the rules' and the classifier's
        os.environ.pop(name, None)
    summary = asyncio.run(run(args))
    print(json.dumps(summary, indent=2, ensure_ascii=False) if args.json else format_summary(summary))


if __name__ == "__main__":
    main()
