"""The GRPO pipeline's former path, kept so existing ``accelerate launch vcoder/pipelines/training.py`` scripts work.

New scripts launch the module: ``accelerate launch -m vcoder.pipelines.grpo --config ...``.
"""

if __name__ == "__main__":
    import logging
    import os
    import sys

    # run as a file, Python puts this folder first on sys.path, where config.py would shadow a top-level "config"
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    from vcoder.pipelines.grpo import cli

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(cli())
