"""Property-based fuzz of the chat WebSocket: hostile frames get error frames, never a closed connection.

One real app and one connection serve every example, so damage one frame does (a crashed reader, a
connection closed, a stuck "busy") shows up in the next. Every frame the server sends must match the
server frames that /openapi.json describes under x-websocket.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import jsonschema
import pytest
from aiohttp import ClientWebSocketResponse, WSMsgType, web
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rag.web.openapi import openapi_document
from rag.web.responses import error_classes

pytestmark = [pytest.mark.fuzz, pytest.mark.slow, pytest.mark.timeout(300)]

HELLO = {"type": "message", "text": "hello"}
FRAME_WAIT = 60.0  # a hang guard, not a timing assertion


def _frame_validator() -> jsonschema.Draft202012Validator:
    doc = openapi_document()
    server = doc["paths"]["/v1/ws"]["get"]["x-websocket"]["server"]
    # The frame schemas $ref components/schemas: keep the components beside them in one root.
    return jsonschema.Draft202012Validator({**server, "components": doc["components"]})


FRAMES = _frame_validator()
# A frame's fault is the client's: an error frame must not say the server failed.
SERVER_FAULTS = {cls.code for cls in error_classes() if cls.status >= 500} | {"internal_error"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _nested(depth: int, text: str) -> str:
    return "[" * depth + json.dumps(text) + "]" * depth


def _huge_int(digits: int) -> str:
    return "9" * digits


# Text frames: what a client may send, from plausible to hostile. Each stays under the 64 KiB frame limit.
text_frames = st.one_of(
    st.text(max_size=200),
    json_values.map(json.dumps),
    st.builds(lambda v: json.dumps({"type": "message", "text": v}), json_values),
    st.builds(lambda t, v: json.dumps({"type": t, "text": v}), json_values, json_values),
    st.builds(lambda d: _nested(d, "x"), st.integers(1, 20_000)),
    st.builds(
        lambda d: '{"type": "message", "text": "hi", "extra": ' + _nested(d, "x") + "}",
        st.integers(1, 20_000),
    ),
    st.builds(lambda n: _huge_int(n), st.integers(1, 20_000)),
    st.builds(
        lambda n: '{"type": "message", "text": "hi", "n": ' + _huge_int(n) + "}", st.integers(1, 20_000)
    ),
    st.builds(lambda n: '{"type": "message", "text": ' + _huge_int(n) + "}", st.integers(1, 20_000)),
    st.sampled_from(["\\ud800", "\\udfff", "a\\ud800b", "\\udc00\\ud800"]).map(
        lambda s: '{"type": "message", "text": "' + s + '"}'
    ),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999"]).map(
        lambda v: '{"type": "message", "text": "hi", "n": ' + v + "}"
    ),
    st.builds(lambda t: json.dumps({"type": "message", "text": t}), st.text(max_size=3000)),
)
frames = st.one_of(text_frames, st.binary(max_size=2000))


async def _answer(ws: ClientWebSocketResponse) -> list[dict[str, Any]]:
    """Server frames up to the end of one answer: an error frame or a complete response."""
    got: list[dict[str, Any]] = []
    while True:
        msg = await ws.receive(timeout=FRAME_WAIT)
        assert msg.type == WSMsgType.TEXT, f"the server sent {msg.type!r} ({msg.data!r}), not a frame"
        frame = json.loads(msg.data)
        FRAMES.validate(frame)
        got.append(frame)
        if frame["type"] == "error" or frame.get("complete"):
            return got


@pytest.fixture
async def ws(aiohttp_client, make_settings, small_seed) -> AsyncIterator[ClientWebSocketResponse]:  # type: ignore[no-untyped-def]
    """One WebSocket to the real app; no rate limit, so every example can be answered."""
    from rag.web.app import create_app

    settings = make_settings(
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_SERVER__CHAT_RATE_LIMIT="0",
        WAYFARER_SCHEDULER__ENABLED="false",
    )
    app: web.Application = create_app(settings)
    client = await aiohttp_client(app)
    async with client.ws_connect("/v1/ws?user_id=fuzzer") as conn:
        yield conn


@settings(
    max_examples=50,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(frame=frames)
# The hostile frames every run sends, whatever the seed draws.
@example(frame='{"type": "message", "text": "\\ud800"}')
@example(frame='{"type": "message", "text": "x\\udfffy"}')
@example(frame=_nested(20_000, "x"))
@example(frame='{"type": "message", "text": ' + _nested(5_000, "x") + "}")
@example(frame='{"type": "message", "text": "hi", "n": ' + _huge_int(5_000) + "}")
@example(frame=_huge_int(20_000))
@example(frame='{"type": "message", "text": NaN}')
@example(frame='{"type": 1, "text": "hello"}')
@example(frame='{"type": "message", "text": ["hello"]}')
@example(frame='{"type": "message", "text": "   "}')
@example(frame='{"type": "message", "text": "' + "a" * 3000 + '"}')
@example(frame=b"\x00\xff")
@example(frame="")
async def test_every_frame_gets_a_known_answer_and_the_connection_stays_usable(
    ws: ClientWebSocketResponse, frame: str | bytes
) -> None:
    if isinstance(frame, bytes):
        await ws.send_bytes(frame)
    else:
        await ws.send_str(frame)
    answer = await _answer(ws)
    assert not ws.closed
    last = answer[-1]
    if last["type"] == "error":
        assert last["error"]["code"] not in SERVER_FAULTS, last
    await ws.send_json(HELLO)
    hello = await _answer(ws)
    assert hello[-1].get("complete") is True, hello[-1]
