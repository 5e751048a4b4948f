"""Step-GRPO's parts without a browser: the chat template as tokens, per-token advantages, replayed turns, the
script arguments and every recipe under configs/step_grpo/."""

from __future__ import annotations

import glob
import json
import math
import os
import re

import pytest
import yaml

from tests.pipelines.step_grpo.scripted import ScriptedTurns
from vcoder.pipelines.step_grpo.advantages import judged_step_advantages
from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments
from vcoder.pipelines.step_grpo.generation import TurnRequest, cut_reply
from vcoder.pipelines.step_grpo.tokens import ENV_TURN, ChatTokens, TrajectoryTokens, token_advantages
from vcoder.pipelines.step_grpo.train import check_step_config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RECIPES = sorted(glob.glob(os.path.join(ROOT, "configs", "step_grpo", "*.yaml")))
CONVERSATION = [{"role": "system", "content": "Build sites."}, {"role": "user", "content": "A counter page"}]
REPLY = '<file path="index.html">\n<p id="count">0</p>\n</file>'
FEEDBACK = {"role": "user", "content": "Turn 1 of 2: you wrote index.html.\nStep reward: 2.50."}


@pytest.fixture(scope="module")
def processor(tiny_vlm_dir):
    from transformers import AutoProcessor

    return AutoProcessor.from_pretrained(tiny_vlm_dir)  # the session's tiny VLM, built once


@pytest.mark.parametrize("use_processor", [True, False], ids=["processor", "tokenizer"])
def test_incremental_tokens_equal_the_templated_conversation(processor, use_processor):
    chat = ChatTokens(processor if use_processor else processor.tokenizer)
    assert chat.is_processor is use_processor
    prompt, images = chat.prompt(CONVERSATION)
    reply = chat.tokenizer(REPLY, add_special_tokens=False)["input_ids"] + [chat.end_of_turn]
    feedback, _ = chat.feedback(FEEDBACK)
    # what the model is trained on (prompt, its reply as sampled, the feedback turn) is what the template would give
    # the whole conversation: no re-tokenisation, no missing or extra template tokens
    whole, _ = chat.render(
        [*CONVERSATION, {"role": "assistant", "content": REPLY}, FEEDBACK], add_generation_prompt=True
    )
    assert prompt + reply + feedback == whole and images == []
    assert (
        chat.tokenizer.decode(feedback)
        == f"\n<|im_start|>user\n{FEEDBACK['content']}<|im_end|>\n<|im_start|>assistant\n"
    )


def test_a_screenshot_in_a_feedback_turn_is_an_image_of_the_trajectory(processor):
    from vcoder.images import to_png
    from vcoder.sites.feedback import feedback_message

    png = to_png(__import__("PIL.Image", fromlist=["Image"]).new("RGB", (300, 120), "red"))
    chat = ChatTokens(processor)
    ids, images = chat.feedback(feedback_message("Looks red.", png))
    assert [im.size for im in images] == [(300, 120)]
    assert ids.count(processor.image_token_id) > 0  # its placeholder tokens, expanded for the image's grid
    with pytest.raises(ValueError, match="feedback_images: false"):
        ChatTokens(processor.tokenizer).feedback(feedback_message("Looks red.", png))


def test_trajectory_tokens_tag_each_token_with_its_turn():
    tokens = TrajectoryTokens(prompt_ids=[1, 2])
    assert tokens.add_reply([5, 6, 2], None) == 1
    tokens.add_environment([7, 8])
    assert tokens.add_reply([9, 2], [-0.5, -0.25]) == 2
    assert tokens.turns == [1, 1, 1, ENV_TURN, ENV_TURN, 2, 2]
    assert tokens.env_mask == [1, 1, 1, 0, 0, 1, 1]
    assert [x for x in tokens.logprobs if not math.isnan(x)] == [-0.5, -0.25]
    with pytest.raises(ValueError, match="2 tokens came with 1 logprobs"):
        tokens.add_reply([1, 2], [0.0])


def test_token_advantages_give_each_reply_its_step_value():
    turns = [[1, 1, 0, 0, 2, 2], [1, 0, 2]]
    values = [[0.5, -1.0], [2.0]]  # the second trajectory's turn 2 has no judged step: 0
    assert token_advantages(turns, values, 7) == [[0.5, 0.5, 0.0, 0.0, -1.0, -1.0, 0.0], [2.0, 0.0, 0.0] + [0.0] * 4]
    with pytest.raises(ValueError, match="does not fit"):
        token_advantages([[1, 1, 1]], [[1.0]], 2)


def test_unjudged_steps_leave_the_pool():
    # pool of the judged steps [4, 0]: mean 2, sample std 2*sqrt(2) -> z = +-1/sqrt(2); the None step gets 0
    r = 1 / math.sqrt(2)
    (first, second) = judged_step_advantages([[4.0, None], [0.0]], "step")
    assert first == pytest.approx([r, 0.0]) and second == pytest.approx([-r])
    assert judged_step_advantages([[None], [None]], "naive") == [[0.0], [0.0]]


def test_cut_reply_and_scripted_turns(processor):
    assert cut_reply([5, 2, 7], [-1.0, -2.0, -3.0], {2}, 9).logprobs == [-1.0, -2.0]
    assert cut_reply([5, 6, 7], None, {2}, 2).ids == [5, 6]
    tok = processor.tokenizer
    turns = ScriptedTurns(tok, [["a b", "<finish/>"], ["c"]], [tok.eos_token_id])
    out = turns.generate([TurnRequest([1], 50, key=0, turn=2), TurnRequest([1], 50, key=1, turn=3)])
    assert [tok.decode(o.ids) for o in out] == ["<finish/><|im_end|>", "c<|im_end|>"]  # a short script repeats
    assert turns.generate([TurnRequest([1], 1, key=0, turn=1)])[0].ids == tok("a b")["input_ids"][:1]


def test_ablations_set_the_mode_and_the_weights():
    args = StepGRPOScriptArguments(ablation=["gui_only", "naive"])
    assert args.advantage_mode == "naive" and args.component_weights() == (0.0, 5.0)
    options = StepGRPOScriptArguments(ablation="screenshot_only,cumulative").episode_options()
    assert (options.screenshot_weight, options.gui_weight) == (5.0, 0.0)
    assert StepGRPOScriptArguments().advantage_mode == "step"
    assert StepGRPOScriptArguments(max_turns=3).episode_options().max_turns == 3
    assert StepGRPOScriptArguments(system_prompt="Build it.").episode_options().system_prompt == "Build it."
    assert StepGRPOScriptArguments().episode_options().system_prompt is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ablation": ["gui_onyl"]}, "did you mean 'gui_only'"),
        ({"ablation": ["naive", "cumulative"]}, "keep one"),
        ({"ablation": ["gui_only", "screenshot_only"]}, "leaves no reward"),
        ({"ablation": ["gui_only"], "gui_weight": 0.0}, "gui_weight=0"),
        ({"dataset": "/no/such/tasks.jsonl"}, "neither one of"),
        ({"judge_base_url": "http://127.0.0.1:9"}, "needs judge_model"),
        ({"max_samples": 0}, "must be positive"),
    ],
)
def test_bad_arguments_name_the_fix(kwargs, message):
    with pytest.raises(ValueError, match=message):
        StepGRPOScriptArguments(**kwargs)


def test_the_orm_step_reward_is_checked_when_the_recipe_is_parsed(tmp_path, untrained_orm):
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import RecipeError, parse_recipe

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    base = ["--config", os.path.join(ROOT, "configs", "step_grpo", "tiny_cpu.yaml"), "--use_cpu", "true"]
    base += ["--output_dir", str(tmp_path / "out"), "--model_name_or_path", str(model)]
    missing = str(tmp_path / "no_orm")
    for extra, says in (
        (["--orm_weight", "5", "--orm_model", missing], f"ORM folder {missing!r} does not exist"),
        (["--orm_weight", "5"], "orm_weight=5.0 needs orm_model"),
        (["--orm_weight", "-1", "--orm_model", str(untrained_orm)], "orm_weight=-1.0 must be >= 0"),
    ):
        with pytest.raises(RecipeError, match=re.escape(says)) as caught:
            parse_recipe(step_grpo.make_parser(), base + extra)
        assert "\n" not in str(caught.value)  # one line
    script_args, _, _ = parse_recipe(
        step_grpo.make_parser(), [*base, "--orm_weight", "5", "--orm_model", str(untrained_orm)]
    )
    assert script_args.episode_options().orm_weight == 5.0
    assert script_args.orm_settings().orm_model == str(untrained_orm)
    from vcoder.pipelines.step_grpo.grading import build_grader

    assert build_grader(script_args).orm_scorer is not None
    # off by default: no ORM needed, no ORM settings
    default = StepGRPOScriptArguments()
    assert default.episode_options().orm_weight == 0.0 and default.orm_settings() is None
    assert build_grader(default).orm_scorer is None


def test_cross_checks_with_the_trainer_config():
    from trl import GRPOConfig

    config = GRPOConfig(output_dir="/tmp/unused", use_cpu=True, bf16=False, max_completion_length=512)
    with pytest.raises(ValueError, match="raise max_completion_length"):
        check_step_config(StepGRPOScriptArguments(max_turn_tokens=1024), config)
    with pytest.raises(ValueError, match="neither gui_base_url nor judge_base_url"):
        check_step_config(
            StepGRPOScriptArguments(dataset="webgen_bench", allow_test_split=True, max_turn_tokens=256), config
        )
    check_step_config(StepGRPOScriptArguments(max_turn_tokens=512), config)


SEED_FILE = os.path.join(ROOT, "..", "shared", "data", "webgen_rl", "webgen-agent_train_step-grpo.jsonl")


def test_training_on_the_benchmark_test_split_is_refused():
    with pytest.raises(ValueError, match="TEST split; use dataset=webgen_instruct .* or set allow_test_split: true"):
        StepGRPOScriptArguments(dataset="webgen_bench")
    message = str(pytest.raises(ValueError, StepGRPOScriptArguments, dataset="webgen_bench").value)
    assert "\n" not in message  # one line
    assert StepGRPOScriptArguments(dataset="webgen_bench", allow_test_split=True).allow_test_split
    with pytest.raises(ValueError, match="needs dataset_source"):
        StepGRPOScriptArguments(dataset="webgen_instruct")


@pytest.mark.skipif(not os.path.isfile(SEED_FILE), reason=f"WebGen-RL's training file is not at {SEED_FILE}")
def test_webgen_instruct_tasks_get_a_written_test(tmp_path):
    from trl import GRPOConfig

    from vcoder.pipelines.step_grpo.data import COLUMNS, task_rows
    from vcoder.pipelines.step_grpo.grading import build_grader
    from vcoder.sites.gui_tests import WrittenTestGrader

    args = StepGRPOScriptArguments(dataset="webgen_instruct", dataset_source=SEED_FILE, max_samples=4)
    rows = task_rows(args)
    assert len(rows) == 4 and all(tuple(r) == COLUMNS and r["test_cases"] == "" for r in rows)
    assert all(r["id"].startswith("train_") for r in rows)
    config = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, bf16=False, max_completion_length=512)
    with pytest.raises(ValueError, match="set gui_base_url and gui_model"):
        check_step_config(StepGRPOScriptArguments(**{**vars(args), "max_turn_tokens": 256}), config)
    served = dict(vars(args), gui_base_url="http://127.0.0.1:9", gui_model="vlm", max_turn_tokens=256)
    check_step_config(StepGRPOScriptArguments(**served), config)
    grader = build_grader(StepGRPOScriptArguments(**served), output_dir=str(tmp_path))
    assert isinstance(grader, WrittenTestGrader) and grader.gui_agent is not None
    assert grader.writer.cache_dir == tmp_path / "gui_tests" and grader.writer.client.model == "vlm"
    other = StepGRPOScriptArguments(
        **{**served, "test_writer_base_url": "http://127.0.0.1:8", "test_writer_model": "llm"}
    )
    assert build_grader(other, output_dir=str(tmp_path)).writer.client.model == "llm"


def test_local_jsonl_tasks(tmp_path):
    from vcoder.pipelines.step_grpo.data import task_rows

    path = tmp_path / "tasks.jsonl"
    case = {
        "task": "Click +",
        "expected_result": "It shows 1",
        "steps": [{"action": "click", "target": "#inc"}],
        "expect": [{"target": "#count", "text": "1"}],
    }
    path.write_text(json.dumps({"instruction": "A counter", "test_cases": [case]}) + "\n\n")
    (row,) = task_rows(StepGRPOScriptArguments(dataset=str(path)))
    assert row["id"] == "task-1" and json.loads(row["test_cases"])[0]["expect"] == case["expect"]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"] and row["reference"] == ""
    path.write_text(json.dumps({"instruction": "A counter", "test_cases": [{"task": "x", "steps": "no"}]}) + "\n")
    with pytest.raises(ValueError, match="tasks.jsonl line 1"):
        task_rows(StepGRPOScriptArguments(dataset=str(path)))


def test_generated_tasks_sample_and_columns():
    from vcoder.pipelines.step_grpo.data import COLUMNS, task_rows

    rows = task_rows(StepGRPOScriptArguments(site_task_samples=6, max_samples=3, site_task_kinds=["counter", "todo"]))
    assert len(rows) == 3 and all(tuple(r) == COLUMNS for r in rows)
    assert {r["id"].split("-")[0] for r in rows} <= {"counter", "todo"}


def test_site_kinds_tasks_come_from_one_split():
    from vcoder.data.site_kinds import kind_tasks
    from vcoder.pipelines.step_grpo.data import COLUMNS, task_rows

    args = StepGRPOScriptArguments(dataset="site_kinds", site_task_split="test", site_task_samples=4)
    rows = task_rows(args)
    expected = kind_tasks(4, split="test")
    assert all(tuple(r) == COLUMNS for r in rows)
    assert [(r["id"], r["instruction"], r["test_cases"]) for r in rows] == [
        (r["id"], r["instruction"], r["test_cases"]) for r in expected
    ]
    kinds = task_rows(StepGRPOScriptArguments(dataset="site_kinds", site_task_samples=2, site_task_kinds=["cart"]))
    assert [r["id"].split("-")[0] for r in kinds] == ["cart", "cart"]
    with pytest.raises(ValueError, match="site_task_split='holdout' is not a split"):
        StepGRPOScriptArguments(dataset="site_kinds", site_task_split="holdout")
    # the old name of the test split still works (with a warning)
    assert StepGRPOScriptArguments(dataset="site_kinds", site_task_split="heldout").site_task_split == "test"


def test_recipes_cover_the_models_and_the_ablations():
    names = {os.path.basename(p) for p in RECIPES}
    assert {"tiny_cpu.yaml", "qwen2_5_coder_7b.yaml", "qwen3_8b.yaml", "qwen2_5_vl_7b.yaml"} <= names
    for ablation in ("screenshot_only", "gui_only", "naive", "cumulative"):
        assert f"qwen2_5_coder_7b_{ablation}.yaml" in names


@pytest.mark.parametrize("path", RECIPES, ids=os.path.basename)
def test_recipe_parses(path, tmp_path):
    from trl import GRPOConfig, ModelConfig

    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    argv = ["--config", path, "--output_dir", str(tmp_path / "out"), "--use_cpu", "true"]
    if "tiny_" in path:
        argv += ["--model_name_or_path", str(model)]
    else:  # the seed's training requests are not on this machine under the recipe's path: a stand-in file
        tasks = tmp_path / "webgen-agent_train_step-grpo.jsonl"
        tasks.write_text(json.dumps({"id": "train_1", "instruction": "A todo site.", "ui_instruct": []}) + "\n")
        argv += ["--dataset_source", str(tasks)]
    script_args, training_args, model_args = parse_recipe(step_grpo.make_parser(), argv)
    # over-long trajectories (no end-of-turn token: cut by the budget) leave the loss, as WebGen-RL masks them
    assert training_args.mask_truncated_completions
    assert isinstance(script_args, StepGRPOScriptArguments)
    assert isinstance(training_args, GRPOConfig) and isinstance(model_args, ModelConfig)
    check_step_config(script_args, training_args)
    script_args.episode_options()
    if "tiny_" not in path:  # the paper's settings: G = 5, <= 5 turns, lr 1e-6, clip 0.2, no KL, token-level loss
        assert training_args.num_generations == 5 and script_args.max_turns == 5
        assert training_args.learning_rate == 1e-6 and training_args.epsilon == 0.2 and training_args.beta == 0.0
        assert training_args.loss_type in ("dapo", "bnpo")
        # a full fine-tune's resumable checkpoint is ~14 bytes a parameter: keep one, and say what the disk needs
        assert training_args.save_total_limit == 1, "a 7-8B full fine-tune keeps one resumable checkpoint"
        with open(path) as handle:
            header = handle.read()
        assert "# Disk: output_dir needs ~" in header
        # WebGen-RL's two stages: the policy starts from the agent SFT model, whose recipe the header names
        sft_recipe = re.search(r"--config (configs/sft/\S+_agent\.yaml)", header).group(1)
        with open(os.path.join(ROOT, sft_recipe)) as handle:
            sft = yaml.safe_load(handle)
        assert model_args.model_name_or_path == sft["output_dir"] and sft["dataset"] == "trajectories"
        assert sft["assistant_only_loss"] is True
        # the seed's tasks (no test cases: a writer LLM writes them) and never the benchmark's test split
        assert script_args.dataset == "webgen_instruct" and not script_args.allow_test_split
    ablation = os.path.basename(path)[len("qwen2_5_coder_7b_") : -len(".yaml")]
    if ablation in ("screenshot_only", "gui_only", "naive", "cumulative"):
        assert script_args.ablation == [ablation]


def test_a_recipe_with_the_old_setting_names_still_parses_with_a_warning(tmp_path, caplog):
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    text = open(os.path.join(ROOT, "configs", "step_grpo", "tiny_cpu.yaml")).read()
    old = tmp_path / "old.yaml"
    old.write_text(text.replace("render_width:", "site_width:").replace("render_height:", "site_height:"))
    argv = ["--config", str(old), "--output_dir", str(tmp_path / "out"), "--use_cpu", "true"]
    argv += ["--model_name_or_path", str(model), "--case_step_limit", "7"]
    script_args, _, _ = parse_recipe(step_grpo.make_parser(), argv)
    assert (script_args.render_width, script_args.render_height, script_args.gui_step_limit) == (640, 400, 7)
    assert "'site_width' is now called 'render_width'" in caplog.text and "--case_step_limit is now" in caplog.text
