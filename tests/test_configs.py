"""Every recipe under configs/ (and the quickstart's embedded two) parses with its pipeline's parser, builds its
configs and resolves its rewards; every accelerate config is one accelerate accepts, down to its nested
DeepSpeed/FSDP keys. scripts/check_min_versions.sh runs this file on the lowest declared versions too."""

from __future__ import annotations

import glob
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRPO_RECIPES = sorted(glob.glob(os.path.join(ROOT, "configs", "grpo", "*.yaml"))) + [
    os.path.join(ROOT, "configs", "tiny_cpu_grpo.yaml"),
    os.path.join(ROOT, "configs", "tiny_gpu_grpo.yaml"),
]
SFT_RECIPES = sorted(glob.glob(os.path.join(ROOT, "configs", "sft", "*.yaml"))) + [
    os.path.join(ROOT, "configs", "tiny_cpu_sft.yaml")
]
ACCELERATE = sorted(glob.glob(os.path.join(ROOT, "configs", "accelerate", "*.yaml")))


def _parse(module, path, tmp_path):
    from vcoder.pipelines.recipes import parse_recipe

    # the tiny recipes point at a model folder built by `vcoder models tiny`; a stand-in config.json satisfies the
    # existence check without building one
    model = tmp_path / "model"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text("{}")
    argv = ["--config", path, "--output_dir", str(tmp_path / "out")]
    if "tiny_" in path:
        argv += ["--model_name_or_path", str(model)]
    if path.endswith("_agent.yaml"):
        # agent SFT reads trajectories that are not on this machine under the recipe's path: a stand-in file
        data = tmp_path / "trajectories.jsonl"
        data.write_text('{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]}\n')
        argv += ["--dataset_source", str(data)]
    if "tiny_cpu" not in path:
        # GPU recipes (bf16) only build on a machine without a GPU when told to use the CPU; nothing else changes
        argv += ["--use_cpu", "true"]
    return parse_recipe(module.make_parser(), argv)


def test_recipe_lists_cover_the_model_families():
    names = " ".join(os.path.basename(p) for p in GRPO_RECIPES)
    for family in ("qwen2_5_vl_3b", "qwen2_5_vl_7b", "qwen3_vl_2b", "qwen3_vl_4b"):
        assert family in names
    assert len(SFT_RECIPES) >= 2 and len(ACCELERATE) >= 7


@pytest.mark.parametrize("path", GRPO_RECIPES, ids=os.path.basename)
def test_grpo_recipe_parses_and_resolves_rewards(path, tmp_path):
    from trl import GRPOConfig, ModelConfig

    from vcoder.pipelines import grpo
    from vcoder.pipelines.grpo.args import VCoderScriptArguments, check_model_path, check_reward_weights
    from vcoder.rewards import build_rewards

    script_args, training_args, model_args = _parse(grpo, path, tmp_path)
    assert isinstance(script_args, VCoderScriptArguments)
    assert isinstance(training_args, GRPOConfig) and isinstance(model_args, ModelConfig)
    check_model_path(model_args.model_name_or_path)
    check_reward_weights(script_args.reward_funcs, training_args.reward_weights)
    params = script_args.reward_params()
    if "clip" in script_args.reward_funcs:
        params["clip_tiny"] = True  # real CLIP weights are not on this machine; the name and settings still resolve
    rewards = build_rewards(script_args.reward_funcs, **params)
    assert [f.__name__ for f in rewards] == [f"{name}_reward" for name in script_args.reward_funcs]
    if training_args.use_vllm:
        assert training_args.vllm_mode in ("colocate", "server")
    assert training_args.max_completion_length and training_args.num_generations >= 2


@pytest.mark.parametrize("path", SFT_RECIPES, ids=os.path.basename)
def test_sft_recipe_parses(path, tmp_path):
    from trl import SFTConfig

    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.grpo.args import check_model_path

    script_args, training_args, model_args = _parse(sft, path, tmp_path)
    assert isinstance(training_args, SFTConfig)
    if script_args.dataset == "trajectories":  # agent SFT: the loss on the model's own turns (TRL's mechanism)
        assert training_args.assistant_only_loss and not training_args.packing
    check_model_path(model_args.model_name_or_path)
    if model_args.use_peft:
        from trl import get_peft_config

        assert get_peft_config(model_args) is not None


@pytest.mark.parametrize("stage", ["sft", "grpo"])
def test_quickstart_embedded_recipes_build(stage, tmp_path):
    from vcoder.pipelines import grpo, quickstart
    from vcoder.pipelines.grpo import sft

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    recipe = quickstart.SFT_RECIPE if stage == "sft" else quickstart.GRPO_RECIPE
    recipe = dict(recipe, model_name_or_path=str(model), output_dir=str(tmp_path / "out"))
    parser = (sft if stage == "sft" else grpo).make_parser()
    # the quickstart's own parse (parse_dict, no extra keys): a key this transformers/TRL lacks fails here
    _, training_args, _ = parser.parse_dict(recipe, allow_extra_keys=False)
    assert training_args.use_cpu and not training_args.bf16 and not training_args.gradient_checkpointing


@pytest.mark.parametrize("path", ACCELERATE, ids=os.path.basename)
def test_accelerate_config_keys_are_valid(path):
    from accelerate.commands.config.config_args import load_config_from_file
    from accelerate.commands.launch import launch_command_parser

    config = load_config_from_file(path)  # raises on unknown top-level keys
    dests = {action.dest for action in launch_command_parser()._actions}
    for section, prefix in (("deepspeed_config", ""), ("fsdp_config", "fsdp_")):
        for key in getattr(config, section) or {}:
            name = key if key.startswith(prefix) else prefix + key
            assert name in dests, f"{path}: {section}.{key} is not an accelerate launch option"
    ds = (config.deepspeed_config or {}).get("deepspeed_config_file")
    if ds:
        with open(os.path.join(ROOT, ds)) as handle:
            assert json.load(handle)["zero_optimization"]["stage"] in (2, 3)
    assert config.num_processes >= 1


def test_the_seed_accelerate_path_is_ddp_4gpu():
    """VisionCoder's README launches --config_file configs/accelerate_4gpu.yaml: the same settings as ddp_4gpu.yaml."""
    import yaml
    from accelerate.commands.config.config_args import load_config_from_file

    seed, ours = (os.path.join(ROOT, "configs", name) for name in ("accelerate_4gpu.yaml", "accelerate/ddp_4gpu.yaml"))
    with open(seed) as a, open(ours) as b:
        assert yaml.safe_load(a) == yaml.safe_load(b)
    assert load_config_from_file(seed).num_processes == 4
