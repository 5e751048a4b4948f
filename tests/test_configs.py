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
    os.path.join(ROOT, "configs", "tiny_cpu_refine_grpo.yaml"),
    os.path.join(ROOT, "configs", "tiny_gpu_grpo.yaml"),
]
SFT_RECIPES = sorted(glob.glob(os.path.join(ROOT, "configs", "sft", "*.yaml"))) + [
    os.path.join(ROOT, "configs", "tiny_cpu_sft.yaml")
]
ACCELERATE = sorted(glob.glob(os.path.join(ROOT, "configs", "accelerate", "*.yaml")))
# every training recipe: configs/ less the launcher settings (accelerate/, deepspeed/, the seed's accelerate path)
RECIPES = sorted(
    path
    for path in glob.glob(os.path.join(ROOT, "configs", "**", "*.yaml"), recursive=True)
    if os.path.basename(os.path.dirname(path)) not in ("accelerate", "deepspeed")
    and os.path.basename(path) != "accelerate_4gpu.yaml"
)


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
    from vcoder.pipelines.grpo.args import VCoderScriptArguments
    from vcoder.pipelines.recipes import check_model_path, check_reward_weights
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
    from vcoder.pipelines.grpo.train import AGGREGATIONS

    assert training_args.multi_objective_aggregation in AGGREGATIONS
    if script_args.environment == "refine":
        from vcoder.models.tiny import chat_template

        settings = script_args.refine_settings(training_args.reward_weights)
        assert settings.rewards == tuple(script_args.reward_funcs) and training_args.max_tool_calling_iterations
        assert chat_template(script_args.tool_chat_template)
    elif len(script_args.reward_funcs) > 1:  # mixed rewards: the recipe states how they are aggregated (GDPO or not)
        with open(path) as handle:
            assert "\nmulti_objective_aggregation:" in handle.read(), path


@pytest.mark.parametrize("path", SFT_RECIPES, ids=os.path.basename)
def test_sft_recipe_parses(path, tmp_path):
    from trl import SFTConfig

    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.recipes import check_model_path

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


def _sixteen_bit_full_fine_tunes() -> list[str]:
    """Recipes whose trained weights are the policy's own, loaded in bfloat16/float16 (no LoRA)."""
    import yaml

    from vcoder.models.precision import SIXTEEN_BIT

    found = []
    for path in RECIPES:
        with open(path) as handle:
            recipe = yaml.safe_load(handle)
        overrides = recipe.get("train_overrides") or {}
        dtype = overrides.get("dtype", recipe.get("dtype"))
        if dtype is None and recipe.get("train_recipe"):  # a curriculum phase trains with its recipe's dtype
            with open(os.path.join(ROOT, recipe["train_recipe"])) as handle:
                dtype = yaml.safe_load(handle).get("dtype")
        if dtype in SIXTEEN_BIT and not overrides.get("use_peft", recipe.get("use_peft", False)):
            found.append(path)
    return found


def _header(path: str) -> str:
    """The recipe's leading comment block, one line per comment line, without the ``#``."""
    lines = []
    with open(path) as handle:
        for line in handle:
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("#").strip())
    return "\n".join(lines)


def _launch_configs(header: str) -> list[str | None]:
    """The ``--config_file`` of every ``accelerate launch`` command in a header (None: the command names none)."""
    import re

    commands = " ".join(header.replace("\\\n", " ").split()).split("accelerate launch ")[1:]
    found = []
    for command in commands:
        launcher = re.split(r"(?:^| )(?:-m |\S+\.py\b)", command, maxsplit=1)[0]  # accelerate's own flags
        named = re.search(r"--config_file[= ](\S+)", launcher)
        found.append(named.group(1) if named else None)
    return found


@pytest.mark.parametrize("path", _sixteen_bit_full_fine_tunes(), ids=lambda p: os.path.relpath(p, ROOT))
def test_a_16_bit_full_fine_tune_keeps_fp32_master_weights(path):
    """bf16 weights without an fp32 master copy drop AdamW steps below half a rounding step (vcoder.models.precision):
    a 16-bit full fine-tune is launched only under DeepSpeed ZeRO or FSDP with mixed precision, or, when it runs in
    one process with no launch (`vcoder curriculum`), its header says plainly that the copy is missing."""
    from accelerate.commands.config.config_args import load_config_from_file

    header = _header(path)
    launches = _launch_configs(header)
    if not launches:
        assert "nothing keeps an fp32 master copy" in header.replace("\n", " "), path
        return
    for config_file in launches:
        assert config_file is not None, f"{path}: an `accelerate launch` line without --config_file"
        config = load_config_from_file(os.path.join(ROOT, config_file))
        kind = str(getattr(config.distributed_type, "value", config.distributed_type))
        assert kind in ("DEEPSPEED", "FSDP"), f"{path}: launched with {config_file} ({kind}): no fp32 master weights"
        if kind == "FSDP":
            assert config.mixed_precision != "no", f"{path}: FSDP without mixed precision keeps 16-bit weights"


def test_the_master_weight_check_sees_the_recipes_it_was_written_for():
    checked = {os.path.relpath(p, ROOT) for p in _sixteen_bit_full_fine_tunes()}
    for recipe in ("grpo/qwen2_5_vl_3b", "grpo/qwen3_vl_2b", "grpo/visioncoder_qwen3_vl_2b", "sft/qwen2_5_vl_3b"):
        assert f"configs/{recipe}.yaml" in checked
    assert "configs/curriculum/web_agent_llama3_1_8b.yaml" in checked
    assert not {"configs/grpo/qwen2_5_vl_3b_lora.yaml", "configs/curriculum/qwen2_5_coder_7b.yaml"} & checked
    # the header reader: continued lines, the config after other launch flags, a launch that names none
    assert _launch_configs(_header(os.path.join(ROOT, "configs", "grpo", "qwen3_vl_4b.yaml"))) == [
        "configs/accelerate/zero3.yaml"
    ]
    header = "X=1 accelerate launch --multi_gpu --num_processes 4 \\\n  --config_file a.yaml -m m --config c.yaml\n"
    header += "accelerate launch train.py --config_file b.yaml\naccelerate launch --config_file=d.yaml x.py"
    assert _launch_configs(header) == ["a.yaml", None, "d.yaml"]
