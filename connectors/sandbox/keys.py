"""Typed application keys shared by the sandbox's handlers and middleware."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from connectors.sandbox.auth import TokenStore
from connectors.sandbox.data import Catalogue
from connectors.sandbox.faults import FaultDice, SandboxFaults

FAULTS = web.AppKey("sandbox_faults", SandboxFaults)
DICE = web.AppKey("sandbox_fault_dice", FaultDice)
CATALOGUE = web.AppKey("sandbox_catalogue", Catalogue)
TOKENS = web.AppKey("sandbox_tokens", TokenStore)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# A provider's dialect: its auth, rate limits, failures and error bodies around its handlers, as
# ``guard(request, handler, faults)``; the middleware picks it by the request path's prefix.
Guard = Callable[[web.Request, Handler, SandboxFaults], Awaitable[web.StreamResponse]]
GUARDS = web.AppKey("sandbox_guards", dict[str, Guard])
