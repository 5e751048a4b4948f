"""The web agent's splits share no content: the overlap check, and the recipe's own splits passing it.

"Content" (vcoder.browse.splits): the site instance (site, data seed), the entities named in the intent (instantiation
values that are data of the instance), the reference answer (the strings a string_match expects or a program_html
check requires, one key per task, case-insensitive), the reference URL of url_match and the (instance, URL, locator)
of each program_html check, and the intent itself. A train/test pair sharing any of them fails.
"""

from __future__ import annotations

import pathlib

import pytest
import yaml

from vcoder.browse import TaskEval, WebTask, generate_tasks
from vcoder.browse.splits import content_keys, instances, overlap, overlap_summary, split_digest, split_of_instance
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.split import web_splits

RECIPE = pathlib.Path(__file__).parents[2] / "configs" / "curriculum" / "web_agent_tiny_cpu.yaml"


def recipe(seed: int) -> WebAgentConfig:
    return WebAgentConfig.from_dict({**yaml.safe_load(RECIPE.read_text()), "seed": seed})


def old_split(config: WebAgentConfig) -> tuple[list[WebTask], list[WebTask]]:
    """The split before issue 35: held-out tasks drawn on the training instance (0), training tasks only required to
    differ from them in wording."""
    train, held = [], []
    for site in config.sites:
        h = generate_tasks(site, seed=10_000 + config.seed, n=config.heldout_per_site)
        more = [t for t in generate_tasks(site, seed=config.seed, n=6 * config.train_per_site) if t.intent not in h]
        held += h
        train += list({t.intent: t for t in more if t.intent not in {x.intent for x in h}}.values())
    return train[: 4 * config.train_per_site], held


def test_the_check_catches_the_old_split():
    train, held = old_split(recipe(0))
    summary = overlap_summary(train, held)
    assert summary["pairs"] > 0 and summary["instance"] > 0 and summary["answer"] > 0 and summary["entity"] > 0


def test_the_check_catches_each_kind_of_shared_content():
    shop = generate_tasks("shop", seed=0, n=4, site_seed=3)
    price = shop[0]  # "What is the price of X?" on instance 3
    elsewhere = WebTask.from_dict({**price.to_dict(), "site_seed": 20_000, "intent": "How much is it?"})
    kinds = {k[0] for _, _, shared in overlap([price], [elsewhere]) for k in shared}
    assert kinds == {"entity", "answer"}  # another instance, another wording: still the same product and answer
    same_answer = WebTask.from_dict(
        {**elsewhere.to_dict(), "instantiation_dict": {}, "intent": "Any question", "eval": price.to_dict()["eval"]}
    )
    assert [k[0] for _, _, shared in overlap([price], [same_answer]) for k in shared] == ["answer"]
    url = WebTask(("shop",), 1, "__SHOP__/#/", "Go", TaskEval(("url_match",), reference_url="__SHOP__/#/cart"))
    other = WebTask(("shop",), 2, "__SHOP__/#/", "Go there", url.eval, site_seed=20_000)
    assert [k[0] for _, _, shared in overlap([url], [other]) for k in shared] == ["url"]
    assert overlap([price], [WebTask.from_dict({**price.to_dict(), "task_id": 9})])  # the same task
    assert not overlap(shop[:1], generate_tasks("admin", seed=0, n=4, site_seed=20_000))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_recipes_splits_share_no_content(seed):
    config = recipe(seed)
    splits = web_splits(config)
    n = len(config.sites)
    assert [len(splits[s]) for s in ("train", "validation", "test")] == [
        n * config.train_per_site,
        n * config.validation_per_site,
        n * config.heldout_per_site,
    ]
    for a, b in [("train", "test"), ("train", "validation"), ("validation", "test")]:
        assert overlap(splits[a], splits[b]) == [], f"{a}/{b} share content"
    for name, tasks in splits.items():
        assert len({t.intent for t in tasks}) == len(tasks), f"an intent repeats in {name}"
        assert {split_of_instance(t.site_seed) for t in tasks} == {name}
    test_templates = {(t.site, t.intent_template_id) for t in splits["test"]}
    assert test_templates == {(t.site, t.intent_template_id) for t in splits["train"]}  # every template, both sides
    assert len({t.task_id for ts in splits.values() for t in ts}) == sum(map(len, splits.values()))
    assert web_splits(config) == splits and split_digest(splits["test"]) != split_digest(splits["validation"])


def test_instances_are_disjoint_per_split_and_checked():
    seen = [set(instances(s, seed=k, count=4)) for s in ("train", "validation", "test") for k in range(3)]
    assert sum(map(len, seen)) == len(set().union(*seen))
    with pytest.raises(ValueError, match="split='dev' must be one of"):
        instances("dev", seed=0, count=1)
    with pytest.raises(ValueError, match=r"seed=10000: the web agent's run seeds lie in \[0, 9999\]"):
        instances("train", seed=10_000, count=1)  # its instances would be validation's
    assert split_of_instance(instances("train", seed=9_999, count=100)[-1]) == "train"
    assert {k[0] for k in content_keys(generate_tasks("forum", seed=0, n=3)[2])} >= {"locator", "answer", "entity"}
