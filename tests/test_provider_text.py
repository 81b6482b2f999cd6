"""A provider's own words in its errors reach no one but the log, cleaned and capped (issues 24, 32).

A provider's error body is third-party text as much as its results are. The tool's error, the chat
answer, the stored history and an LLM writer get our own sentence for what happened; the provider's
words are the error's ``detail``, logged by the tool's runner. Each test below serves one hostile error
body from a tiny provider on loopback, in each provider's own dialect, and follows it through.
"""

from __future__ import annotations

import datetime as dt
import json
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from connectors import amadeus_fields, duffel, liteapi, open_meteo, opentripmap, travelpayouts
from connectors.http import Describe, JsonHttp, RetryPolicy
from connectors.text import ERROR_CHARS, clean_text
from rag.errors import ProviderError, ProviderRejectedError

LINK = "[click here](http://evil.example/phish)"
IMAGE = "![pixel](http://evil.example/p.png)"
# 10,400 characters: bidi overrides, zero-width and control characters, a Markdown link and image, a tag.
HOSTILE = (
    f"Bad \u202erequest\u2066\u200b\x00\x07\x1b[31m\r\n {LINK} {IMAGE} <img src=x onerror=alert(1)> "
    + "padding " * 1300
)
POLICY = RetryPolicy(retries=0, backoff=0.01, timeout=5.0, max_backoff=0.05)

# Each dialect's 4xx body carrying the hostile text where the provider puts its detail.
DIALECTS: dict[str, tuple[Describe, int, dict[str, Any]]] = {
    "Duffel": (
        duffel.describe_error,
        422,
        {
            "errors": [
                {
                    "type": "validation_error",
                    "code": "invalid_field\u202e" + "x" * 500,
                    "title": "Invalid field",
                    "message": HOSTILE,
                    "source": {"field": "slices", "pointer": "/slices"},
                }
            ],
            "meta": {"status": 422, "request_id": "req_1"},
        },
    ),
    "LiteAPI": (
        liteapi.describe_error,
        400,
        {"error": {"code": 4002, "description": HOSTILE, "message": "bad"}},
    ),
    "Travelpayouts": (travelpayouts.describe_error, 400, {"success": False, "data": None, "error": HOSTILE}),
    "OpenTripMap": (opentripmap.describe_error, 400, {"error": HOSTILE}),
    "Open-Meteo": (open_meteo.describe_error, 400, {"error": True, "reason": HOSTILE}),
    "Amadeus": (
        amadeus_fields.describe_error,
        400,
        {"errors": [{"status": 400, "code": 477, "title": "INVALID FORMAT", "detail": HOSTILE}]},
    ),
}


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def assert_clean(text: str, max_chars: int, newlines: bool = False) -> None:
    """No control, bidi or format character (an answer's own line breaks aside), at most ``max_chars``."""
    allowed = "\n" if newlines else ""
    bad = [c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Cs") and c not in allowed]
    assert not bad, (bad[:5], text[:200])
    assert len(text) <= max_chars, (len(text), text[:200])
    assert "<img" not in text, text[:200]


# --- the sanitiser itself -----------------------------------------------------------------------------


def test_one_sanitiser_for_results_and_errors() -> None:
    from rag.live import sanitize

    assert sanitize.clean_text is clean_text


def test_clean_text_strips_controls_and_bidi_and_caps_with_an_ellipsis() -> None:
    cleaned = clean_text(HOSTILE, ERROR_CHARS)
    assert_clean(cleaned, ERROR_CHARS)
    assert cleaned.startswith("Bad request [31m " + LINK) and cleaned.endswith("…")
    assert clean_text("short and plain", ERROR_CHARS) == "short and plain"


def test_a_huge_text_is_cut_before_it_is_read_whole() -> None:
    # A megabyte of tags and text is cut to a few times the cap before it is read: short and clean.
    huge = "<b>" * 200_000 + "x" * 1_000_000
    cleaned = clean_text(huge, 50)
    assert len(cleaned) <= 50 and "<" not in cleaned


@pytest.mark.parametrize("error", [ProviderError, ProviderRejectedError])
def test_every_provider_error_is_cleaned_and_capped_however_it_is_raised(error: type[ProviderError]) -> None:
    # A connector declared outside the package raising with the provider's words is caught here too.
    raised = error(f"Someprovider: {HOSTILE}")
    assert_clean(raised.message, ERROR_CHARS)
    assert str(raised) == raised.message and raised.to_json()["error"]["message"] == raised.message


# --- at the boundary: each provider's error body over real HTTP ---------------------------------------


@pytest.fixture
async def hostile(aiohttp_server: Any) -> Callable[[int, dict[str, Any]], Any]:
    """A provider that answers every request with ``status`` and ``body``."""

    async def make(status: int, body: dict[str, Any]) -> TestServer:
        async def answer(request: web.Request) -> web.Response:
            return web.json_response(body, status=status)

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", answer)
        server: TestServer = await aiohttp_server(app)
        return server

    return make


@pytest.mark.parametrize("provider", list(DIALECTS))
async def test_each_dialects_error_detail_is_cleaned_capped_and_keeps_its_code(
    provider: str, hostile
) -> None:  # type: ignore[no-untyped-def]
    describe, status, body = DIALECTS[provider]
    server = await hostile(status, body)
    async with aiohttp.ClientSession() as session:
        http = JsonHttp(session, provider, POLICY, describe)
        with pytest.raises(ProviderRejectedError) as caught:
            await http.request("GET", str(server.make_url("/api")))
    error = caught.value
    assert error.message == f"{provider} refused the request (HTTP {status})"
    assert_clean(error.detail, ERROR_CHARS)
    assert LINK in error.detail and "…" in error.detail
    if provider == "Amadeus":
        assert error.detail.endswith("(477)")  # the code survives the detail's cap
    if provider == "Duffel":
        assert error.detail.endswith("…)") and "\u202e" not in error.detail  # a hostile code is capped too


# --- through the service: the tool's error, the chat answer, the complete frame, the history ----------

SEARCHES = {
    "duffel": ("flight_search", f"flights from Paris to Rome on {ahead(30)}", "flights"),
    "liteapi": ("hotel_search", f"hotels in Rome from {ahead(30)} for 2 nights", "hotels"),
}
BODIES = {"duffel": DIALECTS["Duffel"], "liteapi": DIALECTS["LiteAPI"]}


@pytest.fixture
async def make_api(aiohttp_client, make_settings, hostile):  # type: ignore[no-untyped-def]
    """The real app with one tool served by a hostile provider on loopback, the rest by the sandbox."""
    from rag.web.app import create_app

    async def make(provider: str) -> Any:
        _, status, body = BODIES[provider]
        server = await hostile(status, body)
        tool = SEARCHES[provider][0]
        key = "DUFFEL_TOKEN" if provider == "duffel" else "LITEAPI_KEY"
        settings = make_settings(
            WAYFARER_INDEX__SEED_ON_START="false",
            WAYFARER_CONNECTORS__MIN_INTERVAL_MS="0",
            WAYFARER_CONNECTORS__BACKOFF_SECONDS="0.01",
            WAYFARER_CONNECTORS__PROVIDERS=json.dumps({tool: provider}),
            **{
                f"WAYFARER_CONNECTORS__{key}": "test-key",
                f"WAYFARER_CONNECTORS__{provider.upper()}_BASE_URL": str(server.make_url("")),
            },
        )
        return await aiohttp_client(create_app(settings))

    return make


def assert_not_said(text: str) -> None:
    """None of the provider's words: not its text, not its link, not its tag."""
    for word in ("padding", "evil.example", "click here", "onerror", "Bad"):
        assert word not in text, (word, text[:200])


@pytest.mark.parametrize("provider", list(SEARCHES))
async def test_a_providers_error_reaches_the_traveller_in_our_words_and_the_log_in_its_own(
    make_api, provider: str, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    api = await make_api(provider)
    tool, question, what = SEARCHES[provider]
    name = {"duffel": "Duffel", "liteapi": "LiteAPI"}[provider]

    # The tool's own error, over HTTP.
    with caplog.at_level("WARNING", logger="connectors.tools"):
        resp = await api.post(f"/v1/tools/{tool}?user_id=mallory", json=_params(tool))
    body = await resp.json()
    assert (resp.status, body["error"]["code"]) == (422, "provider_rejected")
    assert body["error"]["message"].startswith(f"{name} refused the request (HTTP ")
    for s in strings(body):
        assert_not_said(s)
    [logged] = [r.getMessage() for r in caplog.records if "the provider said" in r.getMessage()]
    assert "padding" in logged and "\u202e" not in logged and len(logged) < 2 * ERROR_CHARS

    # The chat answer and its complete frame.
    resp = await api.post("/v1/chat", json={"user_id": "mallory", "message": question})
    assert resp.status == 200
    answer = await resp.json()
    [call] = answer["tool_calls"]
    assert call["name"] == tool and call["error"] == "provider_rejected"
    text = answer["text"]
    assert f"couldn't get {what}" in text
    for s in strings(answer):
        assert_clean(s, 1_000, newlines=True)
        assert_not_said(s)

    # The stored history, as the page draws it again.
    resp = await api.get("/v1/sessions/mallory")
    history = (await resp.json())["history"]
    assert [t["role"] for t in history] == ["user", "assistant"]
    assert history[1]["text"] == text
    for s in strings(history):
        assert_not_said(s)


def _params(tool: str) -> dict[str, Any]:
    if tool == "flight_search":
        return {"origin": "Paris", "destination": "Rome", "departure_date": ahead(30)}
    return {"city": "Rome", "check_in": ahead(30), "nights": 2}
