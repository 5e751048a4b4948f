"""Result files and the tables made from them: README.md and docs/results.md agree with experiments/results/, a
tampered table is caught, and a finished run's folder becomes a result file the table shows."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from vcoder.cli import build_parser
from vcoder.cli.record import figures_of, record_run, target_dir

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("results_tables", ROOT / "scripts" / "results_tables.py")
tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tables)


def test_the_documents_tables_agree_with_their_result_files():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "results_tables.py"), "--check"], capture_output=True
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "<!-- results:web_agent -->" in (ROOT / "docs" / "results.md").read_text()


def agent_record(seed: int, sft: float, grpo: float) -> dict:
    heldout = {
        name: {"accuracy": acc, "well_formed": 1.0, "first_turn_accuracy": acc, "last_turn_accuracy": acc}
        for name, acc in (("untrained", 0.0), ("sft", sft), ("step_grpo", grpo))
    }
    return {
        "schema": 1, "loop": "agent_quickstart", "seed": seed, "command": f"vcoder quickstart --agent --seed {seed}",
        "start": None, "versions": {"vcoder": "0123456789abcdef"}, "measured_on": "test",
        "splits": {"test": {"digest": "feedbeefcafe0000"}}, "wall_s": 400.0, "figures": {"heldout": heldout},
    }  # fmt: skip


def documents(tmp_path: Path) -> tuple[Path, Path]:
    root, results = tmp_path / "repo", tmp_path / "results"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# x\n<!-- results:agent_quickstart -->\nold\n<!-- /results -->\ntail\n")
    (root / "docs" / "results.md").write_text("no tables here\n")
    (results / "agent_quickstart").mkdir(parents=True)
    for seed, sft, grpo in ((0, 0.5, 0.6), (1, 0.4, 0.4)):
        (results / "agent_quickstart" / f"seed{seed}.json").write_text(json.dumps(agent_record(seed, sft, grpo)))
    return root, results


def test_a_tampered_table_fails_the_check(tmp_path, capsys):
    root, results = documents(tmp_path)
    args = ["--root", str(root), "--results", str(results)]
    assert tables.main([*args, "--check"]) == 1  # "old" is not the table
    assert tables.main(args) == 0
    text = (root / "README.md").read_text()
    assert "| 0 | 0.000 / 0.500 / 0.600 | +0.100 |" in text and "mean +0.050" in text and text.endswith("tail\n")
    assert tables.main([*args, "--check"]) == 0
    (root / "README.md").write_text(text.replace("0.600 | +0.100", "0.650 | +0.150"))
    assert tables.main([*args, "--check"]) == 1
    assert "README.md: agent_quickstart" in capsys.readouterr().err
    (root / "README.md").write_text(text)
    (results / "agent_quickstart" / "seed1.json").write_text(json.dumps(agent_record(1, 0.4, 0.5)))  # a rerun
    assert tables.main([*args, "--check"]) == 1
    (results / "agent_quickstart" / "seed2.json").write_text(json.dumps(agent_record(1, 0.4, 0.5)))
    with pytest.raises(ValueError, match="seed2.json: loop/seed/schema"):
        tables.read_results(results, "agent_quickstart")


def test_a_finished_web_agent_run_becomes_a_result_file(tmp_path):
    from vcoder.browse import write_tasks
    from vcoder.pipelines.web_agent.config import WebAgentConfig
    from vcoder.pipelines.web_agent.split import web_splits

    out, sft = tmp_path / "run", tmp_path / "sft"
    sft.mkdir()
    config = WebAgentConfig(sites=("shop",), train_per_site=3, validation_per_site=2, heldout_per_site=2, seed=1)
    for name, tasks in web_splits(config).items():
        write_tasks(tasks, out / "tasks" / f"{name}.json")
    phases = [
        {
            "heldout_success_before": 0.0,
            "heldout_success": 0.5,
            "heldout": {"n": 2},
            "success_rate": 0.25,
            "wall_s": 9,
        },
        {"heldout_success_before": 0.5, "heldout_success": 1.0, "heldout": {"n": 2}, "success_rate": 0.5, "wall_s": 8},
    ]
    conf = {**config.to_dict(), "model_name_or_path": str(sft)}
    summary = {"config": conf, "phases": phases, "complete": True, "heldout_split": "test"}
    (out / "curriculum.json").write_text(json.dumps(summary))
    (sft / "command.json").write_text(json.dumps({"command": "vcoder curriculum web-sft ...", "wall_s": 700.0}))
    argv = ["curriculum", "run", "--config", "x.yaml", "--seed", "1", "--out", str(out)]
    path = record_run(build_parser().parse_args(argv), argv, wall_s=20.0, root=tmp_path / "results")
    record = json.loads(path.read_text())
    assert path == tmp_path / "results" / "web_agent" / "seed1.json" and record["loop"] == "web_agent"
    assert record["command"] == "vcoder " + " ".join(argv) and record["start"]["wall_s"] == 700.0
    assert record["figures"]["heldout_success"] == [0.5, 1.0] and record["measured_on"] == "test"
    assert set(record["splits"]) == {"train", "validation", "test"} and record["splits"]["test"]["n"] == 2
    assert {"vcoder", "torch", "transformers", "trl"} <= set(record["versions"])
    assert json.loads((out / "command.json").read_text())["command"] == record["command"]
    table = tables.render("web_agent", tables.read_results(tmp_path / "results", "web_agent"))
    assert "| 1 | 0/2 | 1/2 / 2/2 | +2 tasks | test `" in table and "| 700 + 20 |" in table


def test_recording_is_switched_by_the_env_value_and_needs_a_finished_run(tmp_path):
    assert target_dir(None) is None and target_dir("0") is None
    assert target_dir("1") == Path("experiments/results") and target_dir(str(tmp_path)) == tmp_path
    with pytest.raises(ValueError, match="did not finish"):
        figures_of("quickstart", tmp_path)


def test_vcoder_with_vcoder_record_writes_the_result_file_of_a_finished_run(tmp_path, monkeypatch):
    """Through ``vcoder.cli.main``: a web-agent run folder whose one phase is complete finishes at once."""
    import yaml

    from vcoder.cli import main
    from vcoder.pipelines.web_agent.config import WebAgentConfig

    config = WebAgentConfig(sites=("shop",), train_per_site=2, validation_per_site=1, heldout_per_site=1, phases=1)
    (tmp_path / "recipe.yaml").write_text(yaml.safe_dump(config.to_dict()))
    run = tmp_path / "run"
    (run / "phase_0").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"config": config.to_dict()}))
    report = {"heldout_success_before": 0.0, "heldout_success": 1.0, "heldout": {"n": 4}, "success_rate": 0.5}
    (run / "phase_0" / "report.json").write_text(json.dumps({"phase": 0, **report}))
    (run / "phase_0" / "next_pool.jsonl").write_text("")
    (run / "phase_0" / "replay_buffer.jsonl").write_text("")
    monkeypatch.setenv("VCODER_RECORD", str(tmp_path / "results"))
    argv = ["curriculum", "run", "--config", str(tmp_path / "recipe.yaml"), "--out", str(run), "--seed", "0"]
    assert main(argv) == 0
    record = json.loads((tmp_path / "results" / "web_agent" / "seed0.json").read_text())
    assert record["figures"]["heldout_success"] == [1.0] and record["splits"]["test"]["n"] == 1
    assert record["command"] == "vcoder " + " ".join(argv) and record["measured_on"] == "test"
    monkeypatch.setenv("VCODER_RECORD", "0")
    (tmp_path / "results" / "web_agent" / "seed0.json").unlink()
    assert main(argv) == 0 and not (tmp_path / "results" / "web_agent" / "seed0.json").exists()


def test_a_quickstart_summary_names_its_split_and_digests(tmp_path):
    heldout = {"sft": {"accuracy": 0.5}, "step_grpo": {"accuracy": 0.6}}
    summary = {"seed": 0, "n_heldout": 32, "wall_s": 400.0, "heldout": heldout, "split": "test"}
    (tmp_path / "summary.json").write_text(json.dumps({**summary, "split_digest": "aaaa", "train_digest": "bbbb"}))
    figures, splits, measured_on = figures_of("agent_quickstart", tmp_path)
    assert measured_on == "test" and figures["heldout"] == heldout
    assert splits == {"test": {"digest": "aaaa", "basis": "content"}, "train": {"digest": "bbbb", "basis": "content"}}
    (tmp_path / "summary.json").write_text(json.dumps(summary))  # a summary from before the splits: ids scored
    assert figures_of("agent_quickstart", tmp_path)[1]["test"]["basis"] == "ids"


def test_the_seed_format_agent_quickstart_is_recorded_apart_from_vcoders_format():
    """``--agent-format webgen_agent`` is its own loop: its runs must not overwrite vcoder's format's result files."""
    from argparse import Namespace

    from vcoder.cli.record import loop_of

    base = {"command": "quickstart", "sft_only": False, "fast": False, "agent": True}
    assert loop_of(Namespace(**base, agent_format="vcoder"), Path(".")) == "agent_quickstart"
    assert loop_of(Namespace(**base, agent_format="webgen_agent"), Path(".")) == "agent_quickstart_webgen_agent"
    assert loop_of(Namespace(**{**base, "agent": False}, agent_format="vcoder"), Path(".")) == "quickstart"
    assert "agent_quickstart_webgen_agent" in tables.TABLES


def test_a_validation_run_is_kept_apart_from_the_reported_tables(tmp_path):
    root, results = documents(tmp_path)
    pilot = {**agent_record(3, 0.1, 0.9), "measured_on": "validation"}
    (results / "agent_quickstart" / "seed3.json").write_text(json.dumps(pilot))
    with pytest.raises(ValueError, match="measured on validation"):
        tables.read_results(results, "agent_quickstart")
    out = tmp_path / "q"
    out.mkdir()
    summary = {"seed": 3, "n_heldout": 8, "wall_s": 1.0, "heldout": {"sft": {"accuracy": 0.1}}, "split": "validation"}
    (out / "summary.json").write_text(json.dumps({**summary, "split_digest": "cccc"}))
    argv = ["quickstart", "--agent", "--seed", "3", "--out", str(out)]
    path = record_run(build_parser().parse_args(argv), argv, wall_s=1.0, root=results)
    assert path == results / "agent_quickstart" / "validation" / "seed3.json"
