"""The ``wayfarer`` command: serve, seed and search."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pydantic

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
    from aiohttp import web

    from rag.web.app import create_app

    settings = load_settings(args.data_dir, host=args.host, port=args.port)
    configure_logging(settings.log_level, settings.log_format)
    app = create_app(settings)
    logger.info(
        "serving on http://%s:%d (data in %s)",
        settings.server.host,
        settings.server.port,
        settings.server.data_dir,
    )
    web.run_app(app, host=settings.server.host, port=settings.server.port, print=None)
    return 0


def cmd_seed(args: argparse.Namespace) -> int:
    settings = load_settings(args.data_dir)
    configure_logging(settings.log_level, settings.log_format)
    paths = [Path(p) for p in args.paths] or [settings.index.seed_dir]
    if args.url:
        counts = asyncio.run(_seed_remote(args.url, paths, settings, args.batch))
    else:
        counts = asyncio.run(_seed_local(settings, paths, args.prune))
    print(json.dumps(counts))
    return 0


async def _seed_local(settings: Settings, paths: list[Path], prune: bool) -> dict[str, int]:
    """The seed corpus (a full run: removed documents are deleted), or a user's own paths.

    A user's documents get source "files" and remember the path they came from; ``--prune`` deletes
    only documents once seeded from these same paths that are gone. Seed-sync never touches them.
    """
    from tqdm import tqdm

    from rag.embedding.factory import create_embedder, create_sparse_encoder
    from rag.ingest.documents import SourceDocument
    from rag.ingest.pipeline import Ingestor
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
            if corpus_docs is not None:
                counts = await seed_directory(ingestor, corpus, bar.update, corpus_docs)
            else:
                counts = await seed_files(ingestor, loaded, prune=prune, progress=bar.update)
        return counts.as_dict()
    finally:
        await store.close()
        await embedder.close()
        await kv.close()


async def _seed_remote(url: str, paths: list[Path], settings: Settings, batch: int) -> dict[str, int]:
    """Send documents to a running service (whose process owns the embedded index)."""
    import aiohttp
    from tqdm import tqdm

    from rag.ingest.seeding import load_documents

    if settings.admin_token is None:
        raise ConfigError("WAYFARER_ADMIN_TOKEN must be set to send documents to a service")
    docs = load_documents(paths, source="api")
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
                        raise WayfarerError(f"service answered {resp.status}: {data}")
                for key in totals:
                    totals[key] += int(data.get(key, 0))
                bar.update(len(part))
    return totals


def cmd_search(args: argparse.Namespace) -> int:
    settings = load_settings(args.data_dir)
    configure_logging("WARNING")
    results = asyncio.run(_search_local(settings, args.query, args.top_k))
    for r in results:
        print(f"{r['score']:.4f}  {r['document_id']}  {r['heading']}")
    return 0


async def _search_local(settings: Settings, query: str, top_k: int) -> list[dict[str, Any]]:
    from rag.embedding.factory import create_embedder, create_sparse_encoder
    from rag.retrieval.service import Retriever
    from rag.store.factory import create_store

    embedder = await create_embedder(settings)
    store = create_store(settings, embedder.dimension)
    try:
        await store.open()
        retriever = Retriever.from_settings(store, embedder, create_sparse_encoder(settings), settings.index)
        hits = await retriever.search(query, top_k)
    finally:
        await store.close()
        await embedder.close()
    return [
        {"score": h.score, "document_id": h.payload.get("document_id"), "heading": h.payload.get("heading")}
        for h in hits
    ]


def cmd_sandbox(args: argparse.Namespace) -> int:
    from aiohttp import web

    from connectors.sandbox.app import create_sandbox_app

    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format)
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
                state = "used once a provider key is set, or with WAYFARER_CONNECTORS__MODE=live"
            signup = f"; sign up: {o['signup']}" if o["signup"] and not o["configured"] else ""
            lines.append(f"  {o['name']:14} {state}{signup}")
    return "\n".join(lines)


async def _tools(settings: Settings, action: str, name: str | None, params: Any) -> Any:
    from connectors.factory import open_tools

    async with open_tools(settings) as session:
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
                for t in session.describe()
            ]
        assert name is not None
        return (await session.tools.call(name, params, strict=True)).to_json()


def cmd_reindex(args: argparse.Namespace) -> int:
    settings = load_settings(args.data_dir)
    configure_logging(settings.log_level, settings.log_format)
    job = "rebuild" if args.rebuild else args.job
    if args.url:
        out = asyncio.run(_reindex_remote(args.url, settings, job))
    else:
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
    await runner.setup()  # opens every resource through the app's cleanup contexts
    try:
        jobs = app[keys.JOBS]
        names = [job] if job else jobs.scheduled()
        return {"runs": [await jobs.run(name) for name in names]}
    finally:
        await runner.cleanup()


async def _reindex_remote(url: str, settings: Settings, job: str | None) -> dict[str, Any]:
    import aiohttp

    if settings.admin_token is None:
        raise ConfigError("WAYFARER_ADMIN_TOKEN must be set to run jobs on a service")
    headers = {"Authorization": f"Bearer {settings.admin_token.get_secret_value()}"}
    timeout = aiohttp.ClientTimeout(total=3600)
    body = {"job": job} if job else {}
    async with (
        aiohttp.ClientSession(timeout=timeout, headers=headers) as session,
        session.post(url.rstrip("/") + "/v1/admin/reindex", json=body) as resp,
    ):
        data: dict[str, Any] = await resp.json()
        if resp.status != 200:
            raise WayfarerError(f"service answered {resp.status}: {data}")
    return data


def cmd_user_token(args: argparse.Namespace) -> int:
    from rag.web.auth import user_token

    settings = load_settings()
    if settings.chat_secret is None:
        raise ConfigError("set WAYFARER_CHAT_SECRET first: user tokens are derived from it")
    print(user_token(settings.chat_secret.get_secret_value(), args.user_id))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wayfarer", description="Wayfarer travel knowledge service")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP service (seeds the index on first start)")
    serve.add_argument("--host", default=None, help="default 127.0.0.1 (WAYFARER_SERVER__HOST)")
    serve.add_argument("--port", type=int, default=None, help="default 8080 (WAYFARER_SERVER__PORT)")
    serve.add_argument(
        "--data-dir", type=Path, default=None, help="default ./data (WAYFARER_SERVER__DATA_DIR)"
    )
    serve.set_defaults(func=cmd_serve)

    seed = sub.add_parser("seed", help="ingest files or folders (Markdown, text, JSONL) into the index")
    seed.add_argument("paths", nargs="*", help="files or folders; default: the seed corpus (a full run)")
    seed.add_argument("--data-dir", type=Path, default=None)
    seed.add_argument(
        "--prune",
        action="store_true",
        help="delete documents seeded earlier from these same PATHS that are gone from them "
        "(the seed corpus, with no PATHS, is always a full run)",
    )
    seed.add_argument(
        "--url", default=None, help="send to a running service instead (needs WAYFARER_ADMIN_TOKEN)"
    )
    seed.add_argument("--batch", type=int, default=50, help="documents per request with --url")
    seed.set_defaults(func=cmd_seed)

    sandbox = sub.add_parser("sandbox", help="run the offline travel API sandbox on its own")
    sandbox.add_argument("--host", default="127.0.0.1")
    sandbox.add_argument("--port", type=int, default=8090)
    sandbox.set_defaults(func=cmd_sandbox)

    tools = sub.add_parser("tools", help="list the travel tools, or call one by hand")
    tools.add_argument("action", choices=["list", "call"])
    tools.add_argument("name", nargs="?", help="tool name, e.g. flight_search")
    tools.add_argument("params", nargs="?", help="parameters as a JSON object")
    tools.add_argument("--json", action="store_true", help="list the tools as JSON")
    tools.set_defaults(func=cmd_tools)

    search = sub.add_parser("search", help="search the local index")
    search.add_argument("query")
    search.add_argument("--top-k", type=int, default=5)
    search.add_argument("--data-dir", type=Path, default=None)
    search.set_defaults(func=cmd_search)

    reindex = sub.add_parser(
        "reindex", help="run re-indexing jobs now (default: every enabled scheduled job)"
    )
    reindex.add_argument("--job", help="seed-sync, purge-expired, refresh-popular or rebuild")
    reindex.add_argument(
        "--rebuild", action="store_true", help="re-embed everything into a new collection, then switch to it"
    )
    reindex.add_argument("--data-dir", type=Path, default=None)
    reindex.add_argument(
        "--url", default=None, help="run them on a running service (needs WAYFARER_ADMIN_TOKEN)"
    )
    reindex.set_defaults(func=cmd_reindex)

    token = sub.add_parser("user-token", help="print the bearer token of a user (needs WAYFARER_CHAT_SECRET)")
    token.add_argument("user_id")
    token.set_defaults(func=cmd_user_token)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except WayfarerError as exc:
        print(f"wayfarer: {exc.code}: {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("wayfarer: interrupted; run the same command again to finish", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
