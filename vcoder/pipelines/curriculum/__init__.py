"""WebRL's self-evolving curriculum over vcoder's website-building policies (``vcoder curriculum run``).

``run``: the phases and their run folder; ``phase``: one phase; ``config``: the recipe; ``tasks``: the task space
and its mix; ``writer``: the LLM task writer; ``filters``: the checks a candidate passes; ``orm``: the outcome
reward model's part; ``outcomes``: success per task, kind and phase; ``policy``: log-probabilities and samples of
the policy; ``replay``: past successes mixed back in; ``train``: one phase's KL-constrained update; ``plot``: the
run's curve; ``webrl_objective``: WebRL's returns, advantage and actor/critic losses (pure); ``webrl_trainer``: the
trainer that runs them (``algorithm: webrl``) and its critic.
"""

from vcoder.pipelines.curriculum.run import RunFolderError, check_run_folder, run_curriculum

__all__ = ["RunFolderError", "check_run_folder", "run_curriculum"]
