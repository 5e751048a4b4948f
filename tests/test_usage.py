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
