"""The seed's flags map onto TRL/vcoder's (vcoder.pipelines.seed_flags): the README's line parses into the recipe it
means, the machine's defaults never override a flag the user gave, and every bad line is one line, no traceback."""

from __future__ import annotations

import os

import pytest

from vcoder.pipelines import seed_flags
from vcoder.pipelines.seed_flags import SeedFlagError, machine_defaults, translate

README_LINE = (
    "--model_id Qwen/Qwen3-VL-2B-Instruct --output_dir outputs/vcoder-grpo-clip --max_samples 2000 "
    "--num_train_epochs 1 --batch_size 4 --num_generations 8 --max_completion_length 2048"
).split()


@pytest.fixture(scope="module")
def parser():
    from vcoder.pipelines import grpo

    return grpo.make_parser()


def test_translate_renames_the_seed_flags_and_leaves_the_rest():
    argv, applied = translate(
        [
            "--model_id=m",
            "--batch_size",
            "4",
            "--no_vllm",
            "--image_width",
            "512",
            "--warmup_ratio",
            "0.1",
            "--beta",
            "0",
        ]
    )
    assert argv == [
        *("--model_name_or_path", "m", "--per_device_train_batch_size", "4", "--use_vllm", "false"),
        *("--max_pixels", str(512 * 384), "--warmup_steps", "0.1", "--beta", "0"),
    ]
    assert applied == [
        "--model_id -> --model_name_or_path",
        "--batch_size -> --per_device_train_batch_size",
        "--no_vllm -> --use_vllm false",
        "--image_width 512 -> --max_pixels 196608",
        "--warmup_ratio -> --warmup_steps",
    ]
    assert translate(["--model_name_or_path", "m"]) == (["--model_name_or_path", "m"], [])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--model_id"], "--model_id needs a value"),
        (["--batch_size", "--beta", "0"], "--batch_size needs a value"),
        (["--image_width", "wide"], "--image_width 'wide' must be a width in pixels"),
        (["--model_id", "a", "--model_name_or_path", "b"], "--model_id and --model_name_or_path name the same"),
    ],
)
def test_translate_refuses_what_it_cannot_map(argv, message):
    with pytest.raises(SeedFlagError, match=message):
        translate(argv)


def test_machine_defaults_fit_the_machine_and_yield_to_the_user():
    flags, reasons = machine_defaults(["--bf16", "true"], cuda=False, vllm=True)
    assert flags == [
        *("--use_cpu", "true", "--dtype", "float32"),
        *("--gradient_checkpointing", "false", "--use_vllm", "false"),
    ]
    assert reasons == ["no CUDA device"]
    assert machine_defaults([], cuda=True, vllm=False)[0] == ["--use_vllm", "false"]
    assert machine_defaults(["--use_vllm=true"], cuda=True, vllm=False) == ([], [])
    assert machine_defaults([], cuda=True, vllm=True) == ([], [])


def test_the_readme_line_is_the_visioncoder_recipe(parser):
    from vcoder.pipelines.recipes import parse_recipe

    argv, notes = seed_flags.seed_argv(README_LINE, parser, cuda=True, vllm=True)
    assert argv[:2] == ["--config", os.path.join(seed_flags.ROOT, seed_flags.SEED_RECIPE)]
    assert notes == [
        "recipe configs/grpo/visioncoder_qwen3_vl_2b.yaml (the seed's defaults)",
        "seed flags --model_id -> --model_name_or_path, --batch_size -> --per_device_train_batch_size",
    ]
    # this machine has no GPU: a bf16 config builds only when told to use the CPU; nothing else changes
    script_args, training_args, model_args = parse_recipe(parser, [*argv, "--use_cpu", "true"])
    assert model_args.model_name_or_path == "Qwen/Qwen3-VL-2B-Instruct"
    assert (training_args.per_device_train_batch_size, training_args.num_generations) == (4, 8)
    assert (training_args.max_completion_length, training_args.num_train_epochs, training_args.max_steps) == (
        2048,
        1,
        -1,
    )
    assert training_args.output_dir == "outputs/vcoder-grpo-clip" and training_args.use_vllm and training_args.bf16
    assert (script_args.dataset, script_args.max_samples, script_args.format_style) == ("websight", 2000, "think")
    assert script_args.reward_funcs == ["format", "validity", "dom", "clip"]
    assert training_args.reward_weights == [1.0, 1.0, 1.0, 3.0]
    # 4 GPUs x 4 completions x 2 accumulation steps / 8 generations = 4 pages a step: 2000 pages in 500 steps
    pages_per_step = 4 * training_args.per_device_train_batch_size * training_args.gradient_accumulation_steps / 8
    assert script_args.max_samples / pages_per_step == 500


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--model_idd", "m"], "unknown flag(s) --model_idd (did you mean --model_id?)"),
        (["--batch_sise", "4"], "unknown flag(s) --batch_sise (did you mean --batch_size?)"),
        (["--max_step", "4"], "(did you mean --max_steps?)"),
        (["--image_width", "0"], "--image_width '0' must be a width in pixels >= 32"),
        (["--model_id", "m", "--holdout", "3"], "holdout=3.0 is a fraction of the pages"),
        (["--model_id", "m", "--max_steps", "many"], "argument --max_steps/--max-steps: invalid int value: 'many'"),
    ],
)
def test_a_wrong_seed_line_is_one_line(argv, said, capsys):
    assert seed_flags.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("training.py: error: ") and said in err, err
