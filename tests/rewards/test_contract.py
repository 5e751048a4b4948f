"""Every reward honours the TRL contract: length, extra kwargs, pickling, stable name, async, None semantics."""

from __future__ import annotations

import asyncio
import pickle

import pytest
from trl.trainer.utils import get_callable_name, is_async_callable

from tests.rewards.pages import make_page, to_html
from vcoder.rewards import available_rewards, build_reward, build_rewards
from vcoder.rewards.context import get_context

pytestmark = pytest.mark.browser

LOCAL = ["format", "validity", "dom", "ssim", "clip", "block", "text", "position", "color", "visual"]
PARAMS = {"clip_tiny": True, "render_timeout_ms": 10000}
REF = to_html(make_page(1, n_blocks=4))
GOOD = "```html\n" + REF + "\n```"
COMPLETIONS = [GOOD, "I cannot write HTML today.", [{"role": "assistant", "content": GOOD}]]


def run(func, completions=COMPLETIONS, **columns):
    return asyncio.run(func(prompts=[""] * len(completions), completions=completions, **columns))


@pytest.fixture(scope="module")
def rewards():
    return {name: build_reward(name, **PARAMS) for name in LOCAL}


@pytest.mark.parametrize("name", LOCAL)
def test_shape_range_and_extra_kwargs(rewards, name):
    logged = []
    out = run(
        rewards[name],
        html=[REF] * 3,
        image=[None] * 3,
        completion_ids=[[1], [2], [3]],
        some_other_column=["x", "y", "z"],
        trainer_state=None,
        log_metric=lambda k, v: logged.append((k, v)),
        log_extra=lambda *a, **k: None,
    )
    assert len(out) == 3
    for value in out:
        assert value is None or 0.0 <= value <= 1.0
    if name != "format":
        assert out[1] == 0.0, f"{name}: a completion without HTML must score 0.0"
    assert out[0] is not None and out[0] == pytest.approx(out[2]), "string and conversational forms agree"


@pytest.mark.parametrize("name", [*LOCAL, "gui_agent", "screenshot_judge"])
def test_picklable_named_async(rewards, name):
    func = rewards.get(name) or build_reward(name, judge_base_url="http://127.0.0.1:9", judge_model="m")
    clone = pickle.loads(pickle.dumps(func))
    assert get_callable_name(func) == f"{name}_reward" == get_callable_name(clone)
    assert func.__name__ == f"{name}_reward"
    assert is_async_callable(func) and is_async_callable(clone)


@pytest.mark.parametrize("name", ["dom", "block", "text", "position", "color"])
def test_none_without_reference_html(rewards, name):
    out = run(rewards[name], completions=[GOOD], image=[None])
    assert out == [None], "a layout/structure reward without reference HTML cannot judge"


@pytest.mark.parametrize("name", ["ssim", "clip", "visual"])
def test_none_without_any_reference(rewards, name):
    assert run(rewards[name], completions=[GOOD]) == [None]


def test_unrenderable_page_scores_zero(rewards):
    hang = "<html><body><p>x</p><script>while(true){}</script></body></html>"
    fast = build_reward("block", render_timeout_ms=2000)
    assert run(fast, completions=[hang], html=[REF]) == [0.0]


def test_image_reference_for_whole_image_rewards(rewards):
    from vcoder.rendering import get_default_pool

    shot = get_default_pool().render(REF).pil()
    for name in ("ssim", "clip", "visual"):
        out = run(rewards[name], completions=[GOOD], image=[shot])
        assert out[0] is not None and out[0] >= 0.99, (name, out)
    assert run(rewards["block"], completions=[GOOD], image=[shot]) == [None]


def test_stacked_rewards_render_each_page_once():
    ctx = get_context()
    funcs = build_rewards(LOCAL, **PARAMS)
    pages = [to_html(make_page(s, n_blocks=3)) for s in (11, 12)]
    completions = [f"```html\n{p}\n```" for p in pages] * 4  # 8 completions, 2 distinct pages
    refs = [to_html(make_page(13, n_blocks=3))] * 8
    before = ctx.counters["renders"]

    async def step():
        return await asyncio.gather(
            *(f(prompts=[""] * 8, completions=completions, html=refs, image=[None] * 8) for f in funcs)
        )

    results = asyncio.run(step())
    assert all(len(r) == 8 for r in results)
    assert ctx.counters["renders"] - before == 3, "2 distinct completions + 1 reference, whatever the reward count"


def test_registry_covers_the_issue_names():
    assert set(LOCAL) <= set(available_rewards())
    assert {"gui_agent", "screenshot_judge"} <= set(available_rewards())
