"""One curriculum phase: filter the replay buffer, train on the pool (KL to the previous policy), judge, grow the pool.

Files of ``phase_<k>/``: ``pool.jsonl`` (the tasks trained on), ``outcomes.jsonl`` (every recorded rollout),
``model/`` (the final policy: the next phase's start and reference), ``next_pool.jsonl``, ``replay_buffer.jsonl``,
``details.json`` (per-task results, the writer's requests, training figures, the config fingerprint) and, written
last, ``report.json`` — its presence marks the phase complete.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

REPORT_KEYS = (
    "phase",
    "pool_size",
    "generated",
    "accepted",
    "rejected",
    "success_rate",
    "eval",
    "replay",
    "reference_model",
    "orm",
    "algorithm",
    "heldout_success_before",
    "heldout_success",
    "heldout_split",
    "heldout_digest",
)


def write_jsonl(path: Path, items) -> None:
    """One JSON line per item."""
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path``."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON through a temporary file and a rename, so a kill never leaves half a file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def kind_predictor(summary: dict[str, Any]):
    """Offline prediction: a generator task's kind's success rate (the phase's overall rate for a kind no rollout
    tried); a written task's, the mean rate of the failures it was written from."""

    def predict(tasks: list[dict[str, Any]]) -> list[float | None]:
        out = []
        for task in tasks:
            if task["source"] == "llm":
                rates = [summary["per_task"][p]["success_rate"] for p in task.get("parents", ())]
                out.append(sum(rates) / len(rates) if rates else None)
            else:
                rate = summary["per_kind"].get(task["kind"])
                out.append(summary["success_rate"] if rate is None else rate)
        return out

    return predict


def grow_pool(config, phase: int, pool: list, summary: dict, *, predict, writer=None) -> dict[str, Any]:
    """New tasks for the next phase: written from the failures (LLM) or drawn from the generators (offline mix).

    Returns:
        ``{"accepted", "generated", "rejected", "source", "writer", "predicted"}``.
    """
    from vcoder.pipelines.curriculum.filters import filter_candidates
    from vcoder.pipelines.curriculum.tasks import choose_mix, new_offline_tasks

    rejected: Counter = Counter()
    candidates, source, writer_info = [], "offline", None
    failures = [t for t in pool if t["id"] in set(summary["failed"])]
    if writer is not None and failures and config.new_tasks_per_phase:
        result = writer.write(failures, config.new_tasks_per_phase, phase=phase, seed=config.task_seed + phase)
        writer_info = result.summary()
        rejected.update(result.rejected)
        if result.no_reply:
            source = "offline (task writer gave no reply)"
            logger.warning(
                "phase %d: the task writer at %s gave no reply (%s); growing the pool with the offline generators",
                phase,
                config.writer_base_url,
                "; ".join(result.errors[-1:]),
            )
        else:
            candidates, source = result.candidates, "llm"
    generated = len(candidates) + rejected["schema"]
    if source != "llm":
        kinds = choose_mix(
            summary["per_kind"], config.kinds, config.new_tasks_per_phase, low=config.band_low, high=config.band_high
        )
        candidates = new_offline_tasks(kinds, phase=phase, base_seed=config.task_seed)
        generated = len(candidates)
    accepted, more, predicted = filter_candidates(
        candidates,
        pool,
        predict,
        low=config.band_low,
        high=config.band_high,
        n=config.ngram,
        max_overlap=config.max_ngram_overlap,
    )
    rejected.update(more)
    return {
        "accepted": accepted,
        "generated": generated,
        "rejected": dict(rejected),
        "source": source,
        "writer": writer_info,
        "predicted": predicted,
    }


def run_phase(
    config,
    run_dir: Path,
    phase: int,
    pool: list,
    buffer: list,
    start_model: str,
    *,
    writer=None,
    predict=None,
    heldout_before: dict[str, Any] | None = None,
):
    """Run phase ``phase`` in ``run_dir/phase_<phase>`` and return its report (see the module docstring for files).

    Args:
        config: the ``CurriculumConfig``.
        run_dir: the run folder.
        phase: the phase number (0-based).
        pool: the tasks to train on.
        buffer: the replay buffer (successes of earlier phases).
        start_model: the policy to start from (and the KL reference).
        writer: a ``TaskWriter`` (None: offline generators).
        predict: a success predictor for candidates (default: by ``config.predictor``).
        heldout_before: the start policy's held-out result (the previous phase's; None: measured here).
    """
    from vcoder.models.train_loop import run_training
    from vcoder.pipelines.curriculum.config import parse_train_recipe
    from vcoder.pipelines.curriculum.orm import OrmPredictor, orm_label_records
    from vcoder.pipelines.curriculum.outcomes import successes, summarise
    from vcoder.pipelines.curriculum.policy import geometric_mean_probs
    from vcoder.pipelines.curriculum.replay import grow_buffer, recorded_trajectory, replay_filter, trajectory_probs
    from vcoder.pipelines.curriculum.train import reference_model, save_policy
    from vcoder.rendering import BrowserPool

    t0 = time.perf_counter()
    folder = run_dir / f"phase_{phase}"
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / "pool.jsonl", pool)
    parsed = parse_train_recipe(config, model=start_model, output_dir=str(folder / "train"))
    script_args = parsed[0]
    mode, update = config.trainer_mode, config.algorithm_mode  # the recipe's trainer and algorithm, as objects
    with BrowserPool(max_pages=2) as browser:
        rows = mode.task_rows(pool, script_args, pool=browser)
        replay_rows = mode.task_rows([b["task"] for b in buffer], script_args, pool=browser)
        heldout_rows = _heldout_rows(config, script_args, browser)
    recorder = mode.recorder(script_args)
    trainer = mode.build(
        parsed,
        rows,
        recorder,
        success_reward=config.success_reward,
        algorithm=update,
        tasks=pool,
        orm_model=config.orm_model,
    )
    update.prepare(trainer, config, script_args, run_dir / f"phase_{phase - 1}" / "critic.pt" if phase else None)
    reference = reference_model(trainer, start_model)
    measure = _heldout_measure(config, script_args, parsed[1], heldout_rows)
    if measure is not None and heldout_before is None:
        heldout_before = measure(trainer.accelerator.unwrap_model(trainer.model), trainer.processing_class)
    kept, replay = [], {"kept": 0, "dropped_easy": 0, "dropped_unlikely": 0}
    recorded = [recorded_trajectory(b) for b in buffer] if mode.records_trajectories else None
    if config.replay_weight > 0:  # weight 0 switches replay off: nothing to score
        if recorded is not None:
            probs = trajectory_probs(trainer, recorded)
        else:
            completions = [b["completion"] for b in buffer]
            probs = geometric_mean_probs(trainer.model, trainer.processing_class, replay_rows, completions)
        kept, replay = replay_filter(probs, low=config.replay_low, high=config.replay_high)
    trainer.set_replay(
        [replay_rows[i] for i in kept],
        [buffer[i]["completion"] for i in kept],
        weight=config.replay_weight,
        batch_size=config.replay_batch_size,
        mode=config.replay_mode,
        advantages=[buffer[i]["score"] - buffer[i].get("baseline", 0.0) for i in kept],
        trajectories=[recorded[i] for i in kept] if recorded is not None else None,
    )
    if mode.records_trajectories and config.replay_weight > 0:
        trainer.trajectory_log = {}  # this phase's trajectories, for the next phases' replay
    logger.info("phase %d: %d tasks, replay %s, reference %s", phase, len(pool), replay, reference)
    # the shared run loop; the policy is saved below, merged, after the held-out measure (not by the loop)
    result = run_training(trainer, save_state=False)
    replay["used_as_rl"] = len(trainer.replay_used) if config.replay_mode == "rl" else 0
    if measure is not None:
        heldout_after = measure(trainer.accelerator.unwrap_model(trainer.model), trainer.processing_class)
    else:
        heldout_after = None
    save_policy(trainer, str(folder / "model"))
    update.save(trainer, folder)  # webrl: critic.pt, the next phase's critic continues from it
    # WebRL's --add_reward: the ORM judged the rollouts of tasks without an evaluator (kind llm) while the phase
    # trained (their recorded scores are its verdicts); here they are marked and the ORM is checked on the rest
    records, orm = orm_label_records(config.orm_model, recorder.records, pool, threshold=config.success_threshold)
    write_jsonl(folder / "outcomes.jsonl", records)
    summary = summarise(records, pool, threshold=config.success_threshold)
    if predict is None and config.predictor == "critic":
        from vcoder.pipelines.curriculum.webrl_trainer import CriticPredictor

        with BrowserPool(max_pages=2) as browser:
            predictor = CriticPredictor(trainer, lambda tasks: mode.task_rows(tasks, script_args, pool=browser))
            grown = grow_pool(config, phase, pool, summary, predict=predictor, writer=writer)
    elif predict is None and config.predictor == "orm":
        with BrowserPool(max_pages=2) as browser:
            predictor = OrmPredictor(
                config.orm_model,
                trainer.model,
                trainer.processing_class,
                samples=config.predictor_samples,
                max_new_tokens=parsed[1].max_completion_length,
                pool=browser,
            )
            grown = grow_pool(config, phase, pool, summary, predict=predictor, writer=writer)
    else:
        grown = grow_pool(config, phase, pool, summary, predict=predict or kind_predictor(summary), writer=writer)
    next_pool = [*pool, *grown["accepted"]]
    trajectories = (trainer.trajectory_log or {}) if mode.records_trajectories else None
    found = successes(records, pool, threshold=config.success_threshold, phase=phase, trajectories=trajectories)
    new_buffer = grow_buffer(buffer, found, max_items=config.replay_max_items)
    write_jsonl(folder / "next_pool.jsonl", next_pool)
    write_jsonl(folder / "replay_buffer.jsonl", new_buffer)
    report = {
        "phase": phase,
        "pool_size": len(pool),
        "generated": grown["generated"],
        "accepted": len(grown["accepted"]),
        "rejected": grown["rejected"],
        "success_rate": summary["success_rate"],
        "eval": {
            "n_rollouts": summary["n_rollouts"],
            "mean_score": summary["mean_score"],
            "tasks_seen": summary["tasks_seen"],
            "per_kind": summary["per_kind"],
            "failed": len(summary["failed"]),
            "succeeded": len(summary["succeeded"]),
            "task_source": grown["source"],
        },
        "replay": replay,
        "reference_model": reference,
        "orm": orm,
        "algorithm": config.algorithm,
        "heldout_success_before": heldout_before["success"] if heldout_before else None,
        "heldout_success": heldout_after["success"] if heldout_after else None,
        # what the held-out figures were measured on: the split and the digest of its tasks' content keys
        "heldout_split": config.heldout_split if config.heldout_size else None,
        "heldout_digest": _heldout_digest(config),
    }
    details = {
        "fingerprint": config.fingerprint(),
        "start_model": start_model,
        "per_task": summary["per_task"],
        "writer": grown["writer"],
        "accepted_predictions": grown["predicted"],
        "replay_nll": trainer.replay_nll,
        "replay_mode": config.replay_mode,
        "heldout_before": heldout_before,
        "heldout": heldout_after,
        "webrl": update.details(trainer),
        "train": {"global_step": trainer.state.global_step, "train_runtime": result["train_runtime"]},
        "next_pool_size": len(next_pool),
        "replay_buffer_size": len(new_buffer),
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    write_json_atomic(folder / "details.json", details)
    write_json_atomic(folder / "report.json", report)  # last: its presence marks the phase complete
    return report


def _heldout_rows(config, script_args, browser) -> list[dict[str, Any]]:
    """The training rows of the fixed held-out set (none when ``heldout_size`` is 0)."""
    if not config.heldout_size:
        return []
    from vcoder.pipelines.curriculum.heldout import heldout_tasks

    tasks = heldout_tasks(config.kinds, config.heldout_size, seed=config.heldout_seed, split=config.heldout_split)
    return config.trainer_mode.task_rows(tasks, script_args, pool=browser)


def _heldout_digest(config) -> str | None:
    """The split digest of the held-out set (None without one)."""
    if not config.heldout_size:
        return None
    from vcoder.data.splits import split_digest
    from vcoder.pipelines.curriculum.heldout import heldout_tasks

    tasks = heldout_tasks(config.kinds, config.heldout_size, seed=config.heldout_seed, split=config.heldout_split)
    return split_digest(t["content_key"] for t in tasks)


def _heldout_measure(config, script_args, training_args, rows):
    """``(model, processor) -> held-out result`` scored by the success reward (None without a held-out set)."""
    if not rows:
        return None
    from vcoder.pipelines.curriculum.heldout import heldout_success
    from vcoder.rewards import build_rewards

    (reward,) = build_rewards([config.success_reward], **script_args.reward_params())

    def measure(model, processor) -> dict[str, Any]:
        result = heldout_success(
            model,
            processor,
            rows,
            reward,
            threshold=config.success_threshold,
            max_new_tokens=training_args.max_completion_length,
        )
        logger.info("held-out success %.3f (%d tasks)", result["success"], result["n"])
        return result

    return measure
