"""JSON over HTTP for the provider connectors: rate limiting, timeouts, bounded retries, one error tree.

Retried, with exponential backoff and jitter: timeouts, connection errors, 5xx, malformed bodies, and
429 "too many requests"; when the provider says how long to wait (Retry-After, or a 429's RateLimit
reset), that wait instead, up to the policy's ``max_backoff``. Not retried: 429 "quota exceeded", every
other 4xx (retrying cannot help), a body larger than ``max_bytes`` and well-formed JSON that is not an
object (the provider would answer the same again). Whatever a provider sends, the caller gets a JSON
object or a ProviderError.

A provider's error body is third-party text: its detail and code are cleaned and capped here
(connectors/text.py), where the error is built, before they reach a tool's error, a chat answer, the
stored history or a log line.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import json
import logging
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp

from connectors.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimitedError,
    ProviderRejectedError,
    ProviderResponseError,
    ProviderUnavailableError,
)
from connectors.text import CODE_CHARS, DETAIL_CHARS, clean_text

logger = logging.getLogger(__name__)


class RateLimiter:
    """Client-side spacing: at most ``per_second`` requests a second and ``min_interval`` seconds apart."""

    def __init__(self, per_second: float, min_interval: float = 0.0) -> None:
        self._interval = max(1.0 / per_second, min_interval)
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            loop = asyncio.get_running_loop()
            now = loop.time()
            if self._next > now:
                await asyncio.sleep(self._next - now)
                now = loop.time()
            self._next = now + self._interval


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    retries: int = 2
    backoff: float = 0.25
    timeout: float = 10.0
    max_backoff: float = 5.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff)
        return min(self.backoff * (2.0**attempt) * (0.5 + random.random()), self.max_backoff)


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """What a provider's error body says, as it says it (JsonHttp cleans it): a code, a message, whether
    it is a quota refusal."""

    code: str
    message: str
    quota: bool = False


Describe = Callable[[int, Any], ErrorInfo]


class _Retry(Exception):
    def __init__(self, error: ProviderError, retry_after: float | None = None) -> None:
        self.error = error
        self.retry_after = retry_after


class JsonHttp:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        provider: str,
        policy: RetryPolicy,
        describe: Describe,
        limiter: RateLimiter | None = None,
        *,
        max_bytes: int = 8 * 1024 * 1024,
    ) -> None:
        self._session = session
        self._max_bytes = max_bytes
        self._provider = provider
        self._policy = policy
        self._describe = describe
        self._limiter = limiter
        self.attempts = 0  # for tests and metrics

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        data: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        json_body: Any = None,
    ) -> dict[str, Any]:
        """The parsed JSON object of a 2xx answer, or a ProviderError. ``data`` is a form body,
        ``json_body`` a JSON one (Duffel, LiteAPI)."""
        last: _Retry | None = None
        for attempt in range(self._policy.retries + 1):
            if last is not None:
                await asyncio.sleep(self._policy.delay(attempt - 1, last.retry_after))
            try:
                return await self._once(method, url, params, data, headers, json_body)
            except _Retry as retry:
                last = retry
                logger.info(
                    "%s %s attempt %d failed: %s", self._provider, url, attempt + 1, retry.error.message
                )
        assert last is not None
        raise last.error

    async def _once(
        self,
        method: str,
        url: str,
        params: Mapping[str, str] | None,
        data: Mapping[str, str] | None,
        headers: Mapping[str, str] | None,
        json_body: Any = None,
    ) -> dict[str, Any]:
        if self._limiter is not None:
            await self._limiter.wait()
        self.attempts += 1
        timeout = aiohttp.ClientTimeout(total=self._policy.timeout)
        try:
            payload: dict[str, Any] = {"json": json_body} if json_body is not None else {"data": data}
            async with self._session.request(
                method, url, params=params, headers=headers, timeout=timeout, **payload
            ) as resp:
                status = resp.status
                raw = await self._read(resp)
                retry_after = wait_hint(status, resp.headers)
        except TimeoutError as exc:
            raise _Retry(
                ProviderUnavailableError(f"{self._provider} did not answer within {self._policy.timeout:g} s")
            ) from exc
        except aiohttp.ClientError as exc:
            raise _Retry(ProviderUnavailableError(f"cannot reach {self._provider}: {exc}")) from exc
        try:
            body = json.loads(raw) if raw else None
        except (ValueError, RecursionError):  # bad JSON or UTF-8, too many digits, too deeply nested
            if 200 <= status < 300:
                raise _Retry(ProviderResponseError(f"{self._provider} sent a malformed response")) from None
            body = None
        if 200 <= status < 300:
            if body is None:
                raise _Retry(ProviderResponseError(f"{self._provider} sent an empty response"))
            if not isinstance(body, dict):
                raise ProviderResponseError(
                    f"{self._provider} sent JSON {type(body).__name__} where an object was expected"
                )
            return body
        info = self._describe(status, body)
        detail, code = clean_text(info.message, DETAIL_CHARS), clean_text(info.code, CODE_CHARS)
        # The provider's words are the error's detail (logged by the tool's runner); the traveller gets
        # our sentence for the status.
        said = f"{detail or '(no detail)'}" + (f" ({code})" if code else "")
        if status == 429:
            error: ProviderError = ProviderRateLimitedError(
                f"{self._provider} is refusing more requests for now (HTTP 429)", said
            )
            if info.quota:
                raise error
            raise _Retry(error, retry_after)
        if status >= 500:
            raise _Retry(
                ProviderUnavailableError(f"{self._provider} failed on its side (HTTP {status})", said),
                retry_after,
            )
        if status in (401, 403):
            raise ProviderAuthError(f"{self._provider} refused our credentials (HTTP {status})", said)
        raise ProviderRejectedError(f"{self._provider} refused the request (HTTP {status})", said)

    async def _read(self, resp: aiohttp.ClientResponse) -> bytes:
        """The body, refused as soon as it is known to be larger than ``max_bytes`` (declared or sent)."""
        too_large = ProviderResponseError(
            f"{self._provider} sent a response larger than {self._max_bytes} bytes"
        )
        if resp.content_length is not None and resp.content_length > self._max_bytes:
            raise too_large
        body = bytearray()
        async for chunk in resp.content.iter_chunked(64 * 1024):
            body += chunk
            if len(body) > self._max_bytes:
                raise too_large
        return bytes(body)


def wait_hint(status: int, headers: Mapping[str, str]) -> float | None:
    """Seconds the provider asks us to wait before trying again, or None when it does not say.

    Retry-After (RFC 9110: seconds or an HTTP date) on any answer; on a 429 without it, the reset of
    the RateLimit fields (the IETF draft's RateLimit-Reset in seconds, Duffel's ratelimit-reset as an
    HTTP date, X-RateLimit-Reset often as a Unix time). Never the reset of a 5xx: Duffel sends its
    window's reset on every answer, and a server error is no reason to wait for it.
    """
    wait = _seconds(headers.get("Retry-After"))
    if wait is None and status == 429:
        wait = _seconds(headers.get("RateLimit-Reset"))
        if wait is None:
            wait = _seconds(headers.get("X-RateLimit-Reset"))
    return wait


UNIX_TIME = 1_000_000_000.0  # a "seconds" value this large is a point in time (2001 onwards), not a wait


def _seconds(value: str | None) -> float | None:
    if not value or not value.strip():
        return None
    try:
        number = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # RFC 9110 dates are GMT
            when = when.replace(tzinfo=dt.UTC)
        return max(0.0, when.timestamp() - time.time())
    if not math.isfinite(number):
        return None
    return max(0.0, number - time.time() if number >= UNIX_TIME else number)
