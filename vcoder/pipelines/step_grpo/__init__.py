"""Step-GRPO (WebGen-Agent): GRPO over multi-turn site-building episodes with one reward per step.

``advantages``: the pure per-step advantage maths; ``args``: the recipe's script arguments (values only);
``grading``: the grader those arguments describe (the services); ``train``: the launch script (``accelerate launch
-m vcoder.pipelines.step_grpo --config ...``); ``trainer``: the TRL trainer subclass; ``rollout``, ``generation``,
``tokens``: episodes to token tensors; ``data``: task rows; ``recorded``: a trained trajectory recorded for the curriculum's replay (its tokens, turns and step advantages) and
its replay loss. Heavy imports happen inside functions.
"""

from vcoder.pipelines.step_grpo.advantages import ADVANTAGE_MODES, judged_step_advantages, step_advantages
from vcoder.pipelines.step_grpo.train import build_trainer, cli, main, make_parser

__all__ = [
    "ADVANTAGE_MODES",
    "build_trainer",
    "cli",
    "judged_step_advantages",
    "main",
    "make_parser",
    "step_advantages",
]
