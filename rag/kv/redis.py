"""At scale: Redis through redis.asyncio (``WAYFARER_KV__URL=redis://...``)."""

from __future__ import annotations

import logging
import math
import uuid

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from rag.errors import KVUnavailableError

logger = logging.getLogger(__name__)


class RedisKV:
    """Keys live under ``<namespace>:`` so several deployments can share one Redis."""

    MAX_CONNECTIONS = 64

    replicated = True

    def __init__(self, url: str, namespace: str) -> None:
        self._url = url
        self._ns = namespace + ":"
        self._client: aioredis.Redis | None = None

    async def open(self) -> None:
        # A blocking pool: under a burst, callers wait for a free connection (up to ``timeout``) instead of
        # failing with "Too many connections" as the default pool does past its limit.
        pool = aioredis.BlockingConnectionPool.from_url(
            self._url,
            max_connections=self.MAX_CONNECTIONS,
            timeout=10,
            decode_responses=True,
            socket_timeout=5,
            socket_connect_timeout=5,
        )
        self._client = aioredis.Redis.from_pool(pool)
        try:
            await self._client.ping()
        except (RedisError, OSError) as exc:
            raise KVUnavailableError(f"cannot reach Redis at {self._url}: {exc}") from exc

    @property
    def _redis(self) -> aioredis.Redis:
        if self._client is None:
            raise KVUnavailableError("the key-value store is not open")
        return self._client

    async def set_if_absent(self, key: str, value: str, ttl: float | None = None) -> bool:
        try:
            px = int(ttl * 1000) if ttl is not None else None
            return bool(await self._redis.set(self._ns + key, value, nx=True, px=max(px, 1) if px else None))
        except (RedisError, OSError) as exc:
            raise KVUnavailableError(f"Redis write failed: {exc}") from exc

    async def set(self, key: str, value: str, ttl: float | None = None) -> None:
        try:
            px = int(ttl * 1000) if ttl is not None else None
            await self._redis.set(self._ns + key, value, px=max(px, 1) if px else None)
        except (RedisError, OSError) as exc:
            raise KVUnavailableError(f"Redis write failed: {exc}") from exc

    async def get(self, key: str) -> str | None:
        try:
            value = await self._redis.get(self._ns + key)
        except (RedisError, OSError) as exc:
            raise KVUnavailableError(f"Redis read failed: {exc}") from exc
        return None if value is None else str(value)

    async def delete(self, key: str) -> bool:
        try:
            return bool(await self._redis.delete(self._ns + key))
        except (RedisError, OSError) as exc:
            raise KVUnavailableError(f"Redis delete failed: {exc}") from exc

    async def incr(self, key: str, ttl: float) -> int:
        return await self._script(_INCR, key, max(int(ttl * 1000), 1))

    async def slide(self, key: str, now: float, window: float, limit: int) -> float:
        # A sorted set of hits scored by time; members are unique even when hits share a time.
        args = (repr(now), repr(window), limit, uuid.uuid4().hex, max(math.ceil(window * 1000), 1))
        try:
            return float(await self._redis.eval(_SLIDE, 1, self._ns + key, *args))
        except (RedisError, OSError) as exc:
            raise KVUnavailableError(f"Redis write failed: {exc}") from exc

    async def renew(self, key: str, value: str, ttl: float) -> bool:
        return bool(await self._script(_RENEW, key, value, max(int(ttl * 1000), 1)))

    async def delete_if(self, key: str, value: str) -> bool:
        return bool(await self._script(_DELETE_IF, key, value))

    async def _script(self, script: str, key: str, *args: str | int) -> int:
        try:
            return int(await self._redis.eval(script, 1, self._ns + key, *args))
        except (RedisError, OSError) as exc:
            raise KVUnavailableError(f"Redis write failed: {exc}") from exc

    async def scan_prefix(self, prefix: str) -> dict[str, str]:
        pattern = _glob_escape(self._ns + prefix) + "*"
        try:
            keys = [k async for k in self._redis.scan_iter(match=pattern, count=500)]
            out: dict[str, str] = {}
            for start in range(0, len(keys), 500):
                part = keys[start : start + 500]
                values = await self._redis.mget(part)
                for k, v in zip(part, values, strict=True):
                    if v is not None:
                        out[str(k)[len(self._ns) :]] = str(v)
        except (RedisError, OSError) as exc:
            raise KVUnavailableError(f"Redis scan failed: {exc}") from exc
        return out

    async def ping(self) -> bool:
        try:
            return bool(await self._redis.ping())
        except (RedisError, OSError, KVUnavailableError):
            return False

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


# Lua scripts run atomically on the server.
_INCR = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
"""
# Scores at or before now - window have left the window; the wait is returned as a string, since Redis
# would truncate a Lua number to an integer.
_SLIDE = """
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
    redis.call('ZADD', KEYS[1], now, ARGV[4])
    redis.call('PEXPIRE', KEYS[1], ARGV[5])
    return '0'
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tostring(tonumber(oldest[2]) + window - now)
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_DELETE_IF = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
