"""Replay for the Step-GRPO agent (WebRL's past successes as RL data of a phase), on the real tiny model:

- a recorded 3-turn trajectory's loss term against hand-computed values (only the model's turns count, each with
  its step's recorded advantage), and its gradient against TRL's own GRPO loss on a batch holding the trajectory;
- the perplexity window choosing recorded trajectories by the geometric-mean probability of the model's tokens;
- a real two-phase curriculum (real Chromium grading the sites) whose phase 1 replays phase 0's successes.
"""

from __future__ import annotations

import math
import os

import pytest

from tests.pipelines.runs import ROOT
from vcoder.pipelines.curriculum.replay import ReplayLossMixin, replay_filter, trajectory_probs
from vcoder.pipelines.step_grpo.recorded import RecordedTrajectory

pytestmark = [pytest.mark.slow]

RECIPE = os.path.join(ROOT, "configs", "step_grpo", "tiny_cpu.yaml")


@pytest.fixture(scope="module")
def trainer(tiny_vlm_dir, tmp_path_factory):
    import torch

    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe
    from vcoder.pipelines.step_grpo.trainer import StepGRPOTrainer

    torch.manual_seed(0)
    out = tmp_path_factory.mktemp("step-replay")
    argv = ["--config", RECIPE, "--model_name_or_path", str(tiny_vlm_dir), "--output_dir", str(out)]
    cls = type("ReplayStepGRPOTrainer", (ReplayLossMixin, StepGRPOTrainer), {})
    built = step_grpo.build_trainer(*parse_recipe(step_grpo.make_parser(), argv), trainer_cls=cls)
    built.model.train()
    return built


def _trajectory(trainer, replies: list[str], advantages: list[float]) -> RecordedTrajectory:
    """A recorded trajectory built the way the rollout builds one: templated prompt, each reply's tokens and its
    end-of-turn (turn k), the feedback turn's template tokens between replies (turn 0)."""
    from vcoder.data.prompts import make_site_conversation

    chat = trainer.chat
    prompt, _ = chat.prompt(make_site_conversation("A counter that starts at 0 with a '+ 1' button."))
    ids, turns = [], []
    for k, text in enumerate(replies, 1):
        if k > 1:
            env, _ = chat.feedback({"role": "user", "content": f"Turn {k - 1}: 1 of 4 test cases passed."})
            ids += env
            turns += [0] * len(env)
        reply = chat.tokenizer(text, add_special_tokens=False)["input_ids"] + [chat.end_of_turn]
        ids += reply
        turns += [k] * len(reply)
    return RecordedTrajectory(prompt, ids, turns, [2.5, 10.0, 10.0][: len(replies)], advantages)


def _hand_logps(trainer, recorded: RecordedTrajectory) -> list[float]:
    """log p of every completion token from a plain forward pass (an independent path from TRL's fused head)."""
    import torch

    ids = torch.tensor([recorded.prompt_ids + recorded.completion_ids])
    with torch.no_grad():
        logits = trainer.model(input_ids=ids).logits[0, :-1].float() / trainer.temperature
    logps = torch.log_softmax(logits, -1).gather(1, ids[0, 1:, None])[:, 0]
    return logps[len(recorded.prompt_ids) - 1 :].tolist()


def test_replayed_trajectory_loss_is_the_recorded_step_advantages_on_the_models_turns(trainer):
    import torch

    # three replies, feedback between them; recorded step advantages -0.5, 0.25, 1.0 (e.g. a malformed first turn)
    recorded = _trajectory(trainer, ["<p>0</p>", "<button>+ 1</button>", "<finish/>"], [-0.5, 0.25, 1.0])
    turns = recorded.turns
    n = [turns.count(k) for k in (1, 2, 3)]
    assert n == [6, 9, 8] and turns.count(0) > 0  # reply tokens (end-of-turn included); feedback tokens in between
    lp = _hand_logps(trainer, recorded)
    s = [sum(v for v, t in zip(lp, turns) if t == k) for k in (1, 2, 3)]  # sum of log p per reply
    # L = -(A1 * s1 + A2 * s2 + A3 * s3) / (n1 + n2 + n3) = -(-0.5 s1 + 0.25 s2 + 1.0 s3) / (6 + 9 + 8)
    hand = -(-0.5 * s[0] + 0.25 * s[1] + 1.0 * s[2]) / 23
    everything = -(sum(a * v for a, v in zip(recorded.token_advantages(), lp))) / len(lp)  # feedback in the mean
    assert hand != pytest.approx(everything, rel=1e-3)

    class Base:
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            return torch.tensor(1.0)

    # the mixin's term on the real trainer's forward pass (the base loss stands in as 1.0)
    mixed = type("T", (ReplayLossMixin, Base), {"recorded_logps": trainer.recorded_logps})()
    mixed.set_replay([{}], ["trajectory"], weight=0.5, batch_size=1, mode="rl", trajectories=[recorded])
    loss = mixed.compute_loss(trainer.model, {})
    assert float(loss.detach()) == pytest.approx(1.0 + 0.5 * hand, rel=1e-4)
    assert mixed.replay_used == {0}
    assert mixed.replay_nll == [pytest.approx(-(s[0] + s[1] + s[2]) / 23, rel=1e-4)]  # NLL of the model's 23 tokens
    mixed.set_replay([{}], ["trajectory"], weight=0.5, batch_size=1, mode="sft", trajectories=[recorded])
    assert float(mixed.compute_loss(trainer.model, {}).detach()) == pytest.approx(1.0 + 0.5 * -sum(s) / 23, rel=1e-4)

    # its gradient is the Step-GRPO step TRL's own loss takes on a batch holding the trajectory with these per-token
    # advantages (on-policy ratio 1, dapo: summed over the 23 model tokens / 23)
    trainer.set_replay([{}], ["trajectory"], weight=1.0, batch_size=1, mode="rl", trajectories=[recorded])
    width = len(recorded.completion_ids)
    batch = {
        "prompt_ids": torch.tensor([recorded.prompt_ids]),
        "prompt_mask": torch.ones(1, len(recorded.prompt_ids), dtype=torch.long),
        "completion_ids": torch.tensor([recorded.completion_ids]),
        "completion_mask": torch.ones(1, width, dtype=torch.long),
        "tool_mask": torch.tensor([recorded.model_mask()]),
        "advantages": torch.tensor([recorded.token_advantages()]),
        "num_items_in_batch": torch.tensor(23.0),
    }
    trainer.current_gradient_accumulation_steps = 1
    trainer.model.zero_grad()
    trainer._compute_loss(trainer.model, batch).backward()
    trl_grads = [p.grad.clone() for p in trainer.model.parameters() if p.grad is not None]
    trainer.model.zero_grad()
    term = trainer._trajectory_term(trainer.model, [0])
    assert float(term.detach()) == pytest.approx(hand, rel=1e-4)
    term.backward()
    ours = [p.grad for p in trainer.model.parameters() if p.grad is not None]
    assert len(ours) == len(trl_grads) and any(g.abs().sum() > 0 for g in ours)
    for a, b in zip(ours, trl_grads):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    trainer.model.zero_grad()


def test_perplexity_window_chooses_trajectories_by_the_models_tokens(trainer):
    records = [
        _trajectory(trainer, ["<p>0</p>", "<button>+ 1</button>"], [0.5, 1.0]),
        _trajectory(trainer, ["zq zq zq zq", "qz"], [0.5, 1.0]),
        _trajectory(trainer, ["<finish/>"], [1.0]),
    ]
    probs = trajectory_probs(trainer, [*records, None])
    for recorded, p in zip(records, probs):
        lp = _hand_logps(trainer, recorded)
        mine = [v for v, m in zip(lp, recorded.model_mask()) if m]
        assert p == pytest.approx(math.exp(sum(mine) / len(mine)), rel=1e-4)  # exp(mean log p), model tokens only
        if 0 in recorded.turns:  # the feedback tokens are not in the mean
            assert p != pytest.approx(math.exp(sum(lp) / len(lp)), rel=1e-3)
    assert probs[3] is None  # a buffer item without a recorded trajectory
    low, mid, high = sorted(range(3), key=lambda i: probs[i])
    # a window (low, high] around the middle trajectory's probability keeps it alone
    window = ((probs[low] + probs[mid]) / 2, (probs[mid] + probs[high]) / 2)
    kept, counts = replay_filter(probs, low=window[0], high=window[1])
    assert kept == [mid] and counts == {"kept": 1, "dropped_easy": 1, "dropped_unlikely": 2}


@pytest.mark.browser
def test_step_grpo_phase_replays_past_successes_as_rl_data(tiny_vlm_dir, tmp_path, monkeypatch):
    """Two phases on one generated counter task. The tiny random model never writes a well-formed turn, so its
    replies are scripted (the real rollout, grading in Chromium, advantages and loss; only the sampling is
    replaced): trajectory 0 writes prose (malformed, -1) then the complete page (10), trajectory 1 the complete page
    at once (10). Both succeed in phase 0; phase 1 replays them, the window opened to (0, 0.95] because a random
    policy gives any text a low probability."""
    import json

    from tests.pipelines.step_grpo.scripted import ScriptedTurns, counter_replies
    from vcoder.pipelines.curriculum.config import config_from_mapping
    from vcoder.pipelines.curriculum.run import run_curriculum
    from vcoder.pipelines.curriculum.tasks import offline_task
    from vcoder.pipelines.step_grpo import trainer as step_trainer

    _, full = counter_replies(offline_task("counter", 0)["instruction"])

    def scripted(trainer, max_turn_tokens):
        return ScriptedTurns(trainer.chat.tokenizer, [["I will build it.", full], [full]], trainer.eos_token_ids)

    monkeypatch.setattr(step_trainer, "turn_generator", scripted)
    config = config_from_mapping(
        {
            "trainer": "step_grpo",
            "train_recipe": RECIPE,
            "model_name_or_path": str(tiny_vlm_dir),
            "train_overrides": {"max_steps": 1, "max_turn_tokens": 400, "max_completion_length": 2048},
            "phases": 2,
            "kinds": ["counter"],
            "initial_pool_size": 1,
            "new_tasks_per_phase": 1,
            "replay_weight": 0.5,
            "replay_low": 0.0,
            "replay_batch_size": 2,
        }
    )
    summary = run_curriculum(config, tmp_path / "run")
    first, second = summary["phases"]
    assert first["success_rate"] == 1.0 and first["replay"]["kept"] == 0  # nothing to replay yet
    buffer = [json.loads(line) for line in open(tmp_path / "run" / "phase_0" / "replay_buffer.jsonl")]
    assert len(buffer) == 2
    two_turns = next(item["trajectory"] for item in buffer if max(item["trajectory"]["turns"]) == 2)
    assert two_turns["step_rewards"] == [-1.0, 10.0]
    # the group's step rewards [-1, 10, 10]: mean 19/3, sample std sqrt(121/3); z = -sqrt(4/3) and +sqrt(1/3)
    assert two_turns["advantages"] == pytest.approx([-math.sqrt(4 / 3), math.sqrt(1 / 3)])
    assert 0 in two_turns["turns"]  # the feedback between the two replies is recorded as the environment's
    assert second["replay"] == {"kept": 2, "dropped_easy": 0, "dropped_unlikely": 0, "used_as_rl": 2}
    details = json.loads((tmp_path / "run" / "phase_1" / "details.json").read_text())
    assert len(details["replay_nll"]) == 1 and details["replay_nll"][0] > 0


@pytest.mark.browser
def test_rollout_records_what_the_batch_trained_on(tiny_vlm_dir, tmp_path):
    """A real Step-GRPO batch (scripted replies, Chromium grading, screenshot feedback to the VLM policy): each
    recorded trajectory holds the batch's completion ids, env mask and per-token advantages, and scoring it again
    (screenshots reloaded from their PNG files) gives the log-probabilities of the batch's own forward pass."""
    import json

    import torch

    from tests.pipelines.step_grpo.test_batch import make_trainer, rollout

    torch.set_num_threads(1)
    trainer = make_trainer(str(tiny_vlm_dir), tmp_path / "vlm", "--feedback_images", "true")
    trainer.trajectory_log = {}
    out, _ = rollout(trainer, [["partial", "full"], ["prose", "partial"]])
    assert len(trainer.trajectory_log) == 2
    ids = torch.cat([out["prompt_ids"], out["completion_ids"]], 1)
    mask = torch.cat([out["prompt_mask"], out["completion_mask"]], 1)
    vision = {k: out[k] for k in ("pixel_values", "image_grid_thw", "num_images", "mm_token_type_ids")}
    with torch.no_grad():
        batch_logps, _, _ = trainer._get_per_token_logps_and_entropies(
            trainer.model, ids, mask, out["completion_ids"].shape[1], **vision
        )
    for b, data in enumerate(trainer.trajectory_log.values()):
        recorded = RecordedTrajectory.from_dict(json.loads(data))
        n = len(recorded.completion_ids)
        assert recorded.completion_ids == out["completion_ids"][b, :n].tolist()
        assert recorded.model_mask() == out["tool_mask"][b, :n].tolist()
        assert recorded.token_advantages() == pytest.approx(out["advantages"][b, :n].tolist())
        # trajectory 0's screenshot after turn 1 (a malformed turn gets no screenshot: trajectory 1 has none)
        assert len(recorded.images) == out["num_images"][b] == [1, 0][b]
        assert all(os.path.isfile(path) for path in recorded.images)
        with torch.no_grad():
            again = trainer.recorded_logps(trainer.model, recorded)
        model = torch.tensor(recorded.model_mask(), dtype=torch.bool)
        torch.testing.assert_close(again[model], batch_logps[b, :n][model], rtol=1e-4, atol=1e-5)
