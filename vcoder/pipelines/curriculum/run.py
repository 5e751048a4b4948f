"""WebRL's self-evolving curriculum (Qi et al., 2024, arXiv 2411.02337) over vcoder's website-building policies.

``vcoder curriculum run --config configs/curriculum/tiny_cpu.yaml --out DIR`` runs ``phases`` phases
(:func:`vcoder.pipelines.curriculum.phase.run_phase`):

    phase k: pool -> replay filter (policy k-1) -> train (one-shot GRPO or Step-GRPO, KL to policy k-1)
             -> rollouts judged -> failures -> task writer (LLM) or offline generators -> filters -> pool of k+1

- Tasks and the offline mix: :mod:`~vcoder.pipelines.curriculum.tasks`; the checks (schema, n-gram duplicates,
  predicted success in WebRL's band [0.05, 0.75]): :mod:`~vcoder.pipelines.curriculum.filters`; the LLM writer:
  :mod:`~vcoder.pipelines.curriculum.writer`; replay: :mod:`~vcoder.pipelines.curriculum.replay`; the KL reference:
  :mod:`~vcoder.pipelines.curriculum.train`; the ORM's part: :mod:`~vcoder.pipelines.curriculum.orm`.
- The update: ``algorithm: grpo`` (TRL's GRPO loss with the KL term) or ``algorithm: webrl`` (WebRL's actor-critic
  objective, :mod:`~vcoder.pipelines.curriculum.webrl_trainer`; its critic can be the predictor:
  ``predictor: critic``).
- Resumption at phase boundaries: ``DIR/config.json`` records the settings; a complete phase has its
  ``report.json``; rerunning the command skips complete phases, deletes an incomplete one and starts it again from
  the previous phase's saved policy, pool and replay buffer. A folder made by another config is refused with the
  differences. ``DIR/curriculum.json`` holds the whole run (settings and every phase's report).
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


class RunFolderError(ValueError):
    """A run folder that cannot be resumed with this config; the message says what differs and what to do."""


def check_run_folder(config, run_dir: Path) -> int:
    """Refuse a folder made by another config; return the number of complete phases (0 for a new folder).

    Raises:
        RunFolderError: ``config.json`` or a phase's fingerprint differs from ``config``.
    """
    saved = run_dir / "config.json"
    if saved.exists():
        theirs = json.loads(saved.read_text(encoding="utf-8"))
        diff = config.differences(theirs.get("config", {}))
        if diff:
            raise RunFolderError(
                f"{run_dir} was made by another curriculum config ({'; '.join(diff)}); resume it with the same "
                "settings (only 'phases' may change) or pass a new --out"
            )
    done = 0
    while (run_dir / f"phase_{done}" / "report.json").exists():
        details = run_dir / f"phase_{done}" / "details.json"
        theirs = json.loads(details.read_text(encoding="utf-8")).get("fingerprint") if details.exists() else None
        if theirs != config.fingerprint():
            raise RunFolderError(
                f"{run_dir / f'phase_{done}'} comes from another curriculum config (fingerprint {theirs} != "
                f"{config.fingerprint()}); pass a new --out, or remove the phase folders that do not belong"
            )
        done += 1
    if not saved.exists() and done:
        raise RunFolderError(f"{run_dir} holds phase folders but no config.json; pass a new --out")
    return done


def check_start_model(model: str, *, recipe: str | None = None) -> None:
    """Refuse a phase-0 policy meant to be a local folder that does not exist, naming the command that makes it
    (:func:`vcoder.models.loading.check_model_folder`, with the curriculum's error).

    A name that is not a folder here is taken for a hub model id (left to ``from_pretrained``) unless it starts like
    a path (``/``, ``.``, ``~``), its first component is a folder here (``outputs/...``), or the recipe's header
    comments make it (a ``vcoder ... --out NAME`` line, NAME the folder or one holding it: ``vcoder quickstart
    --sft-only --out outputs/quickstart-sft`` makes ``outputs/quickstart-sft/sft``).

    Raises:
        RunFolderError: the folder is missing; the message names it and the command from the recipe's header.
    """
    from vcoder.models.loading import ModelFolderError, check_model_folder

    try:
        check_model_folder(model, recipe=recipe, need_config=False)
    except ModelFolderError as exc:
        how = f"make it first: {exc.command}" if exc.command else "build or download the phase-0 policy there first"
        raise RunFolderError(f"model_name_or_path={model!r} is not a folder here ({exc.path}); {how}") from None


def _writer(config):
    if not config.uses_writer:
        return None
    from vcoder.chat.endpoint import Endpoint
    from vcoder.names import from_flat
    from vcoder.pipelines.curriculum.writer import TaskWriter

    endpoint = from_flat("writer", Endpoint, config)
    return TaskWriter(endpoint, failures_shown=config.writer_failures_shown, requests=config.writer_requests)


def run_curriculum(
    config,
    run_dir: str | Path,
    *,
    stop_after: int | None = None,
    on_phase: Callable[[dict[str, Any]], None] | None = None,
    predict=None,
) -> dict[str, Any]:
    """Run (or resume) the curriculum in ``run_dir``.

    Args:
        config: a ``CurriculumConfig``.
        run_dir: the run folder.
        stop_after: stop once this many phases are complete (a phase limit; rerun to continue).
        on_phase: called with each new phase's report.
        predict: a success predictor for candidates (default: by ``config.predictor``).

    Returns:
        The content of ``curriculum.json``.
    """
    from vcoder.pipelines.curriculum.phase import read_jsonl, run_phase, write_json_atomic
    from vcoder.pipelines.curriculum.replay import load_buffer
    from vcoder.pipelines.curriculum.tasks import initial_pool

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    done = check_run_folder(config, run_dir)
    write_json_atomic(run_dir / "config.json", {"config": config.to_dict(), "fingerprint": config.fingerprint()})
    reports = [json.loads((run_dir / f"phase_{k}" / "report.json").read_text()) for k in range(done)]
    if done:
        logger.info("resuming %s at phase %d (%d complete)", run_dir, done, done)
    writer = _writer(config)
    last = config.phases if stop_after is None else min(config.phases, stop_after)
    for phase in range(done, last):
        folder = run_dir / f"phase_{phase}"
        if folder.exists():  # killed mid-phase: start the phase again from its saved inputs
            logger.warning("phase %d in %s is incomplete; starting it again", phase, folder)
            shutil.rmtree(folder)
        if phase == 0:
            pool = initial_pool(config.kinds, config.initial_pool_size, seed=config.task_seed)
            buffer, start = [], config.model_name_or_path
        else:
            before = run_dir / f"phase_{phase - 1}"
            pool, buffer = read_jsonl(before / "next_pool.jsonl"), load_buffer(before / "replay_buffer.jsonl")
            start = str(before / "model")
        heldout_before = None
        if phase and reports and reports[-1].get("heldout_success") is not None:
            # the same policy decoded the same way: phase k starts from phase k-1's final policy
            details = json.loads((run_dir / f"phase_{phase - 1}" / "details.json").read_text(encoding="utf-8"))
            heldout_before = details.get("heldout")
        report = run_phase(
            config, run_dir, phase, pool, buffer, start, writer=writer, predict=predict, heldout_before=heldout_before
        )
        reports.append(report)
        _write_summary(run_dir, config, reports)
        if on_phase is not None:
            on_phase(report)
    return _write_summary(run_dir, config, reports)


def _write_summary(run_dir: Path, config, reports: list[dict[str, Any]]) -> dict[str, Any]:
    from vcoder.pipelines.curriculum.phase import write_json_atomic

    summary = {
        "config": config.to_dict(),
        "fingerprint": config.fingerprint(),
        "phases": reports,
        "complete": len(reports) >= config.phases,
        "final_model": str(run_dir / f"phase_{len(reports) - 1}" / "model") if reports else None,
    }
    write_json_atomic(run_dir / "curriculum.json", summary)
    return summary
