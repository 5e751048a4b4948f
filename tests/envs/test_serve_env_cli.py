"""``vcoder serve-env``'s user errors: one line, exit 2, before anything is served."""

from __future__ import annotations

import pytest

from vcoder.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve-env", "refine", "--rewards", "vsual"], "unknown reward 'vsual' (did you mean 'visual'?)"),
        (["serve-env", "refine", "--port", "70000"], "--port 70000 must be in 0..65535"),
        (["serve-env", "browse", "--max-sessions", "0"], "must be positive"),
    ],
)
def test_bad_settings_are_one_line_errors(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("vcoder serve-env: error:") and message in err and "\n" not in err


def test_an_unknown_setting_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["serve-env", "refin"])
    assert exit_info.value.code == 2
    assert "refine" in capsys.readouterr().err
