"""A served model's endpoint, declared once: every client of an OpenAI-compatible server (the judge, the VLM policy,
the task writer, the prediction runner) is described by one ``Endpoint`` and made from it by
:func:`vcoder.chat.client.connect`.

Recipes and CLIs carry an endpoint flat under one prefix (``judge_base_url``, ``judge_timeout_ms``, ...; see
:func:`vcoder.names.flat_fields`).
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Endpoint", "retired_loose_endpoint"]


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True)
class Endpoint:
    """Where a served model answers, and how it is asked.

    Example:
        >>> Endpoint("http://127.0.0.1:8000", "Qwen/Qwen2.5-VL-7B-Instruct", timeout_ms=30000).max_retries
        3
    """

    base_url: str | None = field(default=None, metadata=_help("OpenAI-compatible server URL (``.../v1`` or not)."))
    model: str | None = field(default=None, metadata=_help("Model name the server serves."))
    timeout_ms: int = field(default=120_000, metadata=_help("Per-request timeout, ms."))
    max_retries: int = field(default=3, metadata=_help("Retries on connection errors, timeouts, 429 and 5xx."))
    max_concurrency: int = field(default=8, metadata=_help("Requests in flight."))
    max_tokens: int | None = field(default=None, metadata=_help("Reply budget per request (server default: None)."))
    temperature: float | None = field(default=None, metadata=_help("Sampling temperature (server default: None)."))
    extra_body: dict[str, Any] | None = field(
        default=None, metadata=_help("Extra request fields for every call (e.g. chat_template_kwargs).")
    )

    def __post_init__(self) -> None:
        if bool(self.base_url) != bool(self.model):
            raise ValueError(f"base_url={self.base_url!r} and model={self.model!r}: give both or neither")
        for name in ("timeout_ms", "max_concurrency"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"{name}={value!r} must be positive")
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"max_retries={self.max_retries!r} must be an integer >= 0")
        if self.max_tokens is not None and self.max_tokens <= 0:
            raise ValueError(f"max_tokens={self.max_tokens!r} must be positive (or None: the server's default)")

    @property
    def configured(self) -> bool:
        """Whether it names a server (an endpoint with neither URL nor model means "no model here")."""
        return bool(self.base_url)

    def replace(self, **changes: Any) -> Endpoint:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)


def retired_loose_endpoint(
    owner: str, base_url: str | None, model: str | None, loose: dict[str, Any], defaults: Endpoint
) -> Endpoint:
    """The ``Endpoint`` of a service built the retired way, from a loose server, model and request settings
    (``ScreenshotJudge(base_url, model, timeout_ms=...)``), with a ``DeprecationWarning``; the fields not given take
    the service's ``defaults``. The loose form is kept for one release.

    Args:
        owner: the service's name, for the messages.
        base_url, model: the loose server and model.
        loose: the loose request settings (``Endpoint`` fields other than ``base_url`` and ``model``).
        defaults: the service's own request settings.

    Raises:
        TypeError: a loose setting that is no ``Endpoint`` field.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     retired_loose_endpoint("Judge", "http://h", "m", {"max_retries": 0}, Endpoint(timeout_ms=5)).timeout_ms
        5
    """
    known = {f.name for f in dataclasses.fields(Endpoint)} - {"base_url", "model"}
    unknown = sorted(set(loose) - known)
    if unknown:
        raise TypeError(f"{owner}() got unexpected keyword argument(s) {unknown}; request settings: {sorted(known)}")
    warnings.warn(
        f"{owner}(base_url, model, timeout_ms=..., ...) is deprecated and goes in the next release: pass "
        f"{owner}(Endpoint(base_url, model, timeout_ms=..., ...)) (vcoder.chat.Endpoint)",
        DeprecationWarning,
        stacklevel=3,
    )
    return defaults.replace(base_url=base_url, model=model, **loose)
