"""The fp32-master-copy check: which runs lose their updates to 16-bit rounding, and that a real trainer says so."""

from __future__ import annotations

import logging

import pytest

torch = pytest.importorskip("torch")

from vcoder.models.precision import master_copy_missing  # noqa: E402

LOGGER = "vcoder.models.precision"


def _tiny_lm(dtype):
    """A random 2-layer Qwen2 causal LM built from its config (no files)."""
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config, dtype=dtype)


def _trained(model):
    return [p.dtype for p in model.parameters() if p.requires_grad]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_a_16_bit_full_fine_tune_without_deepspeed_or_fsdp_has_no_master_copy(dtype):
    model = _tiny_lm(getattr(torch, dtype))
    assert master_copy_missing(_trained(model), deepspeed=False, fsdp_mixed_precision=False) == getattr(torch, dtype)


def test_zero_fsdp_mixed_precision_and_fp32_weights_keep_a_master_copy():
    bf16 = _trained(_tiny_lm(torch.bfloat16))
    assert master_copy_missing(bf16, deepspeed=True, fsdp_mixed_precision=False) is None
    assert master_copy_missing(bf16, deepspeed=False, fsdp_mixed_precision=True) is None
    # `dtype: float32` with `bf16: true`: autocast computes in bf16, the weights and their updates stay fp32
    assert master_copy_missing(_trained(_tiny_lm(torch.float32)), deepspeed=False, fsdp_mixed_precision=False) is None
    mixed = [torch.float32, torch.float16, torch.bfloat16]
    assert master_copy_missing(mixed, deepspeed=False, fsdp_mixed_precision=False) == torch.bfloat16


def test_lora_on_a_bf16_base_trains_fp32_adapters():
    # PEFT creates the adapters in fp32 (autocast_adapter_dtype, its default): the LoRA recipes need no master copy
    from peft import LoraConfig, get_peft_model

    model = get_peft_model(_tiny_lm(torch.bfloat16), LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
    assert set(_trained(model)) == {torch.float32}
    assert master_copy_missing(_trained(model), deepspeed=False, fsdp_mixed_precision=False) is None
    unsafe = get_peft_model(
        _tiny_lm(torch.bfloat16), LoraConfig(r=4, target_modules=["q_proj", "v_proj"]), autocast_adapter_dtype=False
    )
    assert master_copy_missing(_trained(unsafe), deepspeed=False, fsdp_mixed_precision=False) == torch.bfloat16


def _one_step(dtype, tmp_path, caplog):
    """One real ``Trainer`` step at lr 1e-6 through the run loop; returns (warnings logged, share of weights moved)."""
    from datasets import Dataset
    from transformers import Trainer, TrainingArguments

    from vcoder.models.train_loop import run_training

    model = _tiny_lm(dtype)
    before = torch.cat([p.detach().float().flatten() for p in model.parameters()])
    ids = [[(7 * i + j) % 60 + 2 for j in range(16)] for i in range(4)]
    rows = Dataset.from_list([{"input_ids": x, "labels": x} for x in ids])
    args = TrainingArguments(
        output_dir=str(tmp_path / str(dtype)),
        per_device_train_batch_size=4,
        max_steps=1,
        learning_rate=1e-6,
        lr_scheduler_type="constant",
        use_cpu=True,
        report_to=[],
        save_strategy="no",
        disable_tqdm=True,
    )
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        run_training(Trainer(model=model, args=args, train_dataset=rows), save_state=False)
    after = torch.cat([p.detach().float().flatten() for p in model.parameters()])
    warned = [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING]
    return warned, (after != before).float().mean().item()


def test_the_run_loop_warns_on_a_bf16_full_fine_tune_whose_update_rounds_away(tmp_path, caplog):
    warned, moved = _one_step(torch.bfloat16, tmp_path, caplog)
    assert len(warned) == 1, warned
    assert "bfloat16" in warned[0] and "dtype: float32" in warned[0] and "zero2.yaml" in warned[0]
    # what the warning is about, on this very run: most bf16 weights did not move
    assert moved < 0.25, moved
    warned, moved = _one_step(torch.float32, tmp_path, caplog)
    assert warned == []
    assert moved > 0.5, moved
