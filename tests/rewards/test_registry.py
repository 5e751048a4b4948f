"""The reward registry: names, typos, dotted paths, parameter validation (no browser needed)."""

from __future__ import annotations

import pytest

from vcoder.rewards import RewardSettings, build_reward, build_rewards


def test_short_names_and_suffix_form():
    assert build_reward("format").__name__ == "format_reward"
    assert build_reward("validity_reward").__name__ == "validity_reward"


def test_typo_gets_did_you_mean():
    with pytest.raises(ValueError, match="(?i)did you mean .validity."):
        build_reward("validty")


def test_unknown_parameter_gets_did_you_mean():
    with pytest.raises(TypeError, match="did you mean 'render_timeout_ms'"):
        build_reward("block", render_timout_ms=100)


def test_bad_parameter_values_fail_at_build_time():
    with pytest.raises(ValueError, match="format_style='xml'"):
        build_reward("format", format_style="xml")
    with pytest.raises(ValueError, match="unknown components"):
        build_reward("visual", visual_weights={"blocks": 1.0})
    with pytest.raises(ValueError, match="render_width=0"):
        RewardSettings(render_width=0)


def test_dotted_paths_load_user_rewards():
    func = build_reward("tests.rewards.user_rewards:length_reward")
    assert func(["x" * 50]) == [0.5]
    made = build_reward("tests.rewards.user_rewards.make_constant_reward", render_width=640, clip_tiny=True)
    assert made(["a", "b"]) == [0.5, 0.5]


def test_bad_dotted_paths_are_clear():
    with pytest.raises(ValueError, match="cannot import module"):
        build_reward("no_such_pkg.rewards:f")
    with pytest.raises(ValueError, match="has no attribute 'nope'"):
        build_reward("tests.rewards.user_rewards:nope")


def test_build_rewards_orders_and_rejects_duplicates():
    funcs = build_rewards("format,validity")
    assert [f.__name__ for f in funcs] == ["format_reward", "validity_reward"]
    with pytest.raises(ValueError, match="both be logged"):
        build_rewards(["format", "format_reward"])
    with pytest.raises(ValueError, match="no reward names"):
        build_rewards([])


def test_clip_without_weights_fails_at_build_time(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(Exception, match="(?i)weights"):
        build_reward("clip", clip_pretrained="openai")
    with pytest.raises(Exception, match="(?i)weights"):
        build_reward("visual", visual_weights={"clip": 1.0}, clip_pretrained=str(tmp_path / "missing.pt"))
