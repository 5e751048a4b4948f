"""``orm_reward``: the reward contract (name, async, picklable, build-time checks) and its values on real renders."""

from __future__ import annotations

import asyncio
import inspect
import pickle

import pytest

from vcoder.data.site_kinds.pages import make_page
from vcoder.rewards.orm import make_orm_reward, orm_reward, orm_site_scorer
from vcoder.rewards.settings import RewardSettings


def test_bad_configuration_fails_when_the_reward_is_built(tiny_vlm_dir, untrained_orm):
    with pytest.raises(ValueError, match="is not an ORM: it has no orm.json"):
        make_orm_reward(orm_model=str(tiny_vlm_dir))
    with pytest.raises(TypeError, match="'orm_treshold' \\(did you mean 'orm_threshold'\\?\\)"):
        make_orm_reward(orm_model=str(untrained_orm), orm_treshold=0.4)
    with pytest.raises(TypeError, match="did you mean 'render_width'"):
        make_orm_reward(orm_model=str(untrained_orm), render_widht=800)
    with pytest.raises(ValueError, match=r"orm_threshold=1.5 must be a number in \(0, 1\)"):
        make_orm_reward(orm_model=str(untrained_orm), orm_threshold=1.5)
    with pytest.raises(ValueError, match="orm_batch_size=0 must be a positive integer"):
        make_orm_reward(orm_model=str(untrained_orm), orm_batch_size=0)
    with pytest.raises(TypeError, match="build it with make_orm_reward"):
        asyncio.run(orm_reward(["<p>x</p>"], instruction=["x"]))
    # the Step-GRPO step reward's scorer checks its folder when it is built, too
    with pytest.raises(ValueError, match="is not an ORM: it has no orm.json"):
        orm_site_scorer(RewardSettings(orm_model=str(tiny_vlm_dir)))


def test_the_reward_contract(untrained_orm):
    reward = make_orm_reward(orm_model=str(untrained_orm), render_timeout_ms=10000)
    assert reward.__name__ == "orm_reward"
    assert inspect.iscoroutinefunction(reward)
    again = pickle.loads(pickle.dumps(reward))
    assert again.__name__ == "orm_reward" and again.keywords == reward.keywords
    # no HTML -> 0.0 and no instruction -> None need no browser and no ORM
    out = asyncio.run(reward(["no markup", "also none"], instruction=["A counter", None], unknown_column=[1, 2]))
    assert out == [0.0, None]


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_values_on_real_renders(untrained_orm):
    from vcoder.orm.model import ORMConfig

    working, broken = make_page("counter", 4), make_page("counter", 4, broken="handler_removed")
    completions = [
        f"```html\n{working['html']}\n```",
        [{"role": "assistant", "content": broken["html"]}],
        "I cannot do that.",
        f"```html\n{working['html']}\n```",
        working["html"],
    ]
    instruction = [working["instruction"]] * 4 + [None]
    cases = [working["test_cases"]] * 5
    reward = make_orm_reward(orm_model=str(untrained_orm), render_timeout_ms=10000)
    binary = make_orm_reward(orm_model=str(untrained_orm), orm_binary=True, render_timeout_ms=10000)
    logged = []
    probs = asyncio.run(
        reward(completions, instruction=instruction, test_cases=cases, log_metric=lambda *a: logged.append(a))
    )
    cuts = asyncio.run(binary(completions, instruction=instruction, test_cases=cases))
    assert len(probs) == 5 and probs[2] == 0.0 and probs[4] is None
    assert 0.0 < probs[0] < 1.0 and 0.0 < probs[1] < 1.0 and probs[0] == probs[3]
    assert probs[0] != probs[1]  # the broken page's prompt differs (its script is gone)
    assert cuts == [float(p >= 0.5) if isinstance(p, float) and i not in (2, 4) else p for i, p in enumerate(probs)]
    assert ("vcoder/orm_judged", 2.0) in logged  # two distinct sites went through the ORM
    assert ORMConfig.load(untrained_orm).image_width == 160
