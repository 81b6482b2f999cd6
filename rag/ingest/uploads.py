"""Large document uploads as background jobs a client polls, instead of one request that runs for minutes.

A job's status lives in the KV store (``docjob:<id>``), so any replica answers a poll; the replica running
the job adds its live progress. A job cut short by shutdown is marked ``interrupted``: ingestion records a
document only after all its chunks are written, so sending the same documents again finishes the work.
A process that dies without shutting down (kill -9, a crash) cannot mark its jobs: the replica running a
job renews its ``heartbeat_at`` every ``HEARTBEAT_SECONDS``, and a running job whose heartbeat is older
than ``STALE_SECONDS`` is reported, and recorded, as ``interrupted`` by whoever reads it next; each start
also marks such jobs at once (``recover``).
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
HEARTBEAT_SECONDS = 10.0
STALE_SECONDS = 3 * HEARTBEAT_SECONDS


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
            "heartbeat_at": time.time(),
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
        elif self._dead(status):
            status = await self._interrupted(status)
        return status

    async def recover(self) -> int:
        """Mark the jobs of processes that died without shutting down as ``interrupted``: at start, when
        none of this process's jobs can be running yet. Returns how many."""
        found = 0
        for raw in (await self._kv.scan_prefix(PREFIX)).values():
            status = json.loads(raw)
            if status.get("status") == "running" and self._dead(status):
                await self._interrupted(status)
                found += 1
        if found:
            logger.warning(
                "%d document job(s) of a process that stopped without shutting down: interrupted", found
            )
        return found

    def _dead(self, status: dict[str, Any], now: float | None = None) -> bool:
        """A running job not of this process whose heartbeat has stopped (jobs from before heartbeats
        count from their start)."""
        if status.get("status") != "running" or status.get("id") in self._done:
            return False
        beat = status.get("heartbeat_at", status.get("started_at", 0))
        return (time.time() if now is None else now) - float(beat) > STALE_SECONDS

    async def _interrupted(self, status: dict[str, Any]) -> dict[str, Any]:
        status.update(status="interrupted", finished_at=time.time())
        await self._save(status)
        return status

    async def _run(self, status: dict[str, Any], documents: list[SourceDocument]) -> None:
        job_id = status["id"]

        def progress(p: IngestProgress) -> None:
            self._done[job_id] = p.done

        beating = asyncio.create_task(self._beat(status), name=f"document-job-heartbeat-{job_id}")
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
            beating.cancel()
            status.update(done=self._done.pop(job_id, 0), finished_at=time.time())
            try:
                await asyncio.shield(self._save(status))
            except WayfarerError as exc:
                logger.error("document job %s: cannot record its outcome: %s", job_id, exc.message)

    async def _beat(self, status: dict[str, Any]) -> None:
        """Renew the running job's heartbeat until it ends, so other replicas know it is alive."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            beat = {
                **status,
                "status": "running",
                "heartbeat_at": time.time(),
                "done": self._done.get(status["id"], 0),
            }
            try:
                await self._save(beat)
            except WayfarerError as exc:
                logger.warning("document job %s: heartbeat not recorded: %s", status["id"], exc.message)

    async def _save(self, status: dict[str, Any]) -> None:
        await self._kv.set(PREFIX + status["id"], json.dumps(status), KEEP_SECONDS)
