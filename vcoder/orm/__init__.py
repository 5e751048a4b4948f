"""The outcome reward model (ORM) of WebRL: P(YES) that a site does what its task asks, from a verdict log.

``collect`` makes a verdict log offline (the scripted GUI agent over the interactive pages and their broken
variants); ``train_orm`` fine-tunes a VLM with TRL's SFTTrainer on the YES/NO answer and reports held-out accuracy,
AUC and ECE against the majority baseline; ``OutcomeRewardModel`` reads P(YES) from the first answer token's
logits; ``make_orm_reward`` is the TRL reward. The verdict log itself lives in :mod:`vcoder.agents.verdicts`.
Names are imported on first use, so ``import vcoder.orm`` stays light.
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
    "TrainOptions": "vcoder.orm.train",
    "train_orm": "vcoder.orm.train",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'vcoder.orm' has no attribute {name!r}")
