"""Old keyword names of the options classes still work, each with a DeprecationWarning naming the new one."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from vcoder.eval.webgen_config import WebGenConfig
from vcoder.gui.limits import CaseLimits
from vcoder.rendering.spec import RenderSpec
from vcoder.rewards.settings import RewardSettings
from vcoder.sites.records import EpisodeOptions


def test_episode_options_old_keywords_work_with_a_deprecation_warning_naming_the_new_one():
    # the names EpisodeOptions had before its fields were generated from RenderSpec / CaseLimits (adbe9f7, 620f238)
    with pytest.warns(DeprecationWarning, match=r"EpisodeOptions\(width=\.\.\.\) is now EpisodeOptions\(render_width"):
        options = EpisodeOptions(width=640, height=480)
    with pytest.warns(DeprecationWarning, match=r"\(action_timeout_ms=\.\.\.\) is now EpisodeOptions\(gui_action_"):
        limits = EpisodeOptions(action_timeout_ms=900, case_deadline_ms=9000, load_timeout_ms=5000)
    assert options == EpisodeOptions(render_width=640, render_height=480)
    assert options.render_spec() == RenderSpec(width=640, height=480, timeout_ms=10_000)
    assert limits.case_limits() == CaseLimits(deadline_ms=9000, action_timeout_ms=900)
    assert limits.render_timeout_ms == 5000
    with pytest.warns(DeprecationWarning, match=r"EpisodeOptions\.width is now EpisodeOptions\.render_width"):
        assert options.width == 640
    assert pickle.loads(pickle.dumps(options)) == options
    assert "width" not in {f.name for f in dataclasses.fields(EpisodeOptions)}


def test_an_old_and_a_new_name_together_is_refused_in_one_line():
    with pytest.raises(TypeError, match="'width' and 'render_width' name one setting; keep 'render_width'"):
        EpisodeOptions(width=1, render_width=2)


def test_the_new_names_give_no_warning(recwarn):
    EpisodeOptions(render_width=640, gui_action_timeout_ms=900)
    RewardSettings.from_params(render_timeout_ms=5000)
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]


def test_reward_and_webgen_settings_take_their_old_names_too():
    with pytest.warns(DeprecationWarning, match=r"RewardSettings\(load_timeout_ms=\.\.\.\) is now"):
        settings = RewardSettings.from_params(load_timeout_ms=5000, judge_url="http://j")
    assert (settings.render_timeout_ms, settings.judge_base_url) == (5000, "http://j")
    with pytest.raises(TypeError, match="unknown reward parameter"):
        RewardSettings.from_params(load_timeout_msx=1)  # a typo is still a one-line error
    with pytest.warns(DeprecationWarning, match="agent_timeout_ms"):
        run = WebGenConfig(base_url="u", model="m", agent_base_url="g", agent_model="a", agent_timeout_ms=9000)
    # the old name budgeted the GUI agent's and the judge's requests: it still sets both
    assert (run.gui_base_url, run.gui_timeout_ms, run.judge_timeout_ms) == ("g", 9000, 9000)
