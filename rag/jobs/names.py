"""The re-indexing jobs by name (what ``wayfarer reindex --job`` and ``POST /v1/admin/reindex`` take)."""

from __future__ import annotations

SEED_SYNC = "seed-sync"
PURGE_EXPIRED = "purge-expired"
REFRESH_POPULAR = "refresh-popular"
REBUILD = "rebuild"
JOBS = (SEED_SYNC, PURGE_EXPIRED, REFRESH_POPULAR, REBUILD)
