"""An async client for OpenAI-compatible chat servers (vLLM, ``trl vllm-serve``, ``transformers serve``).

One ``ChatClient`` talks to one model behind one ``/v1/chat/completions`` endpoint: it builds the request, reads
the first choice, and turns a wrong model name into an ``UnknownModel`` error that lists the served ones. The
HTTP side (bounded concurrency, retries with backoff, errors that say what to do) is
:class:`vcoder.chat.transport.Transport`.

A client is made from an ``Endpoint`` by :func:`vcoder.chat.connect`, the one way (``tests/test_architecture.py``
fails on a ``ChatClient(...)`` call outside ``vcoder.chat``).

Example:
    >>> client = connect(Endpoint("http://127.0.0.1:8000", "Qwen/Qwen2.5-VL-3B-Instruct"))  # doctest: +SKIP
    >>> reply = await client.chat([user_message("Describe this page.", images=[png_bytes])])  # doctest: +SKIP
    >>> reply.text  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

from vcoder.chat.endpoint import Endpoint
from vcoder.chat.errors import BadResponse, ChatError, RequestFailed, UnknownModel
from vcoder.chat.messages import normalize_base_url
from vcoder.chat.transport import Transport

logger = logging.getLogger(__name__)


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


class ChatClient:
    """Async client for one model on one OpenAI-compatible server; made by :func:`vcoder.chat.connect`.

    Args:
        endpoint: the server URL (with or without ``/v1``), the model name it serves (``vllm serve`` uses the path or
            hub id it was started with), the per-request timeout (the connect timeout is at most 10 s of it), the
            retries after the first attempt (connection errors, timeouts, 429 and 5xx), the requests in flight and
            the ``extra_body`` merged into every chat request (vLLM's ``top_k``, ``transformers serve``'s
            ``generation_config``; per-call keyword arguments win). Its ``max_tokens``/``temperature`` are per call.
        api_key: bearer token; defaults to ``$OPENAI_API_KEY`` (vLLM ignores it unless started with ``--api-key``).
        backoff_ms: base delay in ms; attempt ``k`` waits ``backoff_ms * 2**k`` times a jitter factor in [0.5, 1.5].

    The old form, ``ChatClient(base_url, model, timeout_ms=..., ...)``, still works, with a deprecation warning.

    Attributes:
        endpoint: the ``Endpoint`` it talks to.
        transport: the HTTP side (``base_url``, timeouts, retries, connection pools).
    """

    def __init__(
        self, endpoint: Endpoint, *old: Any, api_key: str | None = None, backoff_ms: float = 1000, **loose: Any
    ):
        if not isinstance(endpoint, Endpoint):
            endpoint = _old_form(endpoint, *old, **loose)
        elif old or loose:
            raise TypeError(f"ChatClient(endpoint) takes no loose settings, got {sorted(loose) or old}")
        if not endpoint.configured:
            raise ValueError("this endpoint names no server; give base_url and model")
        self.endpoint = endpoint
        self.model = endpoint.model
        self.extra_body = dict(endpoint.extra_body or {})
        self.transport = Transport(
            normalize_base_url(endpoint.base_url),
            api_key=api_key if api_key is not None else os.environ.get("OPENAI_API_KEY"),
            timeout_ms=endpoint.timeout_ms,
            max_retries=endpoint.max_retries,
            backoff_ms=backoff_ms,
            max_concurrency=endpoint.max_concurrency,
        )

    @property
    def base_url(self) -> str:
        """The server's API root (``http://host:8000/v1``)."""
        return self.transport.base_url

    def __repr__(self) -> str:
        return f"ChatClient({self.base_url!r}, {self.model!r})"

    async def aclose(self) -> None:
        """Close the HTTP connections owned by the running event loop."""
        await self.transport.aclose()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _post_chat(self, payload: dict[str, Any]) -> tuple[Any, float, int]:
        """POST ``/chat/completions`` through the transport, with a wrong model name reported as ``UnknownModel``."""
        try:
            return await self.transport.request("POST", "/chat/completions", payload)
        except RequestFailed as exc:
            if exc.status in (400, 404) and "model" in exc.detail.lower():
                served = await self._served_models_or_none()
                if served is not None and self.model not in served:
                    listed = f"it serves {served} (pass one of those as --model)" if served else "it lists no models"
                    raise UnknownModel(
                        f"the server at {self.base_url} does not serve model {self.model!r}: {listed}; "
                        f"the server said: {exc.detail}"
                    ) from exc
            raise

    async def _served_models_or_none(self) -> list[str] | None:
        try:
            return await self.list_models(retries=0)
        except ChatError:
            return None

    async def list_models(self, *, retries: int | None = None) -> list[str]:
        """Return the model ids the server lists at ``/v1/models``."""
        # straight to the transport: a failing /models must not trigger the unknown-model check (it lists models)
        body, _, _ = await self.transport.request("GET", "/models", retries=retries)
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
            ChatError: ``ServerUnreachable``, ``UnknownModel``, ``RequestFailed`` or ``BadResponse``.
        """
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "stream": False, **self.extra_body}
        for key, value in (("temperature", temperature), ("max_tokens", max_tokens), ("seed", seed)):
            if value is not None:
                payload[key] = value
        payload.update(extra)
        body, elapsed, attempts = await self._post_chat(payload)
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


def connect(endpoint: Endpoint, *, api_key: str | None = None, backoff_ms: float = 1000) -> ChatClient:
    """The ``ChatClient`` of a configured endpoint (``max_tokens``/``temperature`` are per call: the caller's).

    Args:
        endpoint: the server, the model and the request settings.
        api_key: bearer token; defaults to ``$OPENAI_API_KEY`` (vLLM ignores it unless started with ``--api-key``).
        backoff_ms: base delay between retries, ms (attempt ``k`` waits ``backoff_ms * 2**k`` times a jitter).
    """
    if not endpoint.configured:
        raise ValueError("this endpoint names no server; give base_url and model")
    return ChatClient(endpoint, api_key=api_key, backoff_ms=backoff_ms)


def _old_form(base_url: Any, model: Any = None, **settings: Any) -> Endpoint:
    """The ``Endpoint`` of the retired ``ChatClient(base_url, model, timeout_ms=..., ...)`` form, with a warning."""
    warnings.warn(
        "ChatClient(base_url, model, ...) is deprecated: use vcoder.chat.connect(Endpoint(base_url, model, ...))",
        DeprecationWarning,
        stacklevel=3,
    )
    if not model:
        raise ValueError("model must be a non-empty model name (see the server's /v1/models)")
    return Endpoint(base_url, model, **settings)
