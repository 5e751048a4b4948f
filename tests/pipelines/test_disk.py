"""The disk estimate against the files a real (tiny) training run writes, its arithmetic, and the warning."""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest

pytest.importorskip("trl")

from vcoder.pipelines.disk import (  # noqa: E402
    GB,
    SAVE_OVERHEAD_BYTES,
    check_free_space,
    count_parameters,
    estimate_disk,
    free_bytes,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SFT_RECIPE = os.path.join(ROOT, "configs", "tiny_cpu_sft.yaml")


def _parse(model, out, *extra):
    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.recipes import parse_recipe

    argv = ["--config", SFT_RECIPE, "--model_name_or_path", str(model), "--output_dir", str(out), *extra]
    return parse_recipe(sft.make_parser(), argv)


def _rows(n=4):
    from PIL import Image

    from vcoder.data.common import to_dataset
    from vcoder.data.prompts import make_conversation

    rng = np.random.default_rng(0)
    rows = []
    for k in range(n):
        image = Image.fromarray(rng.integers(0, 256, (56, 56, 3), dtype=np.uint8))
        rows.append({"prompt": make_conversation(), "image": image, "html": f"<html><body>{k}</body></html>"})
    return to_dataset(rows)


def _train_one_step(tmp_path, model, *extra):
    import torch

    from vcoder.pipelines.grpo import sft

    out = tmp_path / "run"
    script_args, training_args, model_args = _parse(
        model, out, "--max_steps", "1", "--save_steps", "1", "--per_device_train_batch_size", "2", *extra
    )
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        trainer, _ = sft.build_trainer(script_args, training_args, model_args, train_dataset=_rows())
        trainer.train()
    finally:
        torch.set_num_threads(threads)
    return out / "checkpoint-1", estimate_disk(training_args, model_args), model_args


def _size(path):
    return os.path.getsize(path)


def test_full_fine_tune_estimate_matches_the_checkpoint_on_disk(tmp_path, tiny_vlm_dir):
    checkpoint, estimate, model_args = _train_one_step(tmp_path, tiny_vlm_dir)
    count = count_parameters(model_args)
    assert count.parameters == count.trained and not count.adapter and count.parameter_bytes == 4
    from transformers import AutoModelForImageTextToText

    loaded = AutoModelForImageTextToText.from_pretrained(str(tiny_vlm_dir))
    assert count.parameters == sum(p.numel() for p in loaded.parameters())
    weights, optimizer = _size(checkpoint / "model.safetensors"), _size(checkpoint / "optimizer.pt")
    assert weights == pytest.approx(count.parameters * 4, rel=0.03)  # safetensors: a small JSON header
    assert optimizer == pytest.approx(count.parameters * 8, rel=0.05)  # AdamW: two fp32 moments
    assert estimate.checkpoint_bytes - SAVE_OVERHEAD_BYTES == pytest.approx(weights + optimizer, rel=0.05)


def test_lora_estimate_counts_the_adapter_only(tmp_path, tiny_vlm_dir):
    lora = ["--use_peft", "true", "--lora_r", "64", "--lora_target_modules", "all-linear"]
    checkpoint, estimate, model_args = _train_one_step(tmp_path, tiny_vlm_dir, *lora)
    count = count_parameters(model_args)
    assert count.adapter and 0 < count.trained < count.parameters and count.trained_bytes == 4
    adapter, optimizer = _size(checkpoint / "adapter_model.safetensors"), _size(checkpoint / "optimizer.pt")
    assert adapter == pytest.approx(count.trained * 4, rel=0.05)
    assert optimizer == pytest.approx(count.trained * 8, rel=0.05)
    assert not (checkpoint / "model.safetensors").exists()
    assert estimate.model_bytes - SAVE_OVERHEAD_BYTES == count.trained * 4


def test_checkpoint_arithmetic_follows_the_save_settings(tmp_path, tiny_vlm_dir):
    base = ["--max_steps", "100", "--save_strategy", "steps", "--save_steps", "10"]
    every = estimate_disk(*_parse(tiny_vlm_dir, tmp_path, *base)[1:])
    assert every.kept == 10
    assert every.peak_bytes == 10 * every.checkpoint_bytes + every.model_bytes
    limited = estimate_disk(*_parse(tiny_vlm_dir, tmp_path, *base, "--save_total_limit", "2")[1:])
    assert limited.kept == 2 and limited.checkpoint_bytes == every.checkpoint_bytes
    # the third checkpoint is written before the oldest is deleted
    assert limited.peak_bytes == max(3 * limited.checkpoint_bytes, 2 * limited.checkpoint_bytes + limited.model_bytes)
    model_only = estimate_disk(*_parse(tiny_vlm_dir, tmp_path, *base, "--save_only_model", "true")[1:])
    assert model_only.checkpoint_bytes == model_only.model_bytes < every.checkpoint_bytes
    none = estimate_disk(*_parse(tiny_vlm_dir, tmp_path, *base[:2], "--save_strategy", "no")[1:])
    assert none.kept == 0 and none.peak_bytes == none.model_bytes
    fraction = estimate_disk(*_parse(tiny_vlm_dir, tmp_path, "--max_steps", "100", "--save_steps", "0.25")[1:])
    assert fraction.kept == 4


def test_free_bytes_of_a_folder_not_made_yet(tmp_path):
    assert free_bytes(str(tmp_path / "a" / "b")) == free_bytes(str(tmp_path)) > 0


def test_warns_when_the_disk_is_smaller_than_the_run(tmp_path, caplog):
    from transformers import Qwen2_5_VLConfig

    # a config whose embedding alone outweighs this disk: built on the meta device, so it costs nothing
    free = free_bytes(str(tmp_path))
    vocab = int(free // (2 * 64)) + 1_000_000
    text = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=2, vocab_size=vocab)
    vision = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64)
    Qwen2_5_VLConfig(text_config=text, vision_config=vision).save_pretrained(tmp_path / "huge")
    _, training_args, model_args = _parse(tmp_path / "huge", tmp_path / "out", "--dtype", "bfloat16")
    with caplog.at_level(logging.INFO, logger="vcoder.pipelines.disk"):
        estimate = check_free_space(training_args, model_args)
    assert estimate is not None and estimate.model_bytes > free
    warning = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warning) == 1 and "save_total_limit" in warning[0].getMessage()
    assert f"{free / GB:.1f} GB free" in warning[0].getMessage()


def test_no_warning_when_it_fits_and_none_when_the_model_is_unknown(tmp_path, tiny_vlm_dir, caplog):
    _, training_args, model_args = _parse(tiny_vlm_dir, tmp_path / "out")
    with caplog.at_level(logging.INFO, logger="vcoder.pipelines.disk"):
        assert check_free_space(training_args, model_args).peak_bytes < 10**8
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    (tmp_path / "no-config").mkdir()
    model_args.model_name_or_path = str(tmp_path / "no-config")
    assert check_free_space(training_args, model_args) is None


def test_vcoder_train_warns_before_it_trains(tmp_path):
    import subprocess
    import sys

    from transformers import Qwen2_5_VLConfig

    text = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=2)
    text["vocab_size"] = int(free_bytes(str(tmp_path)) // (2 * 64)) + 1_000_000
    vision = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64)
    Qwen2_5_VLConfig(text_config=text, vision_config=vision).save_pretrained(tmp_path / "huge")
    (tmp_path / "no-data").mkdir()  # the run stops at its dataset, after the check and before any training
    cmd = [sys.executable, "-m", "vcoder", "train", "sft", "--config", SFT_RECIPE, "--dtype", "bfloat16"]
    cmd += ["--model_name_or_path", str(tmp_path / "huge"), "--output_dir", str(tmp_path / "out")]
    cmd += ["--dataset", str(tmp_path / "no-data")]
    env = {**os.environ, "PYTHONPATH": ROOT, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode != 0 and "no .parquet or .arrow files" in proc.stderr
    warning = proc.stderr.index("WARNING vcoder.pipelines.disk: output_dir=")
    assert warning < proc.stderr.index("Traceback") and "GB at the peak" in proc.stderr
