"""One name per grading, endpoint and render setting: every recipe class and every CLI parser is read, and a setting
whose name is neither a declared value object's field (bare, or flattened as ``<prefix>_<field>``) nor an entry of
the list of second names still to retire fails the test. The list only shrinks: an entry no recipe or parser uses
any more fails too, so retiring a name means deleting its line."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib

import pytest

from vcoder.chat.endpoint import Endpoint
from vcoder.flag_names import rename_flags, respell_flags
from vcoder.gui.limits import CaseLimits
from vcoder.names import (
    RENAMED,
    flat_name,
    from_flat,
    generated_fields,
    new_names,
    rename_keys,
)
from vcoder.rendering.spec import RenderSpec

# the value objects, and the prefixes under which recipes carry each one flat
DECLARED = {
    Endpoint: ("judge", "gui", "writer", "test_writer", "teacher"),
    RenderSpec: ("render",),
    CaseLimits: ("gui",),
}

RECIPES = {
    "vcoder.pipelines.grpo.args": "VCoderScriptArguments",
    "vcoder.pipelines.step_grpo.args": "StepGRPOScriptArguments",
    "vcoder.pipelines.curriculum.config": "CurriculumConfig",
    "vcoder.rewards.settings": "RewardSettings",
    "vcoder.eval.webgen_config": "WebGenConfig",
    "vcoder.sites.records": "EpisodeOptions",
    "vcoder.orm.train": "TrainOptions",
    "vcoder.pipelines.web_agent.config": "WebAgentConfig",
}

# second names in use today -> the declared name that replaces each (issue 19's list; delete a line once retired).
# Every one is retired: the old names live on in vcoder.names.RENAMED (accepted with a warning, tests below).
SECOND_NAMES: dict[str, str] = {}

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
    assert {new for old in RENAMED for new in new_names(old)} <= declared_names()
    assert not set(RENAMED) & set(SECOND_NAMES)
    # an old name may live on only where it is the declared bare name (agent test's own --action-timeout-ms)
    assert not (set(RENAMED) - declared_names()) & (set(parser_names()) | set(recipe_names()))


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


# each retired family, old spelling -> new, through the real readers: the vcoder CLI's parser and the Step-GRPO recipe


def parse_cli(argv: list[str]) -> argparse.Namespace:
    from vcoder.cli import _option_strings, build_parser

    parser = build_parser()
    return parser.parse_args(respell_flags(argv, _option_strings(parser)))


WEBGEN = ["eval", "webgen-bench", "--tasks", "t.jsonl", "--base-url", "http://b", "--model", "m", "--out", "o"]


def test_webgen_bench_old_agent_flags_still_work_with_a_warning(caplog):
    argv = [*WEBGEN, "--agent-base-url", "http://a", "--agent-model=v", "--agent-max-tokens", "64"]
    args = parse_cli([*argv, "--agent-timeout-ms", "9000"])
    assert (args.gui_base_url, args.gui_model, args.gui_max_tokens) == ("http://a", "v", 64)
    # the old flag budgeted the agent's and the judge's requests: it still sets both
    assert (args.gui_timeout_ms, args.judge_timeout_ms) == (9000, 9000)
    assert "--agent-base-url is spelled --gui-base-url" in caplog.text
    assert "--agent-timeout-ms is spelled --gui-timeout-ms and --judge-timeout-ms" in caplog.text


def test_old_case_limit_flags_still_work_with_a_warning(caplog):
    args = parse_cli([*WEBGEN, "--gui-base-url", "http://a", "--gui-model", "v", "--max-actions", "7"])
    assert args.gui_step_limit == 7 and "--max-actions is spelled --gui-step-limit" in caplog.text
    args = parse_cli([*WEBGEN, "--gui-base-url", "http://a", "--gui-model", "v", "--case-timeout-ms=9000"])
    assert args.gui_deadline_ms == 9000 and "--case-timeout-ms is spelled --gui-deadline-ms" in caplog.text


def test_old_retries_and_concurrency_flags_still_work_with_a_warning(caplog):
    predict = ["predict", "--testset", "t", "--base-url", "http://b", "--model", "m", "--out", "o"]
    args = parse_cli([*predict, "--retries", "0", "--concurrency", "3"])
    assert (args.max_retries, args.max_concurrency) == (0, 3)
    assert "--retries is spelled --max-retries" in caplog.text and "--concurrency is spelled" in caplog.text
    build = ["agent", "build", "--instruction", "x", "--base-url", "http://b", "--model", "m", "--out", "o"]
    assert parse_cli([*build, "--retries=1"]).max_retries == 1
    assert parse_cli(["data", "trajectories", "--out", "o", "--concurrency", "2"]).max_concurrency == 2
    args = parse_cli([*WEBGEN, "--gui-base-url", "http://a", "--gui-model", "v", "--retries", "4"])
    assert args.max_retries == 4


def test_old_step_grpo_recipe_names_still_load_with_a_warning(tmp_path, caplog):
    import os

    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.recipes import parse_recipe

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    text = open(os.path.join(root, "configs", "step_grpo", "tiny_cpu.yaml")).read()
    assert "gui_deadline_ms: 15000" in text
    old = tmp_path / "old.yaml"
    text = text.replace("gui_deadline_ms:", "case_deadline_ms:")
    old.write_text(text + "endpoint_timeout_ms: 45000\nload_timeout_ms: 7000\n")
    argv = ["--config", str(old), "--output_dir", str(tmp_path / "out"), "--use_cpu", "true"]
    script_args, _, _ = parse_recipe(step_grpo.make_parser(), [*argv, "--model_name_or_path", str(model)])
    assert (script_args.gui_deadline_ms, script_args.render_timeout_ms) == (15000, 7000)
    # the old endpoint_timeout_ms budgeted every request of the grading: it still sets each endpoint's
    timeouts = (script_args.judge_timeout_ms, script_args.gui_timeout_ms, script_args.test_writer_timeout_ms)
    assert timeouts == (45000, 45000, 45000)
    assert "'case_deadline_ms' is now called 'gui_deadline_ms'" in caplog.text
    assert "'endpoint_timeout_ms' is now called 'judge_timeout_ms' and 'gui_timeout_ms'" in caplog.text
    # the episode the grading runs gets them under the same names
    options = script_args.episode_options()
    assert (options.gui_deadline_ms, options.render_timeout_ms) == (15000, 7000)


def test_an_old_flag_with_several_new_names_gives_each_its_value():
    known = {"judge_timeout_ms", "gui_timeout_ms"}
    assert rename_flags(["--endpoint_timeout_ms", "5", "--x"], known=known) == [
        "--judge_timeout_ms",
        "5",
        "--gui_timeout_ms",
        "5",
        "--x",
    ]
    assert rename_flags(["--endpoint_timeout_ms=5"], known={"gui_timeout_ms"}) == ["--gui_timeout_ms=5"]
    with pytest.raises(ValueError, match="'endpoint_timeout_ms' and 'gui_timeout_ms' name one setting"):
        rename_keys({"endpoint_timeout_ms": 1, "gui_timeout_ms": 2}, where="r.yaml", known=known)


def test_the_step_reward_and_the_gui_agent_reward_share_their_grading_defaults():
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments
    from vcoder.rewards.settings import RewardSettings

    step, reward = StepGRPOScriptArguments(), RewardSettings()
    names = ("gui_step_limit", "gui_deadline_ms", "gui_action_timeout_ms", "gui_timeout_ms", "judge_timeout_ms")
    assert {n: getattr(step, n) for n in names} == {n: getattr(reward, n) for n in names}
    assert step.render_width == reward.render_width and step.render_height == reward.render_height
    assert reward.case_limits() == from_flat("gui", CaseLimits, step) == CaseLimits()


def test_recipes_generate_the_value_objects_fields_instead_of_declaring_them():
    from vcoder.names import carries
    from vcoder.pipelines.curriculum.config import CurriculumConfig
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments
    from vcoder.rendering.spec import RenderSpec

    step = {f.name: f for f in dataclasses.fields(StepGRPOScriptArguments)}
    for name, cls in (("render_timeout_ms", RenderSpec), ("gui_deadline_ms", CaseLimits), ("judge_model", Endpoint)):
        field = next(f for f in dataclasses.fields(cls) if flat_name(name.split("_")[0], f.name) == name)
        assert field.metadata["help"] in step[name].metadata["help"], name  # the value object's own help
    writer = {f.name for f in dataclasses.fields(CurriculumConfig) if f.name.startswith("writer_")}
    assert {"writer_base_url", "writer_timeout_ms", "writer_extra_body"} <= writer
    assert from_flat("writer", Endpoint, CurriculumConfig("r.yaml", "m")) == Endpoint(
        timeout_ms=120_000, max_retries=1, temperature=0.8
    )
    with pytest.raises(TypeError, match="render_width is generated from RenderSpec"):

        @dataclasses.dataclass
        @carries("render", RenderSpec)
        class Twice:
            render_width: int = 1

    with pytest.raises(TypeError, match="'widht' \\(did you mean 'width'\\?\\)"):
        carries("render", RenderSpec, only=("widht",))


#: recipe fields named like a value object's field that configure something else (class.field: why)
NOT_GENERATED = {
    "WebGenConfig.max_concurrency": "tasks in flight (the builder's requests follow it)",
    "EpisodeOptions.temperature": "the building policy's sampling temperature, not a served endpoint's",
    "WebAgentConfig.temperature": "the rollouts' sampling temperature, not the task writer's",
}


def test_every_recipe_builds_its_endpoint_render_and_case_fields_from_the_declaration():
    # a recipe's own unprefixed object counts too (WebGen-Bench's builder: base_url, model, ...)
    names = {f.name for value in DECLARED for f in dataclasses.fields(value)} | declared_names()
    by_hand, generated = [], set()
    for module, cls in RECIPES.items():
        recipe = getattr(importlib.import_module(module), cls)
        for f in dataclasses.fields(recipe):
            if f.name in names and f"{cls}.{f.name}" not in NOT_GENERATED:
                (generated.add(cls) if f.name in generated_fields(recipe) else by_hand.append(f"{cls}.{f.name}"))
    assert not by_hand, (
        f"fields typed by hand that a value object declares: {by_hand}; generate them with vcoder.names.carries"
    )
    assert generated == set(RECIPES.values()) - {
        "TrainOptions"
    }  # the ORM's training carries no endpoint, render or case
    assert not {k for k in NOT_GENERATED if k.split(".")[1] not in names}, "NOT_GENERATED lists a retired name"


def test_the_runners_get_the_value_objects_whole():
    from vcoder.eval.webgen_config import WebGenConfig
    from vcoder.rewards.settings import RewardSettings
    from vcoder.sites.records import EpisodeOptions

    settings = RewardSettings(gui_base_url="http://g", gui_model="a", judge_timeout_ms=5000, render_height=600)
    assert settings.gui_endpoint() == Endpoint(
        "http://g", "a", timeout_ms=20_000, max_retries=0, max_concurrency=4, max_tokens=256, temperature=0.0
    )
    assert settings.judge_endpoint().timeout_ms == 5000 and settings.render_spec() == RenderSpec(height=600)
    options = EpisodeOptions(render_width=640, gui_action_timeout_ms=900)
    assert options.render_spec() == RenderSpec(width=640, timeout_ms=10_000)
    assert options.case_limits() == CaseLimits(action_timeout_ms=900)
    run = WebGenConfig(base_url="http://b", model="m", gui_base_url="http://g", gui_model="a", max_retries=1)
    assert run.builder_endpoint() == Endpoint(
        "http://b", "m", timeout_ms=600_000, max_retries=1, max_concurrency=2, max_tokens=8192, temperature=0.0
    )
    assert (run.agent_endpoint().timeout_ms, run.agent_endpoint().max_retries) == (120_000, 1)
    assert run.judge_server() == Endpoint("http://g", "a", timeout_ms=120_000, max_retries=1)  # the agent's server
    assert WebGenConfig(base_url="u", model="m", gui_base_url="g", gui_model="a", judge=False).judge_server() is None
    with pytest.raises(ValueError, match="needs \\['gui_base_url', 'gui_model'\\]"):
        WebGenConfig(base_url="u", model="m")


def test_allow_test_split_is_one_declaration_wherever_a_recipe_trains_on_site_requests():
    from vcoder.data.bench_guard import ALLOW_TEST_SPLIT_HELP

    found = {}
    for module, cls in RECIPES.items():
        for f in dataclasses.fields(getattr(importlib.import_module(module), cls)):
            if f.name == "allow_test_split":
                found[cls] = f
    # Step-GRPO's task rows and agent SFT's trajectories: the recipes that can train on WebGen-Bench's requests
    assert set(found) == {"StepGRPOScriptArguments", "VCoderScriptArguments"}
    assert all(f.default is False and f.metadata["help"] == ALLOW_TEST_SPLIT_HELP for f in found.values())


# one default per setting: every place a setting is declared with a default (a dataclass field, a field carries()
# generates, a subcommand's flag, a public function's keyword; read from the source by tests/defaults_inventory.py)
# gives the same one, or sets its own value on purpose, named in its module (OWN_VALUES), or is another concept under
# the same name (OTHER_MEANINGS)

#: a GUI test case's limits go by their bare names inside vcoder.gui (deadline_ms): the flat setting each one is
BARE = {f.name: flat_name("gui", f.name) for f in dataclasses.fields(CaseLimits)}
#: bare endpoint fields are each command's own server (the builder's, predict's): a role's values, not one setting
#: (the flag test below holds each flag to one meaning)
ROLE_FIELDS = {f.name for f in dataclasses.fields(Endpoint)}

#: places that set a setting to their own value on purpose, a named constant whose comment says why (setting: {place:
#: the constant}); every other place of the setting gives its one default
OWN_VALUES: dict[str, dict[str, str]] = {
    "render_timeout_ms": {
        "vcoder.sites.records.EpisodeOptions": "gui.runner.CASE_PAGE: a site's page, 10 s",
        "vcoder.pipelines.step_grpo.args.StepGRPOScriptArguments": "gui.runner.CASE_PAGE",
        "vcoder.eval.webgen_appearance.scrolled_screenshots": "SITE_LOAD_TIMEOUT_MS: a Babel or React site, 30 s",
    },
    "settle_timeout_ms": {"vcoder.eval.webgen_appearance.scrolled_screenshots": "SITE_SETTLE_TIMEOUT_MS"},
    "render_max_pages": {"vcoder.pipelines.step_grpo.args.StepGRPOScriptArguments": "GRADING_PAGES: G sites at once"},
    "reply_timeout_ms": {"vcoder.pipelines.step_grpo.args.StepGRPOScriptArguments": "ROUND_REPLY_TIMEOUT_MS"},
    "max_pages": {
        "vcoder.eval.webgen_config.WebGenConfig": "SITE_PAGES: the tasks in flight",
        "vcoder.cli.evaluate_webgen": "webgen_config.SITE_PAGES",
    },
    "gui_timeout_ms": {
        "vcoder.eval.webgen_config.WebGenConfig": "SERVED_VLM_TIMEOUT_MS: a real VLM agent, 2 min",
        "vcoder.cli.evaluate_webgen": "webgen_config.SERVED_VLM_TIMEOUT_MS",
    },
    "judge_timeout_ms": {
        "vcoder.eval.webgen_config.WebGenConfig": "SERVED_VLM_TIMEOUT_MS: a real VLM judge, 2 min",
        "vcoder.cli.evaluate_webgen": "webgen_config.SERVED_VLM_TIMEOUT_MS",
        "vcoder.cli.data_sites": "TEACHER_TIMEOUT_MS: the teacher's judge grades every step, 10 min",
    },
    "max_turns": {
        "vcoder.eval.webgen_config.WebGenConfig": "ONE_SHOT_TURNS: the benchmark's one-shot protocol",
        "vcoder.cli.data_sites": "webgen_agent_loop.SEED_MAX_ITER: WebGen-Agent's --max-iter 20",
    },
    "turn_format": {"vcoder.cli.data_sites": "SEED_FORMAT: the teacher writes WebGen-Agent's Bolt markup"},
    "expect_timeout_ms": {
        "vcoder.sites.trajectories.TrajectoryOptions": "sites.grading.SCRIPTED_EXPECT_MS: sites fill in after load",
        "vcoder.cli.data_sites": "sites.grading.SCRIPTED_EXPECT_MS",
    },
    "writer_failures_shown": {"vcoder.pipelines.web_agent.config.WebAgentConfig": "WEBRL_FAILURES_SHOWN: WebRL's 10"},
    "step_budget": {"vcoder.pipelines.web_agent.config.WebAgentConfig": "WEB_AGENT_STEP_BUDGET: its recipe's"},
    "new_tasks_per_phase": {"vcoder.pipelines.web_agent.config.WebAgentConfig": "WEB_AGENT_NEW_TASKS: its recipe's"},
    "replay_max_items": {"vcoder.pipelines.web_agent.config.WebAgentConfig": "WEB_AGENT_REPLAY_ITEMS: its recipe's"},
    "writer_temperature": {"vcoder.pipelines.web_agent.config.WebAgentConfig": "WEBRL_WRITER_TEMPERATURE: WebRL's"},
    "seed": {"vcoder.gui.webvoyager.WebVoyagerPolicy": "SEED: WebGen-Bench's WebVoyager samples with seed 42"},
}

#: places where a setting's name means something else (setting: {place: what it is there}); renaming one retires it
OTHER_MEANINGS: dict[str, dict[str, str]] = {
    "gui_deadline_ms": {"vcoder.browse.episode.arun_episode": "a web agent's whole browsing episode, not a test case"},
    "width": {
        "vcoder.data.design2code.placeholder_image": "a placeholder image's size",
        "vcoder.pipelines.grpo.data.synthetic_rows": "the synthetic pages' size",
        "vcoder.rendering.types.Rendered": "a result's screenshot size (0: none)",
    },
    "height": {
        "vcoder.data.design2code.placeholder_image": "a placeholder image's size",
        "vcoder.pipelines.grpo.data.synthetic_rows": "the synthetic pages' size",
        "vcoder.rendering.types.Rendered": "a result's screenshot size (0: none)",
    },
    "step_budget": {
        "vcoder.browse.policies": "a GUI test case's step limit (CaseLimits.step_limit) under the browsing name",
    },
    "algorithm": {"vcoder.pipelines.web_agent.config": "the web agent's update (filtered_bc, webrl): other choices"},
    "trainer": {"vcoder.pipelines.web_agent.config": "must be web_agent: it selects the web agent's pipeline"},
    "dataset": {"vcoder.pipelines.step_grpo.args": "Step-GRPO's task source (site_tasks, ...): other choices"},
    "device": {"vcoder.pipelines.web_agent.config": "the web agent's torch device (a served model's: device map)"},
    "learning_rate": {"vcoder.pipelines.web_agent.config": "a phase's policy update (the ORM's: its classifier)"},
    "holdout": {
        "vcoder.orm.train.TrainOptions": "the ORM's validation share of its verdicts (not of training rows)",
        "vcoder.cli.orm": "the ORM's validation share",
    },
    "max_image_side": {"vcoder.sites.feedback.feedback_message": "a feedback screenshot's side (feedback_image_side)"},
    "max_new_tokens": {
        "vcoder.pipelines.grpo.probe.reward_probe": "a probe's short completions",
        "vcoder.pipelines.quickstart.refine_turns.refine_answers": "the quickstart's tiny refinement replies",
        "vcoder.pipelines.web_agent": "one action line of the web agent (config.ACTION_TOKENS)",
    },
    "n": {
        "vcoder.data.sections": "words in a generated title or sentence",
        "vcoder.data.site_kinds.page_widgets": "topics drawn",
        "vcoder.pipelines.curriculum.filters": "the n-gram order",
        "vcoder.suggest": "suggestions offered",
    },
    "seed": {"vcoder.cli.predict": "a served model's sampling seed, not a data seed"},
    "split": {
        "vcoder.data.webgen_bench": "WebGen-Bench ships a test split only",
        "vcoder.cli.quickstart": "the quickstart scores the test split",
        "vcoder.pipelines.quickstart": "the quickstart's test (validation: where it chooses)",
        "vcoder.pipelines.agent_quickstart": "the agent quickstart scores the test split",
        "vcoder.pipelines.curriculum.heldout": "the curriculum's held-out tasks come from the test split",
    },
    "source": {
        "vcoder.data.webgen_bench": "each loader's own data set",
        "vcoder.rewards.context.Page": "a page's source text",
    },
    "system_prompt": {"vcoder.pipelines.web_agent.config": "a switch: keep WebRL's system turn (a rename candidate)"},
    "rewards": {"vcoder.cli.serve_env": "the refinement environment's reward", "vcoder.envs.refine": "the same"},
    "prompt": {"vcoder.demo.inference": "the demo's prompt (training's), not predict's prompt style"},
    "arch": {"vcoder.models.tiny_lm": "a text-only tiny model's architecture"},
    "batch_size": {"vcoder.data.sources": "rows per read of a table", "vcoder.models.clip": "images per CLIP pass"},
}

#: settings still declared with several defaults that are one concept (the list only shrinks): why it is not done
UNRESOLVED: dict[str, str] = {}


def settings() -> set[str]:
    """The settings: every recipe field, every flag's destination and every flat name of the vocabulary."""
    names = set(recipe_names()) | {dest for _, dest, *_ in flags()} | declared_names() | set(BARE.values())
    return {n for n in names if n not in ROLE_FIELDS and n not in BARE}


def _matches(where: str, places) -> str | None:
    return next((p for p in places if where == p or where.startswith((p + ".", p + "(", p + ":"))), None)


@functools.cache
def setting_defaults() -> dict[str, dict[object, list]]:
    """{setting: {default: [Declaration]}} over the package (``None``, "not set: the owner's default", left out)."""
    from tests.defaults_inventory import declarations, normal

    known = settings()
    found: dict[str, dict[object, list]] = {}
    for d in declarations():
        name = BARE.get(d.name, d.name)
        if name in known and d.default is not None:
            found.setdefault(name, {}).setdefault(normal(d.default), []).append(d)
    return found


def test_a_setting_has_one_default_wherever_it_is_declared():
    several, stale = {}, []
    for name, by in setting_defaults().items():
        own, other = OWN_VALUES.get(name, {}), OTHER_MEANINGS.get(name, {})
        rest = {
            default: [d.where for d in ds if not _matches(d.where, {**own, **other})] for default, ds in by.items()
        }
        rest = {default: places for default, places in rest.items() if places}
        if len(rest) > 1 and name not in UNRESOLVED:
            several[name] = rest
        if len(rest) < 2 and name in UNRESOLVED:
            stale.append(f"{name} (UNRESOLVED)")
        the = next(iter(rest)) if len(rest) == 1 else object()
        for place in {**own, **other}:
            hits = [(default, d) for default, ds in by.items() for d in ds if _matches(d.where, [place])]
            if not hits or all(default == the for default, _ in hits):
                stale.append(f"{name} @ {place}")
        unnamed = [d.where for ds in by.values() for d in ds if _matches(d.where, own) and not d.named]
        assert not unnamed, (
            f"{name}: a place's own value must be a named constant (with why), not a literal: {unnamed}"
        )
    assert not several, (
        f"settings declared with several defaults: {several}; declare the default once and reference it, or name a "
        "place's own value in its module and list it in OWN_VALUES (a different concept: OTHER_MEANINGS)"
    )
    assert not stale, f"OWN_VALUES / OTHER_MEANINGS entries that no longer differ (or no longer exist): {stale}"


def test_the_defaults_scanner_sees_every_kind_of_declaration():
    found = setting_defaults()["gui_deadline_ms"]
    places = {d.where: d for ds in found.values() for d in ds}
    assert {"vcoder.gui.limits.CaseLimits", "vcoder.pipelines.step_grpo.args.StepGRPOScriptArguments"} <= set(places)
    assert places["vcoder.pipelines.step_grpo.args.StepGRPOScriptArguments"].named  # generated from CaseLimits
    assert "vcoder.cli.evaluate_webgen: --gui-deadline-ms" in places  # a flag whose default is limits.deadline_ms
    assert {"render_timeout_ms", "settle_timeout_ms", "max_turns", "seed"} <= settings()
    assert not {"timeout_ms", "model", "deadline_ms"} & settings()  # a role's own, or a bare gui_ name
    assert {d.where for d in found[120_000]} == {"vcoder.browse.episode.arun_episode(deadline_ms=)"}  # OTHER_MEANINGS


def test_the_defaults_scanner_fails_on_a_second_default(tmp_path):
    from tests.defaults_inventory import declarations, several_defaults

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(
        "from dataclasses import dataclass, field\nfrom pkg.b import LOAD\n"
        "@dataclass\nclass R:\n    render_timeout_ms: int = field(default=LOAD)\n"
        "def run(*, render_timeout_ms=15_000, seed=0):\n    pass\n"
    )
    (tmp_path / "pkg" / "b.py").write_text("LOAD = 30_000\ndef add(p):\n    p.add_argument('--seed', default=0)\n")
    found = declarations(tmp_path / "pkg")
    assert several_defaults(found) == {
        "render_timeout_ms": {30_000: ["pkg.a.R"], 15_000: ["pkg.a.run(render_timeout_ms=)"]}
    }
    assert [d.named for d in found if d.name == "render_timeout_ms"] == [True, False]


def flags() -> list[tuple[str, str, object, str, str]]:
    """``(flag without dashes, dest, default, help, command)`` for every flag of every ``vcoder`` subcommand."""
    from vcoder.cli import build_parser

    found = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif action.help is not argparse.SUPPRESS:
                for option in action.option_strings:
                    if option.startswith("--"):
                        found.append((option[2:], action.dest, action.default, action.help or "", " ".join(path)))

    walk(build_parser(), ["vcoder"])
    return found


# one meaning per flag: a timeout or deadline flag that several subcommands declare budgets the same thing in each,
# read from its help text: one request to a model server, one page's render, or one GUI test case

MEANINGS = {
    "one request to a model server": r"\b(request|reply)\b",
    "one page's render": r"\b(render|load(ing)?)\b",
    "one GUI test case": r"\b(test )?case\b",
    "one GUI action": r"\baction\b",
}
#: timeout flags of one command each that bound something else
OTHER_FLAGS = {"settle-timeout-ms", "expect-timeout-ms"}
#: what a flag naming a model (``--model``, ``--judge-model``, ...) is, read from its help the same way
MODEL_MEANINGS = {
    "a served model's name": r"\b(server|serves|knows it|on --base-url|(agent|judge)'s model)\b",
    "a folder (or hub id) to load": r"\b(folder|hub id)\b",
    "an open_clip architecture": r"\bopen_clip\b",
}
#: flags with two meanings today (flag: where and what); the list only shrinks
SECOND_MEANINGS: dict[str, str] = {}


def flag_meanings() -> dict[str, dict[str, list[str]]]:
    """{flag: {meaning: commands}} for every ``*-timeout-ms`` / ``*-deadline-ms`` and ``*model`` flag of every
    subcommand of the vcoder CLI."""
    import re

    found: dict[str, dict[str, list[str]]] = {}
    for flag, _dest, _default, help_, command in flags():
        if flag.endswith(("timeout-ms", "deadline-ms")) and flag not in OTHER_FLAGS:
            meanings, said = MEANINGS, help_.split("(")[0]
        elif flag == "model" or flag.endswith("-model"):
            meanings, said = MODEL_MEANINGS, help_.split("(default")[0]
        else:
            continue
        meant = [m for m, pattern in meanings.items() if re.search(pattern, said)]
        meaning = meant[0] if len(meant) == 1 else f"unclear: {help_!r}"
        found.setdefault(flag, {}).setdefault(meaning, []).append(command)
    return found


def test_a_flag_means_one_thing_across_the_commands():
    found = flag_meanings()
    several = {flag: by for flag, by in found.items() if len(by) > 1 or any(m.startswith("unclear") for m in by)}
    assert set(SECOND_MEANINGS) <= set(several), "a flag of SECOND_MEANINGS has one meaning now: delete it"
    several = {flag: by for flag, by in several.items() if flag not in SECOND_MEANINGS}
    assert not several, f"a flag with several meanings across commands (or a help that says none): {several}"
    assert {c.split()[1] for by in found.values() for cs in by.values() for c in cs} >= {"agent", "eval", "data"}
    destinations = {}
    for flag, dest, *_ in flags():
        destinations.setdefault(flag, set()).add(dest)
    assert not {f: d for f, d in destinations.items() if len(d) > 1}, "a flag sets different settings"


def test_the_meanings_scanner_tells_the_three_budgets_apart():
    import re

    helps = {
        "budget of one builder request (default 600000)": "one request to a model server",
        "render deadline per page (default 15000)": "one page's render",
        "deadline of one test case in ms": "one GUI test case",
    }
    for help_, meaning in helps.items():
        assert [m for m, p in MEANINGS.items() if re.search(p, help_.split("(")[0])] == [meaning]
    assert set(flag_meanings()["timeout-ms"]) == {"one request to a model server"}
    model = flag_meanings()["model"]
    assert set(model["a served model's name"]) >= {"vcoder predict", "vcoder agent build", "vcoder eval webgen-bench"}
    assert set(model) == {"a served model's name"}  # the ORM commands' folder is --orm-model now
    assert set(flag_meanings()["orm-model"]["a folder (or hub id) to load"]) >= {
        "vcoder orm score",
        "vcoder orm report",
    }


def test_each_commands_old_timeout_flag_still_works_with_a_warning(caplog):
    args = parse_cli(["agent", "test", "p.html", "--cases", "c.json", "--timeout-ms", "9000", "--step-limit", "4"])
    assert (args.gui_deadline_ms, args.gui_step_limit, args.gui_action_timeout_ms) == (9000, 4, 3000)
    assert "--timeout-ms is now --gui-deadline-ms" in caplog.text
    assert (
        parse_cli(["agent", "test", "p.html", "--cases", "c", "--action-timeout-ms=900"]).gui_action_timeout_ms == 900
    )
    assert parse_cli(["orm", "collect", "--n", "1", "--out", "o", "--timeout-ms", "7000"]).gui_deadline_ms == 7000
    assert parse_cli(["render", "p.html", "--out", "o", "--timeout-ms", "5000"]).render_timeout_ms == 5000
    assert "--timeout-ms is now --render-timeout-ms" in caplog.text
    d2c = parse_cli(
        ["eval", "design2code", "--predictions", "p", "--testset", "r", "--out", "o", "--timeout-ms", "6000"]
    )
    assert d2c.render_timeout_ms == 6000
    args = parse_cli(["data", "trajectories", "--out", "o", "--timeout-ms", "8000"])
    assert (args.teacher_timeout_ms, args.judge_timeout_ms) == (8000, 8000)
    assert "--timeout-ms is now --teacher-timeout-ms and --judge-timeout-ms" in caplog.text
    # where --timeout-ms keeps its one meaning (one request's budget) it is no old flag
    assert parse_cli(["predict", "--testset", "t", "--base-url", "u", "--model", "m", "--out", "o"]).timeout_ms > 0
    assert "predict: --timeout-ms" not in caplog.text
