"""Step-GRPO with ``gui_policy: text``: one real training batch whose natural-language test case is run by the web agent
(WebRL's text observation and actions) instead of the VLM, on the sites the two trajectories built (real Chromium),
against the scripted web agent on loopback (``tests.rewards.test_gui_text_policy``). The working site's step gets the
agent's YES, the broken one's its NO, so the two trajectories get opposite advantages."""

from __future__ import annotations

import glob
import json
import os

import pytest

from tests.pipelines.step_grpo.scripted import ScriptedTurns
from tests.pipelines.step_grpo.test_batch import tiny_model  # noqa: F401 (a fixture)
from tests.rewards.test_gui_text_policy import BROKEN, SPOKEN, WORKING, WebAgentServer

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def reply(html: str) -> str:
    return f'<file path="index.html">{html}</file>\n<finish/>'


@pytest.mark.timeout(300)
def test_a_step_grpo_batch_grades_natural_language_cases_with_the_web_agent(tiny_model, tmp_path):  # noqa: F811
    import torch

    from vcoder.browse.policies import WebAgentCasePolicy
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe

    torch.set_num_threads(1)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "counter", "instruction": "A click counter", "test_cases": [SPOKEN]}) + "\n")
    out = tmp_path / "run"
    with WebAgentServer() as agent:
        argv = ["--config", "configs/step_grpo/tiny_cpu.yaml", "--model_name_or_path", tiny_model]
        argv += ["--output_dir", str(out), "--dataset", str(tasks), "--max_turns", "1", "--save_episodes", "true"]
        argv += ["--gui_base_url", agent.base_url, "--gui_model", "web-agent", "--gui_policy", "text"]
        argv += ["--max_turn_tokens", "400", "--max_completion_length", "1024", "--gui_deadline_ms", "15000"]
        trainer = step_grpo.build_trainer(*parse_recipe(step_grpo.make_parser(), argv))
        trainer.model.train()
        trainer.generator = ScriptedTurns(
            trainer.chat.tokenizer, [[reply(WORKING)], [reply(BROKEN)]], trainer.eos_token_ids
        )
        batch = next(iter(trainer.get_train_dataloader()))
        scored = trainer._generate_and_score_completions(batch)
    assert isinstance(trainer.grader.gui_agent, WebAgentCasePolicy)  # built from the recipe's gui_policy
    paths = sorted(glob.glob(os.path.join(out, "episodes", "*", "*", "**", "step.json"), recursive=True))
    steps = [json.loads(open(p).read()) for p in paths]
    assert sorted(s["gui"] for s in steps) == [0.0, 1.0]
    assert sorted(c["verdict"] for s in steps for c in s["cases"]) == ["NO", "YES"]
    # the agent read WebRL's prompt and observation (the VLM agent's would be a screenshot and a JSON action list)
    assert all(p.startswith("Task: Test this website: Click the button") for p in agent.prompts)
    assert any('<button id="1">Clicked 1</button>' in p for p in agent.prompts)
    advantages = scored["advantages"]
    assert advantages.abs().sum().item() > 0  # the two sites are told apart
