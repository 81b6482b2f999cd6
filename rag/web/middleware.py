"""One place that turns every failure into ``{"error": {"code", "message"}}``."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from rag.errors import WayfarerError
from rag.web import keys

logger = logging.getLogger(__name__)

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "message": message}}


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except WayfarerError as exc:
        if exc.status >= 500:
            logger.warning("%s %s failed: %s", request.method, request.path, exc.message)
        return web.json_response(exc.to_json(), status=exc.status)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = _HTTP_CODES.get(exc.status, "http_error")
        message = exc.reason if exc.status != 413 else "request body is too large"
        if exc.status == 405:
            message = f"{request.method} is not allowed on {request.path}"
        if exc.status == 404:
            message = f"no such endpoint: {request.path}"
        return web.json_response(error_body(code, message), status=exc.status)
    except Exception:
        logger.exception("%s %s crashed", request.method, request.path)
        return web.json_response(error_body("internal_error", "internal error"), status=500)


@web.middleware
async def metrics_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Requests by route and status, and their latency (WebSockets are counted, not timed)."""
    start = time.perf_counter()
    resource = request.match_info.route.resource
    route = resource.canonical if resource is not None else "unmatched"
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as exc:
        status = exc.status
        raise
    finally:
        metrics = request.app[keys.METRICS]
        metrics.requests.labels(request.method, route, str(status)).inc()
        if status != 101:
            metrics.request_seconds.labels(route).observe(time.perf_counter() - start)
