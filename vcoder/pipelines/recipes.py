"""What the GRPO, SFT and Step-GRPO pipelines share: recipe parsing with clear errors, the model-path and
reward-weight checks, the recipe's model (:mod:`vcoder.models.loading`), the run loop (:mod:`vcoder.models.train_loop`)
with the holdout score a pipeline hands in, rewards. The loops import this layer; it imports none of them."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from vcoder.flag_names import rename_flags
from vcoder.names import rename_keys
from vcoder.suggest import unknown_names

logger = logging.getLogger(__name__)


class RecipeError(ValueError):
    """A recipe or command line that cannot configure a run; the message says what to change."""


def known_keys(parser) -> set[str]:
    """Every option name the parser accepts (``dest`` of its actions) plus TrlParser's ``env`` mapping."""
    return {action.dest for action in parser._actions if action.dest != "help"} | {"env"}


def _unknown_message(parser, keys: Sequence[str], where: str) -> str:
    known = known_keys(parser)
    # the parser's own dataclasses (VCoderScriptArguments / StepGRPOScriptArguments, the trainer config, ...)
    owners = [cls.__name__ for cls in getattr(parser, "dataclass_types", ())] or ["the pipeline's arguments"]
    return (
        f"{where}: unknown key(s) {unknown_names(keys, sorted(known))}; these are not fields of {', '.join(owners)}. Fix the "
        "spelling or remove them (`vcoder train PIPELINE --help` lists them all)."
    )


def _scalar_type(hint: Any) -> type | None:
    """``int``, ``float`` or ``bool`` when a field's annotation is one of them (or it or None); else None."""
    import types
    import typing

    args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    kinds = [a for a in args if a is not type(None)]
    return kinds[0] if len(kinds) == 1 and kinds[0] in (int, float, bool) else None


def wrong_types(parser, values: dict[str, Any]) -> list[str]:
    """``key=value`` for each value whose field is a number or a flag and that is not one (``max_turns='six'``):
    ``parse_dict`` stores what it is given, so a string would fail later, mid-run, in some comparison."""
    import dataclasses
    import typing

    wrong = []
    for cls in getattr(parser, "dataclass_types", ()):
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            if field.name not in values or values[field.name] is None:
                continue
            kind, value = _scalar_type(hints.get(field.name)), values[field.name]
            ok = {
                None: True,
                bool: isinstance(value, bool),
                int: isinstance(value, int) and not isinstance(value, bool),
                float: isinstance(value, (int, float)) and not isinstance(value, bool),
            }[kind]
            if not ok:
                wanted = {bool: "true or false", int: "an integer", float: "a number"}[kind]
                wrong.append(f"{field.name}={value!r} must be {wanted}")
    return wrong


def parse_embedded(parser, recipe: dict[str, Any], *, where: str = "embedded recipe") -> tuple:
    """A recipe held as a dict (the quickstarts' stages, a rerun's overrides) parsed by a pipeline's own parser.

    Returns:
        One instance per dataclass, in the parser's order.

    Raises:
        RecipeError: one line naming the unknown key (with the closest known one), the value of the wrong type, or
            the first line of what the dataclasses refused (``generation_batch_size (36) must be divisible ...``).
    """
    unknown = [key for key in recipe if key not in known_keys(parser)]
    if unknown:
        raise RecipeError(_unknown_message(parser, unknown, where))
    wrong = wrong_types(parser, recipe)
    if wrong:
        raise RecipeError(f"{where}: {'; '.join(wrong)}")
    try:
        return tuple(parser.parse_dict(recipe, allow_extra_keys=False))
    except (ValueError, TypeError) as exc:
        text = str(exc).strip()
        raise RecipeError(f"{where}: {text.splitlines()[0] if text else type(exc).__name__}") from None


def load_yaml_mapping(path: str, *, what: str, see: str, error: type[Exception]) -> dict[str, Any]:
    """Read a YAML file that must hold a mapping (a recipe); ``error`` says what is wrong, naming ``what`` and path.

    Args:
        path: the file.
        what: how messages name it (``"config file"``, ``"curriculum recipe"``).
        see: where to find good ones (``"configs/"``).
        error: the exception class to raise.
    """
    import yaml

    if not os.path.isfile(path):
        raise error(f"{what} {path!r} does not exist; pass an existing YAML recipe (see {see})")
    with open(path) as handle:
        try:
            data = yaml.safe_load(handle)
        except yaml.YAMLError as exc:
            # yaml's message spans lines (problem, then where); one line for the user
            raise error(f"{what} {path!r} is not valid YAML: {' '.join(str(exc).split())}") from exc
    if not isinstance(data, dict):
        raise error(f"{what} {path!r} must hold a YAML mapping of option: value, got {type(data).__name__}")
    return data


def check_recipe(parser, path: str) -> dict[str, Any]:
    """Load a YAML recipe and refuse unknown keys before TRL sees them (its message names neither key nor file).

    Args:
        parser: the pipeline's ``TrlParser``.
        path: the recipe's path.

    Returns:
        The recipe's mapping.

    Raises:
        RecipeError: the file is missing, is not a mapping, or has keys no dataclass knows.
    """
    recipe = load_yaml_mapping(path, what="config file", see="configs/", error=RecipeError)
    try:
        recipe = rename_keys(recipe, where=f"config file {path!r}", known=known_keys(parser))
    except ValueError as exc:
        raise RecipeError(str(exc)) from None
    unknown = [key for key in recipe if key not in known_keys(parser)]
    if unknown:
        raise RecipeError(_unknown_message(parser, unknown, f"config file {path!r}"))
    return recipe


def parse_recipe(parser, argv: Sequence[str] | None = None) -> tuple:
    """Parse ``--config RECIPE.yaml`` plus command-line overrides into the parser's dataclasses.

    Args:
        parser: a ``TrlParser`` over (VCoderScriptArguments, GRPOConfig | SFTConfig, ModelConfig).
        argv: arguments (default ``sys.argv[1:]``).

    Returns:
        One instance per dataclass, in the parser's order.

    Raises:
        RecipeError: an unknown key in the recipe or an unknown flag, named with the file or "command line".
    """
    argv = rename_flags(list(sys.argv[1:] if argv is None else argv), known=known_keys(parser))
    flags = list(argv)
    if "--config" in argv:
        index = argv.index("--config")
        if index + 1 >= len(argv):
            raise RecipeError("--config needs a path to a YAML recipe, e.g. --config configs/tiny_cpu_grpo.yaml")
        path = argv[index + 1]
        recipe = check_recipe(parser, path)
        if recipe != load_yaml_mapping(path, what="config file", see="configs/", error=RecipeError):
            argv[index + 1] = _renamed_copy(recipe)  # TRL reads the file itself: give it the declared names
        del flags[index : index + 2]
    # argparse's own errors (a value of the wrong type) raise instead of printing the parser's whole usage
    parser.exit_on_error = False
    try:
        # unknown flags are refused before any config object is built (those may fail first, for other reasons)
        _, remaining = parser.parse_known_args(flags)
        if remaining:
            unknown = [item[2:].split("=")[0] for item in remaining if item.startswith("--")]
            raise RecipeError(_unknown_message(parser, unknown or remaining, "command line"))
        parsed = parser.parse_args_and_config(argv)
    except RecipeError:
        raise
    except (argparse.ArgumentError, ValueError, TypeError) as exc:
        # a bad value: the type conversion or a config's __post_init__ says which and what to give instead
        raise RecipeError(f"{'config file or ' if '--config' in argv else ''}command line: {exc}") from exc
    return tuple(parsed)


def _renamed_copy(recipe: dict[str, Any]) -> str:
    """A temporary YAML copy of a recipe whose old setting names were renamed (removed at exit)."""
    import atexit
    import tempfile

    import yaml

    with tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix="vcoder-recipe-", delete=False) as handle:
        yaml.safe_dump(recipe, handle, sort_keys=False)
    atexit.register(lambda: os.path.exists(handle.name) and os.remove(handle.name))
    return handle.name


def run_cli(cli, prog: str, argv: Sequence[str] | None = None) -> int:
    """Run a pipeline's ``cli`` as a program (``python -m vcoder.pipelines.grpo``): a recipe or command line that
    cannot run is one line on stderr and exit status 2, not a traceback.

    Args:
        cli: the pipeline's ``cli(argv) -> int``.
        prog: the program's name in the message.
        argv: arguments (default ``sys.argv[1:]``).
    """
    from vcoder.usage import print_error

    try:
        return cli(argv)
    except RecipeError as exc:
        return print_error(prog, str(exc))


def resolve_resume(resume: str | bool | None, output_dir: str) -> str | None:
    """:func:`vcoder.models.train_loop.resolve_resume` with a recipe's error (``RecipeError``) for a bad path."""
    from vcoder.models.train_loop import ResumeError
    from vcoder.models.train_loop import resolve_resume as resolve

    try:
        return resolve(resume, output_dir)
    except ResumeError as exc:
        raise RecipeError(str(exc)) from None


def check_reward_weights(reward_funcs: list[str], reward_weights: list[float] | None) -> None:
    """Refuse ``reward_weights`` that do not line up with ``reward_funcs``.

    Args:
        reward_funcs: reward names, in order.
        reward_weights: GRPOConfig's ``reward_weights`` (None means all 1.0).

    Raises:
        ValueError: naming both lists when their lengths differ or a weight is negative.
    """
    if reward_weights is None:
        return
    if len(reward_weights) != len(reward_funcs):
        raise ValueError(
            f"reward_weights has {len(reward_weights)} values {list(reward_weights)} but reward_funcs names "
            f"{len(reward_funcs)} rewards {list(reward_funcs)}; give one weight per reward, in the same order"
        )
    negative = [w for w in reward_weights if w < 0]
    if negative:
        raise ValueError(f"reward_weights={list(reward_weights)} has negative weights {negative}; use weights >= 0")


def check_model_path(model_name_or_path: str | None) -> None:
    """Fail early on a model path that cannot load.

    Args:
        model_name_or_path: a hub id (``Qwen/Qwen2.5-VL-3B-Instruct``) or a local folder.

    Raises:
        ValueError: when it is unset, or is meant as a local folder
            (:func:`vcoder.models.loading.is_local_name`) but is not a folder with a ``config.json``.
    """
    if not model_name_or_path:
        raise ValueError(
            "model_name_or_path is not set; set it in the recipe or pass --model_name_or_path "
            "(a hub id like Qwen/Qwen2.5-VL-3B-Instruct or a local folder, e.g. from `vcoder models tiny`)"
        )
    from vcoder.models.loading import MISSING, ModelFolderError, check_model_folder

    try:
        check_model_folder(model_name_or_path)
    except ModelFolderError as exc:
        if exc.problem != MISSING:
            raise
        raise ValueError(
            f"model_name_or_path={model_name_or_path!r} does not exist; build a tiny model with "
            "`vcoder models tiny --out DIR` or fix the path"
        ) from None


def load_model_and_processor(model_args, training_args):
    """The recipe's VLM and processor (:func:`vcoder.models.loading.load_for_training`), after the model path
    check; a name that loads as no image-text-to-text model is a ``RecipeError`` that says what vcoder trains.

    Args:
        model_args: TRL ``ModelConfig``.
        training_args: ``GRPOConfig`` or ``SFTConfig`` (``trust_remote_code``, ``model_init_kwargs``).

    Returns:
        ``(model, processor)``.
    """
    from vcoder.models.loading import load_for_training

    check_model_path(model_args.model_name_or_path)
    try:
        return load_for_training(model_args, training_args, kind="vlm")
    except ValueError as exc:
        raise RecipeError(
            f"model_name_or_path={model_args.model_name_or_path!r} could not load as an image-text-to-text model "
            f"({exc}); vcoder trains vision-language models such as Qwen/Qwen2.5-VL-3B-Instruct"
        ) from exc


def build_reward_funcs(script_args, reward_weights: list[float] | None = None) -> list:
    """Resolve ``reward_funcs`` through vcoder's registry, after checking the weights line up.

    Args:
        script_args: ``VCoderScriptArguments``.
        reward_weights: GRPOConfig's ``reward_weights``.

    Returns:
        The reward callables, in order.
    """
    from vcoder.rewards import build_rewards

    check_reward_weights(script_args.reward_funcs, reward_weights)
    return build_rewards(script_args.reward_funcs, **script_args.reward_params())


def train_and_save(trainer, holdout, script_args, training_args, *, resume: str | None, score_holdout=None) -> dict:
    """The run loop (:func:`vcoder.models.train_loop.run_training`: train, resuming if asked, save model, processor
    and trainer state to ``output_dir``), then, on the main process, ``score_holdout(trainer, holdout, script_args,
    output_dir) -> mean metrics`` when there are holdout rows and ``eval_holdout`` is set (GRPO and SFT hand in
    :func:`vcoder.pipelines.grpo.heldout.score_holdout`; Step-GRPO has no holdout: pass None).

    Returns:
        ``{"output_dir", "global_step", "train_runtime", "holdout": metrics or None}``.
    """
    from vcoder.models.train_loop import run_training

    done = run_training(trainer, resume=resume, save_dir=training_args.output_dir)
    summary = {
        "output_dir": training_args.output_dir,
        "global_step": done["global_step"],
        "train_runtime": done["train_runtime"],
        "holdout": None,
    }
    if holdout is not None and script_args.eval_holdout and trainer.accelerator.is_main_process:
        if score_holdout is None:
            raise ValueError("train_and_save was given holdout rows but no score_holdout to score them with")
        summary["holdout"] = score_holdout(trainer, holdout, script_args, training_args.output_dir)
    trainer.accelerator.wait_for_everyone()
    return summary


def run_pipeline(build, script_args, training_args, model_args, *, name: str, score_holdout=None) -> dict:
    """The pipelines' shared ``main``: resolve the resume point, warn when the disk is short (main process, before
    spending hours), build the trainer, train, save and score the holdout.

    Args:
        build: ``build(script_args, training_args, model_args) -> (trainer, holdout rows or None)``.
        script_args: the pipeline's script arguments.
        training_args: its trainer config.
        model_args: TRL ``ModelConfig``.
        name: the pipeline's name for the log.
        score_holdout: how the pipeline scores its holdout rows (see :func:`train_and_save`).

    Returns:
        ``{"output_dir", "global_step", "train_runtime", "holdout": metrics or None}``.
    """
    from vcoder.pipelines.disk import check_free_space

    resume = resolve_resume(training_args.resume_from_checkpoint, training_args.output_dir)
    if training_args.process_index == 0:
        check_free_space(training_args, model_args)
    # one line per process: a multi-process launch that started fewer processes than asked shows here
    logger.info("%s: process %d of %d", name, training_args.process_index, training_args.world_size)
    try:
        trainer, holdout = build(script_args, training_args, model_args)
    except RecipeError:
        raise
    except (ValueError, TypeError) as exc:
        # the set-up's checks (model path, reward names and weights, dataset filters) refuse a recipe value;
        # one line names it, the traceback stays in the debug log
        logger.debug("%s set-up failed", name, exc_info=True)
        raise RecipeError(f"{name} set-up: {exc}") from exc
    summary = train_and_save(trainer, holdout, script_args, training_args, resume=resume, score_holdout=score_holdout)
    logger.info("%s finished at step %d; model in %s", name, trainer.state.global_step, training_args.output_dir)
    return summary
