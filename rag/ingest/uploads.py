"""Large document uploads as background jobs a client polls, instead of one request that runs for minutes.

A job's status lives in the KV store (``docjob:<id>``), so any replica answers a poll; the replica running
the job adds its live progress. A job cut short by shutdown is marked ``interrupted``: ingestion records a
document only after all its chunks are written, so sending the same documents again finishes the work.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Sequence
from typing import Any

from rag.background import BackgroundTasks
from rag.errors import WayfarerError
from rag.ingest.documents import SourceDocument
from rag.ingest.pipeline import Ingestor
from rag.ingest.progress import IngestProgress
from rag.kv.base import KVStore

logger = logging.getLogger(__name__)

PREFIX = "docjob:"
KEEP_SECONDS = 7 * 86400


class DocumentJobs:
    def __init__(self, ingestor: Ingestor, kv: KVStore, tasks: BackgroundTasks) -> None:
        self._ingestor = ingestor
        self._kv = kv
        self._tasks = tasks
        self._done: dict[str, int] = {}  # job id -> documents finished, for jobs running here

    async def start(self, documents: Sequence[SourceDocument]) -> dict[str, Any]:
        """Record a new job, start it in the background, and return its first status."""
        job_id = uuid.uuid4().hex
        status: dict[str, Any] = {
            "id": job_id,
            "status": "running",
            "documents": len(documents),
            "done": 0,
            "chars": sum(len(d.text) for d in documents),
            "started_at": time.time(),
        }
        await self._save(status)
        self._done[job_id] = 0
        self._tasks.spawn(self._run(status, list(documents)), name=f"document-job-{job_id}")
        return status

    async def status(self, job_id: str) -> dict[str, Any] | None:
        raw = await self._kv.get(PREFIX + job_id)
        if raw is None:
            return None
        status: dict[str, Any] = json.loads(raw)
        if status["status"] == "running" and job_id in self._done:
            status["done"] = self._done[job_id]
        return status

    async def _run(self, status: dict[str, Any], documents: list[SourceDocument]) -> None:
        job_id = status["id"]

        def progress(p: IngestProgress) -> None:
            self._done[job_id] = p.done

        try:
            counts = await self._ingestor.ingest(documents, progress=IngestProgress(len(documents), progress))
            status.update(status="done", counts=counts.as_dict())
        except asyncio.CancelledError:
            status.update(status="interrupted")
            raise
        except WayfarerError as exc:
            status.update(status="failed", error={"code": exc.code, "message": exc.message})
        except Exception as exc:  # recorded for the client to see, and logged with its traceback
            logger.exception("document job %s failed", job_id)
            status.update(status="failed", error={"code": "internal_error", "message": type(exc).__name__})
        finally:
            status.update(done=self._done.pop(job_id, 0), finished_at=time.time())
            try:
                await asyncio.shield(self._save(status))
            except WayfarerError as exc:
                logger.error("document job %s: cannot record its outcome: %s", job_id, exc.message)

    async def _save(self, status: dict[str, Any]) -> None:
        await self._kv.set(PREFIX + status["id"], json.dumps(status), KEEP_SECONDS)
