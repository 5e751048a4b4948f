"""The one loading path, on the real tiny VLM: folder checks, dtype/device/eval, LoRA, adapter folders, merged saves."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("transformers")

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from vcoder.models.loading import (  # noqa: E402
    MISSING,
    NO_CONFIG,
    ModelFolderError,
    check_model_folder,
    load_model,
    load_policy,
    save_policy,
)


def test_a_missing_local_folder_is_one_line_naming_the_command(tmp_path):
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("# vcoder models tiny --out outputs/tiny\nmodel_name_or_path: outputs/tiny\n")
    missing = tmp_path / "outputs" / "tiny"
    with pytest.raises(ModelFolderError) as info:
        check_model_folder(str(missing), recipe=str(recipe))
    assert info.value.problem == MISSING and info.value.path == str(missing)
    assert str(info.value) == (
        f"model_name_or_path={str(missing)!r} is not a folder here ({missing}); make it first: "
        f"vcoder models tiny --out {missing}"
    )
    with pytest.raises(ModelFolderError, match="build or download it there first"):
        check_model_folder("./nothere")
    with pytest.raises(ModelFolderError) as info:
        check_model_folder(str(tmp_path))  # a folder, but not a saved model
    assert info.value.problem == NO_CONFIG and "has no config.json" in str(info.value)
    check_model_folder(str(tmp_path), need_config=False)
    check_model_folder("Qwen/Qwen2.5-VL-3B-Instruct")  # a hub id: left to from_pretrained


def test_load_policy_keeps_what_the_caller_asks(tiny_vlm_dir):
    import torch

    model, processor = load_policy(tiny_vlm_dir, dtype="float32", device="cpu", eval_mode=True)
    assert not model.training and model.dtype == torch.float32 and model.device.type == "cpu"
    assert hasattr(processor, "image_processor")  # a VLM comes with its processor, not only a tokenizer
    trained, _ = load_policy(str(tiny_vlm_dir), dtype="bfloat16")
    assert trained.dtype == torch.bfloat16
    with pytest.raises(ValueError, match="dtype='float33' is not a torch dtype"):
        load_model(tiny_vlm_dir, dtype="float33")
    with pytest.raises(ValueError, match="kind='vision'"):
        load_model(tiny_vlm_dir, kind="vision")


def test_lora_adapters_load_from_their_folder_and_save_merged(tiny_vlm_dir, tmp_path):
    import torch
    from peft import LoraConfig, PeftModel

    model, processor = load_policy(
        tiny_vlm_dir, dtype="float32", peft_config=LoraConfig(r=2, target_modules=["q_proj", "v_proj"])
    )
    assert isinstance(model, PeftModel)
    with torch.no_grad():  # fresh LoRA is a no-op (B = 0): give it weights so the adapter changes the output
        for name, param in model.named_parameters():
            if "lora_B" in name:
                param.fill_(0.05)
    ids = torch.tensor([[1, 2, 3, 4]])
    model.eval()
    with torch.no_grad():
        want = model(input_ids=ids).logits
        base = model.get_base_model()
        with model.disable_adapter():
            plain = base(input_ids=ids).logits
    assert not torch.allclose(want, plain)

    model.save_pretrained(tmp_path / "adapter")  # what a LoRA run's output_dir holds
    processor.save_pretrained(tmp_path / "adapter")
    again, _ = load_policy(tmp_path / "adapter", dtype="float32", eval_mode=True)
    assert isinstance(again, PeftModel)
    with torch.no_grad():
        assert torch.allclose(again(input_ids=ids).logits, want, atol=1e-5)

    save_policy(again, processor, tmp_path / "merged")
    assert not (tmp_path / "merged" / "adapter_config.json").exists()
    merged, _ = load_policy(tmp_path / "merged", dtype="float32", eval_mode=True)
    assert not isinstance(merged, PeftModel)
    with torch.no_grad():
        assert torch.allclose(merged(input_ids=ids).logits, want, atol=1e-5)


def test_no_module_loads_a_policy_its_own_way():
    # one loading path: a new evaluator or trainer that calls the Auto classes itself would skip the folder check
    # and the caller's dtype/device (docstring examples, `>>>`, are allowed)
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "vcoder"
    pattern = re.compile(r"(Auto(Model\w*|Processor|Tokenizer)|PeftModel)\.from_pretrained\(")
    found = [
        f"{path.relative_to(package)}:{n}"
        for path in package.rglob("*.py")
        if path.name != "loading.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line) and ">>>" not in line
    ]
    assert not found, f"load models with vcoder.models.loading, not from_pretrained: {found}"
