"""Who may call what: the admin token, and per-user tokens when WAYFARER_CHAT_SECRET is set; and
which client address a call comes from, for the rate limits."""

from __future__ import annotations

import hashlib
import hmac

from aiohttp import hdrs, web

from rag.errors import UnauthorizedError
from rag.limits.address import client_address
from rag.web import keys


def user_token(secret: str, user_id: str) -> str:
    """The bearer token that lets a client act as ``user_id``."""
    return hmac.new(secret.encode(), user_id.encode(), hashlib.sha256).hexdigest()


def caller_address(request: web.Request) -> str:
    """The client's address as the rate limits count it: the peer's, or behind a proxy listed in
    WAYFARER_SERVER__TRUSTED_PROXIES the one it forwarded for (rag.limits.address)."""
    trusted = request.app[keys.SETTINGS].server.trusted_proxies
    return client_address(request.remote, request.headers.getall(hdrs.X_FORWARDED_FOR, []), trusted)


def _given(request: web.Request) -> str | None:
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and given.strip():
        return given.strip()
    return None


def _is_admin(request: web.Request, given: str | None) -> bool:
    token = request.app[keys.SETTINGS].admin_token
    return bool(token and given and hmac.compare_digest(given.encode(), token.get_secret_value().encode()))


def require_admin(request: web.Request) -> None:
    if request.app[keys.SETTINGS].admin_token is None:
        raise UnauthorizedError("admin endpoints are disabled: set WAYFARER_ADMIN_TOKEN to enable them")
    if not _is_admin(request, _given(request)):
        raise UnauthorizedError("send the admin token as 'Authorization: Bearer <token>'")


def require_user(request: web.Request, user_id: str | None, *, query_token: bool = False) -> None:
    """With a chat secret set, the caller must hold ``user_id``'s token (or the admin token).

    Browsers cannot set headers on a WebSocket, so the WebSocket also takes ``?token=``.
    """
    secret = request.app[keys.SETTINGS].chat_secret
    if secret is None:
        return
    given = _given(request) or (request.query.get("token") if query_token else None)
    if _is_admin(request, given):
        return
    if not given:
        raise UnauthorizedError("send your user token as 'Authorization: Bearer <token>'")
    if user_id is None:
        raise UnauthorizedError("give user_id: user tokens belong to one user")
    if not hmac.compare_digest(given.encode(), user_token(secret.get_secret_value(), user_id).encode()):
        raise UnauthorizedError("this token does not belong to this user_id")
