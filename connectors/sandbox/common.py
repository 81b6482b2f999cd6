"""What every dialect of the sandbox does to a good answer when faults ask for it: cut its body short
(``malformed``) or rewrite and reshape its JSON (``tamper``). The dialect modules and app.py import it; no
dialect imports app.py, which installs them."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from connectors.settings import SandboxFaults


def malformed(response: web.StreamResponse) -> web.StreamResponse:
    """The same 200 with its JSON body cut in half: what a dropped connection or a broken proxy delivers."""
    if not isinstance(response, web.Response) or not isinstance(response.body, bytes):
        return response
    body = response.body
    return web.Response(body=body[: max(1, len(body) // 2)], status=200, content_type=response.content_type)


def tamper(response: web.StreamResponse, faults: SandboxFaults) -> web.StreamResponse:
    """The same 200 with ``rewrite`` applied to its JSON body and then sent in ``body_shape``."""
    if not (faults.rewrite or faults.body_shape) or response.status != 200:
        return response
    if not isinstance(response, web.Response) or not isinstance(response.body, bytes):
        return response
    body = _rewrite(json.loads(response.body), faults.rewrite)
    if faults.body_shape == "list":
        body = [body]
    elif faults.body_shape == "string":
        body = json.dumps(body)
    elif faults.body_shape == "number":
        body = 42
    elif faults.body_shape == "null":
        body = None
    elif faults.body_shape == "nested" and isinstance(body, dict):
        body = {key: _wrong_type(value) for key, value in body.items()}
    return web.Response(body=json.dumps(body).encode(), status=200, content_type=response.content_type)


def _rewrite(value: Any, rewrite: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        return {k: rewrite[k] if k in rewrite else _rewrite(v, rewrite) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, rewrite) for v in value]
    return value


def _wrong_type(value: Any) -> Any:
    if isinstance(value, list):
        return "[]"
    if isinstance(value, dict):
        return [value]
    return {"value": value}
