"""WebGen-Agent's judge calls and feedback turn (``agent_format: webgen_agent``).

One VLM does every judging job, as in WebGen-RL (``generation.py`` passes ``config.vlm_model`` to
``generate_gui_agent_instruction``, and ``execute_for_feedback.get_feedback_single`` sets ``model = vlm_model`` for
the screenshot description, the appearance grade and the GUI-agent summary): :class:`SeedJudge`.

The feedback turn (``get_feedback_single``): the install result (its logs when a command printed "error"), the start
result (its log when it printed "error"), then for a code-writing turn the screenshot's error, description and
suggestions, or for a ``screenshot_validated`` turn the GUI agent's suggestions; then what to do next (fix the
failing stages, or declare ``screenshot_validated`` / ``finish``), the request, and the full-file reminder.

Example (inside a coroutine)::

    judge = SeedJudge(connect(Endpoint("http://127.0.0.1:8001", "Qwen/Qwen2.5-VL-32B-Instruct")))
    description, grade = await judge.describe(png), await judge.appearance(png)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from vcoder.chat import ChatClient, ChatError, image_data_url
from vcoder.sites.seed_prompts import (
    APPEARANCE_GRADE_PROMPT,
    FULL_FILE_REMINDER,
    GUI_INSTRUCTION_PROMPT,
    SCREENSHOT_DESCRIPTION_PROMPT,
    SUMMARY_PROMPT,
    gui_instruction_from,
)
from vcoder.sites.seed_rules import GuiSummary, json_block, read_grade, read_summary

logger = logging.getLogger(__name__)

#: how often the seed asks for a GUI-agent instruction before giving up (``generate_gui_agent_instruction``)
WRITER_TRIES = 5


@dataclass(frozen=True)
class Execution:
    """What running a project gave: install commands with their output, the start log, the screenshot (PNG) or
    why there is none, and what the GUI agent needs to open the site (``site``: a URL or a served folder)."""

    installs: tuple[tuple[str, str], ...] = ()
    start_log: str = ""
    screenshot: bytes | None = None
    screenshot_error: str = ""
    site: Any = None

    @property
    def failed_installs(self) -> tuple[str, ...]:
        """The install commands whose output mentions "error" (the seed's test)."""
        return tuple(cmd for cmd, out in self.installs if "error" in out.lower())

    @property
    def start_failed(self) -> bool:
        return "error" in self.start_log.lower()


def _image_message(prompt: str, png: bytes) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You are a helpful assistant."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": prompt},
                {"type": "image_url", "image_url": {"url": image_data_url(png)}},
            ],
        },
    ]


class SeedJudge:
    """The VLM behind every judging job of the seed's loop.

    Args:
        client: the VLM's ``ChatClient``.
        max_tokens: reply budget of one judging call (None: the server's).
    """

    def __init__(self, client: ChatClient, *, max_tokens: int | None = None):
        self.client = client
        self.max_tokens = max_tokens

    async def _ask(self, messages: list[dict[str, Any]]) -> str | None:
        try:
            return (await self.client.chat(messages, max_tokens=self.max_tokens)).text
        except ChatError as exc:  # infrastructure: the grade reads as the seed reads a missing one
            logger.warning("seed judge: %s", exc)
            return None

    async def describe(self, png: bytes) -> dict[str, Any]:
        """The screenshot's JSON (``is_error``, ``error_message``, ``screenshot_description``, ``suggestions``)."""
        return json_block(await self._ask(_image_message(SCREENSHOT_DESCRIPTION_PROMPT, png)))

    async def appearance(self, png: bytes) -> float:
        """The appearance grade 0-5 (0 when unreadable)."""
        return read_grade(json_block(await self._ask(_image_message(APPEARANCE_GRADE_PROMPT, png))))

    async def gui_instruction(self, instruction: str) -> str | None:
        """The GUI agent's test for the request (None when the writer never gave one)."""
        prompt = GUI_INSTRUCTION_PROMPT.format(instruction=instruction)
        for _ in range(WRITER_TRIES):
            found = gui_instruction_from(await self._ask([{"role": "user", "content": prompt}]))
            if found is not None:
                return found
        return None

    async def summarize(self, gui_instruction: str, trajectory: str, agent_said_yes: bool) -> GuiSummary:
        """The 1-5 summary of a GUI-agent run."""
        prompt = SUMMARY_PROMPT.format(gui_instruction=gui_instruction, trajectory=trajectory)
        messages = [{"role": "system", "content": "You are a helpful agent."}, {"role": "user", "content": prompt}]
        return read_summary(await self._ask(messages), agent_said_yes)


def seed_feedback(
    execution: Execution,
    instruction: str,
    *,
    description: dict[str, Any] | None = None,
    screenshot_grade: float = 0,
    gui: GuiSummary | None = None,
    gui_error: str = "",
    validated: bool = False,
) -> tuple[str, bool]:
    """The feedback turn after a code-writing (``validated`` False) or ``screenshot_validated`` turn.

    Returns:
        (the text, whether it reports an error).

    Example:
        >>> text, bad = seed_feedback(Execution(screenshot=b"png"), "A counter",
        ...                           description={"screenshot_description": "A button."}, screenshot_grade=4)
        >>> bad, "A button." in text, 'type="screenshot_validated"' in text
        (False, True, True)
    """
    parts, after, stages = [], [], []
    failed = execution.failed_installs
    if failed:
        stages.append("dependency installation")
        logs = "\n\n".join(f"> {cmd}\n{out}" for cmd, out in execution.installs)
        parts.append(f"**Installing the dependencies printed errors:**\n\n{logs}")
        after.append("These commands failed: " + ", ".join(f"`{c}`" for c in failed) + ".")
    else:
        parts.append("The dependencies were installed.")
    if execution.start_failed:
        stages.append("service starting")
        parts.append(f"**Starting the service printed errors:**\n\n{execution.start_log}")
        after.append("The service printed errors while starting.")
    else:
        parts.append("The service started.")
    if validated:
        if gui_error:
            stages.append("GUI agent navigation")
            parts.append(f"The GUI agent could not test the website:\n\n{gui_error}")
        elif gui is None or gui.suggestions is None:
            stages.append("GUI agent trajectory collection")
            parts.append("No GUI-agent feedback could be obtained.")
        elif gui.suggestions:
            parts.append(f"**Suggestions from the GUI-agent test:**\n\n{gui.suggestions}")
        else:
            parts.append("The GUI-agent test passed; nothing needs improving.")
    elif execution.screenshot_error or execution.screenshot is None:
        stages.append("screenshot collection")
        parts.append(f"No screenshot of the started website could be taken:\n\n{execution.screenshot_error}")
    else:
        description = description or {}
        shown = False
        if description.get("error_message"):
            stages.append("screenshot")
            parts.append(f"**The screenshot shows errors:**\n\n{description['error_message']}")
            shown = True
        if description.get("screenshot_description"):
            parts.append(f"**What the screenshot shows:**\n\n{description['screenshot_description']}")
            shown = True
        if description.get("suggestions"):
            parts.append(f"**How to improve it:**\n\n{description['suggestions']}")
            shown = True
        if not shown:
            stages.append("screenshot description")
            parts.append("No description of the screenshot could be obtained.")
    # a screenshot graded 1 or lower counts as an error, without a stage of its own (as in the seed)
    has_error = bool(stages) or (not validated and screenshot_grade <= 1)
    if has_error:
        after.append("Change the code to fix the errors" + (" in " + ", ".join(stages) if stages else "") + ".")
    elif validated:
        after.append(
            "Read the feedback above and decide whether the code needs more changes after the GUI-agent test. If "
            'not, reply <boltAction type="finish"/> to say the task is done; otherwise keep changing the code until '
            "the request is met, and do not send the finish signal."
        )
    else:
        after.append(
            "Read the feedback above and decide whether the code needs more changes after what the screenshot "
            'shows. If not, reply <boltAction type="screenshot_validated"/> to say the screenshot is right; '
            "otherwise keep changing the code until the request is met, and do not send the signal."
        )
    text = (
        "\n\n".join(parts)
        + "\n\n"
        + "\n".join(after)
        + f"\n\n**The request for the website you are building:**\n\n{instruction}\n\n"
        + FULL_FILE_REMINDER
    )
    return text, has_error
