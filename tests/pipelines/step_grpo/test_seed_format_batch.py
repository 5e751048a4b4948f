"""One real Step-GRPO batch in WebGen-Agent's format (``--agent_format webgen_agent``): the tiny model's trainer,
replayed Bolt replies, a static project rendered by real Chromium, the seed's VLM on loopback (appearance 4).

- trajectory 0: a page (appearance 4), then ``screenshot_validated`` (no GUI agent here: grade 0, added to turn 1);
- trajectory 1: a repeating reply (-1), then the page (4).
"""

from __future__ import annotations

import pytest

from tests.pipelines.step_grpo.test_batch import runs, tiny_model  # noqa: F401 (a fixture)
from tests.sites.test_seed_format import VALIDATED, SeedVLM
from vcoder.sites.seed_rules import has_repetition

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPEATING = "<div class='card'>item</div>\n" * 12  # short enough not to reach the 400-token cap
PAGE = """A counter page.
<boltArtifact id="counter" title="Counter">
<boltAction type="file" filePath="index.html"><!doctype html><html><body style="background:#fff">
<h1>Counter</h1><button>+</button></body></html></boltAction>
</boltArtifact>"""


def test_a_seed_format_batch(tiny_model, tmp_path):  # noqa: F811
    import torch

    from tests.pipelines.step_grpo.scripted import ScriptedTurns
    from vcoder.chat import Endpoint, connect
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe
    from vcoder.rendering import get_default_pool
    from vcoder.sites.seed_services import seed_services

    torch.set_num_threads(1)
    assert has_repetition(REPEATING)
    with SeedVLM(appearance=4) as vlm:
        argv = ["--config", "configs/step_grpo/tiny_cpu.yaml", "--model_name_or_path", tiny_model]
        argv += ["--output_dir", str(tmp_path / "run"), "--site_task_samples", "1", "--max_turns", "2"]
        argv += ["--max_turn_tokens", "400", "--max_completion_length", "2048", "--agent_format", "webgen_agent"]
        argv += ["--judge_base_url", vlm.base_url, "--judge_model", "vlm"]
        script_args, training_args, model_args = parse_recipe(step_grpo.make_parser(), argv)
        assert script_args.turn_format == "bolt"
        grader = seed_services(
            connect(Endpoint(vlm.base_url, "vlm")), pool=get_default_pool(), options=script_args.episode_options()
        )
        trainer = step_grpo.build_trainer(script_args, training_args, model_args, grader=grader)
        trainer.model.train()
        replies = [[PAGE, VALIDATED], [REPEATING, PAGE]]
        trainer.generator = ScriptedTurns(trainer.chat.tokenizer, replies, trainer.eos_token_ids)
        seen, advantages = [], trainer._token_advantages

        def keep(trajectories, *rest):  # the trajectories are the trainer's only while one batch is built
            seen.extend(trajectories)
            return advantages(trajectories, *rest)

        trainer._token_advantages = keep
        batch = next(iter(trainer.get_train_dataloader()))
        out = trainer._generate_and_score_completions(batch)
        trajectories = seen
    assert [t.step_rewards() for t in trajectories] == [[4, None], [-1.0, 4]]
    tok = trainer.chat.tokenizer
    n = out["completion_mask"].sum(dim=1).tolist()
    for b in range(2):
        ids = out["completion_ids"][b, : n[b]].tolist()
        segments = runs(out["advantages"][b, : n[b]].tolist(), out["tool_mask"][b, : n[b]].tolist(), ids)
        assert [m for m, _, _ in segments] == [1, 0, 1]
        feedback = tok.decode(segments[1][2])
        assert "The dependencies were installed." in feedback and "FULL updated content" in feedback
    # the system prompt the model saw is the seed's
    assert "screenshot_validated" in tok.decode(out["prompt_ids"][0])


class VoyagerVLM(SeedVLM):
    """The seed's one VLM, also driving WebVoyager: its every GUI step answers YES at once."""

    def answer(self, body: dict) -> str:
        from vcoder.gui.webvoyager import SYSTEM_PROMPT

        if body["messages"][0]["content"] == SYSTEM_PROMPT:
            self.jobs.append("webvoyager")
            return "Thought: the count changes as asked.\nAction: ANSWER; YES"
        if "Trajectory:" in str(body["messages"][-1]["content"]):
            self.summaries = getattr(self, "summaries", []) + [body["messages"][-1]["content"]]
        return super().answer(body)


def test_screenshot_validated_runs_webvoyager_on_the_served_page(tmp_path):
    import asyncio

    from tests.sites.test_seed_format import FINISH, canned
    from vcoder.chat import Endpoint, connect
    from vcoder.gui.webvoyager import WebVoyagerPolicy
    from vcoder.rendering import get_default_pool
    from vcoder.sites.records import EpisodeOptions
    from vcoder.sites.seed_episode import run_seed_episode
    from vcoder.sites.seed_services import seed_services

    policy, _ = canned(PAGE, VALIDATED, FINISH)
    options = EpisodeOptions(turn_format="bolt", agent_format="webgen_agent", gui_deadline_ms=60_000)
    with VoyagerVLM(appearance=4, gui_grade=3) as vlm:
        agent = WebVoyagerPolicy(client=connect(Endpoint(vlm.base_url, "vlm")))
        services = seed_services(
            connect(Endpoint(vlm.base_url, "vlm")), pool=get_default_pool(), options=options, gui_agent=agent
        )
        result = asyncio.run(
            run_seed_episode({"instruction": "A counter"}, policy, services, options=options, out_dir=tmp_path / "ep")
        )
    assert [s.reward for s in result.steps] == [7, None, None]  # appearance 4 + the summary's 3 on turn 1
    assert "webvoyager" in vlm.jobs and vlm.jobs[-1] == "summary"
    assert "[webpage screenshot]" in vlm.summaries[0] and "ANSWER; YES" in vlm.summaries[0]
    # the agent said YES: the test passed and no suggestions are passed on
    assert "The GUI-agent test passed" in result.messages[5]["content"]
