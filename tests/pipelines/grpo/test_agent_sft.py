"""Agent SFT on multi-turn trajectories with a tiny text LM: the loss covers the assistant turns only (TRL's
assistant_only_loss), through `vcoder train sft` with `dataset: trajectories`; and the trajectory reader."""

from __future__ import annotations

import json
import math

import pytest

from vcoder.data.trajectories import read_trajectories

SYSTEM = "SYSTEMRULES: build websites in file blocks."
TASKS = ["TASKCOUNTER: a counter page.", "TASKTODO: a todo list.", "TASKCLOCK: a clock."]
FIRST = '<file path="index.html">\n<p id="count">0</p>\n</file>'
FEEDBACK = "FEEDBACKNOTE: Turn 1 of 5. The test 'click +' failed: no button. Step reward: 2.50."
FIX = '<file path="index.html">\n<p id="count">0</p><button id="inc">+</button>\n</file>\n<finish/>'


def trajectory(task: str) -> dict:
    return {
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": task},
            {"role": "assistant", "content": FIRST},
            {"role": "user", "content": FEEDBACK},
            {"role": "assistant", "content": FIX},
        ]
    }


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    from vcoder.models.tiny_lm import build_tiny_lm

    return build_tiny_lm(tmp_path_factory.mktemp("tiny-lm") / "model")


def recipe(tmp_path, model, data, **extra):
    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.recipes import parse_recipe

    argv = ["--model_name_or_path", str(model), "--dataset", "trajectories", "--dataset_source", str(data)]
    argv += ["--output_dir", str(tmp_path / "out"), "--use_cpu", "true", "--bf16", "false", "--max_steps", "3"]
    argv += ["--per_device_train_batch_size", "2", "--learning_rate", "1e-3", "--report_to", "none"]
    argv += ["--assistant_only_loss", "true", "--logging_steps", "1", "--save_strategy", "no"]
    argv += ["--dataloader_num_workers", "0", "--gradient_checkpointing", "false", "--max_length", "512"]
    for key, value in extra.items():
        argv += [f"--{key}", str(value)]
    return parse_recipe(sft.make_parser(), argv)


def write_jsonl(tmp_path, rows) -> str:
    path = tmp_path / "trajectories.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_the_loss_covers_the_assistant_turns_only(tmp_path, tiny_lm):
    from vcoder.pipelines.grpo import sft

    data = write_jsonl(tmp_path, [trajectory(t) for t in TASKS])
    trainer, holdout = sft.build_trainer(*recipe(tmp_path, tiny_lm, data))
    assert holdout is None
    tokenizer = trainer.processing_class
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(TASKS))])
    trained_text = []
    for ids, labels in zip(batch["input_ids"].tolist(), batch["labels"].tolist(), strict=True):
        kept = [i for i, label in zip(ids, labels, strict=True) if label != -100]
        assert all(label in (-100, i) for i, label in zip(ids, labels, strict=True))  # labels are the inputs
        assert 0 < len(kept) < sum(i != tokenizer.pad_token_id for i in ids)
        trained = tokenizer.decode(kept)
        trained_text.append(trained)
        # both of the model's turns, with their end-of-turn token, are trained on ...
        assert FIRST in trained and FIX in trained and trained.count("<|im_end|>") == 2
        # ... and nothing the environment wrote: the system prompt, the task, the feedback turn
        for marker in ("SYSTEMRULES", "TASK", "FEEDBACKNOTE", "<|im_start|>user", "<|im_start|>system"):
            assert marker not in trained
        whole = tokenizer.decode([i for i in ids if i != tokenizer.pad_token_id])
        assert "FEEDBACKNOTE" in whole and "SYSTEMRULES" in whole  # they are in the input, as context
    assert len(set(trained_text)) == 1  # the three trajectories differ only in their (untrained) task


def test_a_flawed_turn_can_be_left_out_of_the_loss(tmp_path, tiny_lm):
    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.grpo.agent_sft import drop_turns_from_loss

    data = write_jsonl(tmp_path, [trajectory(t) for t in TASKS])
    trainer, _ = sft.build_trainer(*recipe(tmp_path, tiny_lm, data))
    tokenizer = trainer.processing_class
    dropped = drop_turns_from_loss(trainer.train_dataset, [[1], [], [2]])
    trained = [tokenizer.decode([t for t in row["labels"] if t != -100]) for row in dropped]
    assert FIRST not in trained[0] and FIX in trained[0] and trained[0].count("<|im_end|>") == 1
    assert FIRST in trained[1] and FIX in trained[1]
    assert FIRST in trained[2] and FIX not in trained[2]
    assert dropped[0]["input_ids"] == trainer.train_dataset[0]["input_ids"]  # still in the input, as context
    with pytest.raises(ValueError, match="one list per trajectory"):
        drop_turns_from_loss(trainer.train_dataset, [[1]])
    with pytest.raises(ValueError, match="cannot leave out turn 3"):
        drop_turns_from_loss(trainer.train_dataset, [[3], [], []])


def test_vcoder_train_sft_runs_on_trajectories(tmp_path, tiny_lm):
    from vcoder.pipelines.grpo import sft

    data = write_jsonl(tmp_path, [trajectory(t) for t in TASKS])
    summary = sft.main(*recipe(tmp_path, tiny_lm, data))
    assert summary["global_step"] == 3 and summary["holdout"] is None
    out = tmp_path / "out"
    state = json.loads((out / "trainer_state.json").read_text())
    losses = [entry["loss"] for entry in state["log_history"] if "loss" in entry]
    assert len(losses) == 3 and all(math.isfinite(x) and x > 0 for x in losses)
    assert (out / "config.json").exists() and (out / "tokenizer_config.json").exists()


def test_recipe_errors_name_the_fix(tmp_path, tiny_lm):
    from vcoder.pipelines.grpo import sft

    data = write_jsonl(tmp_path, [trajectory(TASKS[0])])
    with pytest.raises(ValueError, match="set assistant_only_loss: true"):
        sft.build_trainer(*recipe(tmp_path, tiny_lm, data, assistant_only_loss="false"))
    with pytest.raises(ValueError, match="needs dataset_source"):
        from vcoder.pipelines.grpo.args import VCoderScriptArguments

        VCoderScriptArguments(dataset="trajectories")
    from vcoder.pipelines.grpo.data import build_datasets

    script_args = recipe(tmp_path, tiny_lm, data)[0]
    with pytest.raises(ValueError, match="agent SFT's data"):
        build_datasets(script_args)


def test_the_reader_takes_webgen_agent_logs(tmp_path):
    # WebGen-Agent's log folders: stepN.json with the conversation so far, an `info` dict on every message
    for name, turns in (("000001", 2), ("000002", 1)):
        folder = tmp_path / "logs" / name
        folder.mkdir(parents=True)
        messages = [{"role": "system", "content": SYSTEM, "info": {}}, {"role": "user", "content": TASKS[0]}]
        for step in range(turns):
            messages = messages + [
                {"role": "assistant", "content": f"reply {step}", "info": {"is_finish": False}},
                {"role": "user", "content": FEEDBACK, "info": {"screenshot_grade": 3}},
            ]
            (folder / f"step{step}.json").write_text(json.dumps({"messages": messages, "gui_instruction": "x"}))
    rows = read_trajectories(tmp_path / "logs")
    assert [[m["content"] for m in r["messages"] if m["role"] == "assistant"] for r in rows] == [
        ["reply 0", "reply 1"],
        ["reply 0"],
    ]
    assert all(set(m) == {"role", "content"} for r in rows for m in r["messages"])
    assert rows[0]["messages"][-1]["role"] == "assistant"  # the feedback after the last turn is not kept
    assert read_trajectories(tmp_path / "logs" / "000002") == rows[1:]
    (tmp_path / "one.json").write_text(json.dumps([trajectory(TASKS[1])]))
    assert read_trajectories(tmp_path / "one.json")[0]["messages"][1]["content"] == TASKS[1]


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([{"role": "user", "content": "x"}], "no assistant turn"),
        ([{"role": "assistant", "content": "x"}], "starts with an assistant turn"),
        ([{"role": "user", "content": "x"}, {"role": "tool", "content": "y"}], "role 'tool'"),
        ([{"role": "user", "content": [{"type": "image"}]}], "only text content"),
    ],
)
def test_bad_trajectories_name_the_line(tmp_path, messages, message):
    path = write_jsonl(tmp_path, [trajectory(TASKS[0]), {"messages": messages}])
    with pytest.raises(ValueError, match=f"trajectories.jsonl line 2.*{message}"):
        read_trajectories(path)
