"""A VLM screenshot judge: grades a rendered page's appearance 0-5 (returned as [0, 1]) over an OpenAI-compatible API.

WebGen-Agent (Lu et al., 2025) rewards each generation step with a VLM's appearance grade of the page's screenshot
(0-5) next to a GUI-agent score. The judge sees the page screenshot and the instruction it was built from and/or
the reference screenshot (both images are sent when a reference exists). Grades are cached by (page PNG hash,
reference hash, instruction), so identical completions of a GRPO group cost one request. Without an endpoint the
judge is disabled and returns None ("could not judge"), as it does for server errors and unparseable replies.

Example:
    >>> judge = ScreenshotJudge(Endpoint("http://127.0.0.1:8000", "Qwen/Qwen2.5-VL-7B-Instruct"))  # doctest: +SKIP
    >>> await judge.grade(page_png, instruction="A bakery landing page with a menu")  # doctest: +SKIP
    0.8
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections import OrderedDict
from typing import Any

from vcoder.chat import ChatError, Endpoint, connect, user_message
from vcoder.chat.endpoint import retired_loose_endpoint
from vcoder.gui.vlm_parse import parse_score
from vcoder.images import to_png

logger = logging.getLogger(__name__)

MAX_SCORE = 5.0

JUDGE_SYSTEM_PROMPT = "You are a strict, consistent reviewer of web page visual design."

_CRITERIA = (
    "Judge these aspects:\n"
    "- Rendering: the page displays without visual defects (no broken or overlapping elements, no cut-off or "
    "unstyled content, readable text).\n"
    "- Relevance: the visible content and components fit what was asked for.\n"
    "- Layout: components are aligned and balanced, with sensible spacing and a clear visual hierarchy.\n"
    "- Look: colours, typography and imagery are consistent, pleasant and modern.\n"
)
_SCALE = (
    "Scale: 0 = blank, broken or unrelated page; 1 = barely usable; 2 = major problems; 3 = acceptable with "
    "visible flaws; 4 = good, minor flaws; 5 = excellent, polished.\n"
    "Reply with one or two sentences of justification, then a last line exactly of the form `Score: N` with N an "
    "integer from 0 to 5."
)
INSTRUCTION_PROMPT = (
    "The screenshot shows a web page that was built for this request:\n\n{instruction}\n\n"
    "Grade the page's appearance from 0 to 5.\n" + _CRITERIA + _SCALE
)
REFERENCE_PROMPT = (
    "The first image is the reference design. The second image is a web page that was built to reproduce it."
    "{instruction_part}\n\nGrade from 0 to 5 how closely the page reproduces the reference's appearance: the "
    "same layout and structure, text, sizes, positions and colours. A page that looks good but differs from the "
    "reference scores low.\n" + _SCALE
)
PLAIN_PROMPT = "The screenshot shows a web page. Grade its appearance from 0 to 5.\n" + _CRITERIA + _SCALE


def _digest(data: bytes | None) -> str:
    return hashlib.sha256(data).hexdigest() if data else ""


def judge_server(base_url: str | None, model: str | None) -> tuple[str | None, str | None]:
    """The judge's ``(base_url, model)``: the given ones, else ``$VCODER_JUDGE_BASE_URL`` / ``$VCODER_JUDGE_MODEL``
    (the one place that fallback is applied); both or neither (None, None: no judge).

    Raises:
        ValueError: one without the other.
    """
    base_url = base_url or os.environ.get("VCODER_JUDGE_BASE_URL") or None
    model = model or os.environ.get("VCODER_JUDGE_MODEL") or None
    if bool(base_url) != bool(model):
        raise ValueError(
            f"the screenshot judge needs both an endpoint and a model, got base_url={base_url!r}, model={model!r}; "
            "set both (or VCODER_JUDGE_BASE_URL and VCODER_JUDGE_MODEL), or neither to disable the judge"
        )
    return base_url, model


#: the judge's request settings where its endpoint leaves them open: one retry (a reward must not stall a step), a reply
#: budget for a justification and the score line, temperature 0 for repeatable grades
JUDGE_DEFAULTS = Endpoint(timeout_ms=60_000, max_retries=1, max_concurrency=8, max_tokens=256, temperature=0.0)


class ScreenshotJudge:
    """Grade rendered pages' appearance with a VLM behind an OpenAI-compatible endpoint.

    Args:
        endpoint: the judge's server and request settings (a reply budget or temperature left None takes
            :data:`JUDGE_DEFAULTS`'); None, or one naming no server: ``$VCODER_JUDGE_BASE_URL`` /
            ``$VCODER_JUDGE_MODEL`` with :data:`JUDGE_DEFAULTS`; no server there either: the judge is disabled and
            every grade is None.
        max_image_side: images are downscaled so their longer side is at most this many pixels.
        cache_size: grades kept (LRU).

    The retired form ``ScreenshotJudge(base_url, model, timeout_ms=..., max_retries=..., ...)`` (loose request
    settings, :data:`JUDGE_DEFAULTS` for the rest) still works for one release, with a ``DeprecationWarning``.

    Example:
        >>> ScreenshotJudge(Endpoint("http://127.0.0.1:9", "m", max_tokens=64)).max_tokens
        64
    """

    def __init__(
        self,
        endpoint: Endpoint | str | None = None,
        model: str | None = None,
        *,
        max_image_side: int = 1568,
        cache_size: int = 4096,
        **loose: Any,
    ):
        if isinstance(endpoint, Endpoint):
            if model is not None or loose:
                raise TypeError("ScreenshotJudge(endpoint) takes the model and request settings inside the Endpoint")
        elif endpoint is not None or model is not None or loose:
            base_url, model = judge_server(endpoint, model)  # $VCODER_JUDGE_* fill in before the pair is checked
            endpoint = retired_loose_endpoint("ScreenshotJudge", base_url, model, loose, JUDGE_DEFAULTS)
        endpoint = endpoint if endpoint is not None else JUDGE_DEFAULTS
        base_url, model = judge_server(endpoint.base_url, endpoint.model)
        unset = {k: getattr(JUDGE_DEFAULTS, k) for k in ("max_tokens", "temperature") if getattr(endpoint, k) is None}
        self.endpoint = endpoint.replace(base_url=base_url, model=model, **unset)
        if max_image_side < 64 or cache_size < 0:
            raise ValueError(f"max_image_side={max_image_side} (>= 64), cache_size={cache_size} (>= 0)")
        self.client = connect(self.endpoint) if self.endpoint.configured else None
        self.max_tokens = self.endpoint.max_tokens
        self.temperature = self.endpoint.temperature
        self.max_image_side = max_image_side
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str, str], float] = OrderedDict()
        # identical pages graded concurrently (a GRPO group's duplicate completions) share one request
        self._inflight: dict[tuple[int, tuple[str, str, str]], asyncio.Future] = {}
        self.stats = {"requests": 0, "cache_hits": 0, "errors": 0, "unparsed": 0}

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint, **options: Any) -> ScreenshotJudge:
        """Retired spelling of ``ScreenshotJudge(endpoint, **options)``, with a ``DeprecationWarning``."""
        import warnings

        warnings.warn(
            "ScreenshotJudge.from_endpoint(endpoint) is now ScreenshotJudge(endpoint)",
            DeprecationWarning,
            stacklevel=2,
        )
        return cls(endpoint, **options)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_inflight"] = {}
        return state

    @property
    def enabled(self) -> bool:
        """True when an endpoint is configured."""
        return self.client is not None

    def __repr__(self) -> str:
        return f"ScreenshotJudge({self.client!r})" if self.client else "ScreenshotJudge(disabled)"

    def messages(self, page_png: bytes, reference_png: bytes | None, instruction: str | None) -> list[dict[str, Any]]:
        """The chat messages of one grading request (the images already PNG bytes)."""
        instruction = (instruction or "").strip()
        if reference_png is not None:
            extra = f"\nThe page was requested with this instruction:\n\n{instruction}" if instruction else ""
            text = REFERENCE_PROMPT.format(instruction_part=extra)
            images = [reference_png, page_png]
        else:
            text = INSTRUCTION_PROMPT.format(instruction=instruction) if instruction else PLAIN_PROMPT
            images = [page_png]
        return [
            {"role": "system", "content": JUDGE_SYSTEM_PROMPT},
            user_message(text, images=images, images_first=True),
        ]

    async def grade_reply(
        self, page: Any, *, reference: Any = None, instruction: str | None = None
    ) -> tuple[float | None, str | None]:
        """Grade one page and return ``(score in [0, 1] or None, the judge's raw reply or None)``; never raises.

        Args:
            page: the page screenshot (PNG bytes, path, PIL image or array).
            reference: the reference screenshot, if any (same forms).
            instruction: the request the page was built from, if any.
        """
        if self.client is None:
            return None, None
        try:
            page_png = to_png(page, max_side=self.max_image_side)
            ref_png = None if reference is None else to_png(reference, max_side=self.max_image_side)
        except Exception as exc:  # an undecodable image is our input problem, not the model's
            logger.warning("screenshot judge: cannot read an image (%s); no grade", exc)
            return None, None
        key = (_digest(page_png), _digest(ref_png), (instruction or "").strip())
        if key in self._cache:
            self._cache.move_to_end(key)
            self.stats["cache_hits"] += 1
            return self._cache[key], None
        loop_key = (id(asyncio.get_running_loop()), key)
        pending = self._inflight.get(loop_key)
        if pending is not None:
            self.stats["cache_hits"] += 1
            return await asyncio.shield(pending)
        future = asyncio.get_running_loop().create_future()
        self._inflight[loop_key] = future
        try:
            result = await self._request(key, page_png, ref_png, instruction)
        except BaseException:  # cancelled: waiters get no grade rather than hanging
            future.set_result((None, None))
            raise
        else:
            future.set_result(result)
        finally:
            self._inflight.pop(loop_key, None)
        return result

    async def _request(
        self, key: tuple[str, str, str], page_png: bytes, ref_png: bytes | None, instruction: str | None
    ) -> tuple[float | None, str | None]:
        self.stats["requests"] += 1
        try:
            reply = await self.client.chat(
                self.messages(page_png, ref_png, instruction), temperature=self.temperature, max_tokens=self.max_tokens
            )
        except ChatError as exc:
            self.stats["errors"] += 1
            logger.warning("screenshot judge request failed: %s", exc)
            return None, None
        raw = parse_score(reply.text, max_score=MAX_SCORE)
        if raw is None:
            self.stats["unparsed"] += 1
            logger.debug("screenshot judge reply holds no score: %r", reply.text[:200])
            return None, reply.text
        score = raw / MAX_SCORE
        if self.cache_size:
            self._cache[key] = score
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return score, reply.text

    async def grade(self, page: Any, *, reference: Any = None, instruction: str | None = None) -> float | None:
        """Grade one page's appearance in [0, 1] (the 0-5 grade / 5); None when there is no endpoint, the server
        failed or the reply held no grade. Never raises."""
        score, _ = await self.grade_reply(page, reference=reference, instruction=instruction)
        return score

    async def grade_many(
        self, pages: list[Any], *, references: list[Any] | None = None, instructions: list[str | None] | None = None
    ) -> list[float | None]:
        """Grade a batch concurrently (bounded by ``max_concurrency``); one score or None per page, in order."""
        n = len(pages)
        references = references if references is not None else [None] * n
        instructions = instructions if instructions is not None else [None] * n
        if len(references) != n or len(instructions) != n:
            raise ValueError(f"got {n} pages, {len(references)} references and {len(instructions)} instructions")
        return list(
            await asyncio.gather(
                *(self.grade(p, reference=r, instruction=t) for p, r, t in zip(pages, references, instructions))
            )
        )

    async def aclose(self) -> None:
        """Close the HTTP connections of the running event loop."""
        if self.client is not None:
            await self.client.aclose()
