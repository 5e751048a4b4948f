"""WebGen-Bench's GUI agent: WebVoyager (He et al., 2024) as WebGen-Bench runs it, and its verdict reading.

The protocol, read in the public WebGen-Bench repository (Lu et al., 2025; github.com/mnluzimu/WebGen-Bench at
95a9930: ``src/ui_test_bolt/ui_eval_with_answer.py``, ``src/ui_test_bolt/compute_acc.py``, ``webvoyager/run.py``,
``webvoyager/prompts.py``, ``webvoyager/utils.py``):

- one conversation per test case: WebVoyager's system prompt, then a task message that wraps the case in the
  benchmark's ``ui_prompt_template`` ("You can at most interact with the website 15 times ...");
- up to ``max_iter`` = 15 iterations; each sends an observation (the screenshot with numbered element marks and the
  marked elements' texts) unless the previous reply was malformed or its action failed (then a one-line message,
  no screenshot); the 15th sends the limit prompt (the expected result, "answer with YES / NO / PARTIAL") instead;
- only the last ``max_attached_imgs`` = 3 observations keep their screenshot; older ones shrink to their text before
  "Observation:" plus "Observation: A screenshot and some texts. (Omitted in context.)";
- a reply must hold "Thought:" and "Action:" (else the format-error message); the action is the text after
  "Action:", read with WebVoyager's patterns (``Click [n]``, ``Type [n]; [text]``, ``Scroll [n|WINDOW]; [up|down]``,
  ``Wait``, ``GoBack``, ``Google``, ``ANSWER; [text]``); an action that cannot be carried out gets the "cannot be
  executed" message; ``ANSWER`` ends the case;
- sampling: ``--temperature 1``, ``max_tokens`` 1000, ``seed`` 42, a 1024 x 768 window;
- the verdict is read from the LAST assistant message by substring, case-sensitive, in this order: "YES" in it ->
  YES, else "PARTIAL" in it -> PARTIAL, else NO (:func:`read_verdict`). So "NO, not YES" is YES, "PARTIALLY" is
  PARTIAL, "yes" is NO, and a case that ran out of iterations is read from whatever the model said last.

The prompts below are the benchmark's, quoted because they are the protocol (from the files above). Deviations, and
why:

- Marks: vcoder's numbered interactive elements (:class:`~vcoder.gui.env.GuiEnv`, numbered from 1, boxes drawn on
  the screenshot), listed in WebVoyager's ``[n]: <tag> "text";`` form. WebVoyager's own marking script numbers
  from 0 and draws in the page; both label what the agent can act on.
- WebVoyager's fixed pauses (5 s after loading, 3 s after a click or a scroll, 10 s after typing, 5 s for ``Wait``,
  2 s after going back) are caps here: the agent waits until the page has nothing left that could change it
  (:mod:`vcoder.gui.page_changes`), at most that long (:data:`PAUSES_MS`).
- ``Google`` cannot run (no network) and gets the "cannot be executed" message, as a failed action does; so does
  ``Type`` into an element that cannot be filled (WebVoyager clicks it and sends the keys anyway, with its warning).
- ``run.py`` parses ``--temperature 1`` but does not forward it, so its server's default applied; here 1 is sent.
- A request that fails after its retries makes the case an infrastructure failure (the task is retried, through
  :class:`~vcoder.chat.WatchedClient`); WebVoyager stops and reads the last earlier reply.
- The action named in the limit iteration's reply is not carried out (it cannot change the verdict).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from vcoder.chat import ChatClient, ChatError
from vcoder.gui.env import Action, GuiEnv, Observation, PageHung, draw_marks
from vcoder.gui.page_changes import change_count, next_change
from vcoder.gui.policy import CaseResult, Policy, TestCase
from vcoder.gui.webvoyager_protocol import (
    ATTACHED_IMAGES,
    CANNOT_EXECUTE,
    ELEMENTS_NOTE,
    FORMAT_ERROR,
    HEIGHT,
    LIMIT_PROMPT,
    MAX_ITERATIONS,
    MAX_TOKENS,
    OBSERVATION_PROMPT,
    OMITTED,
    PAUSES_MS,
    SEED,
    SYSTEM_PROMPT,
    TASK_PROMPT,
    TEMPERATURE,
    WIDTH,
    chosen_action,
    clip_images,
    element_texts,
    extract_action,
    observation_message,
    read_verdict,
)

logger = logging.getLogger(__name__)

# the protocol's names stay importable from here, where the agent lives
__all__ = [
    "ATTACHED_IMAGES",
    "CANNOT_EXECUTE",
    "ELEMENTS_NOTE",
    "FORMAT_ERROR",
    "HEIGHT",
    "LIMIT_PROMPT",
    "MAX_ITERATIONS",
    "MAX_TOKENS",
    "OBSERVATION_PROMPT",
    "OMITTED",
    "PAUSES_MS",
    "SEED",
    "SETTLE_MARGIN_MS",
    "SETTLE_POLL_MS",
    "SYSTEM_PROMPT",
    "TASK_PROMPT",
    "TEMPERATURE",
    "WIDTH",
    "WebVoyagerPolicy",
    "chosen_action",
    "clip_images",
    "element_texts",
    "extract_action",
    "obs_height",
    "observation_message",
    "read_verdict",
    "settle",
]

#: ms between two looks while settling (each DOM change wakes it sooner), and kept free before the case's deadline
SETTLE_POLL_MS, SETTLE_MARGIN_MS = 250, 1000


class WebVoyagerPolicy(Policy):
    """WebGen-Bench's GUI agent (see the module docstring): WebVoyager's prompts, history and action format, the
    verdict read from the last reply.

    Args:
        client: the agent model's client (a ``WatchedClient`` lets a grader see its failures).
        max_iterations: iterations per case, the last one asking for the answer (WebGen-Bench: 15).
        attached_images: screenshots kept in the conversation (WebGen-Bench: 3).
        temperature: sampling temperature (WebGen-Bench: 1).
        max_tokens: reply budget (WebGen-Bench: 1000).
        seed: sampling seed (WebGen-Bench: 42).
    """

    name = "webvoyager"

    def __init__(
        self,
        *,
        client: ChatClient | Any,
        max_iterations: int = MAX_ITERATIONS,
        attached_images: int = ATTACHED_IMAGES,
        temperature: float = TEMPERATURE,
        max_tokens: int = MAX_TOKENS,
        seed: int | None = SEED,
    ):
        if max_iterations < 1 or attached_images < 1 or max_tokens < 1:
            raise ValueError(
                f"max_iterations={max_iterations}, attached_images={attached_images} and max_tokens={max_tokens} "
                "must all be >= 1"
            )
        self.client = client
        self.max_iterations = max_iterations
        self.attached_images = attached_images
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed

    def __repr__(self) -> str:
        return f"WebVoyagerPolicy({self.client!r})"

    def task_message(self, case: TestCase, url: str) -> str:
        """The first message's text before the elements (``run.py``'s ``init_msg``)."""
        question = TASK_PROMPT.format(task=case.task, expected_result=case.expected_result)
        return f"Now given a task: {question}  Please interact with {url} and get the answer. \n" + OBSERVATION_PROMPT

    async def run_case(self, env: GuiEnv, case: TestCase) -> CaseResult:
        """Run one case to a verdict; never raises for the page's or the model's behaviour."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
        task_message = self.task_message(case, env.page.url)
        failure, warning, error = "", "", None
        obs: Observation | None = None
        iteration = 0
        while iteration < self.max_iterations:
            iteration += 1
            final = iteration == self.max_iterations
            if final:
                messages.append({"role": "user", "content": LIMIT_PROMPT.format(expected_result=case.expected_result)})
            elif not failure:
                try:
                    if iteration == 1:
                        await settle(env, PAUSES_MS["load"])
                    obs = await env.observe()
                except PageHung:
                    error = env.error
                    break
                except Exception as exc:  # the document is being replaced: the page, not the agent, failed
                    env.end(f"observe failed: {type(exc).__name__}: {str(exc)[:200]}")
                    error = env.error
                    break
                png = draw_marks(obs.png, obs.elements)
                messages.append(
                    observation_message(iteration, task_message, warning, png, element_texts(obs.elements))
                )
            else:
                messages.append({"role": "user", "content": failure})
            messages = clip_images(messages, self.attached_images)
            try:
                reply = await asyncio.wait_for(
                    self.client.chat(
                        messages, temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed
                    ),
                    max(env.remaining_s, 0.05),  # a request may not outlive the case's deadline
                )
            except asyncio.TimeoutError:
                env.end(f"deadline: case exceeded {env.deadline_ms:g} ms waiting for the model")
                error = env.error
                break
            except ChatError as exc:
                error = f"vlm: {exc}"
                break
            messages.append({"role": "assistant", "content": reply.text})
            action = chosen_action(reply.text)
            if action is None:
                failure = FORMAT_ERROR
                continue
            kind, fields = extract_action(action)
            failure, warning = "", ""
            if kind == "answer" or final:
                break
            problem, warning = await self._execute(env, kind, fields, obs)
            if problem is not None and "intercept" not in problem:  # WebVoyager lets an intercepted click pass
                failure = CANNOT_EXECUTE
            if env.done:  # a hang, navigation away or the deadline
                error = env.error
                break
        return self._result(case, env, messages, iteration, error)

    def _result(self, case, env: GuiEnv, messages, iterations: int, error: str | None) -> CaseResult:
        replies = [m["content"] for m in messages if m["role"] == "assistant"]
        last = replies[-1] if replies else ""
        verdict = read_verdict(last)
        details = (
            f"answer: {verdict.value} {' '.join(last.split())}".strip(),  # whole: the verdict's evidence
            f"iterations: {iterations}",
            *(f"{i}. {' '.join(r.split())[:300]}" for i, r in enumerate(replies, 1)),
        )
        return CaseResult(case.task, verdict, env.steps_taken, error, details)

    async def _execute(
        self, env: GuiEnv, kind: str | None, fields: dict[str, str], obs: Observation | None
    ) -> tuple[str | None, str]:
        """Carry out one WebVoyager action; ``(why it failed or None, a warning for the next observation)``."""
        height = obs_height(env)
        if kind == "click":
            result = await env.act(Action("click", int(fields["number"])))
        elif kind == "type":
            number = int(fields["number"])
            warning = _type_warning(obs, number)
            result = await env.act(Action("type", number, fields["content"]))
            if result.ok:  # WebVoyager hits ENTER after typing
                result = await env.act(Action("press", number, "Enter"))
            if result.ok:
                await settle(env, PAUSES_MS["type"])
            return (None if result.ok else result.error or "type failed"), warning
        elif kind == "scroll" and fields["number"] == "WINDOW":  # 2/3 of the window, as run.py scrolls it
            delta = height * 2 // 3
            result = await env.act(Action("scroll", None, str(delta if fields["content"] == "down" else -delta)))
        elif kind == "scroll":  # run.py focuses the element and presses Alt+arrow (a press on it focuses it first)
            key = "Alt+ArrowDown" if fields["content"] == "down" else "Alt+ArrowUp"
            result = await env.act(Action("press", int(fields["number"]), key))
        elif kind == "wait":
            result = await env.act(Action("wait", None, "0"))
        elif kind == "goback":
            result = await env.act(Action("back"))
        elif kind == "google":
            return "Google: no network here", ""
        else:
            return f"unknown action {kind!r}", ""
        if result.ok:
            await settle(env, PAUSES_MS[kind])
        return (None if result.ok else result.error or f"{kind} failed"), ""

    async def aclose(self) -> None:
        await self.client.aclose()


async def settle(env: GuiEnv, cap_ms: float) -> None:
    """Wait until the page has nothing left that could change it by itself, at most ``cap_ms`` (and never past the
    case's deadline); a page that stops answering is found by the next observation."""
    end = time.monotonic() + max(min(cap_ms, env.remaining_s * 1000 - SETTLE_MARGIN_MS), 0.0) / 1000
    try:
        seen = await change_count(env)
        while (left := (end - time.monotonic()) * 1000) > 0:
            change = await next_change(env, seen, max_ms=min(left, SETTLE_POLL_MS), idle_within_ms=left)
            if change.idle:
                return
            seen = change.count
    except Exception as exc:  # hung or replaced: the next observation says so
        logger.debug("settling the page: %s", exc)


def obs_height(env: GuiEnv) -> int:
    """The viewport's height in px (WebVoyager scrolls the window by 2/3 of it)."""
    size = env.page.viewport_size or {}
    return int(size.get("height") or HEIGHT)


def _type_warning(obs: Observation | None, number: int) -> str:
    """WebVoyager's note when the element typed into may not be a text box."""
    element = next((e for e in (obs.elements if obs else ()) if e.index == number), None)
    if element is None or (element.tag == "textarea") or (element.tag == "input" and element.role == "textbox"):
        return ""
    kind = element.role if element.tag == "input" else None
    return (
        f"note: The web element you're trying to type may not be a textbox, and its tag name is <{element.tag}>, "
        f"type is {kind}."
    )
