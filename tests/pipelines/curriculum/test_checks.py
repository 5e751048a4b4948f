"""Curriculum recipes refused before any work: a task writer with one-shot GRPO, a phase-0 model not built yet."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.pipelines.runs import ROOT, run_env
from vcoder.pipelines.curriculum.config import CurriculumConfigError, config_from_mapping
from vcoder.pipelines.curriculum.run import RunFolderError, check_start_model

BASE = {"train_recipe": "configs/tiny_cpu_grpo.yaml", "model_name_or_path": "outputs/tiny-model"}
RECIPE = os.path.join(ROOT, "configs", "curriculum", "tiny_cpu.yaml")


def test_grpo_with_a_task_writer_is_refused_at_config_time():
    # the writer's tasks are kind "llm" (instruction + test cases): one-shot GRPO has no screenshot to train on
    writer = {"writer_base_url": "http://127.0.0.1:1", "writer_model": "m"}
    with pytest.raises(CurriculumConfigError, match="with trainer=grpo.*use trainer: step_grpo"):
        config_from_mapping({**BASE, **writer})
    step = {**BASE, **writer, "trainer": "step_grpo", "kinds": ["counter"], "replay_weight": 0.0}
    # written tasks have no evaluator: the ORM's verdict is their reward, so a writer needs an ORM
    with pytest.raises(CurriculumConfigError, match="but no orm_model: written tasks have no evaluator"):
        config_from_mapping(step)
    config_from_mapping({**step, "orm_model": "outputs/orm"})


def test_missing_local_model_names_the_folder_and_the_command(tmp_path):
    missing = str(tmp_path / "tiny-model")
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("# vcoder models tiny --out outputs/tiny-model\nmodel_name_or_path: outputs/tiny-model\n")
    with pytest.raises(
        RunFolderError, match="not a folder here .*make it first: vcoder models tiny --out " + re.escape(missing)
    ):
        check_start_model(missing, recipe=str(recipe))
    # the CPU recipes start from the quickstart's SFT stage, which writes DIR/sft
    moved = tmp_path / "qs" / "sft"
    with pytest.raises(
        RunFolderError,
        match="make it first: vcoder quickstart --sft-only --out " + re.escape(str(tmp_path / "qs")) + "$",
    ):
        check_start_model(str(moved), recipe=RECIPE)
    with pytest.raises(RunFolderError, match="build or download"):
        check_start_model(missing)  # no recipe header to quote
    check_start_model("Qwen/Qwen3-8B")  # a hub id: left to from_pretrained
    check_start_model(str(tmp_path))  # an existing folder


def test_cli_says_which_folder_is_missing(tmp_path):
    cmd = [sys.executable, "-m", "vcoder", "curriculum", "run", "--config", RECIPE, "--out", str(tmp_path / "run")]
    cmd += ["--set", f"train_recipe={os.path.join(ROOT, 'configs', 'tiny_cpu_grpo.yaml')}"]
    env = run_env(PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "vcoder curriculum: model_name_or_path='outputs/quickstart-sft/sft' is not a folder here "
        f"({tmp_path / 'outputs' / 'quickstart-sft' / 'sft'}); make it first: vcoder quickstart --sft-only --out "
        "outputs/quickstart-sft"
    ]


def test_webrl_settings_are_checked():
    config = config_from_mapping({**BASE, "algorithm": "webrl", "predictor": "critic"})
    assert config.algorithm == "webrl" and config.critic_learning_rate == 1e-3
    with pytest.raises(CurriculumConfigError, match="did you mean 'webrl'"):
        config_from_mapping({**BASE, "algorithm": "webrI"})
    with pytest.raises(CurriculumConfigError, match="algorithm=webrl with trainer=step_grpo"):
        config_from_mapping(
            {**BASE, "algorithm": "webrl", "trainer": "step_grpo", "kinds": ["counter"], "replay_weight": 0.0}
        )
    with pytest.raises(CurriculumConfigError, match="only WebRL trains a critic"):
        config_from_mapping({**BASE, "predictor": "critic"})
    with pytest.raises(CurriculumConfigError, match="critic_learning_rate"):
        config_from_mapping({**BASE, "algorithm": "webrl", "critic_learning_rate": 0.0})


def test_run_folders_from_before_the_webrl_settings_still_resume():
    import hashlib
    import json

    # replay as an SFT term was the only form then: such a folder resumes with replay_mode: sft
    config = config_from_mapping({**BASE, "replay_mode": "sft"})
    later = (
        "algorithm",
        "critic_learning_rate",
        "replay_mode",
        "heldout_size",
        "heldout_seed",
        "heldout_split",
        "seed",
    )
    older = {k: v for k, v in config.to_dict().items() if k not in later}
    # the fingerprint a phase folder written before these settings existed recorded
    digest = hashlib.sha256(json.dumps({k: v for k, v in older.items() if k != "phases"}, sort_keys=True).encode())
    assert config.fingerprint() == digest.hexdigest()[:16]
    assert config.differences(older) == []
    webrl = config_from_mapping({**BASE, "algorithm": "webrl", "replay_mode": "sft"})
    assert webrl.fingerprint() != config.fingerprint()
    assert webrl.differences(older) == ["algorithm: 'grpo' -> 'webrl'"]
    # the default is now replay as RL data: an old folder is refused, not resumed with another objective
    assert config_from_mapping(dict(BASE)).differences(older) == ["replay_mode: 'sft' -> 'rl'"]


def test_heldout_split_is_checked_and_a_held_out_folder_from_before_the_content_split_is_refused():
    held = config_from_mapping({**BASE, "heldout_size": 24})
    assert held.heldout_split == "test"
    assert config_from_mapping({**BASE, "heldout_size": 24, "heldout_split": "heldout"}).heldout_split == "test"
    with pytest.raises(CurriculumConfigError, match="heldout_split='train'; choose test"):
        config_from_mapping({**BASE, "heldout_split": "train"})
    older = {k: v for k, v in held.to_dict().items() if k != "heldout_split"}
    assert held.differences(older) == ["heldout_split: None -> 'test'"]  # its held-out tasks were another set
    plain = config_from_mapping(dict(BASE))  # no held-out set: the split does not enter the fingerprint
    assert plain.differences({k: v for k, v in plain.to_dict().items() if k != "heldout_split"}) == []
    assert plain.fingerprint() == config_from_mapping({**BASE, "heldout_split": "validation"}).fingerprint()


def test_replay_heldout_and_seed_settings_are_checked():
    from vcoder.pipelines.curriculum.config import train_argv

    with pytest.raises(CurriculumConfigError, match="did you mean 'rl'"):
        config_from_mapping({**BASE, "replay_mode": "rll"})
    step = {**BASE, "trainer": "step_grpo", "kinds": ["counter"], "replay_weight": 0.0}
    with pytest.raises(CurriculumConfigError, match="heldout_size=4 with trainer=step_grpo"):
        config_from_mapping({**step, "heldout_size": 4})
    with pytest.raises(CurriculumConfigError, match="heldout_size=-1"):
        config_from_mapping({**BASE, "heldout_size": -1})
    with pytest.raises(CurriculumConfigError, match="seed='1'"):
        config_from_mapping({**BASE, "seed": "1"})
    with pytest.raises(CurriculumConfigError, match=r"sets \['seed'\]"):
        config_from_mapping({**BASE, "train_overrides": {"seed": 3}})
    argv = train_argv(config_from_mapping({**BASE, "seed": 2}), model="m", output_dir="o")
    assert argv[argv.index("--seed") + 1] == "2"
    assert "--seed" not in train_argv(config_from_mapping(dict(BASE)), model="m", output_dir="o")  # the recipe's
