"""POST /v1/route through the real app (one for the module: routing changes nothing)."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def api(shared_tools_client: TestClient) -> TestClient:
    return shared_tools_client


async def test_route_shape(api) -> None:  # type: ignore[no-untyped-def]
    resp = await api.post(
        "/v1/route", json={"message": "hotel in Lisbon from July 10 for 3 nights", "user_id": "u1"}
    )
    assert resp.status == 200
    body = await resp.json()
    assert set(body) == {"use_rag", "tools", "missing", "action", "understood"}
    assert body["action"] == {"kind": "search", "why": "search"}
    assert body["understood"]["tools"] == ["hotel_search"]  # what the router read, before the policy
    [tool] = body["tools"]
    assert (
        tool["name"] == "hotel_search" and tool["params"]["city"] == "LIS" and tool["params"]["nights"] == 3
    )
    assert set(tool) == {"name", "params", "confidence", "via"}
    clarify = await (await api.post("/v1/route", json={"message": "book me a flight"})).json()
    assert (
        clarify["missing"] == {"flight_search": ["origin", "destination", "departure_date"]}
        and clarify["clarify"]
    )


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"", 400, "invalid_json"),
        (b"{", 400, "invalid_json"),
        (b'{"message": ""}', 422, "validation_error"),
        (b'{"message": 5}', 422, "validation_error"),
        (b'{"msg": "hi"}', 422, "validation_error"),
        (b'{"message": "' + b"x" * 3000 + b'"}', 422, "validation_error"),
    ],
)
async def test_bad_route_requests(api, body: bytes, status: int, code: str) -> None:  # type: ignore[no-untyped-def]
    resp = await api.post("/v1/route", data=body)
    assert resp.status == status and (await resp.json())["error"]["code"] == code


async def test_route_without_a_user_decides_as_a_new_conversation(api) -> None:  # type: ignore[no-untyped-def]
    """One decider: without a user_id the message is the first of a new conversation, and what a tool
    would refuse (a count out of its bounds) is asked about, never handed back as parameters."""
    body = {"message": "a hotel in Lisbon from July 10 for 99999999999 nights"}
    anonymous = await (await api.post("/v1/route", json=body)).json()
    fresh = await (await api.post("/v1/route", json={**body, "user_id": "route-fresh"})).json()
    assert anonymous == fresh
    assert anonymous["tools"] == [] and anonymous["missing"] == {"hotel_search": ["nights"]}
    assert anonymous["action"]["kind"] == "ask" and "not 99999999999" in anonymous["clarify"]
    thanks = await (await api.post("/v1/route", json={"message": "Thanks, that's all!"})).json()
    assert thanks["action"] == {"kind": "reply", "why": "social", "reply": "thanks"} and thanks["tools"] == []
