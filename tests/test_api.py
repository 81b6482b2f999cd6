"""The HTTP API through a real aiohttp server: search, documents, health, and every kind of bad input.

One app for the module: a test that adds documents deletes them before it ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.conftest import env_settings, serve

pytestmark = pytest.mark.asyncio(loop_scope="module")
AUTH = {"Authorization": "Bearer s3cret"}


@pytest.fixture(scope="module")
def client(shared_client: TestClient) -> TestClient:
    return shared_client


async def error_of(resp: Any, status: int) -> str:
    assert resp.status == status, await resp.text()
    body = await resp.json()
    assert set(body["error"]) == {"code", "message"} and body["error"]["message"]
    return str(body["error"]["code"])


async def test_health_and_readiness(client) -> None:  # type: ignore[no-untyped-def]
    assert (await (await client.get("/healthz")).json()) == {"status": "ok"}
    resp = await client.get("/readyz")
    assert resp.status == 200
    assert (await resp.json())["checks"] == {"model": True, "index": True, "kv": True}


async def test_search_returns_seeded_documents(client) -> None:  # type: ignore[no-untyped-def]
    resp = await client.post("/v1/search", json={"query": "how do I get from Narita airport into Tokyo?"})
    assert resp.status == 200
    results = (await resp.json())["results"]
    assert 1 <= len(results) <= 5
    top = results[0]
    assert set(top) == {"id", "text", "score", "metadata"}
    meta = top["metadata"]
    assert meta["document_id"] == "guides/tokyo" and meta["title"] == "Tokyo City Guide"
    assert meta["source"] == "seed" and meta["path"] == "guides/tokyo.md" and meta["city"] == "Tokyo"
    assert "Narita" in top["text"]
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    # Pooling: one chunk per document by default.
    assert len({r["metadata"]["document_id"] for r in results}) == len(results)


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
async def test_search_filters(client, mode: str) -> None:  # type: ignore[no-untyped-def]
    body = {"query": "good food to try", "top_k": 10, "filters": {"country": "fr"}, "mode": mode}
    results = (await (await client.post("/v1/search", json=body)).json())["results"]
    assert results and {r["metadata"]["document_id"] for r in results} == {"guides/paris"}
    body["filters"] = {"city": "  lisbon "}
    results = (await (await client.post("/v1/search", json=body)).json())["results"]
    assert {r["metadata"]["document_id"] for r in results} == {"guides/lisbon"}
    body["filters"] = {"source": "nowhere"}
    assert (await (await client.post("/v1/search", json=body)).json())["results"] == []


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"{not json", 400, "invalid_json"),
        (b"", 400, "invalid_json"),
        (b"[1, 2]", 422, "validation_error"),
        (b'{"query": ""}', 422, "validation_error"),
        (b'{"query": "   "}', 422, "validation_error"),
        (b'{"query": 42}', 422, "validation_error"),
        (b'{"query": "paris", "top_k": "5"}', 422, "validation_error"),
        (b'{"query": "paris", "top_k": 0}', 422, "validation_error"),
        (b'{"query": "paris", "top_k": 51}', 422, "validation_error"),
        (b'{"query": "paris", "filters": {"planet": "mars"}}', 422, "validation_error"),
        (b'{"query": "paris", "filters": {"country": "Atlantis"}}', 422, "unknown_filter_value"),
        (b'{"query": "paris", "mode": "magic"}', 422, "validation_error"),
    ],
)
async def test_bad_search_requests(client, body: bytes, status: int, code: str) -> None:  # type: ignore[no-untyped-def]
    resp = await client.post("/v1/search", data=body, headers={"Content-Type": "application/json"})
    assert await error_of(resp, status) == code


async def test_huge_and_long_requests(client) -> None:  # type: ignore[no-untyped-def]
    resp = await client.post("/v1/search", json={"query": "x" * 2001})
    assert await error_of(resp, 422) == "validation_error"
    resp = await client.post("/v1/search", data=b'{"query": "' + b"a" * (9 * 1024 * 1024) + b'"}')
    assert await error_of(resp, 413) == "payload_too_large"
    # The service is still fine afterwards.
    assert (await client.post("/v1/search", json={"query": "paris"})).status == 200


async def test_unknown_route_and_method(client) -> None:  # type: ignore[no-untyped-def]
    assert await error_of(await client.get("/v1/nothing"), 404) == "not_found"
    assert await error_of(await client.get("/v1/search"), 405) == "method_not_allowed"


async def test_documents_need_the_admin_token(client) -> None:  # type: ignore[no-untyped-def]
    body = {"documents": [{"id": "x", "text": "hello"}]}
    assert await error_of(await client.post("/v1/documents", json=body), 401) == "unauthorized"
    wrong = {"Authorization": "Bearer nope"}
    assert await error_of(await client.post("/v1/documents", json=body, headers=wrong), 401) == "unauthorized"
    basic = {"Authorization": "Basic s3cret"}
    assert await error_of(await client.post("/v1/documents", json=body, headers=basic), 401) == "unauthorized"
    assert await error_of(await client.delete("/v1/documents/x"), 401) == "unauthorized"


async def test_admin_endpoints_are_closed_without_a_configured_token(tmp_path: Path) -> None:
    async with serve(env_settings(tmp_path, WAYFARER_INDEX__SEED_ON_START="false")) as client:
        resp = await client.post("/v1/documents", json={"documents": []}, headers=AUTH)
        assert await error_of(resp, 401) == "unauthorized"


async def test_ingest_documents_then_search_update_and_delete(client) -> None:  # type: ignore[no-untyped-def]
    doc = {
        "id": "tips/porto",
        "text": "# Porto\n\n## Wine\n\nTake the rabelo boat tour and taste port in the Vila Nova de Gaia cellars.",
        "metadata": {"title": "Porto wine tips", "city": "Porto", "country": "Portugal", "topics": ["wine"]},
    }
    resp = await client.post("/v1/documents", json={"documents": [doc]}, headers=AUTH)
    assert resp.status == 200
    counts = await resp.json()
    assert counts["added"] == 1 and counts["chunks"] >= 1
    again = await (await client.post("/v1/documents", json={"documents": [doc]}, headers=AUTH)).json()
    assert again["skipped"] == 1 and again["added"] == 0

    search = {"query": "port cellars boat tour", "filters": {"city": "porto"}}
    results = (await (await client.post("/v1/search", json=search)).json())["results"]
    assert results[0]["metadata"]["document_id"] == "tips/porto"
    assert results[0]["metadata"]["source"] == "api" and results[0]["metadata"]["topics"] == ["wine"]

    doc["text"] = "Porto: ride tram 1 along the Douro to Foz for the sunset."
    updated = await (await client.post("/v1/documents", json={"documents": [doc]}, headers=AUTH)).json()
    assert updated["updated"] == 1
    results = (await (await client.post("/v1/search", json=search)).json())["results"]
    assert all("cellars" not in r["text"] for r in results)

    assert (await (await client.delete("/v1/documents/tips/porto", headers=AUTH)).json()) == {"deleted": 1}
    results = (await (await client.post("/v1/search", json=search)).json())["results"]
    assert results == []


@pytest.mark.slow  # embeds 1,500 sentences
async def test_large_document_over_http(client) -> None:  # type: ignore[no-untyped-def]
    text = " ".join(f"Stop {i} of the Ginza line is station G{i:02d}." for i in range(1500))
    body = {"documents": [{"id": "big", "text": text, "metadata": {"title": "Ginza line"}}]}
    resp = await client.post("/v1/documents", json=body, headers=AUTH)
    assert resp.status == 200
    assert (await resp.json())["chunks"] > 50
    search = {"query": "which Ginza line stop is station G1234", "top_k": 3}
    results = (await (await client.post("/v1/search", json=search)).json())["results"]
    assert results[0]["metadata"]["document_id"] == "big" and "Ginza" in results[0]["text"]
    assert (await (await client.delete("/v1/documents/big", headers=AUTH)).json()) == {"deleted": 1}


@pytest.mark.parametrize(
    "body",
    [
        {"documents": []},
        {"documents": [{"id": "", "text": "x"}]},
        {"documents": [{"id": "a\nb", "text": "x"}]},
        {"documents": [{"id": "a", "text": ""}]},
        {"documents": [{"id": "a", "text": 5}]},
        {"documents": [{"id": "a", "text": "x", "metadata": []}]},
        {"documents": [{"id": "a", "text": "x", "metadata": {"source": "seed"}}]},
        {"docs": []},
    ],
)
async def test_bad_documents(client, body: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    resp = await client.post("/v1/documents", json=body, headers=AUTH)
    assert await error_of(resp, 422) == "validation_error"
