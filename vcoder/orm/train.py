"""Train an ORM from a verdict log with TRL's SFTTrainer (the answer token only), then report on held-out tasks.

    vcoder orm train --verdicts LOG --model-name-or-path BASE --out DIR [--max-steps N] [--lora-r R]

The log is split by task id (:func:`vcoder.orm.examples.split_by_task`): held-out sites, and every variant of their
page, are never seen in training. Each training example is a prompt-completion pair whose completion is the single
answer token (``YES`` / ``NO``, then the end-of-turn token); the loss covers the completion only. With
``lora_r > 0`` PEFT LoRA adapters are trained (plus the answer tokens' embedding rows when they had to be added)
and merged before saving, so the ORM folder always loads as a plain model.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcoder.orm.examples import VIEWS, Example, build_examples, split_by_task
from vcoder.orm.heldout import FIT_SAMPLE, evaluate, report_on_log, tuned_threshold
from vcoder.verdicts.log import read_verdicts
from vcoder.verdicts.records import VerdictLogError

logger = logging.getLogger(__name__)

# the held-out report stays importable from here, where it lived before the split
__all__ = [
    "FIT_SAMPLE",
    "REPORT_FILE",
    "BaseModelError",
    "TrainOptions",
    "balanced",
    "evaluate",
    "load_base",
    "report_on_log",
    "train_orm",
]

REPORT_FILE = "report.json"


@dataclass(frozen=True)
class TrainOptions:
    """Settings of one ORM training run (validated on creation).

    Attributes:
        holdout: share of task ids held out for the report.
        views: prompt views trained on (``site``, ``agent``).
        label_threshold: score at or above which a site is labelled YES.
        image_width: screenshot width fed to the model (0 = text only).
        max_steps: optimiser steps.
        batch_size: examples per step.
        learning_rate: peak learning rate (cosine decay, 5% warm-up).
        lora_r: LoRA rank (0 = full fine-tuning).
        seed: split and training seed.
        balance_classes: oversample the rarer label until YES and NO examples are equally many (seeded), so a
            log with few successes does not train an ORM that never says YES.
        tune_threshold: set the ORM's decision threshold to the best balanced accuracy on the training examples
            (:func:`vcoder.orm.report.tune_threshold`; the held-out report uses it); otherwise 0.5.
    """

    holdout: float = 0.2
    views: tuple[str, ...] = VIEWS
    label_threshold: float = 0.5
    image_width: int = 320
    max_steps: int = 300
    batch_size: int = 8
    learning_rate: float = 1e-3
    lora_r: int = 0
    seed: int = 0
    balance_classes: bool = True
    tune_threshold: bool = True

    def __post_init__(self) -> None:
        bad = [v for v in self.views if v not in VIEWS]
        if bad or not self.views:
            raise ValueError(f"views={list(self.views)!r}: give one or more of {', '.join(VIEWS)}")
        if not 0.0 < self.label_threshold <= 1.0:
            raise ValueError(f"label_threshold={self.label_threshold!r} must be in (0, 1]")
        for name in ("max_steps", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)!r} must be at least 1")
        if self.image_width < 0 or self.lora_r < 0 or self.learning_rate <= 0:
            raise ValueError("image_width and lora_r must be >= 0 and learning_rate > 0")


class BaseModelError(ValueError):
    """A base model that cannot be loaded (no such folder, not a model folder, a hub id with no network)."""


def load_base(model: str | Path):
    """``(model, processor)`` of the base VLM, in float32 (:func:`vcoder.models.loading.load_policy`);
    ``BaseModelError`` says what is wrong with ``model``."""
    from vcoder.models.loading import MISSING, ModelFolderError, load_policy

    fix = "pass a model folder (e.g. one made by `vcoder models tiny --out DIR`) or a hub id the cache holds"
    try:
        return load_policy(str(model), dtype="float32")
    except ModelFolderError as exc:
        if exc.problem == MISSING:
            raise BaseModelError(f"base model {str(model)!r}: no such folder; {fix}") from None
        raise BaseModelError(
            f"base model {str(model)!r} is not a model folder (it has no config.json); {fix}"
        ) from None
    except (OSError, ValueError) as exc:
        raise BaseModelError(f"base model {str(model)!r} could not be loaded ({exc}); {fix}") from None


def balanced(examples: Sequence[Example], *, seed: int = 0) -> list[Example]:
    """``examples`` plus seeded repeats of the rarer label's examples, so both labels are equally many (unchanged
    when one label is missing)."""
    yes = [ex for ex in examples if ex.label]
    no = [ex for ex in examples if not ex.label]
    if not yes or not no or len(yes) == len(no):
        return list(examples)
    fewer, more = (yes, no) if len(yes) < len(no) else (no, yes)
    rng = random.Random(seed)
    extra = [fewer[i % len(fewer)] for i in range(len(more) - len(fewer))]
    rng.shuffle(extra)
    out = [*examples, *extra]
    rng.shuffle(out)
    return out


def _rows(examples: Sequence[Example]):
    """The examples as TRL prompt-completion rows. Each row carries its own screenshot list (``images``: one image, or
    none for a view without a screenshot, e.g. a browsing trajectory), so a log that mixes site records with web-agent
    records trains each example in the view it is judged in; a log without screenshots has no image column."""
    from datasets import Dataset

    from vcoder.orm.model import user_turn

    seen = [ex.image is not None for ex in examples]
    rows: dict[str, list] = {"prompt": [], "completion": []}
    if any(seen):
        rows["images"] = [[ex.image] if has else [] for ex, has in zip(examples, seen, strict=True)]
    for ex, has in zip(examples, seen, strict=True):
        rows["prompt"].append(user_turn(ex.text, with_image=has))
        answer = "YES" if ex.label else "NO"
        rows["completion"].append([{"role": "assistant", "content": [{"type": "text", "text": answer}]}])
    return Dataset.from_dict(rows)


def _peft_config(options: TrainOptions, added: list[int]):
    if not options.lora_r:
        return None
    from peft import LoraConfig

    extra = {"trainable_token_indices": {"embed_tokens": added}} if added else {}
    return LoraConfig(
        r=options.lora_r, lora_alpha=2 * options.lora_r, target_modules="all-linear", task_type="CAUSAL_LM", **extra
    )


def train_orm(verdicts: str | Path, model: str | Path, out: str | Path, *, options: TrainOptions) -> dict[str, Any]:
    """Train an ORM on a verdict log, save it to ``out`` with ``orm.json``, and write the held-out report.

    Args:
        verdicts: the verdict log (JSONL).
        model: the base model (a folder or hub id ``AutoModelForImageTextToText`` loads).
        out: the ORM folder to write.
        options: the run's settings.

    Returns:
        The report (also written to ``out/report.json``).

    Raises:
        VerdictLogError: an empty or invalid log, or one that cannot be split by task.
        BaseModelError: ``model`` cannot be loaded.
    """
    import torch
    from trl import SFTConfig, SFTTrainer

    from vcoder.models.train_loop import run_training
    from vcoder.orm.model import ORMConfig, OutcomeRewardModel, add_answer_tokens, answer_token_ids

    verdicts, out = Path(verdicts), Path(out)
    records = read_verdicts(verdicts)
    if not records:
        raise VerdictLogError(f"verdict log {str(verdicts)!r} has no verdicts; fill it with `vcoder orm collect`")
    base, processor = load_base(model)  # before the examples (which may render): a wrong --model fails in seconds
    train, held = split_by_task(records, holdout=options.holdout, seed=options.seed)
    make = dict(base_dir=verdicts.parent, threshold=options.label_threshold, image_width=options.image_width)
    train_ex = build_examples(train, views=options.views, **make)
    held_ex = build_examples(held, views=options.views, **make)

    had = answer_token_ids(processor.tokenizer)
    yes_id, no_id = add_answer_tokens(base, processor)
    args = SFTConfig(
        output_dir=str(out / "trainer"),
        max_steps=options.max_steps,
        per_device_train_batch_size=options.batch_size,
        learning_rate=options.learning_rate,
        lr_scheduler_type="cosine",
        warmup_steps=max(1, options.max_steps // 20),
        logging_steps=max(1, options.max_steps // 30),
        save_strategy="no",
        report_to=[],
        seed=options.seed,
        max_length=None,
        bf16=False,
        use_cpu=not torch.cuda.is_available(),
        gradient_checkpointing=False,
        dataloader_num_workers=0,
    )
    fit_ex = balanced(train_ex, seed=options.seed) if options.balance_classes else list(train_ex)
    trainer = SFTTrainer(
        model=base,
        args=args,
        train_dataset=_rows(fit_ex),
        processing_class=processor,
        peft_config=_peft_config(options, [] if had else [yes_id, no_id]),
    )
    t0 = time.monotonic()
    # the shared run loop: train, then the ORM folder gets the plain model (LoRA merged) and its processor
    result = run_training(trainer, merged_dir=out, save_state=False)
    trained = result["model"]
    config = ORMConfig(
        yes_id=yes_id,
        no_id=no_id,
        label_threshold=options.label_threshold,
        image_width=options.image_width,
        base_model=str(model),
        heldout_tasks=tuple(sorted({r.task_id for r in held})),
    )
    if options.tune_threshold:
        config = dataclasses.replace(
            config, decision_threshold=tuned_threshold(OutcomeRewardModel(trained, processor, config), train_ex)
        )
    with contextlib.suppress(OSError):  # the trainer's own folder stays empty (save_strategy "no")
        (out / "trainer").rmdir()
    config.save(out)
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    orm = OutcomeRewardModel(trained, processor, config)
    report = {
        "model": str(out),
        "verdicts": str(verdicts),
        "base_model": str(model),
        "label": f"site score >= {options.label_threshold}",
        "split": {
            "by": "task_id",
            "train_tasks": len({r.task_id for r in train}),
            "heldout_tasks": len(config.heldout_tasks),
            "train_records": len(train),
            "heldout_records": len(held),
        },
        "training": {
            "examples": len(train_ex),
            "balanced_examples": len(fit_ex),
            "decision_threshold": config.decision_threshold,
            "steps": trainer.state.global_step,
            "runtime_s": round(time.monotonic() - t0, 1),
            "train_loss": result["train_loss"],
            "first_logged_loss": losses[0] if losses else None,
            "last_logged_loss": losses[-1] if losses else None,
            "options": {**vars(options), "views": list(options.views)},
        },
        **evaluate(orm, held_ex, train_ex, threshold=config.decision_threshold),
    }
    (out / REPORT_FILE).write_text(json.dumps(report, indent=2) + "\n")
    return report
