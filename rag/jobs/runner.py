"""Jobs by name: run once across replicas (KV locks), scheduled by apscheduler, with their last outcome."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from rag.errors import JobRunningError, NotFoundError
from rag.jobs.lock import JobLock
from rag.kv.base import KVStore
from rag.observability.metrics import Metrics

logger = logging.getLogger(__name__)
STATUS_PREFIX = "job:last:"


@dataclass(frozen=True)
class Job:
    name: str
    run: Callable[[], Awaitable[dict[str, Any]]]
    every_minutes: float | None  # None: by hand only
    enabled: bool = True
    # Locks held for the run; a rebuild also holds seed-sync's, so the two never overlap.
    locks: tuple[str, ...] = ()


class JobRunner:
    def __init__(self, kv: KVStore, jobs: list[Job], lock_ttl: float, metrics: Metrics) -> None:
        self._kv = kv
        self.jobs = {j.name: j for j in jobs}
        self._lock_ttl = lock_ttl
        self._metrics = metrics
        self._scheduler: AsyncIOScheduler | None = None
        self._running: dict[str, asyncio.Task[Any]] = {}

    def job(self, name: str) -> Job:
        if name not in self.jobs:
            raise NotFoundError(f"no such job: {name!r} (jobs: {', '.join(self.jobs)})")
        return self.jobs[name]

    def scheduled(self) -> list[str]:
        """The jobs the scheduler runs (what a plain `wayfarer reindex` runs), in order."""
        return [j.name for j in self.jobs.values() if j.enabled and j.every_minutes]

    async def run(self, name: str) -> dict[str, Any]:
        """Run a job now, in this task. Raises ``job_running`` if it runs elsewhere (a replica or task)."""
        job = self.job(name)
        held: list[JobLock] = []
        try:
            for lock_name in sorted({job.name, *job.locks}):
                lock = JobLock(self._kv, lock_name, self._lock_ttl)
                if not await lock.acquire():
                    self._metrics.job_runs.labels(name, "skipped").inc()
                    raise JobRunningError(
                        f"{name} is running elsewhere ({lock.key} is held); try again later"
                    )
                held.append(lock)
            return await self._run(job, held)
        finally:
            for lock in reversed(held):
                await lock.release()

    async def _run(self, job: Job, held: list[JobLock]) -> dict[str, Any]:
        task = asyncio.current_task()
        assert task is not None
        self._running[job.name] = task
        started = time.time()
        status: dict[str, Any] = {"started_at": started, "host": socket.gethostname()}
        try:
            counts = await job.run()
        except asyncio.CancelledError:
            lost = any(lock.lost for lock in held)
            status.update(outcome="lock_lost" if lost else "interrupted", finished_at=time.time())
            await self._record(job.name, status)
            raise
        except Exception as exc:
            status.update(outcome="failed", error=f"{type(exc).__name__}: {exc}", finished_at=time.time())
            await self._record(job.name, status)
            logger.exception("job %s failed", job.name)
            raise
        finally:
            self._running.pop(job.name, None)
        status.update(outcome="ok", counts=counts, finished_at=time.time())
        await self._record(job.name, status)
        logger.info("job %s done in %.2f s: %s", job.name, status["finished_at"] - started, counts)
        return {
            "job": job.name,
            "outcome": "ok",
            "counts": counts,
            "seconds": round(time.time() - started, 3),
        }

    async def _record(self, name: str, status: dict[str, Any]) -> None:
        self._metrics.job_runs.labels(name, status["outcome"]).inc()
        try:
            await self._kv.set(STATUS_PREFIX + name, json.dumps(status))
        except Exception as exc:
            logger.warning("could not record the outcome of job %s: %s", name, exc)

    async def _scheduled(self, name: str) -> None:
        try:
            await self.run(name)
        except JobRunningError:
            logger.info("job %s skipped: it runs on another replica", name)
        except asyncio.CancelledError:
            # Shutdown while it ran: one line, not the scheduler's traceback; a rerun finishes the work.
            logger.info("job %s stopped by shutdown; its next run finishes the work", name)
        except Exception:
            pass  # recorded and logged by _run

    def start(self) -> None:
        """Schedule the enabled jobs; one log line says which and how often."""
        scheduler = AsyncIOScheduler(timezone="UTC")
        planned = []
        for job in self.jobs.values():
            if job.enabled and job.every_minutes:
                scheduler.add_job(
                    self._scheduled,
                    IntervalTrigger(minutes=job.every_minutes, jitter=min(30, job.every_minutes * 6)),
                    args=[job.name],
                    id=job.name,
                    name=job.name,
                    max_instances=1,
                    coalesce=True,
                    misfire_grace_time=None,
                )
                planned.append(f"{job.name} every {job.every_minutes:g} min")
        scheduler.start()
        self._scheduler = scheduler
        logger.info("scheduler: %s", ", ".join(planned) or "no job enabled")

    async def stop(self) -> None:
        """Stop scheduling and interrupt running jobs (they are safe to interrupt)."""
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
            self._scheduler = None
        for task in list(self._running.values()):
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)

    async def status(self) -> list[dict[str, Any]]:
        out = []
        for job in self.jobs.values():
            scheduled = self._scheduler.get_job(job.name) if self._scheduler is not None else None
            raw = await self._kv.get(STATUS_PREFIX + job.name)
            last = json.loads(raw) if raw else None
            if last:
                for key in ("started_at", "finished_at"):
                    if key in last:
                        last[key] = _iso(last[key])
            out.append(
                {
                    "name": job.name,
                    "enabled": job.enabled,
                    "every_minutes": job.every_minutes,
                    "next_run": scheduled.next_run_time.isoformat()
                    if scheduled and scheduled.next_run_time
                    else None,
                    "running_here": job.name in self._running,
                    "last": last,
                }
            )
        return out


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat()
