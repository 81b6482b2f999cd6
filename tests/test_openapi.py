"""GET /openapi.json: a valid OpenAPI 3.1 document that describes every route the app serves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from aiohttp import web
from openapi_spec_validator import validate

from rag.errors import WayfarerError
from rag.settings import Settings
from rag.tools.catalog import ToolCatalogue
from rag.web import keys, schemas
from rag.web.middleware import _HTTP_CODES, error_middleware
from rag.web.openapi import REF, openapi_document
from rag.web.openapi import routes as openapi_routes
from rag.web.responses import error_classes

TOOLS = ToolCatalogue.builtin()

METHODS = {"get", "post", "put", "patch", "delete"}


def operations(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (method.upper(), path): op
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method in METHODS
    }


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    name = ref.rsplit("/", 1)[-1]
    resolved: dict[str, Any] = doc["components"]["schemas"][name]
    return resolved


def test_the_document_is_valid_openapi_3_1() -> None:
    doc = openapi_document()
    assert doc["openapi"] == "3.1.0"
    validate(doc)


def test_every_route_of_the_app_is_described_and_nothing_else(make_settings: Callable[..., Settings]) -> None:
    from rag.web.app import create_app

    app = create_app(make_settings())
    served = set()
    for route in app.router.routes():
        if route.method == "HEAD":
            continue
        assert route.resource is not None
        served.add((route.method, route.resource.canonical))
    described = set(operations(openapi_document()))
    per_tool = {("POST", f"/v1/tools/{name}") for name in TOOLS}  # served by /v1/tools/{name}
    assert served == described - per_tool
    assert per_tool <= described


async def test_the_document_is_served(aiohttp_client) -> None:  # type: ignore[no-untyped-def]
    app = web.Application(middlewares=[error_middleware])
    app[keys.CATALOGUE] = TOOLS
    app.add_routes(openapi_routes)
    client = await aiohttp_client(app)
    resp = await client.get("/openapi.json")
    assert resp.status == 200 and resp.content_type == "application/json"
    assert await resp.json() == openapi_document()


def test_the_error_body_enumerates_every_code() -> None:
    doc = openapi_document()
    body = doc["components"]["schemas"]["ErrorBody"]
    assert body["required"] == ["error"]
    codes = set(doc["components"]["schemas"]["ErrorDetail"]["properties"]["code"]["enum"])
    assert {cls.code for cls in error_classes()} <= codes
    assert set(_HTTP_CODES.values()) <= codes
    assert error_classes()[0] is WayfarerError


def test_every_error_response_is_the_error_body_and_every_operation_can_fail_with_500() -> None:
    doc = openapi_document()
    for key, op in operations(doc).items():
        assert "500" in op["responses"], key
        for status, response in op["responses"].items():
            if int(status) >= 400:
                assert response["content"]["application/json"]["schema"] == {
                    "$ref": REF.format(model="ErrorBody")
                }, (key, status)
                assert response["description"].startswith("codes: "), (key, status)


@pytest.mark.parametrize(
    ("method", "path", "statuses"),
    [
        ("POST", "/v1/search", {"200", "400", "401", "413", "422", "500", "503"}),
        ("POST", "/v1/chat", {"200", "400", "401", "413", "422", "429", "500", "503", "504"}),
        ("POST", "/v1/tools/flight_search", {"200", "400", "401", "404", "413", "422", "429", "500", "502"}),
        ("POST", "/v1/admin/reindex", {"200", "400", "401", "404", "409", "413", "422", "500", "503"}),
        ("POST", "/v1/documents", {"200", "202", "400", "401", "413", "422", "500", "503"}),
    ],
)
def test_an_endpoint_lists_the_statuses_its_errors_have(method: str, path: str, statuses: set[str]) -> None:
    op = operations(openapi_document())[(method, path)]
    assert statuses <= set(op["responses"])


def test_an_upload_job_answer_has_its_location() -> None:
    accepted = operations(openapi_document())[("POST", "/v1/documents")]["responses"]["202"]
    assert accepted["headers"]["Location"]["required"] is True


def test_the_422_of_a_tool_names_its_codes() -> None:
    op = operations(openapi_document())[("POST", "/v1/tools/hotel_search")]
    codes = op["responses"]["422"]["description"]
    assert "invalid_tool_params" in codes and "unknown_location" in codes and "validation_error" in codes


def test_request_bodies_are_the_request_models() -> None:
    doc = openapi_document()
    ops = operations(doc)
    for key, model in [
        (("POST", "/v1/search"), schemas.SearchRequest),
        (("POST", "/v1/chat"), schemas.ChatRequest),
        (("POST", "/v1/documents"), schemas.DocumentsRequest),
    ]:
        body = ops[key]["requestBody"]["content"]["application/json"]["schema"]
        expected = model.model_json_schema(ref_template=REF)
        expected.pop("$defs", None)
        assert resolve(doc, body) == expected, key
    # Strict models: unknown keys are refused, and the description says so.
    assert doc["components"]["schemas"]["SearchRequest"]["additionalProperties"] is False


def test_each_tool_has_its_parameters_as_body() -> None:
    doc = openapi_document()
    ops = operations(doc)
    for name, spec in TOOLS.items():
        op = ops[("POST", f"/v1/tools/{name}")]
        body = op["requestBody"]
        assert body["required"] is False  # an empty body is {}
        expected = spec.params.model_json_schema(ref_template=REF)
        expected.pop("$defs", None)
        assert resolve(doc, body["content"]["application/json"]["schema"]) == expected, name
    generic = ops[("POST", "/v1/tools/{name}")]
    assert "404" in generic["responses"] and "unknown_tool" in generic["responses"]["404"]["description"]


def test_security_admin_endpoints_need_the_admin_token_user_endpoints_a_user_token_if_any() -> None:
    doc = openapi_document()
    ops = operations(doc)
    assert set(doc["components"]["securitySchemes"]) == {"adminToken", "userToken"}
    for key, op in ops.items():
        if "admin" in op["tags"]:
            assert op["security"] == [{"adminToken": []}], key
            assert "401" in op["responses"], key
    for key in [("POST", "/v1/chat"), ("GET", "/v1/sessions/{user_id}"), ("POST", "/v1/tools/{name}")]:
        assert {} in ops[key]["security"] and {"userToken": []} in ops[key]["security"], key
    assert "security" not in ops[("GET", "/healthz")]


def test_non_json_endpoints_say_their_media_type() -> None:
    ops = operations(openapi_document())
    assert set(ops[("GET", "/metrics")]["responses"]["200"]["content"]) == {"text/plain"}
    assert set(ops[("GET", "/")]["responses"]["200"]["content"]) == {"text/html"}
    ws = ops[("GET", "/v1/ws")]
    assert "101" in ws["responses"] and "x-websocket" in ws
    assert [p["name"] for p in ws["parameters"] if p["required"]] == ["user_id"]


def test_websocket_frames_are_described() -> None:
    doc = openapi_document()
    frames = doc["paths"]["/v1/ws"]["get"]["x-websocket"]
    server = jsonschema.Draft202012Validator({**frames["server"], "components": doc["components"]})
    client = jsonschema.Draft202012Validator({**frames["client"], "components": doc["components"]})
    client.validate({"type": "message", "text": "hello"})
    assert not client.is_valid({"type": "message", "text": 3})
    server.validate({"type": "response", "text": "Par", "chunk": True})
    server.validate({"type": "error", "error": {"code": "invalid_json", "message": "not JSON"}})
    server.validate({"type": "response", "text": "Paris.", "complete": True, "sources": [], "tool_calls": []})
    assert not server.is_valid({"type": "error", "error": {"code": "no_such_code", "message": "x"}})
    assert not server.is_valid({"type": "error"})
    assert not server.is_valid({"type": "response", "text": "x", "complete": True})
