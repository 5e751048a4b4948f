"""An ORM's held-out report: per view, accuracy, AUC and calibration against the training majority
(:mod:`vcoder.orm.report`), the training-fit accuracy, the decision threshold tuned on a training sample, and the
report on a verdict log's held-out tasks (``vcoder orm report``). :mod:`vcoder.orm.train` calls it after training.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vcoder.orm.examples import Example, build_examples
from vcoder.verdicts.log import read_verdicts
from vcoder.verdicts.records import VerdictLogError

#: training examples per view scored for the training-fit accuracy of the report
FIT_SAMPLE = 200


def tuned_threshold(orm, examples: Sequence[Example]) -> float:
    """The decision threshold tuned on a seeded sample of at most FIT_SAMPLE training examples per view."""
    from vcoder.orm.model import ORMInput
    from vcoder.orm.report import tune_threshold

    sample = []
    for view in sorted({ex.view for ex in examples}):
        of_view = [ex for ex in examples if ex.view == view]
        sample += random.Random(0).sample(of_view, min(len(of_view), FIT_SAMPLE))
    probs = orm.p_yes([ORMInput(ex.text, ex.image) for ex in sample])
    return tune_threshold(probs, [ex.label for ex in sample])


def evaluate(
    orm,
    held: Sequence[Example],
    train: Sequence[Example] = (),
    *,
    fit: bool = True,
    batch_size: int = 8,
    threshold: float = 0.5,
) -> dict[str, Any]:
    """Per view: the held-out report against the training majority, and (``fit``) the training-set accuracy, both
    answering YES at P(YES) >= ``threshold``.

    Without training examples the baseline's class is the held-out set's own majority (an upper bound for it).

    Returns:
        ``{"heldout": {view: binary_report}, "train_fit": {view: accuracy}}``.
    """
    from vcoder.orm.model import ORMInput
    from vcoder.orm.report import binary_report

    def scores(examples):
        return orm.p_yes([ORMInput(ex.text, ex.image) for ex in examples], batch_size=batch_size)

    heldout, fits = {}, {}
    for view in sorted({ex.view for ex in held} | {ex.view for ex in train}):
        tr = [ex for ex in train if ex.view == view]
        ho = [ex for ex in held if ex.view == view]
        rate_of = tr or ho
        rate = sum(ex.label for ex in rate_of) / len(rate_of)
        if ho:
            heldout[view] = binary_report(
                scores(ho), [ex.label for ex in ho], train_yes_rate=rate, threshold=threshold
            )
        if tr and fit:  # a seeded sample of at most FIT_SAMPLE training examples: underfit or overfit?
            sample = random.Random(0).sample(tr, min(len(tr), FIT_SAMPLE))
            fits[view] = sum(int(p >= threshold) == ex.label for p, ex in zip(scores(sample), sample)) / len(sample)
    return {"heldout": heldout, "train_fit": fits}


def report_on_log(
    model: str | Path, verdicts: str | Path, *, heldout_only: bool = True, device: str | None = None
) -> dict[str, Any]:
    """Score an ORM on a verdict log's held-out tasks (those in its ``orm.json``) or on every record.

    Returns:
        ``{"model", "verdicts", "records", "heldout": {view: binary_report}}``; the baseline's class is the majority
        of the log's other (training) records.
    """
    from vcoder.orm.model import OutcomeRewardModel

    orm = OutcomeRewardModel.load(model, device=device)
    records = read_verdicts(verdicts)
    if not records:
        raise VerdictLogError(f"verdict log {str(verdicts)!r} has no verdicts; fill it with `vcoder orm collect`")
    held_ids = set(orm.config.heldout_tasks)
    chosen = [r for r in records if r.task_id in held_ids] if heldout_only else records
    if not chosen:
        raise VerdictLogError(
            f"none of the {len(records)} records of {str(verdicts)!r} belongs to the ORM's held-out tasks; "
            "pass --all to score every record"
        )
    rest = [r for r in records if r.task_id not in held_ids] if heldout_only else []
    make = dict(
        base_dir=Path(verdicts).parent, threshold=orm.config.label_threshold, image_width=orm.config.image_width
    )
    result = evaluate(
        orm,
        build_examples(chosen, **make),
        build_examples(rest, **make) if rest else (),
        fit=False,
        threshold=orm.config.decision_threshold,
    )
    return {"model": str(model), "verdicts": str(verdicts), "records": len(chosen), "heldout": result["heldout"]}
