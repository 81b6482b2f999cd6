"""GET /: the chat page (one static HTML file, no build step)."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

PAGE = Path(__file__).resolve().parent / "static" / "index.html"

routes = web.RouteTableDef()


@routes.get("/")
async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(
        PAGE, headers={"Cache-Control": "no-cache", "Content-Type": "text/html; charset=utf-8"}
    )
