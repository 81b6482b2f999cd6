"""GET /openapi.json: a valid OpenAPI 3.1 document that describes every route the app serves, with
the constraints its validators enforce: every string a client sends has the maxLength the server
refuses past, every integer its bounds, and patterns and enums take what the server takes."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema
import pydantic
import pytest
from aiohttp import web
from openapi_spec_validator import validate

from connectors.params import ToolParams
from connectors.places import LocationCatalogue
from rag.errors import ValidationError, WayfarerError
from rag.settings import LimitsSettings, Settings
from rag.tools.catalog import ToolCatalogue
from rag.web import jsonio, keys, params, schemas
from rag.web.middleware import _HTTP_CODES, error_middleware
from rag.web.openapi import REF, openapi_document, request_schema
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
        expected = request_schema(model)
        expected.pop("$defs", None)
        assert resolve(doc, body) == expected, key
        # The validator's own schema, but for integer bounds the JSON reader adds.
        assert expected["properties"].keys() == model.model_json_schema()["properties"].keys()
    # Strict models: unknown keys are refused, and the description says so.
    assert doc["components"]["schemas"]["SearchRequest"]["additionalProperties"] is False


def test_each_tool_has_its_parameters_as_body() -> None:
    doc = openapi_document()
    ops = operations(doc)
    for name, spec in TOOLS.items():
        op = ops[("POST", f"/v1/tools/{name}")]
        body = op["requestBody"]
        assert body["required"] is True  # each tool needs some parameter (activity_search: one of two)
        expected = request_schema(spec.params)
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
    assert not client.is_valid({"type": "message", "text": "x" * 2001})
    assert not client.is_valid({"type": "message", "text": "hi", "timezone": "Mars/Olympus_Mons"})
    server.validate({"type": "response", "text": "Par", "chunk": True})
    server.validate({"type": "error", "error": {"code": "invalid_json", "message": "not JSON"}})
    server.validate({"type": "response", "text": "Paris.", "complete": True, "sources": [], "tool_calls": []})
    assert not server.is_valid({"type": "error", "error": {"code": "no_such_code", "message": "x"}})
    assert not server.is_valid({"type": "error"})
    assert not server.is_valid({"type": "response", "text": "x", "complete": True})


# What a client may send without a length of its own: document text, bounded by the upload's size
# (WAYFARER_LIMITS__MAX_BODY_BYTES), and path parameters the handler looks up as they are (a file of
# the page, a job, a document: none is found, whatever its length). The WebSocket's token is compared,
# never stored nor repeated.
UNBOUNDED = {
    ("POST", "/v1/documents", "documents.[].text"),
    ("GET", "/static/{name}", "name"),
    ("GET", "/v1/uploads/{job_id}", "job_id"),
    ("DELETE", "/v1/documents/{document_id}", "document_id"),
    ("GET", "/v1/ws", "token"),
}


def _walk(
    schema: dict[str, Any], doc: dict[str, Any], path: str = ""
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, schema) of every value a schema holds that is not an object or an array."""
    schema = resolve(doc, schema)
    # An object's own anyOf only says which of its properties it needs (activity_search): walk those.
    if ("anyOf" in schema or "oneOf" in schema) and schema.get("type") != "object":
        for option in schema.get("anyOf", schema.get("oneOf")):
            yield from _walk(option, doc, path)
    elif schema.get("type") == "object":
        if "properties" not in schema:
            yield path, schema
        for name, sub in schema.get("properties", {}).items():
            yield from _walk(sub, doc, f"{path}.{name}".lstrip("."))
    elif schema.get("type") == "array":
        yield from _walk(schema["items"], doc, f"{path}.[]")
    else:
        yield path, schema


def _client_values(doc: dict[str, Any]) -> Iterator[tuple[tuple[str, str, str], dict[str, Any]]]:
    """Every value a client sends: in bodies, parameters and WebSocket frames, with where it is."""
    for (method, path), op in operations(doc).items():
        for param in op.get("parameters", []):
            for where, schema in _walk(param["schema"], doc, param["name"]):
                yield (method, path, where), schema
        body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if body is not None:
            for where, schema in _walk(body, doc):
                yield (method, path, where), schema
        for frame in op.get("x-websocket", {}).get("client", {}).get("oneOf", []):
            for where, schema in _walk(frame, doc):
                yield (method, path, where), schema


def test_every_string_a_client_sends_has_a_max_length() -> None:
    unbounded = {
        key
        for key, schema in _client_values(openapi_document())
        if schema.get("type") == "string"
        and "maxLength" not in schema
        and "enum" not in schema
        and "const" not in schema
        and schema.get("format") != "date"
    }
    assert unbounded == UNBOUNDED


def test_every_integer_a_client_sends_is_bounded() -> None:
    for key, schema in _client_values(openapi_document()):
        if schema.get("type") == "integer":
            assert {"minimum", "exclusiveMinimum"} & set(schema), key
            assert {"maximum", "exclusiveMaximum"} & set(schema), key
    limits = jsonio.JSONLimits()
    top = 10**limits.max_int_digits - 1
    price = request_schema(TOOLS["flight_search"].params)["properties"]["max_price"]["anyOf"][0]
    assert price["maximum"] == top
    assert jsonio.loads(str(top), limits) == top
    with pytest.raises(jsonio.JSONLimitError):
        jsonio.loads(str(top + 1), limits)


CAT = LocationCatalogue.load()


def _validate(model: type[pydantic.BaseModel], body: dict[str, Any]) -> list[Any]:
    """The errors of ``body`` as the service validates it: strictly, tools against the catalogue."""
    try:
        if issubclass(model, ToolParams):
            context = {"catalogue": CAT, "today": dt.date.today()}
            model.model_validate_json(json.dumps(body), strict=True, context=context)
        else:
            model.model_validate(body, context={"limits": LimitsSettings()})
    except pydantic.ValidationError as exc:
        return exc.errors(include_url=False)
    return []


def _nested(path: str, value: Any) -> Any:
    if not path:
        return value
    head, _, rest = path.partition(".")
    return [_nested(rest, value)] if head == "[]" else {head: _nested(rest, value)}


def _body_models() -> list[type[pydantic.BaseModel]]:
    return [
        schemas.SearchRequest,
        schemas.ChatRequest,
        schemas.RouteRequest,
        schemas.RecallRequest,
        schemas.ReindexRequest,
        schemas.DocumentsRequest,
        *schemas.FRAMES.values(),
        *(spec.params for spec in TOOLS.values()),
    ]


def _too_long(model: type[pydantic.BaseModel], where: str, length: int) -> bool:
    """Whether the string at ``where`` is refused for its length when it has ``length`` characters."""
    names = [p for p in where.split(".") if p != "[]"]
    errors = _validate(model, _nested(where, "z" * length))
    return any(
        e["type"] == "string_too_long" and [p for p in e["loc"] if p in names] == names for e in errors
    )


@pytest.mark.parametrize("model", _body_models(), ids=lambda m: m.__name__)
def test_each_max_length_is_the_validator_s(model: type[pydantic.BaseModel]) -> None:
    """A string one character over the maxLength its schema states is refused for its length, and one
    at it is not: for every string of every body and frame."""
    doc = {"components": {"schemas": {}}}
    schema = request_schema(model)
    doc["components"]["schemas"].update(schema.pop("$defs", {}))
    checked = 0
    for where, sub in _walk(schema, doc):
        if sub.get("type") != "string" or "maxLength" not in sub:
            continue
        assert _too_long(model, where, sub["maxLength"] + 1), (where, sub)
        assert not _too_long(model, where, sub["maxLength"]), (where, sub)
        checked += 1
    assert checked, model


def _valid(schema: dict[str, Any], value: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


SAMPLES = [
    "bob",
    " bob ",
    "Ann Smith",
    "a" * 200,
    "a" * 201,
    " " + "a" * 199,
    "",
    "   ",
    "\u3000",
    "\u3000x",
    "*",
    " * ",
    "**",
    "b\nob",
    "\nbob",
    "bob\x7f",
    "\x1c",
    "\x85x",
    "\ufeff",
    "émile",
    "ユーザー",
    "😀",
]


def test_user_ids_are_taken_as_their_schema_says() -> None:
    doc = openapi_document()
    ws = operations(doc)[("GET", "/v1/ws")]
    schema = next(p["schema"] for p in ws["parameters"] if p["name"] == "user_id")
    body = dict(doc["components"]["schemas"]["ChatRequest"]["properties"]["user_id"])
    assert body.pop("title") and body == schema  # one schema, in bodies and parameters alike
    for value in SAMPLES:
        try:
            params.user_id_param(value)
            taken = True
        except ValidationError:
            taken = False
        assert taken == _valid(schema, value), repr(value)


@pytest.mark.parametrize(
    ("model", "field"),
    [
        (schemas.RouteRequest, "message"),
        (schemas.SearchRequest, "query"),
        (schemas.RecallRequest, "message"),
        (schemas.ChatRequest, "id"),
        (schemas.ChatRequest, "timezone"),
        (schemas.SearchFilters, "city"),
    ],
)
def test_strings_are_taken_as_their_schema_says(model: type[pydantic.BaseModel], field: str) -> None:
    schema = request_schema(model)["properties"][field]
    zones = ["Europe/Lisbon", "UTC", "America/Argentina/Buenos_Aires", "utc", "Mars/Olympus_Mons", "Lisbon"]
    for value in [*SAMPLES, *zones, "a-b_C9", "a" * 64, "a" * 65, "a b", "a" * 2000, "a" * 2001]:
        errors = _validate(model, {field: value})
        taken = not any(e["loc"][:1] == (field,) for e in errors)
        assert taken == _valid(schema, value), (field, repr(value[:40]))


def test_the_document_follows_the_service_limits(make_settings: Callable[..., Settings]) -> None:
    """A service with other limits describes them, and its validators enforce the same."""
    limits = LimitsSettings(max_message_chars=500, max_int_digits=12)
    doc = openapi_document(limits=limits)
    validate(doc)
    components = doc["components"]["schemas"]
    for model, field in (("RouteRequest", "message"), ("ChatRequest", "message"), ("SearchRequest", "query")):
        assert components[model]["properties"][field]["maxLength"] == 500, model
    assert components["MessageFrame"]["properties"]["text"]["maxLength"] == 500
    assert components["FlightSearchParams"]["properties"]["max_price"]["anyOf"][0]["maximum"] == 10**12 - 1
    route = schemas.sized(schemas.RouteRequest, 500)
    assert route.model_validate({"message": "x" * 500}).message == "x" * 500
    with pytest.raises(pydantic.ValidationError, match="at most 500 characters"):
        route.model_validate({"message": "x" * 501})
    settings = make_settings(WAYFARER_LIMITS__MAX_MESSAGE_CHARS="500", WAYFARER_LIMITS__MAX_INT_DIGITS="12")
    assert openapi_document(limits=settings.limits) is doc  # built once for those limits
