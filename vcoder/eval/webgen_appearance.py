"""WebGen-Bench's appearance score: its prompt, its scrolled screenshots, its grade reading and its divisor.

The protocol, read in the public WebGen-Bench repository (Lu et al., 2025; github.com/mnluzimu/WebGen-Bench at
95a9930, ``src/grade_appearance_bolt_diy/``):

- screenshots (``get_screenshots.py``): the site in a 1024 x 768 window, a pause, then
  ``n = min(3, ceil(document.body.scrollHeight / 768))`` viewport screenshots, scrolling the window down 768 px
  between two (a pause after each scroll);
- one request (``vlm_eval_qwenvl.py``): system "You are a helpful assistant.", one user message holding the
  appearance prompt with the task's instruction, then the screenshots; the server's default sampling;
- the grade (``compute_grade.py``'s ``first_grade_int``): the first digit after "Grade" (any case, across lines) in
  the reply; none -> 0. So "Grade: 4" is 4, "**Grade**: 10" is 1, "Grade the page ... 3" is 3, "Score: 5" is 0;
- the score: the sum of the grades divided by the number of tasks (``compute_grade.py`` divides by 101, the test
  set's size): a site that failed to start, gave no screenshot or got an unreadable reply counts 0.

The prompt is the benchmark's, quoted because it is the protocol. Deviations, and why:

- ``eval_appearance.py`` for Bolt.diy passes ``max_shots=1``; the Aider and OpenHands scripts and
  ``get_screenshots.py``'s default take 3, which is what the benchmark's description says: 3 here
  (:data:`MAX_SHOTS`).
- The page settles as vcoder settles a site (network and DOM quiet, capped) instead of a fixed 0.4 s before the
  first screenshot; the 0.4 s pause after each scroll is kept.
- Screenshots are sent as PNG and labelled so (the benchmark labels its PNG files ``image/jpeg``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vcoder.chat import image_data_url
from vcoder.gui.runner import SETTLE_QUIET_MS

logger = logging.getLogger(__name__)

#: WebGen-Bench's screenshot window and how many viewports it grades at most
WIDTH, HEIGHT, MAX_SHOTS = 1024, 768, 3
#: a WebGen-Bench site's page (a Babel or React site on a loaded machine): the most time it may take to load and to
#: settle, ms (a run's own values, vcoder.eval.webgen_config; a static site's page: gui.runner's 10 s and 8 s)
SITE_LOAD_TIMEOUT_MS, SITE_SETTLE_TIMEOUT_MS = 30_000, 15_000
#: seconds ``get_screenshots.py`` pauses after each scroll
SCROLL_PAUSE_S = 0.4
#: the grade's scale (the prompt asks for 1-5; an unreadable reply is 0)
SCALE = (1, 5)

SYSTEM_PROMPT = "You are a helpful assistant."

# WebGen-Bench's appearance_prompt (src/grade_appearance_bolt_diy/prompt.py), verbatim: it is the protocol
APPEARANCE_PROMPT = """
Instruction:
You are tasked with evaluating the functional design of a webpage that had been constructed based on the following \
instruction:

{instruction}

Grade the webpage’s appearance on a scale of 1 to 5 (5 being highest), considering the following criteria:

  - Successful Rendering: Does the webpage render correctly without visual errors? Are colors, fonts, and \
components displayed as specified?
  - Content Relevance: Does the design align with the website’s purpose and user requirements? Are elements (e.g., \
search bars, report formats) logically placed and functional?
  - Layout Harmony: Is the arrangement of components (text, images, buttons) balanced, intuitive, and clutter-free?
  - Modernness & Beauty: Does the design follow contemporary trends (e.g., minimalism, responsive layouts)? Are \
colors, typography, and visual hierarchy aesthetically pleasing?

Grading Scale:

  - 1 (Poor): Major rendering issues (e.g., broken layouts, incorrect colors). Content is irrelevant or missing. \
Layout is chaotic. Design is outdated or visually unappealing.
  - 2 (Below Average): Partial rendering with noticeable errors. Content is partially relevant but poorly \
organized. Layout lacks consistency. Design is basic or uninspired.
  - 3 (Average): Mostly rendered correctly with minor flaws. Content is relevant but lacks polish. Layout is \
functional but unremarkable. Design is clean but lacks modern flair.
  - 4 (Good): Rendered well with no major errors. Content is relevant and logically organized. Layout is \
harmonious and user-friendly. Design is modern and visually appealing.
  - 5 (Excellent): Flawless rendering. Content is highly relevant, intuitive, and tailored to user needs. Layout is \
polished, responsive, and innovative. Design is cutting-edge, beautiful, and memorable.

Task:
Review the provided screenshot(s) of the webpage. Provide a detailed analysis and then assign a grade (1–5) based \
on your analysis. Highlight strengths, weaknesses, and how well the design adheres to the specifications.

Your Response Format:

Analysis: [2–4 paragraphs addressing all criteria, referencing the instruction]

Grade: [1–5]

Your Response:
"""

_GRADE = re.compile(r"Grade.*?(\d)", re.IGNORECASE | re.DOTALL)


def first_grade(text: str | None) -> int:
    """The grade as WebGen-Bench reads it: the first digit after "Grade" (any case, across lines); 0 when none.

    Example:
        >>> [first_grade(t) for t in ("Analysis: fine.\\n\\nGrade: 4", "grade\\n\\n**3**", "Score: 5", "GRADE: 10", None)]
        [4, 3, 0, 1, 0]
    """
    match = _GRADE.search(text or "")
    return int(match.group(1)) if match else 0


def shot_count(scroll_height: float, *, viewport_height: int = HEIGHT, max_shots: int = MAX_SHOTS) -> int:
    """How many screenshots ``get_screenshots.py`` takes of a page ``scroll_height`` px tall.

    Example:
        >>> [shot_count(h) for h in (0, 500, 768, 769, 1600, 9000)]
        [0, 1, 1, 2, 3, 3]
    """
    return min(max_shots, math.ceil(max(scroll_height, 0) / viewport_height))


def appearance_messages(instruction: str, screenshots: Sequence[bytes]) -> list[dict[str, Any]]:
    """The benchmark's grading request: the system line, then the prompt followed by the screenshots."""
    parts = [{"type": "text", "text": APPEARANCE_PROMPT.format(instruction=instruction)}]
    parts += [{"type": "image_url", "image_url": {"url": image_data_url(png)}} for png in screenshots]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": parts}]


async def grade_appearance(client: Any, instruction: str, screenshots: Sequence[bytes]) -> tuple[int, str | None]:
    """``(grade, the judge's reply)`` of one site; no screenshot is grade 0 with no request (the benchmark skips it).

    Raises:
        ChatError: the judge's server failed after its retries (nothing can be said about the site).
    """
    if not screenshots:
        return 0, None
    reply = await client.chat(appearance_messages(instruction, screenshots))
    return first_grade(reply.text), reply.text


def appearance_score(grades: Sequence[float], tasks: int) -> float | None:
    """WebGen-Bench's appearance score: the grades' sum over the number of tasks (grades not given count 0).

    Example:
        >>> appearance_score([4, 0, 5], 4)
        2.25
    """
    return sum(grades) / tasks if tasks else None


async def scrolled_screenshots(
    pool: Any,
    site_dir: Path,
    html: str,
    *,
    render_timeout_ms: float = SITE_LOAD_TIMEOUT_MS,
    settle_timeout_ms: float = SITE_SETTLE_TIMEOUT_MS,
    settle_quiet_ms: float = SETTLE_QUIET_MS,
    max_shots: int = MAX_SHOTS,
) -> list[bytes]:
    """Up to ``max_shots`` PNG screenshots of a site's 1024 x 768 viewport, scrolled 768 px apart (as
    ``get_screenshots.py`` takes them); ``[]`` for a page that does not load or has no height.

    Args:
        pool: an ``AsyncBrowserPool`` or ``BrowserPool``.
        site_dir: the site's folder (its files load by relative URL).
        html: its entry page.
        render_timeout_ms: budget of the page load.
        settle_timeout_ms, settle_quiet_ms: how long the page may settle, and the quiet that ends it.
        max_shots: the most screenshots.

    Raises:
        BrowserUnavailable (and other browser failures): the browser itself failed.
    """
    from vcoder.sites.grading import SETTLE_JS, on_pool_loop

    apool = getattr(pool, "async_pool", pool)

    async def shoot() -> list[bytes]:
        opened = apool.open_page(html, width=WIDTH, height=HEIGHT, timeout_ms=render_timeout_ms, base_dir=site_dir)
        try:
            page = await opened.__aenter__()
        except RuntimeError as exc:  # the page did not load: the site's failure, graded 0
            logger.info("appearance screenshots of %s: the page did not load (%s)", site_dir, exc)
            return []
        try:
            settle = {"quietMs": settle_quiet_ms, "maxMs": settle_timeout_ms}
            try:
                await asyncio.wait_for(page.evaluate(SETTLE_JS, settle), settle_timeout_ms / 1000 + 2.0)
            except Exception as exc:  # slow or replaced: take what is there, as the benchmark does after its pause
                logger.debug("settling %s: %s", site_dir, exc)
            shots: list[bytes] = []
            try:
                await _take(page, shots, max_shots, render_timeout_ms / 1000)
            except Exception as exc:  # a page that stops answering: the site's failure; what was taken stays
                logger.info("appearance screenshots of %s stopped after %d: %s", site_dir, len(shots), exc)
                with contextlib.suppress(Exception):  # a looping script: the pool replaces the closed page
                    await asyncio.wait_for(page.close(run_before_unload=False), 5.0)
            return shots
        finally:
            await opened.__aexit__(None, None, None)

    return await on_pool_loop(apool, shoot)


async def _take(page: Any, shots: list[bytes], max_shots: int, timeout_s: float) -> None:
    height = await asyncio.wait_for(page.evaluate("() => document.body ? document.body.scrollHeight : 0"), timeout_s)
    for index in range(shot_count(height, max_shots=max_shots)):
        if index:
            await asyncio.wait_for(page.evaluate("dy => window.scrollBy(0, dy)", HEIGHT), timeout_s)
            await asyncio.sleep(SCROLL_PAUSE_S)
        shot = page.screenshot(type="png", timeout=timeout_s * 1000)
        shots.append(await asyncio.wait_for(shot, timeout_s + 1.0))
