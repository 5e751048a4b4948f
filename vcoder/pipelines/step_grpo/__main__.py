"""``python -m vcoder.pipelines.step_grpo`` / ``accelerate launch -m vcoder.pipelines.step_grpo``: Step-GRPO."""

import logging
import sys

from vcoder.pipelines.recipes import run_cli
from vcoder.pipelines.step_grpo.train import cli

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
sys.exit(run_cli(cli, "vcoder.pipelines.step_grpo"))
