"""``wayfarer search``: POST /v1/search's search, run here or by the service that holds the index.

While ``wayfarer serve`` runs, its process holds the embedded index and no other process can open it.
So a search goes through a service: the one given with ``--url``, or, when the index is held, the one at
the configured address (WAYFARER_SERVER__HOST and __PORT), waited for while it starts. Otherwise it opens
the index here through the app's own start-up steps (model, index, retriever), so it ranks exactly as
/v1/search does. Either way the answer is /v1/search's body; ``format_results`` makes it readable.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import textwrap
import time
from collections.abc import Callable, Iterator
from typing import Any

from rag.errors import (
    BackendError,
    ConfigError,
    IndexLockedError,
    IndexUnavailableError,
    ValidationError,
    WayfarerError,
)
from rag.settings import Settings

Note = Callable[[str], None]  # a line for the person at the terminal (stderr), not for the output

PROBE_SECONDS = 5.0  # /readyz answers at once, even while the service loads
STARTING_WAIT_SECONDS = 600.0  # a first start seeds the travel guides: minutes on a busy machine
SEARCH_SECONDS = 120.0


async def run_search(
    settings: Settings, query: str, top_k: int, url: str | None, note: Note
) -> dict[str, Any]:
    """/v1/search's answer, ``{"results": [...]}``: from the service at ``url``, from the index here, or
    from the running service that holds this index."""
    body = {"query": query, "top_k": top_k}
    if url:
        await require_service(url, note)
        return await search_remote(settings, url, body)
    if settings.index.url:  # a Qdrant server serves many processes at once
        return await search_local(settings, query, top_k, note)
    service = service_url(settings)
    # A service starting now may be about to open this index: wait for it rather than race it for the lock.
    answering = await await_ready(service, note)
    if not index_locked(settings):
        try:
            return await search_local(settings, query, top_k, note)
        except IndexLockedError:  # taken while the model loaded, by a service starting now
            answering = await await_ready(service, note)
    if not answering:
        from rag.store.claim import holder

        raise IndexLockedError(
            f"the index at {settings.index_path} is in use by {holder(settings.index_path)}, and no Wayfarer service "
            f"answers at {service} (WAYFARER_SERVER__HOST, WAYFARER_SERVER__PORT): pass the running "
            "service's address with --url, or wait for the other process to finish"
        )
    note(f"the index is open in the service at {service}: searching through it")
    return await search_remote(settings, service, body)


def service_url(settings: Settings) -> str:
    """Where ``wayfarer serve`` listens with these settings, as a client reaches it."""
    host = settings.server.host
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.server.port}"


def index_locked(settings: Settings) -> bool:
    """Whether another process holds the embedded index, found without loading the model (a probe:
    if it ever misses, opening the index still raises IndexLockedError)."""
    from rag.store.claim import index_claimed

    return index_claimed(settings.index_path)


def no_index(settings: Settings) -> str:
    return (
        f"there is no index at {settings.index_path} yet: start `wayfarer serve` (it seeds the travel "
        "guides) or run `wayfarer seed`, or pass the data directory that has one with --data-dir"
    )


def check_url(url: str) -> str:
    """``url`` as given to --url, if it can name a service (http or https, a host); else a ConfigError."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (reading it checks the port's range and digits)
    except ValueError as exc:
        raise ConfigError(f"--url {url!r} is not a URL ({exc}); give one like http://127.0.0.1:8080") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"--url {url!r} is not a service address; give one like http://127.0.0.1:8080")
    return url.rstrip("/")


async def require_service(url: str, note: Note) -> None:
    """A Wayfarer service answers at ``url`` (waited for while it starts); else a BackendError at once."""
    if not await await_ready(check_url(url), note):
        raise BackendError(
            f"no Wayfarer service answers at {url} (nothing listens there, or it did not answer "
            f"/readyz within {PROBE_SECONDS:.0f} s); start `wayfarer serve`, or check the address"
        )


async def await_ready(url: str, note: Note) -> bool:
    """Whether a Wayfarer service answers at ``url``; while it says it is starting, wait for it."""
    import aiohttp

    loop = asyncio.get_running_loop()
    deadline = loop.time() + STARTING_WAIT_SECONDS
    shown = None
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=PROBE_SECONDS)) as session:
        while True:
            state = await _readiness(session, url)
            if state is None:
                return False
            if state.get("status") != "starting":
                return True  # ready, or "not_ready" with a check failing: a search may still work
            step = state.get("loading")
            if step != shown:
                note(f"the service at {url} is starting (loading {step}); waiting for it")
                shown = step
            if loop.time() > deadline:
                raise BackendError(
                    f"the service at {url} is still starting after {STARTING_WAIT_SECONDS:.0f} s"
                )
            await asyncio.sleep(1)


async def _readiness(session: Any, url: str) -> dict[str, Any] | None:
    """The body of ``GET /readyz`` (a JSON object with a ``status``), or None if no Wayfarer answers."""
    import aiohttp

    try:
        async with session.get(url.rstrip("/") + "/readyz") as resp:
            data = await resp.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return None
    return data if isinstance(data, dict) and "status" in data else None


async def search_remote(settings: Settings, url: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST /v1/search on a running service (with the admin token, when set: it passes every check)."""
    import aiohttp

    headers = {}
    if settings.admin_token is not None:
        headers["Authorization"] = f"Bearer {settings.admin_token.get_secret_value()}"
    timeout = aiohttp.ClientTimeout(total=SEARCH_SECONDS)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout, headers=headers) as session,
            session.post(url.rstrip("/") + "/v1/search", json=body) as resp,
        ):
            data = await resp.json(content_type=None)
            status = resp.status
    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
        raise BackendError(
            f"cannot search through the service at {url}: {exc or type(exc).__name__}"
        ) from exc
    if status != 200 or not isinstance(data, dict):
        raise service_error(url, status, data)
    return data


@contextlib.contextmanager
def reaching(url: str) -> Iterator[None]:
    """A service that cannot be reached (refused, timed out, not answering JSON) as a clear error."""
    import aiohttp

    try:
        yield
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise BackendError(f"cannot reach the service at {url}: {exc or type(exc).__name__}") from exc


def service_error(url: str, status: int, data: Any) -> WayfarerError:
    """A service's error answer as the same error here: its stable code, its message, and where from."""
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return BackendError(f"the service at {url} answered {status}: {str(data)[:300]}")
    code, message = str(error.get("code")), str(error.get("message"))
    todo: list[type[WayfarerError]] = [WayfarerError]
    while todo:
        cls = todo.pop()
        if cls.code == code:
            return cls(f"{message} (the service at {url})")
        todo.extend(cls.__subclasses__())
    return BackendError(f"the service at {url} answered {status} {code}: {message}")


async def search_local(settings: Settings, query: str, top_k: int, note: Note) -> dict[str, Any]:
    """The search of POST /v1/search, on the index here, wired by the app's own start-up steps."""
    import pydantic
    from aiohttp import web

    from rag.observability.metrics import Metrics
    from rag.retrieval.service import hit_json
    from rag.web import keys
    from rag.web.app import kv_ctx, model_ctx, services_ctx, store_ctx
    from rag.web.schemas import SearchRequest

    try:
        request = SearchRequest.model_validate({"query": query, "top_k": top_k})
    except pydantic.ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        raise ValidationError(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}") from exc
    if len(request.query) > settings.limits.max_message_chars:
        raise ValidationError(f"query: at most {settings.limits.max_message_chars} characters")
    if not settings.index.url and not settings.index_path.is_dir():
        raise IndexUnavailableError(no_index(settings))
    from rag.store.claim import claim_index

    app = web.Application()
    app[keys.SETTINGS] = settings
    app[keys.METRICS] = Metrics()  # counted by the contexts; a one-off search reports none
    app[keys.CLOCK] = time.time
    app.cleanup_ctx.extend([kv_ctx, model_ctx, store_ctx, services_ctx])  # the service's, in its order
    runner = web.AppRunner(app)
    # The embedded index is this search's alone while it runs; a Qdrant server serves many.
    claim = claim_index(settings.index_path, "wayfarer search") if not settings.index.url else None
    with claim or contextlib.nullcontext():
        try:
            await runner.setup()  # opens the model and the index through the contexts
            hits = await app[keys.RETRIEVER].search(request.query, request.top_k, {})
            if not hits and await app[keys.STORE].count() == 0:
                note(
                    f"the index at {settings.index_path} is empty: run `wayfarer seed`, or start "
                    "`wayfarer serve` (it seeds the travel guides)"
                )
        finally:
            await runner.cleanup()
    results = [hit_json(h) for h in hits]
    return {"results": results}


_EMPHASIS = re.compile(r"(\*\*|__|`)")


def passage_text(text: str, heading: str | None) -> str:
    """A chunk as prose: without the heading it repeats and without Markdown emphasis, on one line."""
    if heading and text.startswith(heading):
        text = text[len(heading) :]
    return " ".join(_EMPHASIS.sub("", text).split())


def format_results(results: list[dict[str, Any]], width: int = 100, lines: int = 4) -> str:
    """Per hit: its number, title and section, score, a few wrapped lines of the passage, and where it
    comes from. ``lines`` 0 prints whole passages."""
    out: list[str] = []
    indent = "   "
    for n, hit in enumerate(results, 1):
        meta = hit.get("metadata") or {}
        title = str(meta.get("title") or meta.get("document_id") or hit.get("id"))
        heading = meta.get("heading")
        section = ""
        if isinstance(heading, str) and heading.startswith(title + " > "):
            section = heading[len(title) + 3 :].replace(" > ", " › ")
        elif isinstance(heading, str) and heading and heading != title:
            section = heading.replace(" > ", " › ")
        head = f"{n}. {title}" + (f" — {section}" if section else "")
        out.append(f"{head}  (score {float(hit.get('score', 0.0)):.3f})")
        wrapper = textwrap.TextWrapper(
            width=max(width, 40),
            initial_indent=indent,
            subsequent_indent=indent,
            max_lines=lines or None,
            placeholder=" …",
        )
        out.extend(
            wrapper.wrap(
                passage_text(str(hit.get("text", "")), heading if isinstance(heading, str) else None)
            )
        )
        origin = [str(meta.get("document_id") or hit.get("id"))]
        if meta.get("source"):
            origin.append(f"source: {meta['source']}")
        if meta.get("sandbox"):
            origin.append("sandbox data, not a real offer")
        out.append(indent + " · ".join(origin))
        out.append("")
    return "\n".join(out).rstrip("\n")


def terminal_width() -> int:
    """The terminal's width (COLUMNS, or 100 when writing to a pipe or file), at most 100."""
    import shutil

    return min(shutil.get_terminal_size((100, 24)).columns, 100)
