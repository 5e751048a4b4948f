"""`vcoder quickstart --grpo-set KEY=VALUE`: a bad key, value or form is a one-line error before any work."""

from __future__ import annotations

import pytest

from vcoder.cli import main
from vcoder.usage import key_values


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("multi_objective_aggregation", "write KEY=VALUE"),
        ("multi_objective_aggregaton=normalize_then_sum", "multi_objective_aggregaton"),
        ("multi_objective_aggregation=gdpo", "normalize_then_sum"),
    ],
)
def test_a_bad_grpo_set_is_one_line(item, message, capsys, tmp_path):
    assert main(["quickstart", "--out", str(tmp_path / "q"), "--grpo-set", item]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("vcoder quickstart: ") and message in err[0]
    assert not (tmp_path / "q").exists()  # nothing was built


def test_values_are_read_as_yaml():
    assert key_values(["max_steps=2", "beta=0.0", "multi_objective_aggregation=normalize_then_sum"]) == {
        "max_steps": 2,
        "beta": 0.0,
        "multi_objective_aggregation": "normalize_then_sum",
    }


def test_grpo_set_with_the_agent_quickstart_is_refused(capsys):
    from vcoder.cli import main

    assert main(["quickstart", "--agent", "--grpo-set", "max_steps=2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--grpo-set changes the one-shot GRPO stage" in err
