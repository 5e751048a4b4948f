"""Every `vcoder` command answers a user's mistake (a wrong flag, a missing file, a bad value) with ONE line on
stderr, exit status 2, never a traceback or the usage block; a wrong flag or subcommand names the closest one."""

from __future__ import annotations

import pytest

from vcoder.cli import main


@pytest.fixture
def files(tmp_path):
    (tmp_path / "page.html").write_text("<p>hi</p>")
    (tmp_path / "empty.json").write_text("[]")
    (tmp_path / "bad.yaml").write_text("phases: [unclosed")
    return tmp_path


def _one_line(argv, capsys) -> str:
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's errors exit; the commands' own checks return
        status = exc.code
    captured = capsys.readouterr()
    assert status == 2, captured
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


CASES = {
    # family: [(argv with {tmp} for the temporary folder, what the line says), ...]
    "train": [
        (
            ["train", "grpo", "--config", "configs/tiny_cpu_grpo.yaml", "--max_stepz", "3"],
            "(did you mean 'max_steps'?)",
        ),
        (["train", "grpo", "--config", "{tmp}/none.yaml"], "does not exist"),
        (["train", "grpo", "--config", "configs/tiny_cpu_grpo.yaml", "--holdout", "2"], "holdout=2.0 is a fraction"),
        (["train", "sft", "--config", "configs/tiny_cpu_sft.yaml", "--max_steps", "x"], "invalid int value: 'x'"),
        (["train", "grpp"], "invalid choice: 'grpp'"),
    ],
    "score": [
        (
            ["score", "--ref", "{tmp}/page.html", "--pred", "{tmp}/page.html", "--render-widht", "3"],
            "'--render-width'",
        ),
        (["score", "--ref", "{tmp}/none.html", "--pred", "{tmp}/page.html"], "does not exist"),
        (["score", "--ref", "{tmp}/page.html", "--pred", "{tmp}/page.html", "--rewards", "clipp"], "unknown reward"),
    ],
    "eval": [
        (
            ["eval", "design2code", "--testset", "{tmp}", "--predictions", "{tmp}", "--out", "{tmp}/o", "--jsn"],
            "'--json'",
        ),
        (
            ["eval", "design2code", "--testset", "{tmp}/none", "--predictions", "{tmp}", "--out", "{tmp}/o"],
            "not a folder",
        ),
        (["eval", "webgen"], "(did you mean 'webgen-bench'?)"),
    ],
    "agent": [
        (["agent", "test", "{tmp}/page.html", "--cases", "{tmp}/empty.json", "--polcy", "vlm"], "'--policy'"),
        (["agent", "test", "{tmp}/page.html", "--cases", "{tmp}/none.json"], "no such cases file"),
        (["agent", "test", "{tmp}/page.html", "--cases", "{tmp}/empty.json", "--policy", "vlmm"], "'vlm'"),
    ],
    "curriculum": [
        (["curriculum", "run", "--config", "{tmp}/bad.yaml", "--out", "{tmp}/c", "--max-phase", "x"], "invalid int"),
        (["curriculum", "run", "--config", "{tmp}/none.yaml", "--out", "{tmp}/c"], "does not exist"),
        (["curriculum", "run", "--config", "{tmp}/bad.yaml", "--out", "{tmp}/c"], "is not valid YAML"),
        (
            [
                "curriculum",
                "run",
                "--config",
                "configs/curriculum/tiny_cpu.yaml",
                "--out",
                "{tmp}/c",
                "--set",
                "phases=two",
            ],
            "phases='two' must be a number",
        ),
    ],
    "data": [
        (["data", "synth", "--n", "2", "--out", "{tmp}/s", "--seeds", "3"], "'--seed'"),
        (["data", "design2code", "--source", "{tmp}/none", "--out", "{tmp}/d"], "neither an existing path"),
        (["data", "synth", "--n", "-1", "--out", "{tmp}/s"], "--n must be >= 0"),
    ],
    "other": [
        (["trian"], "(did you mean 'train'?)"),
        (["plot", "{tmp}/none"], "no trainer_state.json"),
        (["render", "{tmp}/none.html", "--out", "{tmp}/r"], "no such file"),
        (
            [
                "predict",
                "--testset",
                "{tmp}",
                "--base-url",
                "http://127.0.0.1:9",
                "--model",
                "m",
                "--out",
                "o",
                "--ids",
            ],
            "--ids",
        ),
    ],
}


@pytest.mark.parametrize("family", sorted(CASES))
def test_user_errors_are_one_line(family, files, capsys, monkeypatch):
    import os

    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    for argv, said in CASES[family]:
        line = _one_line([item.replace("{tmp}", str(files)) for item in argv], capsys)
        assert line.startswith("vcoder") and said in line, (argv, line)
