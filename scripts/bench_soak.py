"""A soak of the chat at default settings: N users, M messages each, half over REST and half over WebSocket.

    python scripts/bench_soak.py [--users 20] [--messages 20] [--think-ms 0]

The service runs in this process on a loopback port with every default setting, the per-user rate limit
(30 messages a minute) and the client's provider pacing included, seeded with the full seed corpus; only
the per-address limit is off, as all users come from this one address (scripts/_common.py ONE_ADDRESS).
Each user holds a scripted travel conversation: guide questions, flight and hotel searches, follow-ups
that lean on the trip state, and recall questions ("what hotels did you find?"); a recall that finds
nothing after the user's search found results counts as a failure (``recall_miss``). Users send one message
after the other; all users at once. Reported: messages answered, failures by error code, latency p50 and
p99, messages per second, each user's stored history checked against what it sent, and the process's
RSS before and after. A ``rate_limited`` refusal is counted on its own (it is the limit doing its job,
reached only if ``--messages`` exceeds the limit within a window), and so is an ``overloaded`` one (the
service saturated: the message is sent again after its Retry-After, and its latency counts from the
first try); any other failure, or a history that does not hold exactly the user's messages, makes the
exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from rag.i18n import message  # noqa: E402
from rag.retrieval.metrics import percentile  # noqa: E402
from rag.web import keys  # noqa: E402
from scripts._common import current_rss_mib, peak_rss_mib, serve_in_process  # noqa: E402

SETTINGS = {"WAYFARER_LOG_LEVEL": "WARNING"}  # everything else at its default
CITIES = ["Lisbon", "Rome", "Paris", "Tokyo", "Berlin", "Madrid", "Prague", "Vienna", "Athens", "Seoul"]
ORIGINS = ["London", "New York", "Chicago", "Madrid", "Sydney"]


def conversation(user: int, n: int) -> list[str]:
    """``n`` messages of a travel conversation, varied by user."""
    script: list[str] = []
    round_ = 0
    while len(script) < n:
        city = CITIES[(user + round_) % len(CITIES)]
        origin = ORIGINS[(user + round_) % len(ORIGINS)]
        day = (dt.date.today() + dt.timedelta(days=20 + (user + 7 * round_) % 60)).isoformat()
        script += [
            f"What is the best time of year to visit {city}?",
            f"Find flights from {origin} to {city} on {day}",
            "and a hotel there for 3 nights",
            "what hotels did you find?",
            f"What will the weather be in {city} on {day}?",
            f"How do I get around {city} on public transport?",
            "the cheapest flight you showed me",
            f"What should I pack for {city}?",
            f"Any things to do in {city}?",
            "what flights did you find?",
        ]
        round_ += 1
    return script[:n]


# A recall question of the script and the search whose results it asks for.
RECALLS = {
    "what hotels did you find?": "hotel_search",
    "what flights did you find?": "flight_search",
    "the cheapest flight you showed me": "flight_search",
}
NOTHING_RECALLED = message("en", "lead_recalled_none")


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []  # per answer, the attempt the service accepted
        self.end_to_end: list[float] = []  # per answer, from its first try
        self.errors: Counter[str] = Counter()
        self.examples: dict[str, str] = {}
        self.recalls = 0
        self.overloaded = 0  # messages refused for load (503 overloaded) and sent again after Retry-After
        self.tool_errors: Counter[str] = Counter()  # tool calls answered with an error, by code

    def took(self, first: float, start: float) -> None:
        """An answer came: the service's time for the attempt it accepted (from ``start``), and the
        traveller's from the first try (``first``), refusals for load and their Retry-After waits included."""
        now = time.perf_counter()
        self.latencies.append((now - start) * 1000)
        self.end_to_end.append((now - first) * 1000)

    def failed(self, code: str, detail: str) -> None:
        self.errors[code] += 1
        self.examples.setdefault(code, detail)

    def answered(self, user: str, text: str, frame: dict[str, Any], found: dict[str, int]) -> None:
        """Check a complete answer: a recall after a search that found something must recall it."""
        for call in frame.get("tool_calls") or []:
            found[call["name"]] = int(call.get("result_count") or 0)
            if call.get("error"):  # the answer went out, saying the tool failed: counted, not a failure
                self.tool_errors[call["error"]] += 1
        tool = RECALLS.get(text)
        if tool is None or not found.get(tool):
            return
        self.recalls += 1
        if NOTHING_RECALLED in frame.get("text", ""):
            self.failed("recall_miss", f"{user} {text!r} after {found[tool]} results: {frame.get('text')!r}")


async def rest_user(
    session: aiohttp.ClientSession, base: str, user: str, messages: list[str], think: float, tally: Tally
) -> list[str]:
    sent = []
    found: dict[str, int] = {}
    for text in messages:
        first = time.perf_counter()
        try:
            while True:
                start = time.perf_counter()  # this attempt: what the service took to answer
                async with session.post(f"{base}/v1/chat", json={"user_id": user, "message": text}) as resp:
                    body = await resp.json()
                if resp.status != 503 or (body.get("error") or {}).get("code") != "overloaded":
                    break
                tally.overloaded += 1  # refused at once, nothing stored: sent again when it says
                await asyncio.sleep(float(resp.headers.get("Retry-After", "1")))
            if resp.status == 200 and body.get("complete"):
                tally.took(first, start)
                tally.answered(user, text, body, found)
                sent.append(text)
            else:
                code = (body.get("error") or {}).get("code", f"http_{resp.status}")
                tally.failed(code, f"{user} {text!r}: {resp.status} {body}")
                if code != "rate_limited":
                    sent.append(text)  # a failure may have stored the message: the history check shows it
        except (TimeoutError, aiohttp.ClientError) as exc:
            tally.failed(type(exc).__name__, f"{user} {text!r}: {exc}")
        if think:
            await asyncio.sleep(think)
    return sent


async def ws_user(
    session: aiohttp.ClientSession, base: str, user: str, messages: list[str], think: float, tally: Tally
) -> list[str]:
    sent = []
    found: dict[str, int] = {}
    try:
        async with session.ws_connect(base.replace("http://", "ws://") + f"/v1/ws?user_id={user}") as ws:
            for text in messages:
                first = start = time.perf_counter()
                await ws.send_json({"type": "message", "text": text})
                while True:
                    frame = await ws.receive_json(timeout=300)
                    if frame.get("type") == "error" and frame["error"]["code"] == "overloaded":
                        tally.overloaded += 1  # refused at once, nothing stored: sent again when it says
                        await asyncio.sleep(float(frame["error"].get("retry_after", 1)))
                        start = time.perf_counter()
                        await ws.send_json({"type": "message", "text": text})
                        continue
                    if frame.get("type") == "error":
                        code = frame["error"]["code"]
                        tally.failed(code, f"{user} {text!r}: {frame}")
                        if code != "rate_limited":
                            sent.append(text)
                        break
                    if frame.get("complete"):
                        tally.took(first, start)
                        tally.answered(user, text, frame, found)
                        sent.append(text)
                        break
                if think:
                    await asyncio.sleep(think)
    except (TimeoutError, aiohttp.ClientError, TypeError) as exc:
        tally.failed(type(exc).__name__, f"{user}: {exc}")
    return sent


async def check_history(session: aiohttp.ClientSession, base: str, user: str, sent: list[str]) -> bool:
    async with session.get(f"{base}/v1/sessions/{user}") as resp:
        history = (await resp.json())["history"]
    # The endpoint shows the last 20 turns: compare the user turns among them with the tail of what was sent.
    mine = [t["text"] for t in history if t["role"] == "user"]
    return mine == sent[len(sent) - len(mine) :] and len(mine) == min(len(sent), 10)


async def main_async(users: int, messages: int, think: float) -> int:
    rss_before = current_rss_mib()
    async with serve_in_process(SETTINGS) as (base, app):
        settings = app[keys.SETTINGS]
        rss_ready = current_rss_mib()
        print(
            f"service ready (defaults, full seed corpus; rate limit {settings.server.chat_rate_limit} "
            f"messages per {settings.server.chat_rate_window_seconds} s per user); "
            f"RSS {rss_before:.0f} MiB before start, {rss_ready:.0f} MiB ready"
        )
        tally = Tally()
        scripts = {
            (f"soak-rest-{u}" if u % 2 == 0 else f"soak-ws-{u}"): conversation(u, messages)
            for u in range(users)
        }
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            start = time.perf_counter()
            sent = await asyncio.gather(
                *(
                    (rest_user if user.startswith("soak-rest") else ws_user)(
                        session, base, user, msgs, think, tally
                    )
                    for user, msgs in scripts.items()
                )
            )
            wall = time.perf_counter() - start
            await app[keys.TASKS].drain()
            histories = await asyncio.gather(
                *(check_history(session, base, user, s) for user, s in zip(scripts, sent, strict=True))
            )
        rss_after = current_rss_mib()
    refused = tally.errors.pop("rate_limited", 0)
    failed = sum(tally.errors.values())
    bad_histories = histories.count(False)
    lat = tally.latencies
    print(
        f"{users} users x {messages} messages ({users * messages} sent, REST and WebSocket): "
        f"{len(lat)} answered in {wall:.1f} s ({len(lat) / wall:.1f} messages/s); "
        f"latency p50 {percentile(lat, 0.5):.0f} ms p99 {percentile(lat, 0.99):.0f} ms "
        f"(from the first try, refusals and waits included: p50 {percentile(tally.end_to_end, 0.5):.0f} ms "
        f"p99 {percentile(tally.end_to_end, 0.99):.0f} ms)"
    )
    print(
        f"failed {failed}{f' {dict(tally.errors)}' if failed else ''} "
        f"(recall questions after a search that found something: {tally.recalls}, a miss is a failure); "
        f"rate_limited (expected refusals) {refused}; overloaded (refused at once, sent again) "
        f"{tally.overloaded}; "
        f"histories not matching what was sent {bad_histories}"
    )
    print(f"tool calls that failed inside answers: {dict(tally.tool_errors) or 'none'}")
    print(
        f"RSS {rss_ready:.0f} MiB ready, {rss_after:.0f} MiB after the soak "
        f"({rss_after - rss_ready:+.0f} MiB); peak {peak_rss_mib():.0f} MiB"
    )
    for code, example in tally.examples.items():
        print(f"    {code}: {example[:300]}")
    return 1 if failed or bad_histories else 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument(
        "--messages", type=int, default=20, help="per user (the default limit is 30 a minute)"
    )
    parser.add_argument("--think-ms", type=float, default=0, help="pause between a user's messages")
    args = parser.parse_args()
    sys.exit(asyncio.run(main_async(args.users, args.messages, args.think_ms / 1000)))


if __name__ == "__main__":
    main()
