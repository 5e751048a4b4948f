"""VisionCoder's training entry: ``accelerate launch vcoder/pipelines/training.py --model_id ... --batch_size 4``.

The seed's command line runs as its README writes it (see :mod:`vcoder.pipelines.seed_flags`): the defaults are the
VisionCoder recipe ``configs/grpo/visioncoder_qwen3_vl_2b.yaml``, the seed's flag names map onto TRL's (one log line
says which), and ``--config RECIPE.yaml`` plus any TRL/vcoder flag work as with ``-m vcoder.pipelines.grpo``, so
existing ``training.py --config ...`` scripts keep working. New scripts launch the package:
``accelerate launch -m vcoder.pipelines.grpo --config ...`` (or ``vcoder train grpo --config ...``).
"""

if __name__ == "__main__":
    import logging
    import sys

    from vcoder.pipelines.seed_flags import main

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(main(prog="training.py"))
