"""One name per grading, endpoint and render setting: every recipe class and every CLI parser is read, and a setting
whose name is neither a declared value object's field (bare, or flattened as ``<prefix>_<field>``) nor an entry of
the list of second names still to retire fails the test. The list only shrinks: an entry no recipe or parser uses
any more fails too, so retiring a name means deleting its line."""

from __future__ import annotations

import argparse
import dataclasses
import importlib

from vcoder.chat.endpoint import Endpoint
from vcoder.gui.limits import CaseLimits
from vcoder.names import RENAMED, flat_name, rename_flags, rename_keys, respell_flags
from vcoder.rendering.spec import RenderSpec

# the value objects, and the prefixes under which recipes carry each one flat
DECLARED = {Endpoint: ("judge", "gui", "writer", "test_writer"), RenderSpec: ("render",), CaseLimits: ("gui",)}

RECIPES = {
    "vcoder.pipelines.grpo.args": "VCoderScriptArguments",
    "vcoder.pipelines.step_grpo.args": "StepGRPOScriptArguments",
    "vcoder.pipelines.curriculum.config": "CurriculumConfig",
    "vcoder.rewards.settings": "RewardSettings",
    "vcoder.eval.webgen_config": "WebGenConfig",
    "vcoder.sites.records": "EpisodeOptions",
    "vcoder.orm.train": "TrainOptions",
}

# second names in use today -> the declared name that replaces each (issue 19's list; delete a line once retired)
SECOND_NAMES = {
    "agent_base_url": "gui_base_url",
    "agent_model": "gui_model",
    "agent_timeout_ms": "gui_timeout_ms",
    "agent_max_tokens": "gui_max_tokens",
    "case_step_limit": "gui_step_limit",
    "max_actions": "gui_step_limit",
    "case_deadline_ms": "gui_deadline_ms",
    "case_timeout_ms": "gui_deadline_ms",
    "endpoint_timeout_ms": "gui_timeout_ms / judge_timeout_ms",
    "load_timeout_ms": "render_timeout_ms",
    "retries": "max_retries",
    "concurrency": "max_concurrency",
}

# names that end like a setting above but configure something else
OTHER_CONCEPTS = {
    "clip_model",  # the CLIP network of a reward
    "orm_model",  # the outcome reward model's folder
    "ssim_width",  # SSIM's downscale width
    "image_width",  # the ORM's input image width
    "synthetic_width",  # the synthetic generator's page size
    "synthetic_height",
    "settle_timeout_ms",  # how long a site may settle after an action
    "reply_timeout_ms",  # the policy's turn budget in an episode
    "max_image_side",
    "judge_max_image_side",
    "model_name_or_path",  # TRL's own
    "expect_timeout_ms",  # how long a scripted expectation is re-checked (vcoder data trajectories)
}

SUFFIXES = sorted(
    {f.name for value in DECLARED for f in dataclasses.fields(value)}
    | {"url", "retries", "concurrency", "max_actions"},
    key=len,
    reverse=True,
)


def recipe_names() -> dict[str, str]:
    """{setting name: where} over the recipe dataclasses."""
    found = {}
    for module, cls in RECIPES.items():
        for f in dataclasses.fields(getattr(importlib.import_module(module), cls)):
            found.setdefault(f.name, cls)
    return found


def parser_names() -> dict[str, str]:
    """{option dest: command} over every ``vcoder`` subcommand's parser."""
    from vcoder.cli import build_parser

    found = {}

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif any(o.startswith("--") for o in action.option_strings):
                found.setdefault(action.dest, " ".join(path))

    walk(build_parser(), ["vcoder"])
    return found


def declared_names() -> set[str]:
    names = set()
    for value, prefixes in DECLARED.items():
        for f in dataclasses.fields(value):
            names.add(f.name)  # a command or recipe about one such object may name its fields bare
            names.update(flat_name(prefix, f.name) for prefix in prefixes)
    return names


def is_setting(name: str) -> bool:
    return name not in OTHER_CONCEPTS and any(name == s or name.endswith("_" + s) for s in SUFFIXES)


def test_every_endpoint_render_and_case_setting_has_its_declared_name():
    declared = declared_names()
    seen = {**parser_names(), **recipe_names()}
    second = {name: where for name, where in seen.items() if is_setting(name) and name not in declared}
    unlisted = {name: where for name, where in second.items() if name not in SECOND_NAMES}
    assert not unlisted, (
        f"settings named outside the vocabulary: {unlisted}; use the declared <prefix>_<field> name "
        "(vcoder.names.flat_fields) or, for another concept, add it to OTHER_CONCEPTS with why"
    )


def test_the_list_of_second_names_only_shrinks():
    seen = {**parser_names(), **recipe_names()}
    retired = sorted(set(SECOND_NAMES) - set(seen))
    assert not retired, f"no recipe or parser uses {retired} any more: delete them from SECOND_NAMES"
    assert not set(SECOND_NAMES) & declared_names()


def test_reward_settings_carry_the_declared_objects_under_their_prefixes():
    from vcoder.rewards.settings import RewardSettings

    fields = {f.name for f in dataclasses.fields(RewardSettings)}
    assert {flat_name("render", f.name) for f in dataclasses.fields(RenderSpec)} <= fields
    endpoint = {flat_name("judge", f.name) for f in dataclasses.fields(Endpoint)} - {"judge_extra_body"}
    assert endpoint <= fields
    settings = RewardSettings(judge_base_url="http://127.0.0.1:9", judge_model="m", render_width=800)
    assert settings.render_spec() == RenderSpec(width=800, height=720, timeout_ms=settings.render_timeout_ms)
    judge = settings.judge_endpoint()
    assert (judge.base_url, judge.model, judge.timeout_ms) == ("http://127.0.0.1:9", "m", settings.judge_timeout_ms)


def test_the_scanner_flags_a_new_second_name():
    assert is_setting("agent_deadline_ms") and "agent_deadline_ms" not in declared_names()
    assert is_setting("max_actions") and is_setting("retries")
    assert is_setting("judge_timeout_ms") and "judge_timeout_ms" in declared_names()
    assert not is_setting("ssim_width") and not is_setting("dataset_split")


def test_renamed_settings_are_gone_from_the_recipes_and_their_new_names_are_declared():
    from vcoder.pipelines.grpo.args import VCoderScriptArguments
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments

    recipes = {f.name for cls in (VCoderScriptArguments, StepGRPOScriptArguments) for f in dataclasses.fields(cls)}
    assert not set(RENAMED) & recipes
    assert set(RENAMED.values()) <= declared_names()
    assert not set(RENAMED) & set(SECOND_NAMES) - {"load_timeout_ms", "case_step_limit"}  # EpisodeOptions' still
    assert not {"judge_url", "gui_url"} & set(parser_names())


def test_an_old_name_still_works_with_a_warning(caplog):
    known = {"render_width", "gui_base_url"}
    assert rename_keys({"site_width": 640, "x": 1}, where="r.yaml", known=known) == {"render_width": 640, "x": 1}
    assert "'site_width' is now called 'render_width'" in caplog.text
    assert rename_flags(["--gui_agent_base_url=http://h", "--site_width", "5"], known=known) == [
        "--gui_base_url=http://h",
        "--render_width",
        "5",
    ]
    assert rename_keys({"site_width": 1}, where="r.yaml", known={"width"}) == {"site_width": 1}  # not this reader's


def test_one_spelling_per_flag_the_other_accepted_with_a_warning(caplog):
    known = {"--visual-weights", "--judge-base-url", "--max-tokens"}
    argv = ["--visual_weights", "block=1", "--judge-url=http://h", "--max-tokens", "5", "--other_flag"]
    assert respell_flags(argv, known) == [
        "--visual-weights",
        "block=1",
        "--judge-base-url=http://h",
        "--max-tokens",
        "5",
        "--other_flag",  # no such flag: left for the parser to refuse
    ]
    assert "--visual_weights is spelled --visual-weights" in caplog.text and "--judge-url is spelled" in caplog.text
    # a flag some command declares as it is stays, even when its name was renamed elsewhere (agent test's own
    # --action-timeout-ms beside the recipes' --gui-action-timeout-ms)
    both = {"--action-timeout-ms", "--gui-action-timeout-ms"}
    assert respell_flags(["--action-timeout-ms", "900"], both) == ["--action-timeout-ms", "900"]
