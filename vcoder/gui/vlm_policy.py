"""A VLM GUI policy: a vision-language model carries out natural-language test cases through an OpenAI-compatible API.

WebGen-Bench (Lu et al., 2025) grades a site by letting a GUI agent (WebVoyager-style: a screenshot with numbered
element marks) carry out each test case and answer YES / PARTIAL / NO. Each turn the model sees the marked
screenshot, the numbered element list, the task, the expected result and its own action history, and replies with
ONE action as a JSON object (line formats such as ``Click [3]`` are accepted too; see ``vlm_parse``). An
unparseable reply gets one correction request; a second one wastes a step. Once the step limit is used, the model
is asked once more for its verdict; no verdict -> NO. Requests are stateless (history as text, one image), so the
prompt stays small for small models.

Example:
    >>> policy = VLMPolicy(Endpoint("http://127.0.0.1:8000", "Qwen/Qwen2.5-VL-7B-Instruct"))  # doctest: +SKIP
    >>> results, score = run_cases(html, [{"task": "Add a todo", "expected_result": "It is listed"}],
    ...                            policy=policy)  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from vcoder.chat import ChatClient, ChatError, Endpoint, connect, user_message
from vcoder.chat.endpoint import retired_loose_endpoint
from vcoder.gui.agents import GUI_AGENT_DEFAULTS
from vcoder.gui.agents import gui_endpoint as gui_endpoint  # its former home: the name still imports from here
from vcoder.gui.env import Action, GuiEnv, Observation, PageHung, draw_marks
from vcoder.gui.policy import CaseResult, Policy, TestCase, Verdict
from vcoder.gui.vlm_parse import ParsedAction, parse_action

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = """You are a careful QA tester operating a web page in a browser to check whether a feature works.
Each turn you get a screenshot in which every interactive element has a numbered box, the list of those elements, \
the test task, the expected result and your previous actions.
Reply with exactly ONE action as a JSON object on one line, and nothing else. The actions:
{"action": "click", "element": 3}
{"action": "type", "element": 5, "text": "hello@example.com"}
{"action": "select", "element": 2, "value": "Blue"}
{"action": "press", "key": "Enter"}
{"action": "scroll", "direction": "down"}
{"action": "wait"}
{"action": "back"}
{"action": "answer", "verdict": "YES", "reason": "the counter shows 1"}
Rules: use element numbers from the current list. Answer as soon as you can tell whether the expected result \
happened: YES if it fully happened, PARTIAL if only partly, NO if it did not or the page cannot do the task."""

CORRECTION_PROMPT = (
    "I could not read an action in your reply. Reply with exactly one JSON object and nothing else, for example "
    '{"action": "click", "element": 1} or {"action": "answer", "verdict": "NO", "reason": "..."}.'
)
FINAL_PROMPT = (
    "You have used all your actions. Look at the current page and answer now with "
    '{"action": "answer", "verdict": "YES" | "PARTIAL" | "NO", "reason": "..."}.'
)
_SCROLL_UP_PX = "-600"


class VLMPolicy(Policy):
    """Carry out natural-language test cases with a VLM behind an OpenAI-compatible endpoint.

    Entry points build it from a recipe's ``Endpoint`` with :func:`vcoder.browse.policies.make_agent`
    (``gui_policy: vlm``; request settings a recipe leaves out: :data:`vcoder.gui.agents.GUI_AGENT_DEFAULTS`).

    Args:
        endpoint: the model's server and request settings (vLLM, ``trl vllm-serve``, ``transformers serve``); its
            ``max_tokens`` and ``temperature`` are each turn's reply budget and sampling temperature (None: the
            server's), its timeout is capped by the case's deadline. None: ``client`` with
            :data:`~vcoder.gui.agents.GUI_AGENT_DEFAULTS`' reply budget and temperature.
        client: a ready ``ChatClient`` made from ``endpoint`` (a shared or watched one) instead of a new one.
        max_listed_elements: elements listed in the prompt (all are marked on the screenshot).
        history_turns: previous actions repeated in the prompt.

    The retired form ``VLMPolicy(base_url, model, timeout_ms=..., max_tokens=..., ...)`` (loose request settings,
    ``GUI_AGENT_DEFAULTS`` for the rest) still works for one release, with a ``DeprecationWarning``.

    Example:
        >>> VLMPolicy(Endpoint("http://127.0.0.1:9", "m", max_tokens=64)).max_tokens
        64
    """

    name = "vlm"

    def __init__(
        self,
        endpoint: Endpoint | str | None = None,
        model: str | None = None,
        *,
        client: ChatClient | None = None,
        max_listed_elements: int = 60,
        history_turns: int = 15,
        **loose: Any,
    ):
        if isinstance(endpoint, Endpoint):
            if model is not None or loose:
                raise TypeError("VLMPolicy(endpoint) takes the model and request settings inside the Endpoint")
        elif endpoint is not None or model is not None or loose:
            endpoint = retired_loose_endpoint("VLMPolicy", endpoint, model, loose, GUI_AGENT_DEFAULTS)
        if client is None and (endpoint is None or not endpoint.configured):
            raise ValueError(
                f"VLMPolicy needs base_url and model (got {endpoint!r}); e.g. "
                "VLMPolicy(Endpoint('http://127.0.0.1:8000', 'Qwen/Qwen2.5-VL-7B-Instruct'))"
            )
        endpoint = endpoint if endpoint is not None else GUI_AGENT_DEFAULTS
        self.endpoint = endpoint
        self.client = client if client is not None else connect(endpoint)
        self.max_tokens = endpoint.max_tokens
        self.temperature = endpoint.temperature
        self.max_listed_elements = max_listed_elements
        self.history_turns = history_turns

    def __repr__(self) -> str:
        return f"VLMPolicy({self.client!r})"

    def messages(self, case: TestCase, obs: Observation, history: list[str], marked_png: bytes, final: bool):
        """The chat messages of one turn."""
        listed = [e.describe() for e in obs.elements[: self.max_listed_elements]]
        if len(obs.elements) > len(listed):
            listed.append(f"... and {len(obs.elements) - len(listed)} more (marked on the screenshot)")
        past = history[-self.history_turns :] if self.history_turns else []
        lines = [f"Task: {case.task}", f"Expected result: {case.expected_result or '(not stated)'}", ""]
        lines += ["Previous actions:", *(past or ["(none yet)"]), ""]
        lines += [f"Interactive elements ({obs.steps_left} actions left):", *(listed or ["(none)"]), ""]
        lines.append(FINAL_PROMPT if final else "Your next action (one JSON object):")
        user = user_message("\n".join(lines), images=[marked_png], images_first=True)
        return [{"role": "system", "content": SYSTEM_PROMPT}, user]

    async def _ask(self, env: GuiEnv, messages: list[dict[str, Any]]) -> str:
        # a request may not outlive the episode: the runner would cancel the whole case otherwise
        budget = max(env.remaining_s, 0.05)
        reply = await asyncio.wait_for(
            self.client.chat(messages, temperature=self.temperature, max_tokens=self.max_tokens), budget
        )
        return reply.text

    async def _next_action(self, env: GuiEnv, messages: list[dict[str, Any]]) -> tuple[ParsedAction | None, str]:
        text = await self._ask(env, messages)
        action = parse_action(text)
        if action is None:
            logger.debug("unparseable VLM reply %r; asking again", text[:200])
            retry = [*messages, {"role": "assistant", "content": text}, {"role": "user", "content": CORRECTION_PROMPT}]
            text = await self._ask(env, retry)
            action = parse_action(text)
        return action, text

    async def run_case(self, env: GuiEnv, case: TestCase) -> CaseResult:
        """Run one case to a verdict; never raises for the page's or the model's behaviour."""
        history: list[str] = []
        wasted = 0

        def result(verdict: Verdict, error: str | None, *details: str) -> CaseResult:
            notes = (*details, f"wasted steps: {wasted}", *history)
            return CaseResult(case.task, verdict, env.steps_taken, error, tuple(notes))

        while True:
            if env.done:
                return result(Verdict.NO, env.error or "the episode ended without an answer")
            try:
                obs = await env.observe()
            except PageHung:
                return result(Verdict.NO, env.error)
            except Exception as exc:  # e.g. the document is being replaced; the page, not the policy, failed
                env.end(f"observe failed: {type(exc).__name__}: {str(exc)[:200]}")
                return result(Verdict.NO, env.error)
            final = obs.steps_left <= 0
            try:
                messages = self.messages(case, obs, history, draw_marks(obs.png, obs.elements), final)
                action, text = await self._next_action(env, messages)
            except asyncio.TimeoutError:
                env.end(f"deadline: episode exceeded {env.deadline_ms:g} ms waiting for the model")
                return result(Verdict.NO, env.error)
            except ChatError as exc:
                return result(Verdict.NO, f"vlm: {exc}")
            if action is not None and action.kind == "answer":
                verdict = Verdict(action.verdict) if action.verdict else Verdict.NO
                await env.act(Action("answer", value=verdict.value))
                error = None if action.verdict else f"answer without a YES/PARTIAL/NO verdict: {text[:200]!r}"
                return result(verdict, error, f"answer: {verdict.value} {action.reason or ''}".strip())
            if final:
                why = "no action" if action is None else f"a {action.kind!r} action"
                return result(Verdict.NO, f"step limit: {env.step_limit} actions used; the model then gave {why}")
            if action is None:
                wasted += 1
                outcome = await env.act(Action("wait", value="0"))  # a wasted step still counts toward the limit
                history.append(f"{len(history) + 1}. (unreadable reply: {text[:80]!r}) -> wasted")
            else:
                env_action = to_env_action(action, obs)
                outcome = await env.act(env_action)
                status = "ok" if outcome.ok else f"failed: {outcome.error}"
                history.append(f"{len(history) + 1}. {describe(action)} -> {status}")
            if outcome.done:  # hang, navigation away, deadline
                return result(Verdict.NO, env.error or outcome.error)

    async def aclose(self) -> None:
        await self.client.aclose()


def resolve_element_text(text: str, obs: Observation) -> int | str:
    """An element named by its text -> its number in ``obs`` (exact, then substring match, case-insensitive);
    otherwise a Playwright ``text=`` selector for it."""
    wanted = " ".join(text.split()).casefold()
    for exact in (True, False):
        for element in obs.elements:
            have = " ".join(element.text.split()).casefold()
            if have and (have == wanted if exact else wanted in have):
                return element.index
    return f"text={text}"


def to_env_action(action: ParsedAction, obs: Observation) -> Action:
    """Translate a parsed model action into the env's action (element numbers, selectors, values)."""
    target: int | str | None = action.element
    if target is None and action.element_text:
        target = resolve_element_text(action.element_text, obs)
    kind = action.kind
    if kind in ("click", "type", "select"):
        value = None if kind == "click" else (action.text or "")
        return Action(kind, target, value)
    if kind == "press":
        return Action("press", target, action.key or action.text or "Enter")
    if kind == "scroll":
        return Action("scroll", None, _SCROLL_UP_PX if action.direction == "up" else None)
    if kind == "wait":
        return Action("wait", None, "1000")
    return Action("back")


def describe(action: ParsedAction) -> str:
    """A short history line for an action, e.g. ``click [3]`` or ``type [5] 'bob'``."""
    target = f"[{action.element}]" if action.element is not None else repr(action.element_text or "")
    if action.kind == "click":
        return f"click {target}"
    if action.kind in ("type", "select"):
        return f"{action.kind} {target} {action.text or ''!r}"
    if action.kind == "press":
        return f"press {action.key or 'Enter'}"
    if action.kind == "scroll":
        return f"scroll {action.direction or 'down'}"
    return action.kind
