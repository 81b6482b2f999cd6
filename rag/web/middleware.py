"""One place that turns every failure into ``{"error": {"code", "message"}}``."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from aiohttp import hdrs, web
from aiohttp.compression_utils import HAS_BROTLI, HAS_ZSTD
from aiohttp.http_exceptions import BadHttpMethod, ContentEncodingError
from aiohttp.web_protocol import RequestHandler

from rag.errors import (
    OverloadedError,
    PayloadTooLargeError,
    UnsupportedContentEncodingError,
    WayfarerError,
    error_json,
)
from rag.web import keys
from rag.web.jsonio import json_response

logger = logging.getLogger(__name__)

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    431: "headers_too_large",
    501: "not_implemented",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# The most an error message says: one that quotes what a client sent (a name, a key) stays short even
# when the code that raised it did not shorten the quote.
MESSAGE_CHARS = 1000


# The content codings a request body may come in: those aiohttp decodes here (br and zstd only with
# their packages installed), one at a time. Any other, or one coding over another ("gzip, gzip"), would
# be read as if it were plain, so it is refused.
CONTENT_CODINGS = frozenset(
    {"identity", "gzip", "deflate", *(["br"] if HAS_BROTLI else []), *(["zstd"] if HAS_ZSTD else [])}
)
_UNDECODABLE = "Can not decode content-encoding"  # aiohttp's words for br or zstd without their package


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    return {"error": {"code": code, "message": message}}


def check_content_encoding(request: web.BaseRequest) -> None:
    """unsupported_content_encoding (415) unless the body is plain (no Content-Encoding, an empty one or
    ``identity``) or in one coding aiohttp decodes: exactly the header aiohttp reads, so that what is
    taken is what is decoded ("gzip," or a second Content-Encoding line is not)."""
    said = request.headers.getall(hdrs.CONTENT_ENCODING, [])
    if not said:
        return
    coding = said[0].strip()
    if len(said) == 1 and (not coding or (coding.isascii() and coding.lower() in CONTENT_CODINGS)):
        return
    raise UnsupportedContentEncodingError(_unsupported(", ".join(said)))


def _unsupported(said: str | None) -> str:
    """The message of unsupported_content_encoding: ``said`` is the request's Content-Encoding, if known."""
    shown = "" if said is None else repr(said if len(said) <= 40 else said[:40] + "…") + " "
    return (
        f"Content-Encoding {shown}is not one this service decodes; send the body as one of "
        f"{', '.join(sorted(CONTENT_CODINGS))}"
    )


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await _answer(request, handler)
    if request.body_exists and "Content-Encoding" in request.headers and not request.content.is_eof():
        await _drain(request, response)
    return response


# A compressed body a handler did not read (refused first: 401, 404, 429) is drained here, at most this
# much, instead of by aiohttp after the response, which logs a body that does not decode as an
# "Unhandled exception" traceback.
DRAIN_BYTES = 64 * 1024


async def _drain(request: web.Request, response: web.StreamResponse) -> None:
    read = 0
    try:
        while read <= DRAIN_BYTES and (chunk := await request.content.readany()):
            read += len(chunk)
    except Exception as exc:  # a body that does not decode as it says: the connection is spent
        logger.warning("%s %s: unread body not decodable: %s", request.method, request.path, str(exc)[:200])
        request.content.feed_eof()  # over: aiohttp must not read it again and log it as a crash
        response.force_close()
        return
    if not request.content.is_eof():
        response.force_close()


async def _answer(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        check_content_encoding(request)
        return await handler(request)
    except WayfarerError as exc:
        if exc.status >= 500 and not isinstance(exc, OverloadedError):  # load: counted in the metrics
            logger.warning("%s %s failed: %s", request.method, request.path, exc.message)
        message = exc.message if len(exc.message) <= MESSAGE_CHARS else exc.message[:MESSAGE_CHARS] + "…"
        retry_after = getattr(exc, "retry_after", None)  # RateLimitedError, OverloadedError
        retry = {"Retry-After": str(retry_after)} if retry_after is not None else None
        response = json_response(error_json(exc, message), status=exc.status, headers=retry)
        if request.content.exception() is not None or isinstance(exc, PayloadTooLargeError):
            response.force_close()  # the body was not read to its end: this connection is spent
        return response
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = _HTTP_CODES.get(exc.status, "http_error")
        message = exc.reason if exc.status != 413 else "request body is too large"
        if exc.status == 405:
            message = f"{request.method} is not allowed on {request.path}"
        if exc.status == 404:
            message = f"no such endpoint: {request.path}"
        allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        return json_response(error_body(code, message), status=exc.status, headers=allow)
    except Exception:
        logger.exception("%s %s crashed", request.method, request.path)
        return json_response(error_body("internal_error", "internal error"), status=500)


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


def json_protocol_errors() -> None:
    """Answer requests that aiohttp's parser refuses with our JSON error body too.

    A URL or header over aiohttp's 8 KB line limit, an unknown method, a malformed request line or a
    Content-Encoding aiohttp cannot decode (``br`` without Brotli) is answered by aiohttp's protocol
    handler in plain text, before any middleware runs; its one hook is ``RequestHandler.handle_error``,
    so the body is rewritten there (status and connection close kept). aiohttp logs each of these as an
    ERROR with a traceback; a client's mistake (a 4xx) is one WARNING line here instead. A coding
    aiohttp has no package for answers 415 ``unsupported_content_encoding``, as an unknown coding does
    (check_content_encoding); a body that does not decode as declared answers ``invalid_json``.
    """
    original = RequestHandler.handle_error
    if getattr(original, "wayfarer_json", False):
        return

    def handle_error(
        self: RequestHandler,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        text = " ".join((message or "").split()) if status < 500 else ""
        text = text.removeprefix(f"{status}, message: ") or HTTPStatus(status).phrase
        if status >= 500:
            original(self, request, status, exc, message)  # logs as aiohttp does
        else:
            if request.writer.output_size > 0:  # as aiohttp: a response has begun, the connection is broken
                raise ConnectionError("a response is already being sent; cannot send an error instead")
            log = logger.debug if isinstance(exc, BadHttpMethod) else logger.warning  # scanners: noise
            log("refused a request from %s: %d %s", request.remote, status, text[:300])
        code = _HTTP_CODES.get(status, "bad_request" if status < 500 else "internal_error")
        if isinstance(exc, ContentEncodingError) and _UNDECODABLE in str(exc) and status < 500:
            status, code = UnsupportedContentEncodingError.status, UnsupportedContentEncodingError.code
            text = _unsupported(None)  # aiohttp's stand-in request here carries no headers
        elif isinstance(exc, ContentEncodingError):
            code = "invalid_json"
        response = json_response(error_body(code, text[:300]), status=status)
        response.force_close()
        return response

    handle_error.wayfarer_json = True  # type: ignore[attr-defined]
    RequestHandler.handle_error = handle_error  # type: ignore[method-assign]
