"""A gateway in front of the sandbox: what stands between Wayfarer and a provider, whatever its dialect.

Every request is forwarded to the sandbox unchanged; the faults under ``app[GATEWAY_FAULTS]`` (read on
every request, changeable while it runs) decide what comes back instead of, or made of, the answer:

- an HTML page with a chosen status, never reaching the provider: a CDN's 502, a captive portal's 200;
- the answer under another Content-Type (JSON sent as text/plain, an HTML page labelled JSON);
- fields the provider's docs promise left out, or sent as null, in every item or every n-th one;
- the answer followed by whitespace until it is huge, its size declared or known only by reading it.

The provider dialects' own faults (429s, 5xx, truncated or misshapen JSON, latency) stay in the
sandbox (connectors/sandbox/faults.py); these are the ones no dialect owns.

    sandbox = create_sandbox_app(); gateway = create_gateway_app(sandbox_url)
    gateway[GATEWAY_FAULTS].html_status = 502
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
from aiohttp import web
from multidict import CIMultiDict
from pydantic import BaseModel, ConfigDict, Field

logger = logging.getLogger(__name__)

# Hop-by-hop and framing headers: the gateway decides these itself.
_NOT_FORWARDED = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "content-length",
        "content-encoding",
        "accept-encoding",
        "te",
        "trailer",
        "upgrade",
        "proxy-authorization",
        "proxy-authenticate",
    }
)
_CHUNK = 64 * 1024


class GatewayFaults(BaseModel):
    """What the gateway does to the answers it carries; assignments are validated, so tests flip fields."""

    model_config = ConfigDict(validate_assignment=True, extra="forbid")

    html_status: int | None = Field(
        default=None,
        ge=200,
        le=599,
        description="every request answers an HTML page with this status instead of reaching the provider",
    )
    content_type: str | None = Field(
        default=None, description="the Content-Type of every answer (HTML pages included) is this instead"
    )
    drop_keys: list[str] = Field(
        default_factory=list, description="in JSON answers, these keys are left out at any depth"
    )
    null_keys: list[str] = Field(
        default_factory=list, description="in JSON answers, these keys are sent as null at any depth"
    )
    every: int = Field(
        default=1,
        ge=1,
        description="drop_keys and null_keys touch every n-th object holding the key (1: all of them; 2: "
        "the first, third, fifth...), so some items arrive whole",
    )
    pad_bytes: int = Field(default=0, ge=0, description="JSON answers are followed by this much whitespace")
    pad_streamed: bool = Field(
        default=True,
        description="padded answers are streamed without a Content-Length (the size is known only by "
        "reading); False sends them whole, their size declared",
    )


GATEWAY_FAULTS = web.AppKey("gateway_faults", GatewayFaults)
UPSTREAM = web.AppKey("gateway_upstream", str)
CLIENT = web.AppKey("gateway_client", aiohttp.ClientSession)


def create_gateway_app(upstream: str, faults: GatewayFaults | None = None) -> web.Application:
    """A gateway forwarding every request to ``upstream`` (the sandbox's base URL)."""
    app = web.Application()
    app[GATEWAY_FAULTS] = faults if faults is not None else GatewayFaults()
    app[UPSTREAM] = upstream.rstrip("/")
    app.cleanup_ctx.append(_client)
    app.router.add_route("*", "/{tail:.*}", forward)
    return app


async def _client(app: web.Application) -> AsyncIterator[None]:
    # No total timeout: a slow sandbox (its latency fault) is the client's to give up on, not ours.
    session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None), auto_decompress=True)
    app[CLIENT] = session
    yield
    await session.close()


def html_page(status: int) -> str:
    """What a CDN or captive portal sends: markup, not the provider's JSON."""
    return (
        f"<!DOCTYPE html><html><head><title>{status}</title></head><body><h1>{status}</h1>"
        "<p>The server is temporarily unable to service your request. Please try again later.</p>"
        "<hr><address>sandbox-gateway</address></body></html>"
    )


async def forward(request: web.Request) -> web.StreamResponse:
    faults = request.app[GATEWAY_FAULTS]
    if faults.html_status is not None:
        content_type = faults.content_type or "text/html; charset=utf-8"
        return web.Response(
            status=faults.html_status,
            text=html_page(faults.html_status),
            headers={"Content-Type": content_type},
        )
    headers = CIMultiDict((k, v) for k, v in request.headers.items() if k.lower() not in _NOT_FORWARDED)
    async with request.app[CLIENT].request(
        request.method,
        request.app[UPSTREAM] + request.path_qs,
        headers=headers,
        data=await request.read(),
        allow_redirects=False,
    ) as upstream:
        status, body = upstream.status, await upstream.read()
        out = CIMultiDict((k, v) for k, v in upstream.headers.items() if k.lower() not in _NOT_FORWARDED)
    if faults.content_type is not None:
        out["Content-Type"] = faults.content_type
    parsed = _json(body) if faults.drop_keys or faults.null_keys or faults.pad_bytes else None
    if parsed is None:
        return web.Response(status=status, body=body, headers=out)
    if faults.drop_keys or faults.null_keys:
        counts: dict[str, int] = {}
        body = json.dumps(_spoil(parsed[0], faults, counts)).encode()
    if not faults.pad_bytes:
        return web.Response(status=status, body=body, headers=out)
    if not faults.pad_streamed:
        return web.Response(status=status, body=body + b" " * faults.pad_bytes, headers=out)
    return await _padded(request, status, out, body, faults.pad_bytes)


def _json(body: bytes) -> tuple[Any] | None:
    """The parsed body in a 1-tuple (JSON null included), or None when it is not JSON."""
    try:
        return (json.loads(body),)
    except (ValueError, UnicodeDecodeError):
        return None


def _spoil(value: Any, faults: GatewayFaults, counts: dict[str, int]) -> Any:
    """``value`` with drop_keys left out and null_keys nulled, in every ``faults.every``-th object."""
    if isinstance(value, list):
        return [_spoil(v, faults, counts) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in faults.drop_keys or key in faults.null_keys:
            counts[key] = counts.get(key, 0) + 1
            if (counts[key] - 1) % faults.every == 0:
                if key in faults.null_keys:
                    out[key] = None
                continue
        out[key] = _spoil(item, faults, counts)
    return out


async def _padded(
    request: web.Request, status: int, headers: CIMultiDict[str], body: bytes, pad: int
) -> web.StreamResponse:
    """The body, then ``pad`` bytes of whitespace, chunked: the client learns the size only by reading."""
    response = web.StreamResponse(status=status, headers=headers)
    response.enable_chunked_encoding()
    await response.prepare(request)
    try:
        await response.write(body)
        blank = b" " * _CHUNK
        for start in range(0, pad, _CHUNK):
            await response.write(blank[: min(_CHUNK, pad - start)])
        await response.write_eof()
    except ConnectionError:
        logger.info("gateway: the client stopped reading a padded answer (as it should)")
    return response
