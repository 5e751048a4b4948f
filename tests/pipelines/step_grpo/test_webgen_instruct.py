"""Step-GRPO on WebGen-RL's own training requests, end to end on one real batch: the trainer's default grader has the
writer LLM write each task's GUI test once (kept under output_dir/gui_tests), the VLM GUI agent runs it on the built
site (real Chromium), and its YES / NO is the step's GUI score; a writer that never answers in the tag leaves the
GUI score unjudged (None), so the step has no reward and no advantage, instead of a 0."""

from __future__ import annotations

import glob
import json
import os

import pytest

from tests.pipelines.step_grpo.scripted import ScriptedTurns
from tests.pipelines.step_grpo.test_batch import tiny_model  # noqa: F401 (a fixture)
from tests.servers import ScriptedServer

pytestmark = [pytest.mark.slow, pytest.mark.browser]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SEED_FILE = os.path.join(ROOT, "..", "shared", "data", "webgen_rl", "webgen-agent_train_step-grpo.jsonl")
SITE = '<file path="index.html"><h1>Scrapped cars</h1><button>Upload</button></file>\n<finish/>'
YES = json.dumps({"action": "answer", "verdict": "YES", "reason": "it works"})


def one_batch(model, out, writer_reply):
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe

    with ScriptedServer(writer_reply) as writer, ScriptedServer(YES) as agent:
        argv = ["--config", "configs/step_grpo/tiny_cpu.yaml", "--model_name_or_path", model]
        argv += ["--output_dir", str(out), "--dataset", "webgen_instruct", "--dataset_source", SEED_FILE]
        argv += ["--max_samples", "1", "--gui_base_url", agent.base_url, "--gui_model", "scripted"]
        argv += ["--test_writer_base_url", writer.base_url, "--test_writer_model", "scripted"]
        argv += ["--max_turn_tokens", "400", "--max_completion_length", "1024", "--save_episodes", "true"]
        trainer = step_grpo.build_trainer(*parse_recipe(step_grpo.make_parser(), argv))
        trainer.model.train()
        trainer.generator = ScriptedTurns(trainer.chat.tokenizer, [[SITE]], trainer.eos_token_ids)
        batch = next(iter(trainer.get_train_dataloader()))
        out_batch = trainer._generate_and_score_completions(batch)
    return trainer, out_batch, writer, agent


def step_records(out):
    """The recorded steps of every saved episode (step.json), in episode order."""
    paths = sorted(glob.glob(os.path.join(out, "episodes", "*", "*", "**", "step.json"), recursive=True))
    return [json.loads(open(p).read()) for p in paths]


@pytest.mark.skipif(not os.path.isfile(SEED_FILE), reason=f"WebGen-RL's training file is not at {SEED_FILE}")
def test_the_written_test_is_run_and_scored(tiny_model, tmp_path):  # noqa: F811
    import torch

    torch.set_num_threads(1)
    tagged = '<boltAction type="gui_agent_test">Upload an image of a scrapped car.</boltAction>'
    trainer, out, writer, agent = one_batch(tiny_model, tmp_path / "run", tagged)
    steps = step_records(tmp_path / "run")
    assert len(steps) == 2 and all(s["gui"] == 1.0 for s in steps)  # one turn each, and the agent's YES
    assert writer.chat_hits == 1  # both trajectories of the task ran the same test, written once
    assert agent.chat_hits == 2 and "Upload an image of a scrapped car." in json.dumps(agent.bodies[0])
    (cached,) = (tmp_path / "run" / "gui_tests").iterdir()
    assert json.loads(cached.read_text())["id"].startswith("train_")
    assert [c["verdict"] for s in steps for c in s["cases"]] == ["YES", "YES"]
    assert out["advantages"].abs().sum().item() == 0.0  # equal rewards: nothing to prefer


@pytest.mark.skipif(not os.path.isfile(SEED_FILE), reason=f"WebGen-RL's training file is not at {SEED_FILE}")
def test_no_written_test_leaves_the_step_unjudged(tiny_model, tmp_path, caplog):  # noqa: F811
    import torch

    torch.set_num_threads(1)
    trainer, out, writer, agent = one_batch(tiny_model, tmp_path / "run", "Test uploading images.")
    steps = step_records(tmp_path / "run")
    assert len(steps) == 2 and all(s["gui"] is None and s["reward"] is None for s in steps)  # not judged, never 0
    assert all(any("test writer gave no test" in note for note in s["notes"]) for s in steps)
    assert writer.chat_hits == 5 and agent.chat_hits == 0
    assert any("not written" in r.getMessage() and r.levelname == "ERROR" for r in caplog.records)
    assert not (tmp_path / "run" / "gui_tests").exists()
