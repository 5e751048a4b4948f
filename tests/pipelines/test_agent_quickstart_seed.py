"""`vcoder quickstart --agent --fast --agent-format webgen_agent`: every stage in WebGen-Agent's format (Bolt
markup, its system prompt, its feedback turns), on the same splits as vcoder's own format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def test_the_formats_are_chosen_once_and_named_in_the_house_vocabulary():
    from vcoder.pipelines.agent_quickstart import EPISODE, FLAWS
    from vcoder.pipelines.agent_quickstart.formats import AGENT_FORMATS, agent_format
    from vcoder.sites.records import AGENT_FORMATS as EPISODE_FORMATS

    assert AGENT_FORMATS == EPISODE_FORMATS  # the flag takes the episode's names, nothing of its own
    own = agent_format("vcoder", vcoder_episode=EPISODE, flaws=FLAWS)
    assert own.episode == EPISODE and own.flaws == FLAWS and own.site_scorer(None) is None
    seed = agent_format("webgen_agent", vcoder_episode=EPISODE, flaws=FLAWS)
    options = seed.options()
    assert options.turn_format == "bolt" and options.agent_format == "webgen_agent"
    assert options.system_prompt is None  # None: WebGen-Agent's own prompt, not the quickstart's short one
    assert "cut_off" not in seed.flaws and set(seed.flaws) < set(FLAWS)
    assert seed.step_grpo["agent_format"] == "webgen_agent" and seed.step_grpo["system_prompt"] is None
    with pytest.raises(ValueError, match="choose among vcoder, webgen_agent"):
        agent_format("bolt")


def test_the_flag_without_agent_is_a_one_line_error(capsys):
    from vcoder.cli import main

    with pytest.raises(SystemExit, match="applies to the agent quickstart: add --agent"):
        main(["quickstart", "--fast", "--agent-format", "webgen_agent", "--out", "unused"])


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(2400)  # every stage for real, shrunk: ~6 min on 2 idle cores, more on a shared one
def test_fast_agent_quickstart_in_the_seed_format(tmp_path, capsys):
    import torch

    from vcoder.cli import main
    from vcoder.data.site_kinds import kind_tasks
    from vcoder.data.splits import split_digest
    from vcoder.pipelines.agent_quickstart import FAST, HELDOUT_SEED, KINDS
    from vcoder.sites.seed_prompts import FULL_FILE_REMINDER, seed_system_prompt

    out = tmp_path / "qs"
    threads = torch.get_num_threads()
    try:
        argv = ["quickstart", "--agent", "--fast", "--agent-format", "webgen_agent", "--out", str(out), "--seed", "1"]
        assert main(argv) == 0
    finally:
        torch.set_num_threads(threads)
    assert "webgen_agent format" in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["agent_format"] == "webgen_agent" and set(summary["heldout"]) == {"untrained", "sft", "step_grpo"}
    # the same splits as vcoder's own format: the fixed test tasks and the seed's training tasks
    scored = kind_tasks(FAST["n_heldout"], HELDOUT_SEED, split="test", kinds=KINDS)
    assert summary["split_digest"] == split_digest(r["content_key"] for r in scored)
    train = kind_tasks(FAST["n_train"], 1, split="train", kinds=KINDS)
    assert summary["train_digest"] == split_digest(r["content_key"] for r in train)

    # the SFT data: the seed's system prompt, Bolt replies, the seed's feedback turns, the GUI test asked for
    records = [json.loads(line) for line in (out / "trajectories" / "train.jsonl").read_text().splitlines()]
    assert len(records) == summary["trajectories"]["written"] > 0
    system = seed_system_prompt()
    for record in records:
        messages = record["messages"]
        assert messages[0] == {"role": "system", "content": system}
        replies = [m["content"] for m in messages if m["role"] == "assistant"]
        feedback = [m["content"] for m in messages[2:] if m["role"] == "user"]
        assert "<boltArtifact" in replies[0] and '<boltAction type="file" filePath="index.html">' in replies[0]
        assert '<boltAction type="screenshot_validated"/>' in replies and replies[-1] == '<boltAction type="finish"/>'
        assert "<file" not in "".join(replies)  # nothing of vcoder's own markup
        assert all("The dependencies were installed." in f and FULL_FILE_REMINDER in f for f in feedback)
        assert any("The GUI-agent test passed" in f for f in feedback)
    meta = [json.loads(line) for line in (out / "trajectories" / "train.jsonl.meta.jsonl").read_text().splitlines()]
    # the seed's step reward: appearance 5 on the code turn plus the GUI test's grade (5: every case passed)
    assert all(m["rewards"][0] >= 6 and m["rewards"][-1] is None for m in meta)
    assert any(m["rewards"][:3] == [10, None, None] for m in meta)

    # the held-out episodes ran in the seed's loop: its prompt, its feedback; accuracy from the tasks' cases
    for name in summary["heldout"]:
        scored_eval = json.loads((out / "eval" / f"{name}.json").read_text())
        assert scored_eval["mean"]["errors"] == 0
        assert [t["id"] for t in scored_eval["tasks"]] == [r["id"] for r in scored]
        for task in scored_eval["tasks"]:
            assert task["messages"][0]["content"] == system
            assert all("FULL updated content" in m["content"] for m in task["messages"][2:] if m["role"] == "user")
        assert all(0.0 <= v <= 1.0 for v in summary["heldout"][name].values())
    # Step-GRPO ran its steps in the seed's loop; a barely trained model's replies reach their cap, and the seed
    # drops such trajectories, so a --fast run may score none (steps 0); a scored step is the seed's reward
    state = json.loads((out / "step_grpo" / "trainer_state.json").read_text())
    assert state["global_step"] == FAST["grpo_steps"]
    reward = summary["step_reward"]
    assert reward["steps"] == 0 or -1.0 <= reward["start"] <= 10.0

    # a recipe choice reruns Step-GRPO alone from this run's SFT model, scored on validation tasks; a changed training
    # cap leaves the scoring episodes as the run had them
    from vcoder.pipelines.agent_quickstart.rerun import rerun_step_grpo

    with pytest.raises(ValueError, match="not a Step-GRPO recipe key"):
        rerun_step_grpo(str(out), str(tmp_path / "bad"), overrides={"max_turnz": 6}, small=True)
    # experiments/agent_rerun.py, the script recipe choices run, in its small mode on this run
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    argv = [sys.executable, str(root / "experiments" / "agent_rerun.py"), "--small", "--threads", "1"]
    argv += ["--set", "max_turns=6", "--out", str(tmp_path / "rerun"), str(out)]
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    table = json.loads((tmp_path / "rerun" / "table.json").read_text())
    assert table["split"] == "validation" and table["overrides"] == {"max_turns": 6} and len(table["table"]) == 1
    rerun = json.loads((tmp_path / "rerun" / "seed1" / "rerun.json").read_text())
    assert rerun["agent_format"] == "webgen_agent" and rerun["split"] == "validation"
    assert rerun["train_digest"] == summary["train_digest"] and rerun["split_digest"] != summary["split_digest"]
    assert (
        json.loads((tmp_path / "rerun" / "seed1" / "step_grpo" / "trainer_state.json").read_text())["global_step"] == 1
    )
    assert set(rerun["sft"]) == set(rerun["step_grpo"]) and rerun["overrides"] == {"max_turns": 6}
