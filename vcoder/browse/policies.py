"""Policies beyond the scripted solver: a served model (OpenAI-compatible), and the web agent as a GUI test-case
policy, so a trained browsing agent can grade pages where a prompted VLM does by default.

``ChatPolicy`` asks an endpoint (``vcoder serve``, vLLM, ``trl vllm-serve``) for each step's action; with
``screenshots=True`` (a VLM) each step's user turn also carries the viewport's screenshot with the elements' ids
drawn on it (:func:`vcoder.browse.prompt.step_prompt`), the action space and parsing unchanged.
``WebAgentCasePolicy`` is a :class:`vcoder.gui.policy.Policy`: a WebGen-Bench test case (``task`` +
``expected_result``) becomes the intent "carry this out, then answer YES / PARTIAL / NO", the agent plays it on the
case's page with WebRL's observation and actions, and its ``exit`` message is the verdict (no ``exit`` within the
budget, or no verdict in it: NO, as the VLM policy's missing verdict is). :func:`make_agent` builds the agent a
recipe's ``gui_policy`` names (:mod:`vcoder.gui.agents`), the one place that does, for the ``gui_agent`` reward,
Step-GRPO's grader, ``vcoder eval webgen-bench`` and ``vcoder agent test`` / ``agent build``.

Example (grading a page's cases with a served agent)::

    from vcoder.gui.runner import run_cases
    policy = make_agent("text", Endpoint("http://127.0.0.1:8000/v1", "web-agent"))
    results, _ = run_cases(html, cases, policy=policy)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vcoder.browse.episode import WebPolicy, play
from vcoder.chat import Endpoint, connect
from vcoder.gui.agents import check_gui_policy
from vcoder.gui.limits import CaseLimits
from vcoder.gui.policy import CaseResult, Policy, Verdict

CASE_INTENT = (
    "Test this website: {task} The expected result: {expected} Carry the test out, then exit with the message YES if "
    "the website behaved as expected, PARTIAL if it partly did, NO if it did not."
)


class ChatPolicy:
    """A ``WebPolicy`` served over an OpenAI-compatible endpoint (one chat request per step).

    Args:
        endpoint: where the model answers (its ``max_tokens`` / ``temperature`` are used per request).
        client: a client already made from ``endpoint`` (a shared one, or a ``WatchedClient`` whose failures a
            grader reads) instead of one made at the first request.
        screenshots: send each step's marked screenshot with the text (the model is a VLM).
    """

    def __init__(self, endpoint: Endpoint, *, client: Any | None = None, screenshots: bool = False) -> None:
        if not endpoint.configured:
            raise ValueError("ChatPolicy needs an endpoint with base_url and model")
        self.endpoint, self._client, self.screenshots = endpoint, client, screenshots
        self.name = "chat_screenshot" if screenshots else "chat"

    @property
    def client(self) -> Any:
        """The chat client (None until the first request when none was given)."""
        return self._client

    async def act(self, messages: list[dict[str, Any]]) -> str:
        if self._client is None:
            self._client = connect(self.endpoint)
        reply = await self._client.chat(
            messages, temperature=self.endpoint.temperature, max_tokens=self.endpoint.max_tokens or 256
        )
        return reply.text

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


class WebAgentCasePolicy(Policy):
    """A GUI test-case policy played by a web agent (see the module docstring).

    Args:
        agent: the web agent (``ChatPolicy`` for a served model, or any ``WebPolicy``).
        step_budget: actions per case (WebGen-Bench allows 15).
    """

    name = "web_agent"

    def __init__(self, agent: WebPolicy, *, step_budget: int = 15) -> None:
        self.agent, self.step_budget = agent, step_budget

    @property
    def client(self) -> Any:
        """The agent's chat client (None for an agent without one): a grader reads a ``WatchedClient``'s failures."""
        return getattr(self.agent, "client", None)

    async def run_case(self, env: Any, case: Any) -> CaseResult:
        intent = CASE_INTENT.format(task=case.task, expected=case.expected_result or "(not stated)")
        steps, answer = await play(env, self.agent, intent, step_budget=self.step_budget)
        trace = tuple(s.action for s in steps)
        if answer is None:
            why = env.error or f"no verdict within {self.step_budget} actions"
            return CaseResult(case.task, Verdict.NO, env.steps_taken, why, trace)
        verdict = Verdict.parse(answer)
        if verdict is None:
            return CaseResult(case.task, Verdict.NO, env.steps_taken, f"no verdict in the answer {answer!r}", trace)
        return CaseResult(case.task, verdict, env.steps_taken, None, (*trace, answer))

    async def aclose(self) -> None:
        close = getattr(self.agent, "aclose", None)
        if close is not None:
            await close()


def make_agent(
    gui_policy: str,
    endpoint: Endpoint,
    *,
    client: Any | None = None,
    wrap: Callable[[Any], Any] | None = None,
    step_budget: int = CaseLimits.step_limit,
) -> Policy:
    """The agent of natural-language test cases that ``gui_policy`` names (:data:`vcoder.gui.agents.GUI_POLICIES`),
    served at ``endpoint`` (its reply budget and temperature per request): the one place that turns ``gui_policy``
    into an agent, for the ``gui_agent`` reward, Step-GRPO's grader, WebGen-Bench's task runner and ``vcoder agent
    test`` / ``agent build`` (``tests/test_architecture.py`` fails on an agent built anywhere else).

    Args:
        gui_policy: ``vlm`` (:class:`~vcoder.gui.vlm_policy.VLMPolicy`), ``text`` or ``text_screenshot`` (the web
            agent, :class:`WebAgentCasePolicy`, without or with the marked screenshot).
        endpoint: the agent's server and request settings (:func:`vcoder.gui.agents.gui_endpoint` builds it from
            a recipe's ``gui_*`` fields).
        client: a client already made from ``endpoint`` (a shared one, or one under watch).
        wrap: applied to a new client made now (e.g. ``WatchedClient``, so a server failure is charged to its task)
            when ``client`` is not given.
        step_budget: the web agent's WebRL actions per case (the recipe's ``gui_step_limit``; ``Search`` is two of
            the GUI environment's actions); the VLM policy's limit is the GUI environment's.

    Returns:
        A :class:`vcoder.gui.policy.Policy` for ``run_cases``.

    Raises:
        ValueError: an unknown ``gui_policy`` (with the nearest choice).

    Example:
        >>> make_agent("text", Endpoint("http://127.0.0.1:9", "web-agent"), step_budget=4).step_budget
        4
    """
    from vcoder.gui.vlm_policy import VLMPolicy

    check_gui_policy(gui_policy)
    if client is None and (wrap is not None or gui_policy == "vlm"):
        client = connect(endpoint)  # the web agent's own ChatPolicy connects at its first request otherwise
        if wrap is not None:
            client = wrap(client)
    if gui_policy == "vlm":
        return VLMPolicy(endpoint, client=client)
    screenshots = gui_policy == "text_screenshot"
    return WebAgentCasePolicy(ChatPolicy(endpoint, client=client, screenshots=screenshots), step_budget=step_budget)


def gui_agent_from_endpoint(gui_policy: str, endpoint: Endpoint, **options: Any) -> Policy:
    """Retired name of :func:`make_agent` (same arguments), with a deprecation warning."""
    import warnings

    warnings.warn("gui_agent_from_endpoint is now vcoder.browse.policies.make_agent", DeprecationWarning, stacklevel=2)
    return make_agent(gui_policy, endpoint, **options)
