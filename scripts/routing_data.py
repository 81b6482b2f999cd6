"""Labelled routing messages and their cached query embeddings, for fitting and evaluating the router.

    python scripts/routing_data.py   # embed (and cache) every labelled message once

The public file (../shared/data/routing_public_train.jsonl: CLINC150 and SNIPS train/validation
splits mapped to our tools) is split by a stable hash of each text: 20% is held out for figures and
never fitted on. Embeddings come from the service's query embedder and are cached outside the
repository (~/.cache/wayfarer/routing/), keyed by text, so refits do not re-embed 25,000 messages.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.embedding.base import Embedder  # noqa: E402
from rag.embedding.factory import create_embedder, create_query_embedder  # noqa: E402
from rag.settings import Settings  # noqa: E402

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT.parent / "shared" / "data" / "routing_public_train.jsonl"
DEV = ROOT / "tests" / "data" / "routing_dev.jsonl"
UNSEEN = ROOT / "tests" / "data" / "routing_test.jsonl"
CACHE_DIR = Path.home() / ".cache" / "wayfarer" / "routing"
PUBLIC_HOLDOUT_SHARE = 0.2


def load_rows(path: Path) -> list[dict[str, Any]]:
    """Rows as ``{"text", "expected_tools"}`` whichever file they come from (the public file says ``tools``)."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if "expected_tools" not in row:
            row["expected_tools"] = row.pop("tools")
        rows.append(row)
    return rows


def public_part(text: str) -> str:
    """'fit' or 'holdout' for a public message: a stable hash, salted apart from the dev file's split."""
    digest = hashlib.sha256(("public:" + text).encode("utf-8")).hexdigest()
    return "holdout" if int(digest[:8], 16) / 0xFFFFFFFF < PUBLIC_HOLDOUT_SHARE else "fit"


def public_rows(part: str) -> list[dict[str, Any]]:
    return [r for r in load_rows(PUBLIC) if public_part(r["text"]) == part]


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class CachedEmbed:
    """The service's query embedder behind a disk cache keyed by text: ``await embed(texts)``.

    Use as ``async with CachedEmbed() as embed``; new vectors are written back on exit.
    """

    def __init__(self, cache_dir: Path = CACHE_DIR) -> None:
        self._dir = cache_dir
        self._known: dict[str, np.ndarray] = {}
        self._owned: list[Embedder] = []
        self._embedder: Embedder | None = None
        self._added = 0

    async def __aenter__(self) -> CachedEmbed:
        settings = Settings()
        documents = await create_embedder(settings)
        self._embedder = await create_query_embedder(settings, documents)  # what the service routes with
        self._owned = [self._embedder] if self._embedder is documents else [self._embedder, documents]
        if self.path.exists():
            with np.load(self.path) as data:
                self._known = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._added:
            self.save()
        for e in self._owned:
            await e.close()

    @property
    def path(self) -> Path:
        assert self._embedder is not None
        return self._dir / f"{self._embedder.name}.npz"

    async def matrix(self, texts: list[str]) -> np.ndarray:
        """One float32 row per text."""
        assert self._embedder is not None
        todo = sorted({t for t in texts if _key(t) not in self._known})
        step = 512
        for start in range(0, len(todo), step):
            batch = todo[start : start + step]
            vectors = np.asarray(await self._embedder.embed_documents(batch), dtype=np.float32)
            self._known.update(zip((_key(t) for t in batch), vectors, strict=True))
            self._added += len(batch)
            if len(todo) > step:
                logger.info("embedded %d of %d new messages", min(start + step, len(todo)), len(todo))
            if (start // step) % 10 == 9:
                self.save()
        if not texts:
            return np.zeros((0, self._embedder.dimension), np.float32)
        return np.stack([self._known[_key(t)] for t in texts])

    async def __call__(self, texts: list[str]) -> list[list[float]]:
        """The router's ``Embed``."""
        rows: list[list[float]] = (await self.matrix(texts)).tolist()
        return rows

    def save(self) -> None:
        self._dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(
            tmp, keys=np.array(list(self._known), dtype="<U40"), vectors=np.stack(list(self._known.values()))
        )
        tmp.replace(self.path)
        self._added = 0


async def _embed_all(texts: list[str]) -> np.ndarray:
    async with CachedEmbed() as embed:
        return await embed.matrix(texts)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    texts = [r["text"] for p in (PUBLIC, DEV, UNSEEN) for r in load_rows(p)]
    vectors = asyncio.run(_embed_all(texts))
    logger.info("%d messages embedded, dimension %d", len(vectors), vectors.shape[1])


if __name__ == "__main__":
    main()
