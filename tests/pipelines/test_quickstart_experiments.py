"""The quickstart's follow-up experiments in their small modes: refinement turns (does seeing the render help?) and
GDPO against the current reward aggregation; and the refinement loop really shows the model its render."""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "experiments", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_refine_turns_small(capsys, tmp_path):
    assert _script("refine_turns").main(["--small", "--out", str(tmp_path), "--threads", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["turn"] for row in report["table"]] == [0, 1]
    (run,) = report["runs"]
    assert run["n"] == 2 and run["split"] == "validation"
    for row in run["turns"]:
        assert 0.0 <= row["overall"] <= 1.0 and 0.0 <= row["changed"] <= 1.0
    assert json.loads((tmp_path / "table.json").read_text())["table"] == report["table"]


def test_gdpo_compare_small_trains_each_arm_with_its_aggregation(capsys):
    assert _script("gdpo_compare").main(["--small", "--threads", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    # what each GRPO trainer ran with (trainer.args), not what was asked for
    assert [arm["multi_objective_aggregation"] for arm in report["arms"]] == [
        "sum_then_normalize",
        "normalize_then_sum",
    ]
    assert all(arm["split"] == "validation" and arm["n"] == 4 for arm in report["arms"])
    assert report["arms"][0]["split_digest"] == report["arms"][1]["split_digest"]  # both arms scored the same pages
    (row,) = report["table"]
    assert row["gdpo_minus_current"] == pytest.approx(row["normalize_then_sum"] - row["sum_then_normalize"])


def test_a_missing_run_is_a_one_line_error(capsys, tmp_path):
    assert _script("refine_turns").main([str(tmp_path / "nowhere")]) == 2
    assert "summary.json does not exist" in capsys.readouterr().err


def test_refinement_turns_show_the_model_its_render(tiny_vlm_dir):
    from unittest.mock import patch

    from tests.envs.scripted import ScriptedGenerate
    from vcoder.models.loading import load_policy
    from vcoder.pipelines.grpo.data import synthetic_rows
    from vcoder.pipelines.quickstart.refine_turns import refine_answers, refine_settings

    rows = synthetic_rows(2, seed=5, split="validation", width=320, height=240)
    model, processor = load_policy(tiny_vlm_dir)
    settings = refine_settings(2, ["validity", "ssim"], width=320, height=240)
    # the untrained model writes nothing renderable; a fixed page makes every turn render (the loop is what is tested)
    scripted = ScriptedGenerate(processor.tokenizer, ["<html><body><h1>Hi</h1></body></html>"])
    with patch.object(model, "generate", side_effect=scripted):
        answers = refine_answers(model, processor, rows, settings, turns=2, max_new_tokens=8)
    assert len(answers) == 3 and all(len(turn) == 2 for turn in answers)
    patches = [call["pixel_values"] for call in scripted.calls]
    assert 0 < patches[0] < patches[1] < patches[2]  # one more screenshot (the render) per page each turn
    seen = [processor.tokenizer.decode(call["ids"][0]) for call in scripted.calls]
    assert "attempt 1 rendered" in seen[1] and "ssim:" in seen[1] and "attempt 2 rendered" in seen[2]
    assert seen[2].count("<|image_pad|>") > seen[1].count("<|image_pad|>") > seen[0].count("<|image_pad|>")


def test_quickstart_features_small_tables_the_facts_and_what_the_reward_pays_for_them(capsys):
    from vcoder.data.synthetic_facts import FEATURES

    assert _script("quickstart_features").main(["--small"]) == 0
    report = json.loads(capsys.readouterr().out)
    sft, grpo = (row for row in report["table"])
    assert {k: sft[k] for k in FEATURES} == dict.fromkeys(FEATURES, 1.0)  # the stand-in's sft wrote each reference
    assert grpo["heading"] == 0.0 and all(grpo[k] == 1.0 for k in FEATURES if k != "heading")
    prices = report["prices"]
    assert set(prices) >= {"heading", "columns", "block_height", "first_block", "block_count", "first_block_colour"}
    # a changed fact never scores above the reference page, and a misread heading or box label costs text blocks
    assert all(price["total"] >= -1e-6 for price in prices.values()), prices
    assert prices["heading"]["text"] > 0.3 and prices["first_block"]["text"] > 0.3, prices
