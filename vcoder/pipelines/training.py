"""The GRPO pipeline's first path, kept as an alias so ``accelerate launch vcoder/pipelines/training.py ...`` works.

It runs :func:`vcoder.pipelines.grpo.cli` and nothing else; new scripts launch the package instead:
``accelerate launch -m vcoder.pipelines.grpo --config ...`` (or ``vcoder train grpo --config ...``).
"""

if __name__ == "__main__":
    import logging
    import sys

    from vcoder.pipelines.grpo import cli

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(cli())
