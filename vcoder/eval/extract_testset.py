"""VisionCoder's test-set extraction, over `vcoder data design2code`: Design2Code's parquet -> <id>.png + <id>.html.

    python3 vcoder/eval/extract_testset.py \\
        --parquet_path ../Design2Code/testset_final/data/train-00000-of-00001.parquet \\
        --rick_jpg ../Design2Code/testset_final/rick.jpg --output_dir ../Design2Code/testset_final_extracted

runs ``python -m vcoder data design2code --source PARQUET --out OUTPUT_DIR`` (logged as one line; the ids are the
row numbers 0..483, as the seed's) and then copies ``--rick_jpg`` over the placeholder rick.jpg that vcoder writes
(a missing rick.jpg is a warning, as in the seed: rendering serves a placeholder for it anyway). The defaults are
the seed's folders next to this checkout, so the output is the folder generate_predictions.py reads by default.
``--parquet_path`` also takes a folder of parquet files, the original folder release, or the hub name
SALT-NLP/Design2Code-hf. Exit 0 done, 2 usage error (one line).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys

logger = logging.getLogger("extract_testset")

DESIGN2CODE = "../Design2Code/testset_final"


def make_parser():
    from vcoder.usage import OneLineParser

    parser = OneLineParser(prog="extract_testset.py", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parquet_path", default=f"{DESIGN2CODE}/data/train-00000-of-00001.parquet", help="Design2Code-hf parquet"
    )
    parser.add_argument("--rick_jpg", default=f"{DESIGN2CODE}/rick.jpg", help="the benchmark's placeholder image")
    parser.add_argument("--output_dir", default="../Design2Code/testset_final_extracted", help="test set folder")
    parser.add_argument("--num_samples", type=int, default=None, help="extract only the first N pages")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    command = ["data", "design2code", "--source", args.parquet_path, "--out", args.output_dir]
    if args.num_samples is not None:
        command += ["--max-samples", str(args.num_samples)]
    logger.info("extract_testset.py -> vcoder %s", " ".join(command))
    done = subprocess.run([sys.executable, "-m", "vcoder", *command])
    if done.returncode != 0:
        return done.returncode
    if os.path.isfile(args.rick_jpg):
        shutil.copyfile(args.rick_jpg, os.path.join(args.output_dir, "rick.jpg"))
    else:
        logger.warning("rick.jpg not found at %s; the test set keeps vcoder's placeholder rick.jpg", args.rick_jpg)
    return 0


if __name__ == "__main__":
    # run as a file, Python puts this folder first on sys.path, where its modules would shadow top-level names
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(main())
