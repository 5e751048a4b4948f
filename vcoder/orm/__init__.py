"""The outcome reward model (ORM) of WebRL: P(YES) that a site does what its task asks, from a verdict log.

``collect`` makes a verdict log offline (the scripted GUI agent over the interactive pages and their broken
variants); ``train_orm`` fine-tunes a VLM with TRL's SFTTrainer on the YES/NO answer and reports held-out accuracy,
AUC and ECE against the majority baseline; ``OutcomeRewardModel`` reads P(YES) from the first answer token's
logits; ``make_orm_reward`` is the TRL reward (registered as ``orm``; its ``orm_*`` parameters live in
``vcoder.rewards.RewardSettings``). The verdict log itself lives in :mod:`vcoder.verdicts.records`; the graders that
append to it are :mod:`vcoder.verdicts.writing`'s callers. Names are imported on first use, so
``import vcoder.orm`` stays light.

The stable API for other parts of vcoder (the curriculum's predicted success, a policy's sites):

- ``OutcomeRewardModel.load(folder, device=None)`` -> an ORM; ``orm.p_yes([ORMInput(text, image)])`` -> P(YES)s.
- ``score_sites(orm_or_folder, tasks, htmls, pool=None, base_dir=None, batch_size=8)`` -> P(YES) per site, each
  task ``{"instruction", "test_cases"}``; a page that fails to render scores 0.0. WebRL's binary success is
  ``p >= 0.5``.
- ``score_site(folder, task_file, site_path)`` -> ``{"task_id", "p_yes", "answer", ...}`` (``vcoder orm score``).
- ``make_orm_reward(orm_model=..., orm_binary=False, orm_threshold=0.5, ...)`` -> the TRL reward.
- ``collect_verdicts``, ``train_orm``, ``binary_report``: make a log, train, report.

Example:
    >>> from vcoder.orm import score_sites  # doctest: +SKIP
    >>> score_sites("runs/orm/model", [{"instruction": "A counter", "test_cases": []}], [html])  # doctest: +SKIP
    [0.83]
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "collect_verdicts": "vcoder.orm.collect",
    "RecordingPolicy": "vcoder.orm.collect",
    "Example": "vcoder.orm.examples",
    "build_examples": "vcoder.orm.examples",
    "split_by_task": "vcoder.orm.examples",
    "NotAnORMError": "vcoder.orm.model",
    "ORMConfig": "vcoder.orm.model",
    "ORMInput": "vcoder.orm.model",
    "OutcomeRewardModel": "vcoder.orm.model",
    "make_orm": "vcoder.orm.model",
    "orm_prompt": "vcoder.orm.prompt",
    "page_summary": "vcoder.orm.prompt",
    "binary_report": "vcoder.orm.report",
    "make_orm_reward": "vcoder.orm.reward",
    "orm_reward": "vcoder.orm.reward",
    "score_site": "vcoder.orm.score",
    "score_sites": "vcoder.orm.score",
    "TaskError": "vcoder.orm.score",
    "TrainOptions": "vcoder.orm.train",
    "train_orm": "vcoder.orm.train",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'vcoder.orm' has no attribute {name!r}")
