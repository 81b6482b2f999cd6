"""Typed application keys shared by the sandbox's handlers and middleware."""

from __future__ import annotations

from aiohttp import web

from connectors.sandbox.auth import TokenStore
from connectors.sandbox.data import Catalogue
from connectors.sandbox.faults import FaultDice, SandboxFaults

FAULTS = web.AppKey("sandbox_faults", SandboxFaults)
DICE = web.AppKey("sandbox_fault_dice", FaultDice)
CATALOGUE = web.AppKey("sandbox_catalogue", Catalogue)
TOKENS = web.AppKey("sandbox_tokens", TokenStore)
