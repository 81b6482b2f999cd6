"""HTTP handlers: health, search and document ingestion."""

from __future__ import annotations

from aiohttp import web

from rag.errors import (
    NotFoundError,
    ToolNotFoundError,
    ToolValidationError,
    UnknownFilterValueError,
    ValidationError,
    WayfarerError,
)
from rag.ingest.documents import SourceDocument, country_code, norm
from rag.retrieval.service import hit_json
from rag.store.base import FilterValue, SearchMode
from rag.web import keys
from rag.web.auth import caller_address, require_admin, require_user
from rag.web.jsonio import json_response
from rag.web.params import user_id_param
from rag.web.schemas import (
    ECHO_CHARS,
    DocumentsRequest,
    RecallRequest,
    ReindexRequest,
    RouteRequest,
    SearchRequest,
    clip,
    read_body,
    read_json_object,
)

routes = web.RouteTableDef()


@routes.get("/metrics")
async def metrics(request: web.Request) -> web.Response:
    """Prometheus exposition format."""
    return web.Response(
        body=request.app[keys.METRICS].exposition(), headers={"Content-Type": "text/plain; version=0.0.4"}
    )


@routes.get("/healthz")
async def healthz(request: web.Request) -> web.Response:
    return json_response({"status": "ok"})


@routes.get("/readyz")
async def readyz(request: web.Request) -> web.Response:
    """Ready when the model is loaded, the index answers and takes writes, and the KV store takes writes."""
    app = request.app
    store = app.get(keys.STORE)
    checks = {
        "model": keys.EMBEDDER in app,
        "index": store is not None and store.writable and await store.ping(),
        "kv": keys.KV in app and await _kv_takes_writes(app),
    }
    ready = all(checks.values())
    return json_response(
        {"status": "ready" if ready else "not_ready", "checks": checks}, status=200 if ready else 503
    )


async def _kv_takes_writes(app: web.Application) -> bool:
    """A real write (a key that expires by itself): a read-only or full store is not ready."""
    try:
        await app[keys.KV].set(f"readyz:{id(app)}", "1", 60)
    except WayfarerError:
        return False
    return True


@routes.post("/v1/search")
async def search(request: web.Request) -> web.Response:
    body = await read_body(request, SearchRequest)
    require_user(request, body.user_id)
    equals: dict[str, FilterValue | list[FilterValue]] = {}
    f = body.filters
    if f.city:
        equals["city_norm"] = norm(f.city)
    if f.country:
        code = country_code(f.country)
        if code is None:
            raise UnknownFilterValueError(f"filters.country: unknown country {clip(f.country)!r}")
        equals["country_code"] = code
    if f.kind:
        equals["kind"] = f.kind
    if f.source:
        equals["source"] = f.source
    mode: SearchMode | None = "dense" if body.mode == "dense" else "hybrid" if body.mode == "hybrid" else None
    hits = await request.app[keys.RETRIEVER].search(
        body.query, body.top_k, equals, mode=mode, user_id=body.user_id
    )
    results = [hit_json(h) for h in hits]
    return json_response({"results": results})


@routes.get("/v1/tools")
async def list_tools(request: web.Request) -> web.Response:
    providers = request.app[keys.TOOLS].providers()
    return json_response({"tools": request.app[keys.CATALOGUE].describe(providers)})


@routes.post("/v1/tools/{name}")
async def call_tool(request: web.Request) -> web.Response:
    """Call one travel tool by hand: the body is its parameters.

    With ``?user_id=`` the results are that user's (recalled in their chat, found by their search);
    without one the call is anonymous: its results answer only the same anonymous request again while
    fresh, and no one's chat, search or recall reads them (rag.live.service ToolService)."""
    raw_user = request.query.get("user_id")
    user_id = user_id_param(raw_user) if raw_user else None
    require_user(request, user_id)
    name, catalogue = request.match_info["name"], request.app[keys.CATALOGUE]
    if name not in catalogue:
        raise ToolNotFoundError(f"no tool named {clip(name)!r}; tools: {', '.join(catalogue)}")
    await request.app[keys.LIMITS].check("tools", user_id, caller_address(request))
    params = await read_json_object(request, catalogue[name].params)
    # The tool's errors name a key as it was sent: one no parameter's name is that long is shortened here.
    if long_key := next((key for key in params if len(key) > ECHO_CHARS), None):
        raise ToolValidationError(f"{name}: {clip(long_key)}: not a parameter of this tool")
    outcome = await request.app[keys.TOOL_SERVICE].call(name, params, user_id, strict=True)
    return json_response(outcome.to_json())


@routes.post("/v1/recall")
async def recall(request: web.Request) -> web.Response:
    """A user's earlier tool results that a "what did you find?" message asks about, newest first."""
    body = await read_body(request, RecallRequest)
    require_user(request, body.user_id)
    hits = await request.app[keys.TOOL_SERVICE].recall(body.message, body.user_id, body.limit)
    return json_response(
        {
            "recall": hits is not None,
            "results": [
                {
                    "id": h.id,
                    "kind": h.payload.get("kind"),
                    "text": h.payload.get("text", ""),
                    "fetched_at": h.payload.get("fetched_at_iso"),
                    "sandbox": h.payload.get("sandbox", False),
                    "result": h.payload.get("result"),
                }
                for h in hits or []
            ],
        }
    )


@routes.post("/v1/route")
async def route(request: web.Request) -> web.Response:
    """Which tools a message asks for, with parameters, what is missing, and whether to search documents.

    Decided as the chat decides (rag.dialogue.policy): with a user_id in that user's conversation (trip
    state, follow-ups), without one as a new conversation's first message; no tool is called and the
    conversation is not changed.
    """
    body = await read_body(request, RouteRequest)
    require_user(request, body.user_id)
    await request.app[keys.LIMITS].check("route", body.user_id, caller_address(request))
    # Without a user_id, as the first message of a new conversation: the same decision either way.
    chat = request.app[keys.CHAT]
    return json_response(await chat.preview(body.user_id, body.message, body.timezone, body.conversation_id))


@routes.post("/v1/documents")
async def add_documents(request: web.Request) -> web.Response:
    """Ingest documents now, or (large uploads, or ``?wait=false``) as a job to poll: 202 with its status."""
    require_admin(request)
    wait = request.query.get("wait", "true")
    if wait not in ("true", "false"):
        raise ValidationError("wait: true or false")
    body = await read_body(request, DocumentsRequest)
    docs = []
    for d in body.documents:
        metadata = dict(d.metadata)
        metadata.setdefault("source", "api")
        metadata.setdefault("path", f"api:{d.id}")
        docs.append(SourceDocument(d.id, d.text, metadata))
    # An id of the seed corpus is refused now, never accepted as a job that then fails.
    await request.app[keys.INGESTOR].check_ids(docs)
    if (
        wait == "false"
        or sum(len(d.text) for d in docs) > request.app[keys.SETTINGS].limits.document_job_chars
    ):
        status = await request.app[keys.DOCUMENT_JOBS].start(docs)
        return json_response(status, status=202, headers={"Location": f"/v1/uploads/{status['id']}"})
    counts = await request.app[keys.INGESTOR].ingest(docs)
    return json_response(counts.as_dict())


@routes.get("/v1/uploads/{job_id}")
async def document_job(request: web.Request) -> web.Response:
    """A document upload job: running (with documents done so far), done (with counts), failed or interrupted."""
    require_admin(request)
    status = await request.app[keys.DOCUMENT_JOBS].status(request.match_info["job_id"])
    if status is None:
        raise NotFoundError("no such document job (jobs are kept for 7 days)")
    return json_response(status)


@routes.delete("/v1/documents/{document_id:.+}")
async def delete_document(request: web.Request) -> web.Response:
    require_admin(request)
    doc_id = request.match_info["document_id"]
    found = await request.app[keys.INGESTOR].delete_document(doc_id)
    return json_response({"deleted": 1 if found else 0})


@routes.get("/v1/admin/jobs")
async def jobs(request: web.Request) -> web.Response:
    require_admin(request)
    return json_response({"jobs": await request.app[keys.JOBS].status()})


@routes.post("/v1/admin/reindex")
async def reindex(request: web.Request) -> web.Response:
    """Run one job now (``{"job": "rebuild"}``), or every enabled scheduled job (``{}``); waits for it."""
    require_admin(request)
    body = await read_body(request, ReindexRequest)
    runner = request.app[keys.JOBS]
    names = [body.job] if body.job else runner.scheduled()
    return json_response({"runs": [await runner.run(name) for name in names]})
