"""vcoder.usage.OneLineParser: a usage error is one line on stderr (exit 2) naming the closest option or choice, in
the subcommand the option was given to."""

from __future__ import annotations

import pytest

from vcoder.usage import OneLineParser, close_match


def _parser() -> OneLineParser:
    parser = OneLineParser(prog="tool")
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run")
    run.add_argument("--max-tokens", type=int, default=1)
    run.add_argument("--mode", choices=("fast", "careful"), default="fast")
    run.add_argument("--out", required=True)
    return parser


@pytest.mark.parametrize(
    "argv, line",
    [
        (
            ["run", "--out", "o", "--max_token", "3"],
            "tool run: error: unrecognized argument(s) --max_token (did you mean",
        ),
        (["run", "--out", "o", "--mode", "carefull"], "tool run: error: argument --mode: invalid choice: 'carefull'"),
        (["rnu"], "tool: error: argument command: invalid choice: 'rnu'"),
        (["run"], "tool run: error: the following arguments are required: --out"),
        (["run", "--out", "o", "--max-tokens", "many"], "tool run: error: argument --max-tokens: invalid int value"),
    ],
)
def test_errors_are_one_line_with_the_closest_name(argv, line, capsys):
    with pytest.raises(SystemExit) as info:
        _parser().parse_args(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1 and err.startswith(line), err
    if argv[-1] == "carefull":
        assert "(did you mean 'careful'?)" in err
    if argv == ["rnu"]:
        assert "(did you mean 'run'?)" in err
    if "--max_token" in argv:
        assert "(did you mean '--max-tokens'?)" in err


def test_close_match_treats_dashes_and_underscores_alike():
    assert close_match("--batch_size", ["--batch-size", "--seed"]) == "--batch-size"
    assert close_match("run_dir", ["--run_dir", "--run-dir"]) == "--run_dir"  # the first spelling wins
    assert close_match("zzz", ["--seed"]) is None
    assert _parser().parse_args(["run", "--out", "o"]).max_tokens == 1  # a good line parses as before


def test_key_values_reads_yaml_values_and_names_the_flag_on_a_bad_item():
    from vcoder.usage import key_values

    assert key_values(["max_steps=2", "ablation=[cumulative]", "name=a=b"]) == {
        "max_steps": 2,
        "ablation": ["cumulative"],
        "name": "a=b",
    }
    with pytest.raises(ValueError, match=r"^--grpo-set 'beta': write KEY=VALUE, e.g. --grpo-set beta=0.1$"):
        key_values(["beta"], flag="--grpo-set", example="beta=0.1")
    with pytest.raises(ValueError, match=r"^--set '=2': write KEY=VALUE"):
        key_values(["=2"])
    with pytest.raises(ValueError, match=r"^--set 'ablation=\[cumulative': the value is "):
        key_values(["ablation=[cumulative"])


def test_a_bad_yaml_value_in_set_is_one_line(capsys, tmp_path):
    from vcoder.cli import main

    code = main(
        [
            "curriculum",
            "run",
            "--config",
            "configs/curriculum/tiny_cpu.yaml",
            "--out",
            str(tmp_path / "c"),
            "--set",
            "phases=[2",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("vcoder curriculum: --set 'phases=[2': the value is")
