"""An async client for OpenAI-compatible chat servers (vLLM, ``trl vllm-serve``, ``transformers serve``).

One ``ChatClient`` talks to one ``/v1/chat/completions`` endpoint with bounded concurrency, retries (exponential
backoff with jitter on connection errors, timeouts, 429 and 5xx; never on other 4xx) and errors that say what to do:
an unreachable server names the URL and how to start one, an unknown model lists the served ones.

Example:
    >>> client = ChatClient("http://127.0.0.1:8000", "Qwen/Qwen2.5-VL-3B-Instruct")  # doctest: +SKIP
    >>> reply = await client.chat([user_message("Describe this page.", images=[png_bytes])])  # doctest: +SKIP
    >>> reply.text  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from vcoder.chat.messages import image_data_url, normalize_base_url, user_message

logger = logging.getLogger(__name__)

__all__ = [
    "BadResponse",
    "ChatClient",
    "ChatError",
    "ChatResponse",
    "RequestFailed",
    "ServerUnreachable",
    "UnknownModel",
    "image_data_url",
    "normalize_base_url",
    "user_message",
]

_START_HINT = (
    "start one with `vllm serve MODEL --port 8000`, `trl vllm-serve --model MODEL` or `transformers serve MODEL`"
)


class ChatError(RuntimeError):
    """Base class of every error this client raises."""


class ServerUnreachable(ChatError):
    """The server could not be reached (connection refused, DNS, timeouts) after all retries."""


class UnknownModel(ChatError):
    """The server does not serve the requested model name."""


class BadResponse(ChatError):
    """The server answered, but not with an OpenAI chat-completion shape."""


class RequestFailed(ChatError):
    """The request failed with an HTTP error (4xx, or 429/5xx after all retries)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ChatResponse:
    """One chat completion.

    Attributes:
        text: the first choice's message content ("" when the server sent none).
        raw: the full decoded JSON response.
        elapsed_s: wall time of the successful attempt (seconds).
        attempts: how many attempts it took (1 = first try).
        finish_reason: the first choice's finish reason, if given.
    """

    text: str
    raw: dict[str, Any] = field(repr=False)
    elapsed_s: float
    attempts: int = 1
    finish_reason: str | None = None


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


class ChatClient:
    """Async client for one model on one OpenAI-compatible server.

    Args:
        base_url: server URL, with or without ``/v1`` (e.g. ``http://127.0.0.1:8000``).
        model: the model name the server knows (``vllm serve`` uses the path or hub id it was started with).
        api_key: bearer token; defaults to ``$OPENAI_API_KEY`` (vLLM ignores it unless started with ``--api-key``).
        timeout_ms: per-request timeout in ms (the connect timeout is at most 10 s of it).
        max_retries: retries after the first attempt on connection errors, timeouts, 429 and 5xx.
        backoff_ms: base delay in ms; attempt ``k`` waits ``backoff_ms * 2**k`` times a jitter factor in [0.5, 1.5].
        max_concurrency: at most this many requests in flight from this client.
        extra_body: fields merged into every chat request (server-specific options such as vLLM's ``top_k`` or
            ``transformers serve``'s ``generation_config``); per-call keyword arguments win.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_ms: float = 120_000,
        max_retries: int = 3,
        backoff_ms: float = 1000,
        max_concurrency: int = 8,
        extra_body: dict[str, Any] | None = None,
    ):
        if not model:
            raise ValueError("model must be a non-empty model name (see the server's /v1/models)")
        if timeout_ms <= 0 or max_retries < 0 or backoff_ms < 0 or max_concurrency < 1:
            raise ValueError(
                f"bad client settings: timeout_ms={timeout_ms} (> 0), max_retries={max_retries} (>= 0), "
                f"backoff_ms={backoff_ms} (>= 0), max_concurrency={max_concurrency} (>= 1)"
            )
        self.base_url = normalize_base_url(base_url)
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.timeout_ms = float(timeout_ms)
        self.max_retries = int(max_retries)
        self.backoff_ms = float(backoff_ms)
        self.max_concurrency = int(max_concurrency)
        self.extra_body = dict(extra_body or {})
        # httpx clients and semaphores belong to one event loop; keep one set per loop (TRL uses a daemon loop,
        # a CLI uses asyncio.run, tests may use both).
        self._per_loop: dict[int, tuple[asyncio.AbstractEventLoop, httpx.AsyncClient, asyncio.Semaphore]] = {}

    def __repr__(self) -> str:
        return f"ChatClient({self.base_url!r}, {self.model!r})"

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

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _delay(self, attempt: int) -> float:
        return self.backoff_ms / 1000 * (2**attempt) * random.uniform(0.5, 1.5)

    async def _request(
        self, method: str, path: str, payload: dict[str, Any] | None = None, *, retries: int | None = None
    ) -> tuple[Any, float, int]:
        """Send one request with retries; return (decoded JSON, seconds of the last attempt, attempts)."""
        http, sem = self._http()
        url = self.base_url + path
        retries = self.max_retries if retries is None else retries
        last_error: Exception | None = None
        for attempt in range(retries + 1):
            if attempt:
                delay = self._delay(attempt - 1)
                logger.warning("retrying %s %s in %.1fs (attempt %d): %s", method, url, delay, attempt + 1, last_error)
                await asyncio.sleep(delay)
            start = time.perf_counter()
            try:
                async with sem:
                    response = await http.request(method, url, json=payload)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                last_error = exc
                continue
            except httpx.TimeoutException as exc:
                last_error = exc
                continue
            except httpx.TransportError as exc:  # connection reset, protocol errors: the server may be restarting
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
            detail = _error_detail(response)
            if _retryable_status(response.status_code):
                last_error = RequestFailed(f"HTTP {response.status_code}: {detail}", response.status_code)
                continue
            await self._raise_client_error(url, response.status_code, detail)
        attempts = retries + 1
        if isinstance(last_error, RequestFailed):
            raise RequestFailed(f"{method} {url} failed after {attempts} attempts: {last_error}", last_error.status)
        if isinstance(last_error, httpx.TimeoutException) and not isinstance(last_error, httpx.ConnectTimeout):
            raise RequestFailed(
                f"{method} {url} timed out after {self.timeout_ms:g} ms on each of {attempts} attempts "
                f"(raise the timeout, e.g. --timeout-ms, or check the server's load)"
            )
        raise ServerUnreachable(
            f"cannot reach the OpenAI-compatible server at {self.base_url} ({type(last_error).__name__}: "
            f"{last_error}) after {attempts} attempts; check the URL or {_START_HINT}"
        )

    async def _raise_client_error(self, url: str, status: int, detail: str) -> None:
        if status in (400, 404) and "model" in detail.lower():
            served = await self._served_models_or_none()
            if served is not None and self.model not in served:
                listed = f"it serves {served} (pass one of those as --model)" if served else "it lists no models"
                raise UnknownModel(
                    f"the server at {self.base_url} does not serve model {self.model!r}: {listed}; "
                    f"the server said: {detail}"
                )
        if status in (401, 403):
            raise RequestFailed(f"{url} refused the request (HTTP {status}: {detail}); set OPENAI_API_KEY", status)
        raise RequestFailed(f"{url} answered HTTP {status}: {detail}", status)

    async def _served_models_or_none(self) -> list[str] | None:
        try:
            return await self.list_models(retries=0)
        except ChatError:
            return None

    async def list_models(self, *, retries: int | None = None) -> list[str]:
        """Return the model ids the server lists at ``/v1/models``."""
        body, _, _ = await self._request("GET", "/models", retries=retries)
        try:
            return [str(m["id"]) for m in body["data"]]
        except (KeyError, TypeError) as exc:
            raise BadResponse(f"{self.base_url}/models answered an unexpected shape: {str(body)[:300]}") from exc

    async def check(self, *, probe_chat: bool = False) -> list[str]:
        """Probe the server once (no retries): reachable, and serving ``model`` when it lists its models.

        Args:
            probe_chat: when the server lists no models (``transformers serve``) or cannot list them, also send a
                one-token chat request so a wrong model name fails here rather than on the first real request.

        Returns:
            The served model ids (empty when the server cannot list them).

        Raises:
            ServerUnreachable: nothing answers at ``base_url``.
            UnknownModel: ``model`` is not served.
        """
        try:
            served = await self.list_models(retries=0)
        except (RequestFailed, BadResponse) as exc:
            # transformers serve 500s on /v1/models without a hub cache folder; reachable is what matters here
            logger.warning("%s/models is unusable (%s)", self.base_url, exc)
            served = []
        if served and self.model not in served:
            raise UnknownModel(
                f"the server at {self.base_url} does not serve model {self.model!r}; it serves {served} "
                f"(pass one of those as --model)"
            )
        if not served and probe_chat:
            await self.chat([{"role": "user", "content": "ping"}], max_tokens=1)
        return served

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        **extra: Any,
    ) -> ChatResponse:
        """POST ``/chat/completions`` and return the first choice.

        Args:
            messages: OpenAI chat messages (see ``user_message`` for images).
            temperature: sampling temperature (server default when None).
            max_tokens: completion token limit (server default when None).
            seed: sampling seed, where the server honours it.
            **extra: any other request fields (``top_p``, ``stop``, ``chat_template_kwargs``, ...), passed through.

        Returns:
            The reply text with the full raw response.

        Raises:
            ServerUnreachable, UnknownModel, RequestFailed, BadResponse (all ``ChatError``).
        """
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "stream": False, **self.extra_body}
        for key, value in (("temperature", temperature), ("max_tokens", max_tokens), ("seed", seed)):
            if value is not None:
                payload[key] = value
        payload.update(extra)
        body, elapsed, attempts = await self._request("POST", "/chat/completions", payload)
        try:
            choice = body["choices"][0]
            content = choice["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise BadResponse(
                f"{self.base_url}/chat/completions answered without choices[0].message: {str(body)[:300]}"
            ) from exc
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return ChatResponse(
            text=content or "",
            raw=body,
            elapsed_s=elapsed,
            attempts=attempts,
            finish_reason=choice.get("finish_reason"),
        )
