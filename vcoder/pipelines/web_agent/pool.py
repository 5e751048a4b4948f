"""How a phase of the web agent's curriculum grows its task pool: fresh task instances the pool and the held-out set
do not hold, appended with new ids. Both updates use it (:func:`.run.grow_pool` keeps the templates in WebRL's band,
:func:`.webrl_phase.candidate_tasks` lets the critic choose), so it sits below them both."""

from __future__ import annotations

from vcoder.browse import WebTask
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.split import new_train_tasks


def new_instances(config: WebAgentConfig, phase: int, pool, heldout, *, keep=None) -> list[list[WebTask]]:
    """Per site of ``config.sites``, the phase's fresh task instances (``keep``'s, when given) on the training site
    instances, apart from the validation and test splits by content, whose intent is in neither the pool, the
    held-out set nor an earlier site's list: the candidates a phase grows its pool from."""
    seen = {" ".join(t.intent.split()).lower() for t in [*pool, *heldout]}
    per_site = []
    for site in config.sites:
        fresh = new_train_tasks(config, phase, site, 6 * config.new_tasks_per_phase, seen)
        per_site.append([t for t in fresh if keep is None or keep(t)])
    return per_site


def with_new_tasks(pool: list[WebTask], new: list[WebTask]) -> list[WebTask]:
    """``pool`` followed by ``new``, renumbered after the pool's largest ``task_id``."""
    base = max(int(t.task_id) for t in pool) + 1
    return [*pool, *(WebTask.from_dict({**t.to_dict(), "task_id": base + i}) for i, t in enumerate(new))]
