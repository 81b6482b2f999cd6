"""The ``wayfarer`` command line: every command, argument and option, each with its help.

Only argparse here; ``rag.cli`` runs the command named in ``args.command``. Every argument is checked
here, before anything loads: a bad one is one line (``wayfarer: invalid_arguments: ...``), exit status 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from rag.jobs.names import JOBS

DATA_DIR_HELP = "the data folder: index and key-value store (default ./data; WAYFARER_SERVER__DATA_DIR)"
ADMIN_NOTE = "needs WAYFARER_ADMIN_TOKEN, the same as the service's"


class Parser(argparse.ArgumentParser):
    """argparse's parser, its usage errors said in one line like every other error of the command."""

    def error(self, message: str) -> None:  # type: ignore[override]  # exits, as argparse's does
        self.exit(2, f"wayfarer: invalid_arguments: {message} (`{self.prog} --help` says what it takes)\n")


def bounded(low: int, high: int | None = None, what: str = "a whole number") -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (no upper bound without one)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{value} is not {what} {span}")
        return value

    return parse


port = bounded(0, 65535, "a port number")


def _command(
    sub: argparse._SubParsersAction[Parser], name: str, summary: str, details: str = ""
) -> argparse.ArgumentParser:
    return sub.add_parser(
        name,
        help=summary,
        description=summary[0].upper() + summary[1:] + "." + (f"\n\n{details}" if details else ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="wayfarer",
        description="Wayfarer travel knowledge service.",
        epilog="Settings come from WAYFARER_* environment variables and a .env file; "
        "`wayfarer COMMAND --help` describes a command.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = _command(sub, "serve", "run the HTTP service (seeds the index on first start)")
    serve.add_argument(
        "--host", default=None, help="address to listen on (default 127.0.0.1; WAYFARER_SERVER__HOST)"
    )
    serve.add_argument(
        "--port", type=port, default=None, help="port to listen on (default 8080; WAYFARER_SERVER__PORT)"
    )
    serve.add_argument("--data-dir", type=Path, default=None, metavar="DIR", help=DATA_DIR_HELP)

    seed = _command(
        sub,
        "seed",
        "ingest files or folders (Markdown, text, JSONL) into the index",
        "Prints the counts as JSON. While `wayfarer serve` runs, it holds the index: send the documents\n"
        "to it with --url instead.\n\n"
        "A file's id is user/<8 hex of the folder seeded>/<its path in it, without the suffix>, or the id\n"
        "it states (front matter `id`, a JSONL line's `id`); ids under guides/ and topics/ are the seed\n"
        "corpus's and refused.",
    )
    seed.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders; default: the seed corpus (a full run)"
    )
    seed.add_argument("--data-dir", type=Path, default=None, metavar="DIR", help=DATA_DIR_HELP)
    seed.add_argument(
        "--prune",
        action="store_true",
        help="delete documents seeded earlier from these same PATHs that are gone from them "
        "(the seed corpus, with no PATH, is always a full run; not with --url)",
    )
    seed.add_argument(
        "--url", default=None, help=f"send the documents to the running service at URL instead ({ADMIN_NOTE})"
    )
    seed.add_argument(
        "--batch",
        type=bounded(1),
        default=50,
        metavar="N",
        help="documents per request with --url (default 50)",
    )

    sandbox = _command(
        sub, "sandbox", "run the offline travel API sandbox on its own (synthetic data, for trying the tools)"
    )
    sandbox.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sandbox.add_argument("--port", type=port, default=8090, help="port to listen on (default 8090)")

    tools = _command(
        sub,
        "tools",
        "list the travel tools, or call one by hand",
        'examples:\n  wayfarer tools list\n  wayfarer tools call weather_forecast \'{"city": "Lisbon"}\'',
    )
    tools.add_argument(
        "action",
        choices=["list", "call"],
        help="list: each tool, the provider serving it now and the ones that could; call: run tool NAME",
    )
    tools.add_argument("name", nargs="?", metavar="NAME", help="the tool to call, e.g. flight_search")
    tools.add_argument("params", nargs="?", metavar="PARAMS", help="its parameters as a JSON object")
    tools.add_argument("--json", action="store_true", help="list the tools as JSON instead of a table")

    search = _command(
        sub,
        "search",
        "search the travel guides and documents as POST /v1/search does",
        "While `wayfarer serve` runs it holds the index, so the search goes through it: the service\n"
        "given with --url, or the one at WAYFARER_SERVER__HOST:PORT (said so on stderr).\n\n"
        'example:\n  wayfarer search "getting around Lisbon" --top-k 3',
    )
    search.add_argument("query", metavar="QUERY", help="what to look for, in words")
    search.add_argument(
        "--top-k", type=bounded(1, 50), default=5, metavar="K", help="how many passages (1 to 50, default 5)"
    )
    search.add_argument(
        "--url", default=None, help="search through the running service at URL (e.g. http://127.0.0.1:8080)"
    )
    search.add_argument("--json", action="store_true", help="print /v1/search's JSON answer instead of text")
    search.add_argument(
        "--lines",
        type=bounded(0),
        default=4,
        metavar="N",
        help="lines of each passage to show (default 4; 0: all)",
    )
    search.add_argument("--data-dir", type=Path, default=None, metavar="DIR", help=DATA_DIR_HELP)

    reindex = _command(
        sub,
        "reindex",
        "run re-indexing jobs now (default: every enabled scheduled job)",
        "Prints each run as JSON.",
    )
    reindex.add_argument(
        "--job",
        metavar="JOB",
        choices=JOBS,
        help="run only this job: " + ", ".join(JOBS[:-1]) + " or " + JOBS[-1],
    )
    reindex.add_argument(
        "--rebuild", action="store_true", help="re-embed everything into a new collection, then switch to it"
    )
    reindex.add_argument("--data-dir", type=Path, default=None, metavar="DIR", help=DATA_DIR_HELP)
    reindex.add_argument("--url", default=None, help=f"run them on the running service at URL ({ADMIN_NOTE})")

    token = _command(sub, "user-token", "print the bearer token of a user (needs WAYFARER_CHAT_SECRET)")
    token.add_argument("user_id", metavar="USER_ID", help="the user the token lets a client act as")
    return parser
