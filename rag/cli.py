"""The ``wayfarer`` command: serve, seed, search, tools and jobs (its arguments: ``rag.cli_parser``)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pydantic

from rag.cli_parser import build_parser
from rag.cli_search import check_url, reaching, require_service, service_error
from rag.errors import ConfigError, InvalidJSONError, WayfarerError
from rag.observability.logs import configure_logging
from rag.settings import Settings

logger = logging.getLogger("wayfarer")


def load_settings(data_dir: Path | None = None, **server: Any) -> Settings:
    """Settings from the environment and .env, with command-line overrides; errors name the variable."""
    try:
        settings = Settings()
    except pydantic.ValidationError as exc:
        raise ConfigError(_describe_settings_error(exc)) from exc
    updates = {k: v for k, v in server.items() if v is not None}
    if data_dir is not None:
        updates["data_dir"] = data_dir
    if updates:
        settings = settings.model_copy(update={"server": settings.server.model_copy(update=updates)})
    return settings


def _describe_settings_error(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = [str(p) for p in err["loc"]]
        if loc:
            parts.append(f"WAYFARER_{'__'.join(loc).upper()}: {err['msg']}")
        else:
            parts.append(str(err["msg"]).removeprefix("Value error, "))
    return "invalid settings: " + "; ".join(parts)


def cmd_serve(args: argparse.Namespace) -> int:
    from rag.web.app import create_app
    from rag.web.startup import Startup, serve

    settings = load_settings(args.data_dir, host=args.host, port=args.port)
    configure_logging(settings.log_level, settings.log_format)
    with owning_index(settings, "wayfarer serve"):
        startup = Startup()
        app = create_app(settings, startup)
        logger.info("starting Wayfarer (data in %s)", settings.server.data_dir)
        asyncio.run(serve(app, startup, settings.server.host, settings.server.port))
    return 0


def owning_index(settings: Settings, command: str) -> contextlib.AbstractContextManager[None]:
    """The embedded index for this process alone, claimed before any model loads, so a command that
    finds it taken says so at once. A Qdrant server (WAYFARER_INDEX__URL) serves many: no claim."""
    if settings.index.url:
        return contextlib.nullcontext()
    from rag.store.claim import claim_index

    return claim_index(settings.index_path, command)


def cmd_seed(args: argparse.Namespace) -> int:
    settings = load_settings(args.data_dir)
    configure_logging(settings.log_level, settings.log_format)
    paths = [Path(p) for p in args.paths] or [settings.index.seed_dir]
    if args.url:
        _check_remote_seed(paths, settings, args.prune)
        with reaching(args.url):
            counts = asyncio.run(_seed_remote(check_url(args.url), paths, settings, args.batch))
    else:
        with owning_index(settings, "wayfarer seed"):
            counts = asyncio.run(_seed_local(settings, paths, args.prune))
    print(json.dumps(counts))
    return 0


def _check_remote_seed(paths: list[Path], settings: Settings, prune: bool) -> None:
    """What ``seed --url`` cannot do: the service seeds its own corpus, and never prunes what it is sent."""
    corpus = settings.index.seed_dir.resolve()
    if any(p.resolve() == corpus for p in paths):
        raise ConfigError(
            "the service seeds its own corpus, at start and every hour: run "
            "`wayfarer reindex --job seed-sync --url URL` to sync it now"
        )
    if prune:
        raise ConfigError(
            "--prune works on a local seed only: remove a document from the service with "
            "DELETE /v1/documents/{id}"
        )


async def _seed_local(settings: Settings, paths: list[Path], prune: bool) -> dict[str, int]:
    """The seed corpus (a full run: removed documents are deleted), or a user's own paths.

    A user's documents get source "files", ids that name their folder (``user/<8 hex>/notes``) and
    remember the path they came from; ``--prune`` deletes only documents once seeded from these same
    paths that are gone. Seed-sync never touches them.
    """
    from tqdm import tqdm

    from rag.embedding.factory import create_embedder, create_sparse_encoder
    from rag.ingest.documents import SourceDocument
    from rag.ingest.pipeline import Ingestor
    from rag.ingest.progress import IngestProgress
    from rag.ingest.seeding import load_corpus, load_files, seed_directory, seed_files
    from rag.kv.factory import create_kv
    from rag.store.factory import create_store

    corpus = settings.index.seed_dir.resolve()
    corpus_docs: list[SourceDocument] | None = None
    loaded: list[tuple[str, list[SourceDocument]]] = []
    if any(p.resolve() == corpus for p in paths):  # naming the corpus folder is seeding the corpus
        if len(paths) > 1:
            raise ConfigError(f"seed the corpus ({settings.index.seed_dir}) on its own, not with other paths")
        corpus_docs = await asyncio.to_thread(load_corpus, corpus)
        total = len(corpus_docs)
    else:
        loaded = await asyncio.to_thread(load_files, paths)
        total = sum(len(docs) for _, docs in loaded)
    kv = create_kv(settings)
    await kv.open()
    embedder = await create_embedder(settings)
    store = create_store(settings, embedder.dimension)
    try:
        await store.open()
        ingestor = Ingestor(
            store,
            embedder,
            create_sparse_encoder(settings),
            kv,
            max_tokens=settings.index.chunk_tokens,
            overlap=settings.index.chunk_overlap,
        )
        with tqdm(total=total, unit="doc", desc="seeding", disable=None) as bar:

            def show(p: IngestProgress) -> None:
                bar.n = p.done
                bar.set_postfix_str(f"{p.chunks_done} chunks embedded", refresh=False)
                bar.refresh()

            progress = IngestProgress(total, show)
            if corpus_docs is not None:
                counts = await seed_directory(ingestor, corpus, progress, corpus_docs)
            else:
                counts = await seed_files(ingestor, loaded, prune=prune, progress=progress)
        return counts.as_dict()
    finally:
        await store.close()
        await embedder.close()
        await kv.close()


async def _seed_remote(url: str, paths: list[Path], settings: Settings, batch: int) -> dict[str, int]:
    """Send documents to a running service (whose process owns the embedded index)."""
    import aiohttp
    from tqdm import tqdm

    from rag.ingest.seeding import load_user_documents

    if settings.admin_token is None:
        raise ConfigError("WAYFARER_ADMIN_TOKEN must be set to send documents to a service")
    docs = load_user_documents(paths, source="api")  # named as a local seed names them
    await require_service(url, _note)
    headers = {"Authorization": f"Bearer {settings.admin_token.get_secret_value()}"}
    totals = {"added": 0, "updated": 0, "skipped": 0, "deleted": 0, "chunks": 0}
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(timeout=timeout, headers=headers) as session:
        with tqdm(total=len(docs), unit="doc", desc="sending", disable=None) as bar:
            for start in range(0, len(docs), batch):
                part = docs[start : start + batch]
                body = {"documents": [{"id": d.id, "text": d.text, "metadata": d.metadata} for d in part]}
                async with session.post(url.rstrip("/") + "/v1/documents", json=body) as resp:
                    data = await resp.json()
                    if resp.status != 200:
                        raise service_error(url, resp.status, data)
                for key in totals:
                    totals[key] += int(data.get(key, 0))
                bar.update(len(part))
    return totals


def cmd_search(args: argparse.Namespace) -> int:
    from rag.cli_search import format_results, run_search, terminal_width

    settings = load_settings(args.data_dir)
    configure_logging("WARNING")
    body = asyncio.run(run_search(settings, args.query, args.top_k, args.url, _note))
    if args.json:
        print(json.dumps(body, indent=2, ensure_ascii=False))
    elif body["results"]:
        print(format_results(body["results"], terminal_width(), args.lines))
    else:
        _note("no passage matches")
    return 0


def _note(message: str) -> None:
    """A line for the person at the terminal, on stderr so the output stays clean for a pipe."""
    print(f"wayfarer: {message}", file=sys.stderr)


def cmd_sandbox(args: argparse.Namespace) -> int:
    from aiohttp import web

    from connectors.sandbox.app import create_sandbox_app
    from rag.web.startup import ensure_port_free

    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format)
    ensure_port_free(args.host, args.port, other="another `wayfarer sandbox`", option="--port")
    logger.info("offline travel sandbox on http://%s:%d (synthetic data)", args.host, args.port)
    web.run_app(
        create_sandbox_app(settings.connectors.sandbox_faults), host=args.host, port=args.port, print=None
    )
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    settings = load_settings()
    configure_logging("WARNING")
    if args.action == "call":
        if not args.name:
            raise ConfigError("usage: wayfarer tools call NAME '{\"param\": ...}'")
        try:
            params = json.loads(args.params or "{}")
        except json.JSONDecodeError as exc:
            raise InvalidJSONError(f"parameters are not valid JSON: {exc}") from exc
    out = asyncio.run(_tools(settings, args.action, args.name, params if args.action == "call" else None))
    if args.action == "list" and not args.json:
        print(_tools_table(out))
    else:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    return 0


def _tools_table(tools: list[dict[str, Any]]) -> str:
    """Per tool: the provider now, and each that could serve it with the settings that switch it on."""
    lines = []
    for t in tools:
        lines.append(f"{t['name']}: {t['provider']} ({t['why']})")
        for o in t["could_use"]:
            if o["configured"]:
                state = "configured"
            elif o["keys"]:
                state = "set " + " and ".join(o["keys"])
            else:
                state = "used once a provider key is set, or with WAYFARER_CONNECTORS__MODE=real"
            signup = f"; sign up: {o['signup']}" if o["signup"] and not o["configured"] else ""
            lines.append(f"  {o['name']:14} {state}{signup}")
    return "\n".join(lines)


async def _tools(settings: Settings, action: str, name: str | None, params: Any) -> Any:
    from connectors.factory import open_tools
    from rag.tools.catalog import ToolCatalogue

    tools = ToolCatalogue.builtin()
    async with open_tools(settings, tools.params_models()) as session:
        if action == "list":
            return [
                {
                    "name": t["name"],
                    "description": t["description"],
                    "provider": t["provider"]
                    + (" (offline sandbox, synthetic data)" if t["sandbox"] else ""),
                    "why": t["why"],
                    "could_use": [
                        {k: o[k] for k in ("name", "configured", "keys", "signup")} for o in t["providers"]
                    ],
                }
                for t in tools.describe(session.providers())
            ]
        assert name is not None
        return (await session.tools.call(name, params, strict=True)).to_json()


def cmd_reindex(args: argparse.Namespace) -> int:
    settings = load_settings(args.data_dir)
    configure_logging(settings.log_level, settings.log_format)
    job = "rebuild" if args.rebuild else args.job
    if args.url:
        with reaching(args.url):
            out = asyncio.run(_reindex_remote(check_url(args.url), settings, job))
    else:
        with owning_index(settings, "wayfarer reindex"):
            out = asyncio.run(_reindex_local(settings, job))
    print(json.dumps(out, indent=2))
    return 0


async def _reindex_local(settings: Settings, job: str | None) -> dict[str, Any]:
    """Run jobs here, on the service's own wiring (without its scheduler or start-up seeding)."""
    from aiohttp import web

    from rag.web import keys
    from rag.web.app import create_app

    settings = settings.model_copy(
        update={
            "scheduler": settings.scheduler.model_copy(update={"enabled": False}),
            "index": settings.index.model_copy(update={"seed_on_start": False}),
        }
    )
    app = create_app(settings)
    runner = web.AppRunner(app)
    try:
        await runner.setup()  # opens every resource through the app's cleanup contexts
        jobs = app[keys.JOBS]
        names = [job] if job else jobs.scheduled()
        return {"runs": [await jobs.run(name) for name in names]}
    finally:
        await runner.cleanup()


async def _reindex_remote(url: str, settings: Settings, job: str | None) -> dict[str, Any]:
    import aiohttp

    if settings.admin_token is None:
        raise ConfigError("WAYFARER_ADMIN_TOKEN must be set to run jobs on a service")
    await require_service(url, _note)
    headers = {"Authorization": f"Bearer {settings.admin_token.get_secret_value()}"}
    timeout = aiohttp.ClientTimeout(total=3600)
    body = {"job": job} if job else {}
    async with (
        aiohttp.ClientSession(timeout=timeout, headers=headers) as session,
        session.post(url.rstrip("/") + "/v1/admin/reindex", json=body) as resp,
    ):
        data: dict[str, Any] = await resp.json()
        if resp.status != 200:
            raise service_error(url, resp.status, data)
    return data


def cmd_user_token(args: argparse.Namespace) -> int:
    from rag.web.auth import user_token

    settings = load_settings()
    if settings.chat_secret is None:
        raise ConfigError("set WAYFARER_CHAT_SECRET first: user tokens are derived from it")
    print(user_token(settings.chat_secret.get_secret_value(), args.user_id))
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "serve": cmd_serve,
    "seed": cmd_seed,
    "sandbox": cmd_sandbox,
    "tools": cmd_tools,
    "search": cmd_search,
    "reindex": cmd_reindex,
    "user-token": cmd_user_token,
}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _run(argv)
        sys.stdout.flush()  # a reader that has gone shows here, inside the try, not at exit
    except BrokenPipeError:
        # `wayfarer tools list | head`: the reader has what it wanted. Point stdout at devnull so the
        # interpreter's own flush at exit fails no more (the recipe of Python's `signal` docs).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code


def _run(argv: Sequence[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse has printed
        return exc.code if isinstance(exc.code, int) else 0
    try:
        return int(COMMANDS[args.command](args))
    except WayfarerError as exc:
        print(f"wayfarer: {exc.code}: {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("wayfarer: interrupted; run the same command again to finish", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
