"""Serving from the first second: the port is bound before the model, the index and the seed corpus
load, and answers 503 with what is still loading until the service is ready.

``serve`` binds a small "starting" app at once, runs the real app's start-up (its cleanup contexts)
while that app answers, then starts the real app on the same port (SO_REUSEPORT) and closes the
starting one, so a client is never refused a connection. ``Startup`` is the shared progress record: the
real app's contexts mark their steps in it, and the seed job its documents.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import html
import logging
import signal
import socket
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from rag.errors import ConfigError, PortInUseError
from rag.ingest.progress import IngestProgress
from rag.web.jsonio import json_response

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
STARTING_PAGE = """<!doctype html><html lang="en"><meta charset="utf-8">
<meta http-equiv="refresh" content="3"><title>Wayfarer is starting</title>
<body style="font-family:system-ui;margin:3rem"><h1>Wayfarer is starting</h1>
<p>{state}</p><p>This page reloads itself until the service is ready.</p></body></html>"""


@dataclass
class Startup:
    """What the service is doing while it starts: the step under way, the steps done, seeding counts."""

    started: float = field(default_factory=time.monotonic)
    step: str = "starting"
    done: list[str] = field(default_factory=list)
    seeding: IngestProgress | None = None  # the seed corpus's progress, once it is being synced
    ready: bool = False

    def begin(self, step: str) -> None:
        if self.step != "starting":
            self.done.append(self.step)
        self.step = step
        logger.info("starting: %s", step)

    def seeded(self, progress: IngestProgress) -> None:
        self.seeding = progress

    def describe(self) -> str:
        """What it is doing, for a person: "Seeding the travel guides: 12/41 documents, ... about 40 s left"."""
        if self.step == "seed corpus" and self.seeding is not None:
            return f"Seeding the travel guides: {self.seeding.describe()}."
        return f"Loading: {self.step} ({time.monotonic() - self.started:.0f} s so far)."

    def finish(self) -> None:
        if self.step != "starting":
            self.done.append(self.step)
        self.step, self.ready = "ready", True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": "ready" if self.ready else "starting",
            "loading": None if self.ready else self.step,
            "done": list(self.done),
            "elapsed_seconds": round(time.monotonic() - self.started, 1),
        }
        if self.seeding is not None:
            out["seeding"] = self.seeding.to_json()
        return out


Ctx = Callable[[web.Application], AsyncGenerator[None, None]]


def tracked(startup: Startup, steps: list[tuple[str, Ctx]]) -> list[Ctx]:
    """The app's cleanup contexts, each marking its step in ``startup`` as it begins; the last one
    marks the service ready."""

    def wrap(name: str, ctx: Ctx, last: bool) -> Ctx:
        async def run(app: web.Application) -> AsyncGenerator[None, None]:
            startup.begin(name)
            steps = ctx(app)
            try:
                await anext(steps)  # the context's one yield: started
                if last:
                    startup.finish()
                yield
                with contextlib.suppress(StopAsyncIteration):
                    await anext(steps)  # resumed at clean-up
            finally:
                await steps.aclose()  # a context that failed to start is closed here, not by the GC

        run.__name__ = getattr(ctx, "__name__", name)
        return run

    return [wrap(name, ctx, i == len(steps) - 1) for i, (name, ctx) in enumerate(steps)]


def starting_app(startup: Startup) -> web.Application:
    """Answers while the real app loads: /healthz 200, /readyz and the API 503 with what is loading."""

    async def handle(request: web.Request) -> web.StreamResponse:
        state = startup.to_json()
        if request.path == "/healthz":
            return json_response({"status": "ok"})
        if request.path == "/readyz":
            return json_response(state, status=503)
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
        if request.path == "/" and request.method == "GET":
            return web.Response(
                text=STARTING_PAGE.format(state=html.escape(startup.describe())),
                content_type="text/html",
                status=503,
                headers=headers,
            )
        message = f"Wayfarer is starting (loading {state['loading']}); try again in a few seconds"
        body = {"error": {"code": "starting", "message": message}, "startup": state}
        return json_response(body, status=503, headers=headers)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    return app


def ensure_port_free(
    host: str,
    port: int,
    *,
    other: str = "another `wayfarer serve`",
    option: str = "--port (WAYFARER_SERVER__PORT)",
) -> None:
    """Refuse a port another process listens on, before anything binds it.

    The service binds with SO_REUSEPORT to hand its port from the starting app to the real one without
    refusing a connection; two processes doing so would share the port and the kernel would split
    connections between them. A plain bind (SO_REUSEADDR only, as any server sets) fails while any other
    socket listens there, with or without SO_REUSEPORT, so it tells whether the port is taken.
    """
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ConfigError(
            f"cannot listen on {host!r} (WAYFARER_SERVER__HOST, --host): {exc.strerror}"
        ) from exc
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise PortInUseError(
                        f"port {port} on {host} is in use by another process ({other}?); "
                        f"stop it or pick another port with {option}"
                    ) from exc
                raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc


async def serve(app: web.Application, startup: Startup, host: str, port: int) -> None:
    """Bind at once, start ``app`` behind the starting app, then serve it until SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    ensure_port_free(host, port)
    early = web.AppRunner(starting_app(startup), access_log=None)
    await early.setup()
    await web.TCPSite(early, host, port, reuse_port=True).start()
    logger.info("listening on http://%s:%d while loading (GET /readyz says what is left)", host, port)
    runner = web.AppRunner(app, handle_signals=False)
    try:
        setup = asyncio.ensure_future(runner.setup())
        halted = asyncio.ensure_future(stop.wait())
        await asyncio.wait({setup, halted}, return_when=asyncio.FIRST_COMPLETED)
        if not setup.done():
            logger.info("stopping before the service was ready")
            setup.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await setup
            return
        halted.cancel()
        setup.result()
        await web.TCPSite(runner, host, port, reuse_port=True).start()
        await early.cleanup()
        logger.info("ready on http://%s:%d in %.0f s", host, port, time.monotonic() - startup.started)
        await stop.wait()
        logger.info("stopping")
    finally:
        await early.cleanup()
        await runner.cleanup()
