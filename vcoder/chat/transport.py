"""HTTP to one OpenAI-compatible server: connection pools per event loop, bounded concurrency, retries.

``Transport.request`` sends one JSON request and returns the decoded reply. Connection errors, timeouts, 429 and
5xx are retried with exponential backoff and jitter; other 4xx are not. What is left after the retries becomes a
``ChatError`` that names the URL and what to do (``ServerUnreachable``, ``RequestFailed``, ``BadResponse``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any

import httpx

from vcoder.chat.errors import START_HINT, BadResponse, RequestFailed, ServerUnreachable

logger = logging.getLogger(__name__)


def _retryable_status(status: int) -> bool:
    return status == 429 or status >= 500


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:500]
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body))
        if isinstance(err, dict):
            return str(err.get("message", err))[:500]
        return str(err)[:500]
    return str(body)[:500]


class Transport:
    """Requests to one server with retries; one connection pool and concurrency bound per event loop.

    Args:
        base_url: the server's API root, already normalised (``http://host:8000/v1``).
        api_key: bearer token, or None to send no ``Authorization`` header.
        timeout_ms: per-request timeout in ms (the connect timeout is at most 10 s of it).
        max_retries: retries after the first attempt on connection errors, timeouts, 429 and 5xx.
        backoff_ms: base delay in ms; attempt ``k`` waits ``backoff_ms * 2**k`` times a jitter factor in [0.5, 1.5].
        max_concurrency: at most this many requests in flight.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        timeout_ms: float,
        max_retries: int,
        backoff_ms: float,
        max_concurrency: int,
    ):
        if timeout_ms <= 0 or max_retries < 0 or backoff_ms < 0 or max_concurrency < 1:
            raise ValueError(
                f"bad client settings: timeout_ms={timeout_ms} (> 0), max_retries={max_retries} (>= 0), "
                f"backoff_ms={backoff_ms} (>= 0), max_concurrency={max_concurrency} (>= 1)"
            )
        self.base_url = base_url
        self.api_key = api_key
        self.timeout_ms = float(timeout_ms)
        self.max_retries = int(max_retries)
        self.backoff_ms = float(backoff_ms)
        self.max_concurrency = int(max_concurrency)
        # httpx clients and semaphores belong to one event loop; keep one set per loop (TRL uses a daemon loop,
        # a CLI uses asyncio.run, tests may use both).
        self._per_loop: dict[int, tuple[asyncio.AbstractEventLoop, httpx.AsyncClient, asyncio.Semaphore]] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_per_loop"] = {}
        return state

    def _http(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        entry = self._per_loop.get(id(loop))
        if entry is None or entry[0] is not loop or entry[1].is_closed:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            seconds = self.timeout_ms / 1000  # httpx counts in seconds
            timeout = httpx.Timeout(seconds, connect=min(seconds, 10.0))
            limits = httpx.Limits(max_connections=self.max_concurrency, max_keepalive_connections=self.max_concurrency)
            # trust_env=False: a proxy from the environment must not capture loopback or cluster-internal servers
            http = httpx.AsyncClient(headers=headers, timeout=timeout, limits=limits, trust_env=False)
            entry = (loop, http, asyncio.Semaphore(self.max_concurrency))
            self._per_loop = {k: v for k, v in self._per_loop.items() if not v[0].is_closed()}
            self._per_loop[id(loop)] = entry
        return entry[1], entry[2]

    async def aclose(self) -> None:
        """Close the HTTP connections owned by the running event loop."""
        entry = self._per_loop.pop(id(asyncio.get_running_loop()), None)
        if entry is not None:
            await entry[1].aclose()

    def _delay_s(self, attempt: int) -> float:
        return self.backoff_ms / 1000 * (2**attempt) * random.uniform(0.5, 1.5)

    async def request(
        self, method: str, path: str, payload: dict[str, Any] | None = None, *, retries: int | None = None
    ) -> tuple[Any, float, int]:
        """Send one request with retries.

        Args:
            method: ``GET`` or ``POST``.
            path: below ``base_url`` (``/chat/completions``).
            payload: the JSON body.
            retries: override of ``max_retries`` (0: one attempt).

        Returns:
            (decoded JSON, seconds of the successful attempt, attempts it took).

        Raises:
            ServerUnreachable: no connection after every attempt.
            RequestFailed: an HTTP error (``status`` and ``detail`` set), or a timeout on every attempt.
            BadResponse: a success status with a body that is not JSON.
        """
        http, sem = self._http()
        url = self.base_url + path
        retries = self.max_retries if retries is None else retries
        last_error: Exception | None = None
        for attempt in range(retries + 1):
            if attempt:
                delay = self._delay_s(attempt - 1)
                logger.warning("retrying %s %s in %.1fs (attempt %d): %s", method, url, delay, attempt + 1, last_error)
                await asyncio.sleep(delay)
            start = time.perf_counter()
            try:
                async with sem:
                    response = await http.request(method, url, json=payload)
            except httpx.TransportError as exc:  # refused, timed out, reset: the server may be (re)starting
                last_error = exc
                continue
            elapsed = time.perf_counter() - start
            if response.is_success:
                try:
                    return response.json(), elapsed, attempt + 1
                except ValueError as exc:
                    raise BadResponse(
                        f"{url} answered {response.status_code} with non-JSON: {response.text[:300]!r}"
                    ) from exc
            status, detail = response.status_code, _error_detail(response)
            if _retryable_status(status):
                last_error = RequestFailed(f"HTTP {status}: {detail}", status, detail)
                continue
            if status in (401, 403):
                message = f"{url} refused the request (HTTP {status}: {detail}); set OPENAI_API_KEY"
                raise RequestFailed(message, status, detail)
            raise RequestFailed(f"{url} answered HTTP {status}: {detail}", status, detail)
        attempts = retries + 1
        if isinstance(last_error, RequestFailed):
            raise RequestFailed(
                f"{method} {url} failed after {attempts} attempts: {last_error}", last_error.status, last_error.detail
            )
        if isinstance(last_error, httpx.TimeoutException) and not isinstance(last_error, httpx.ConnectTimeout):
            raise RequestFailed(
                f"{method} {url} timed out after {self.timeout_ms:g} ms on each of {attempts} attempts "
                f"(raise the timeout, e.g. --timeout-ms, or check the server's load)"
            )
        raise ServerUnreachable(
            f"cannot reach the OpenAI-compatible server at {self.base_url} ({type(last_error).__name__}: "
            f"{last_error}) after {attempts} attempts; check the URL or {START_HINT}"
        )
