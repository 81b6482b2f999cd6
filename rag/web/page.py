"""GET /: the chat page, and GET /static/...: its script, style and vendored libraries.

One static page with no build step: the files under ``static/`` are served as they are. Only files that
exist at start-up are served (a fixed table, so no path from a request ever reaches the file system), and
the page carries a Content Security Policy that allows scripts from this origin only: whatever a provider
or a document slips into an answer, the browser will not run it.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from rag.errors import NotFoundError

STATIC = Path(__file__).resolve().parent / "static"
PAGE = STATIC / "index.html"

_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
}

# Scripts and styles from this origin only (none inline), the WebSocket and the API on this origin.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


def static_files(root: Path = STATIC) -> dict[str, tuple[Path, str]]:
    """The servable files under ``root``, keyed by their path relative to it: (file, content type)."""
    return {
        path.relative_to(root).as_posix(): (path, _TYPES[path.suffix])
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.suffix in _TYPES
    }


routes = web.RouteTableDef()
_FILES = static_files()


@routes.get("/")
async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(
        PAGE,
        headers={
            **_HEADERS,
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": CSP,
            "Referrer-Policy": "no-referrer",
        },
    )


@routes.get("/static/{name:.+}")
async def static(request: web.Request) -> web.FileResponse:
    """The page's own script and style and the vendored libraries (markdown-it, DOMPurify)."""
    name = request.match_info["name"]
    found = _FILES.get(name)
    if found is None:
        raise NotFoundError(f"no such file: /static/{name}")
    path, content_type = found
    return web.FileResponse(path, headers={**_HEADERS, "Content-Type": content_type})
