"""One real Step-GRPO batch, dumped and checked against hand-derived values: the tiny model's trainer, real Chromium
grading the sites of replayed replies (known sites, so known step rewards), TRL's own batch assembly.

Task: the generated counter (count starts at 0, buttons +3 / -3 / Reset; four scripted cases). Replies:
- trajectory 0: a page with only the + button (1 of 4 cases: step reward 2.5), then the complete page and finish (10);
- trajectory 1: prose without a file block (malformed: -1), then the + button page (2.5).
The appearance is not judged (no judge), so a step reward is 10 x the case score (the GUI weight rescaled to the
full scale) and -1 for a malformed turn.
"""

from __future__ import annotations

import json
import math

import pytest

from tests.pipelines.step_grpo.scripted import ScriptedTurns, counter_replies
from vcoder.pipelines.step_grpo.generation import TransformersTurns, TurnRequest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

# the pool of step rewards [2.5, 10, -1, 2.5]: mean 3.5, sample variance (1 + 42.25 + 20.25 + 1) / 3 = 21.5
STD = math.sqrt(21.5)
Z = {2.5: (2.5 - 3.5) / STD, 10.0: 6.5 / STD, -1.0: -4.5 / STD}
WANT = {
    # per trajectory, per reply: its advantage
    "step": [[Z[2.5], Z[10.0]], [Z[-1.0], Z[2.5]]],
    # reward-to-go of the z-scores
    "cumulative": [[Z[2.5] + Z[10.0], Z[10.0]], [Z[-1.0] + Z[2.5], Z[2.5]]],
    # trajectory reward = its max step reward (10 vs 2.5), z-scored over the two: +-1/sqrt(2) on every step
    "naive": [[1 / math.sqrt(2)] * 2, [-1 / math.sqrt(2)] * 2],
}


@pytest.fixture(scope="module")
def tiny_model(tiny_vlm_dir):
    return str(tiny_vlm_dir)  # the session's tiny VLM, built once


def make_trainer(model, out, *flags):
    from vcoder.gui.scripted import ScriptedPolicy
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe
    from vcoder.rendering import get_default_pool
    from vcoder.sites.grading import SiteGrader

    argv = ["--config", "configs/step_grpo/tiny_cpu.yaml", "--model_name_or_path", model, "--output_dir", str(out)]
    argv += ["--site_task_samples", "1", "--max_turn_tokens", "400", "--max_completion_length", "2048", *flags]
    # the replayed pages answer at once (inline handlers): an unmet expectation need not be re-checked for 5 s
    grader = SiteGrader(pool=get_default_pool(), scripted=ScriptedPolicy(expect_timeout_ms=1000))
    trainer = step_grpo.build_trainer(*parse_recipe(step_grpo.make_parser(), argv), grader=grader)
    trainer.model.train()
    return trainer


def rollout(trainer, scripts):
    from vcoder.data.site_kinds.pages import site_tasks

    partial, full = counter_replies(site_tasks(1)[0]["instruction"])
    named = {"partial": partial, "full": full, "prose": "I will build the counter now."}
    replies = [[named.get(r, r) for r in script] for script in scripts]
    trainer.generator = ScriptedTurns(trainer.chat.tokenizer, replies, trainer.eos_token_ids)
    batch = next(iter(trainer.get_train_dataloader()))
    return trainer._generate_and_score_completions(batch), replies


def runs(values, mask, ids):
    """Consecutive (mask, advantage) runs of a row's completion: [(mask, advantage, ids)]."""
    out = []
    for m, a, i in zip(mask, values, ids):
        if not out or out[-1][0] != m or out[-1][1] != a:
            out.append((m, a, []))
        out[-1][2].append(i)
    return out


def test_advantages_and_masks_of_a_real_batch(tiny_model, tmp_path):
    import torch

    torch.set_num_threads(1)
    trainer = make_trainer(tiny_model, tmp_path / "run")
    out, replies = rollout(trainer, [["partial", "full"], ["prose", "partial"]])
    tok = trainer.chat.tokenizer
    n = out["completion_mask"].sum(dim=1).tolist()
    dump = {
        "completion_ids": [row[:k] for row, k in zip(out["completion_ids"].tolist(), n)],
        "env_mask": [row[:k] for row, k in zip(out["tool_mask"].tolist(), n)],
        "advantages": [row[:k] for row, k in zip(out["advantages"].tolist(), n)],
    }
    (tmp_path / "batch.json").write_text(json.dumps(dump))
    dump = json.loads((tmp_path / "batch.json").read_text())
    assert out["advantages"].shape == out["completion_ids"].shape  # per-token (B, T), what TRL's loss takes

    for b, script in enumerate(replies):
        segments = runs(dump["advantages"][b], dump["env_mask"][b], dump["completion_ids"][b])
        # reply 1 (model), feedback (environment), reply 2 (model): the episode's two turns and one feedback
        assert [m for m, _, _ in segments] == [1, 0, 1]
        (_, a1, r1), (_, a0, env), (_, a2, r2) = segments
        # each reply's tokens are exactly the reply as generated (and its end-of-turn), with its step's advantage
        assert tok.decode(r1) == script[0] + "<|im_end|>" and tok.decode(r2) == script[1] + "<|im_end|>"
        assert [a1, a2] == pytest.approx(WANT["step"][b], abs=1e-6)
        # the feedback turn is the environment's: masked out of the loss, advantage 0, templated as a user turn
        assert a0 == 0.0
        text = tok.decode(env)
        assert text.startswith("\n<|im_start|>user\nTurn 1 of 2:") and text.endswith("<|im_start|>assistant\n")
        # padding carries nothing either
        assert out["advantages"][b, len(dump["advantages"][b]) :].abs().sum().item() == 0.0
    assert "rejected and changed nothing" in tok.decode(
        runs(*[dump[k][1] for k in ("advantages", "env_mask", "completion_ids")])[1][2]
    )

    # the logs of this batch (means over the 4 steps / the 2 episodes)
    logged = {k: v[-1] for k, v in trainer._metrics["train"].items()}
    assert logged["step_grpo/step_reward_mean"] == 3.5
    assert logged["step_grpo/gui_mean"] == pytest.approx(0.5)  # (0.25 + 1 + 0.25) / 3 well-formed steps
    assert logged["step_grpo/malformed_rate"] == 0.25 and logged["step_grpo/turns_mean"] == 2.0
    assert logged["step_grpo/finish_rate"] == 0.5 and logged["step_grpo/error_rate"] == 0.0
    assert logged["rewards/site_final_reward/mean"] == pytest.approx((10.0 + 2.5) / 2)  # the final steps' rewards
    assert "step_grpo/screenshot_mean" not in logged  # nothing judged the appearance


def test_the_ablation_modes_differ_as_defined(tiny_model, tmp_path):
    import torch

    torch.set_num_threads(1)
    for mode in ("cumulative", "naive"):
        trainer = make_trainer(tiny_model, tmp_path / mode, "--ablation", mode)
        out, _ = rollout(trainer, [["partial", "full"], ["prose", "partial"]])
        for b in range(2):
            n = int(out["completion_mask"][b].sum())
            mask, values = out["tool_mask"][b][:n].tolist(), out["advantages"][b][:n].tolist()
            model_runs = [a for m, a, _ in runs(values, mask, mask) if m == 1]
            assert model_runs == pytest.approx(WANT[mode][b], abs=1e-6), mode


def test_screenshot_feedback_for_a_vlm_policy_with_mixed_image_sizes(tiny_model, tmp_path):
    import torch

    torch.set_num_threads(1)
    trainer = make_trainer(tiny_model, tmp_path / "vlm", "--feedback_images", "true", "--num_iterations", "2")
    trainer.current_gradient_accumulation_steps = 1  # set by the training loop, read by the loss
    tall = '<file path="index.html">\n<p id="count">0</p><div style="height:1400px;background:#4f46e5"></div>\n</file>'
    out, _ = rollout(trainer, [["partial", "full"], [tall, "partial"]])
    # one screenshot per trajectory (after turn 1), of different sizes: a wide page and a tall one
    assert out["num_images"] == [1, 1]
    (h0, w0), (h1, w1) = out["image_grid_thw"][:, 1:].tolist()
    assert w0 > h0 and h1 > w1
    token = trainer.processing_class.image_token_id
    for b in range(2):
        is_image = out["completion_ids"][b] == token
        assert is_image.sum().item() == h0 * w0 // 4 if b == 0 else h1 * w1 // 4
        assert out["tool_mask"][b][is_image].sum().item() == 0  # the screenshot is the environment's
    # the old logprobs TRL computed before the loss (num_iterations=2) saw the screenshots: they equal the loss's
    # own forward pass, which gets them from the batch, and differ from a pass without them
    ids = torch.cat([out["prompt_ids"], out["completion_ids"]], 1)
    mask = torch.cat([out["prompt_mask"], out["completion_mask"]], 1)
    width = out["completion_ids"].shape[1]
    vision = {k: out[k] for k in ("pixel_values", "image_grid_thw", "num_images", "mm_token_type_ids")}
    with torch.no_grad():
        seen, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, width, **vision)
        blind, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, width)
    model_tokens = (out["completion_mask"] * out["tool_mask"]).bool()
    assert torch.equal(out["old_per_token_logps"][model_tokens], seen[model_tokens])
    assert not torch.allclose(blind[model_tokens], seen[model_tokens])
    loss = trainer.compute_loss(trainer.model, out)
    assert torch.isfinite(loss)
    # in-process generation continues trajectories whose contexts hold screenshots of different sizes, in one batch
    from PIL import Image

    from vcoder.data.prompts import make_site_conversation
    from vcoder.images import to_png
    from vcoder.sites.feedback import feedback_message

    prompt, _ = trainer.chat.prompt(make_site_conversation("A counter"))
    requests = []
    for size in ((200, 600), (300, 120)):
        env, images = trainer.chat.feedback(feedback_message("Looks blue.", to_png(Image.new("RGB", size, "blue"))))
        requests.append(TurnRequest(prompt + [trainer.chat.end_of_turn] + env, 3, images=images))
    replies = TransformersTurns(trainer).generate(requests)
    assert [1 <= len(r.ids) <= 3 for r in replies] == [True, True]


# run by torchrun in two processes: one trajectory per process, the two trajectories of the task's group on two ranks
TWO_RANKS = """
import json, sys
import torch
from accelerate import PartialState
sys.path.insert(0, {root!r})
from tests.pipelines.step_grpo.test_batch import make_trainer, rollout
torch.set_num_threads(1)
rank = PartialState(cpu=True).process_index
trainer = make_trainer({model!r}, {out!r}, "--per_device_train_batch_size", "1")
script = [["partial", "full"], ["prose", "partial"]][rank]
out, _ = rollout(trainer, [script])
n = int(out["completion_mask"][0].sum())
dump = {{"mask": out["tool_mask"][0][:n].tolist(), "advantages": out["advantages"][0][:n].tolist()}}
open(f"{out_dir}/rank{{rank}}.json", "w").write(json.dumps(dump))
"""


def test_a_group_split_across_two_processes_gets_the_same_advantages(tiny_model, tmp_path):
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    script = tmp_path / "two_ranks.py"
    script.write_text(TWO_RANKS.format(root=root, model=tiny_model, out=str(tmp_path / "run"), out_dir=str(tmp_path)))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TRL_EXPERIMENTAL_SILENCE": "1", "PYTHONPATH": root}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", str(script)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200, cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for rank in (0, 1):
        dump = json.loads((tmp_path / f"rank{rank}.json").read_text())
        model_runs = [a for m, a, _ in runs(dump["advantages"], dump["mask"], dump["mask"]) if m == 1]
        # each rank holds its own trajectory's values, pooled with the other rank's steps
        assert model_runs == pytest.approx(WANT["step"][rank], abs=1e-6)
