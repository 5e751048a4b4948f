"""The environment cores without a trainer: the refinement reward modes, the site core's staging and the bridge's
end of an episode, browsing's malformed actions and its evaluator-given reward (real Chromium, real episodes)."""

from __future__ import annotations

import pytest

from vcoder.envs import driver
from vcoder.envs.refine import RefineCore, RefineSettings

pytestmark = pytest.mark.browser

REF = "<html><body><h1>Hello</h1><p>A page of text.</p></body></html>"
SMALL = (("render_width", 320), ("render_height", 240))


def test_refine_settings_refuse_bad_values_with_the_fix():
    with pytest.raises(ValueError, match="reward_mode='best'"):
        RefineSettings(reward_mode="best")
    with pytest.raises(ValueError, match="reward_weights has 1 values for 2 rewards"):
        RefineSettings(rewards=("ssim", "text"), reward_weights=(1.0,))


def test_refine_rewards_the_last_attempt_or_its_gain_and_stops_at_the_budget():
    final = RefineCore(RefineSettings(rewards=("ssim", "text"), max_turns=2, reward_params=SMALL))
    gain = RefineCore(
        RefineSettings(rewards=("ssim", "text"), max_turns=2, reward_params=SMALL, reward_mode="improvement")
    )
    for core in (final, gain):
        core.reset(html=REF)
        first = driver.run(core.render("<h1>Hello</h1>"))
        assert first.ok and first.image is not None and first.scores["text"] < 1.0
        driver.run(core.render(REF))
        over = driver.run(core.render(REF))
        assert not over.ok and "no renders left" in over.error
    assert driver.run(final.reward()) == pytest.approx(1.0)
    assert 0.0 < driver.run(gain.reward()) < 1.0  # 1.0 minus the first attempt's mix
    final.reset(html=REF)
    broken = driver.run(final.render("no markup at all"))  # model output never raises: it renders nothing, scores 0
    assert not broken.ok and "could not be rendered" in broken.error
    assert driver.run(final.reward()) == 0.0


def test_site_core_stages_files_builds_and_ends_the_episode():
    from vcoder.data.site_kinds.pages import make_page
    from vcoder.envs.site import SiteCore
    from vcoder.sites.records import EpisodeOptions

    page = make_page("counter", 1)
    core = SiteCore(EpisodeOptions(max_turns=2, screenshot_weight=0.0, render_width=640, render_height=400))
    driver.run(core.reset({"instruction": page["instruction"], "test_cases": page["test_cases"]}))
    assert "nothing staged" in driver.run(core.build()).text  # no turn spent on an empty build
    core.write_file("index.html", page["html"])
    step = driver.run(core.build())
    assert not step.done and step.image is not None and "Functionality" in step.text
    assert driver.run(core.reward()) == pytest.approx(5.0)  # ends the episode: its own final reward
    assert driver.run(core.build()).done


def test_browse_core_counts_a_malformed_action_and_scores_the_answer():
    from vcoder.browse.generate import generate_tasks
    from vcoder.envs.browse import BrowseCore

    task = generate_tasks("shop", seed=0, n=1)[0]
    core = BrowseCore(step_budget=3)
    first = driver.run(core.reset(task))
    assert "Search products" in first
    bad = driver.run(core.act("click the headphones"))
    assert not bad.done and "failed" in bad.text  # the error shows in the next observation, the step is spent
    answer = task.eval.reference_answers["must_include"][0]
    end = driver.run(core.act(f'exit(message="{answer}")'))
    assert end.done and driver.run(core.reward()) == pytest.approx(1.0)
    driver.run(core.reset(task))  # a fresh episode: no answer given, ended at scoring time
    assert driver.run(core.reward()) == 0.0
