"""The Step-GRPO recipe builds its value objects once and every grading service receives them whole: the judge and
the GUI agent get the recipe's ``Endpoint`` (not a loose base_url / model / timeout copied out of it), the GUI agent's
web-agent form its ``CaseLimits`` step budget, the test writer its own ``Endpoint``."""

from __future__ import annotations

from vcoder.chat import Endpoint
from vcoder.gui.limits import CaseLimits
from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments
from vcoder.pipelines.step_grpo.grading import build_grader

SERVED = dict(
    judge_base_url="http://127.0.0.1:9",
    judge_model="judge-vlm",
    judge_timeout_ms=7_000,
    gui_base_url="http://127.0.0.1:8",
    gui_model="gui-vlm",
    gui_timeout_ms=9_000,
)


def test_the_recipe_builds_its_value_objects():
    from vcoder.gui.judge import JUDGE_DEFAULTS

    args = StepGRPOScriptArguments(**SERVED, gui_step_limit=6, gui_deadline_ms=12_000)
    assert args.judge_endpoint() == JUDGE_DEFAULTS.replace(
        base_url=SERVED["judge_base_url"], model="judge-vlm", timeout_ms=7_000
    )
    gui = args.gui_endpoint()
    assert (gui.base_url, gui.model, gui.timeout_ms, gui.max_retries) == (SERVED["gui_base_url"], "gui-vlm", 9_000, 0)
    assert args.case_limits() == CaseLimits(step_limit=6, deadline_ms=12_000)
    # the writer defaults to the GUI agent's server and model, with its own request budget
    assert args.test_writer_endpoint() == Endpoint(SERVED["gui_base_url"], "gui-vlm", timeout_ms=60_000)
    off = StepGRPOScriptArguments()
    assert not off.judge_endpoint().configured and not off.gui_endpoint().configured


def test_the_grader_services_receive_the_recipes_endpoints():
    args = StepGRPOScriptArguments(**SERVED)
    grader = build_grader(args)
    assert grader.judge.endpoint == args.judge_endpoint()
    assert grader.gui_agent.endpoint == args.gui_endpoint()
    text = build_grader(StepGRPOScriptArguments(**SERVED, gui_policy="text", gui_step_limit=4))
    assert text.gui_agent.agent.endpoint == args.gui_endpoint() and text.gui_agent.step_budget == 4
    off = build_grader(StepGRPOScriptArguments())
    assert off.judge is None and off.gui_agent is None


def test_the_seed_loops_vlm_keeps_the_endpoints_own_request_defaults():
    """In WebGen-Agent's loop ``judge_*`` is its VLM; it keeps ``Endpoint``'s retries and reply budget, not the
    screenshot judge's (1 retry, 256 tokens), as it did before the recipe built its value objects."""
    args = StepGRPOScriptArguments(**SERVED, agent_format="webgen_agent", turn_format="bolt")
    vlm = args.seed_vlm_endpoint()
    assert vlm == Endpoint(SERVED["judge_base_url"], "judge-vlm", timeout_ms=7_000)
    assert vlm.max_retries == Endpoint().max_retries != args.judge_endpoint().max_retries
