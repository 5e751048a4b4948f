"""The outcome reward model (ORM) of WebRL: P(YES) that a site does what its task asks, from a verdict log.

``collect`` makes a verdict log offline (the scripted GUI agent over the interactive pages and their broken
variants); ``train_orm`` fine-tunes a VLM with TRL's SFTTrainer on the YES/NO answer and reports held-out accuracy,
AUC and ECE against the majority baseline; ``OutcomeRewardModel`` reads P(YES) from the first answer token's
logits; the TRL reward built on it is ``vcoder.rewards.make_orm_reward`` (registered as ``orm``; its ``orm_*``
parameters live in ``vcoder.rewards.RewardSettings``). The verdict log itself lives in :mod:`vcoder.verdicts`.
Torch and TRL are imported inside the functions that need them, so ``import vcoder.orm`` stays light.

The stable API for other parts of vcoder (the curriculum's predicted success, a policy's sites):

- ``OutcomeRewardModel.load(folder, device=None)`` -> an ORM; ``orm.p_yes([ORMInput(text, image)])`` -> P(YES)s.
- ``score_sites(orm_or_folder, tasks, htmls, pool=None, base_dir=None, batch_size=8)`` -> P(YES) per site, each
  task ``{"instruction", "test_cases"}``; a page that fails to render scores 0.0. WebRL's binary success is
  ``p >= 0.5``.
- ``score_site(folder, task_file, site_path)`` -> ``{"task_id", "p_yes", "answer", ...}`` (``vcoder orm score``).
- ``collect_verdicts``, ``train_orm``, ``binary_report``: make a log, train, report.
- ``judge_trajectories(orm, [Trajectory(intent, actions, final_page, answer)])`` -> ``(P(YES), verdict)`` of browsing
  episodes (WebRL's ORM view: intent, action history, final page; :mod:`vcoder.orm.trajectory`).

Example:
    >>> from vcoder.orm import score_sites  # doctest: +SKIP
    >>> score_sites("runs/orm/model", [{"instruction": "A counter", "test_cases": []}], [html])  # doctest: +SKIP
    [0.83]
"""

from vcoder.orm.collect import RecordingPolicy, collect_verdicts
from vcoder.orm.examples import Example, build_examples, split_by_task
from vcoder.orm.model import NotAnORMError, ORMConfig, ORMInput, OutcomeRewardModel, make_orm
from vcoder.orm.prompt import orm_prompt, page_summary
from vcoder.orm.report import binary_report
from vcoder.orm.score import TaskError, score_site, score_sites
from vcoder.orm.train import TrainOptions, train_orm
from vcoder.orm.trajectory import Trajectory, judge_trajectories, trajectory_prompt

__all__ = [
    "Example",
    "NotAnORMError",
    "ORMConfig",
    "ORMInput",
    "OutcomeRewardModel",
    "RecordingPolicy",
    "TaskError",
    "TrainOptions",
    "Trajectory",
    "binary_report",
    "build_examples",
    "collect_verdicts",
    "judge_trajectories",
    "make_orm",
    "orm_prompt",
    "page_summary",
    "score_site",
    "score_sites",
    "split_by_task",
    "train_orm",
    "trajectory_prompt",
]
