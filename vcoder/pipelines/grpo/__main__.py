"""``python -m vcoder.pipelines.grpo`` / ``accelerate launch -m vcoder.pipelines.grpo``: the GRPO recipe runner."""

import logging
import sys

from vcoder.pipelines.grpo.train import cli
from vcoder.pipelines.recipes import run_cli

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
sys.exit(run_cli(cli, "vcoder.pipelines.grpo"))
