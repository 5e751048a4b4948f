"""VisionCoder's prediction script, over `vcoder predict`: Design2Code predictions from a running vLLM server.

    python3 vcoder/eval/generate_predictions.py --model vcoder-grpo-clip \\
        --testset_dir ../Design2Code/testset_final_extracted

runs (and logs, as one line)::

    python -m vcoder predict --testset ../Design2Code/testset_final_extracted --base-url http://127.0.0.1:8001 \\
        --model outputs/vcoder-grpo-clip/checkpoint-500 --out outputs/benchmark/vcoder-grpo-clip --concurrency 32 \\
        --prompt design2code --max-tokens 7500

The seed's flags map onto vcoder predict's: ``--testset_dir`` -> ``--testset``, ``--host``/``--port`` ->
``--base-url``, ``--output_dir D`` -> ``--out D/MODEL`` (the seed's layout), ``--num_samples N`` -> ``--ids`` of the
first N pages, ``--concurrency`` as is. ``--model`` is the seed's name of a server (its README starts two):
``qwen-base`` is ``Qwen/Qwen3-VL-2B-Instruct`` on port 8000 and ``vcoder-grpo-clip`` is
``outputs/vcoder-grpo-clip/checkpoint-500`` on port 8001; any other name is the served model's own name on port
8000. When the server does not serve that name but serves exactly one model (a vLLM server), that model is used and
the log says so. Decoding is the seed's: the benchmark's direct prompt, greedy, at most 7500 new tokens. Then score
with `vcoder eval design2code --testset DIR --predictions outputs/benchmark/MODEL --out DIR`. Exit codes are
vcoder predict's (0 all done, 3 some failed, 2 usage error).
"""

from __future__ import annotations

import logging
import os
import sys

logger = logging.getLogger("generate_predictions")

#: the servers of VisionCoder's README: name -> (port, served model)
SEED_SERVERS = {
    "qwen-base": (8000, "Qwen/Qwen3-VL-2B-Instruct"),
    "vcoder-grpo-clip": (8001, "outputs/vcoder-grpo-clip/checkpoint-500"),
}
DEFAULT_TESTSET = "../Design2Code/testset_final_extracted"


def make_parser():
    from vcoder.usage import OneLineParser

    parser = OneLineParser(prog="generate_predictions.py", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", required=True, help="a server name of the seed (qwen-base, vcoder-grpo-clip) or a served model"
    )
    parser.add_argument(
        "--testset_dir", default=DEFAULT_TESTSET, help=f"folder of <id>.png (default {DEFAULT_TESTSET})"
    )
    parser.add_argument("--output_dir", default="outputs/benchmark", help="predictions go to OUTPUT_DIR/MODEL/")
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight (default 32)")
    parser.add_argument("--num_samples", type=int, default=None, help="predict only the first N pages")
    parser.add_argument("--host", default="127.0.0.1", help="server host (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=None, help="server port (default: the seed's for --model, else 8000)"
    )
    parser.add_argument("--max_tokens", type=int, default=7500, help="completion token limit (the seed's 7500)")
    return parser


def served_model(base_url: str, wanted: str) -> str:
    """``wanted`` if the server lists it (or lists nothing); else the one model it lists, if only one."""
    import asyncio

    from vcoder.chat import ChatError, Endpoint, connect

    async def listed() -> list[str]:
        client = connect(Endpoint(base_url, wanted, max_retries=0))
        try:
            return await client.list_models(retries=0)
        finally:
            await client.aclose()

    try:
        models = asyncio.run(listed())
    except ChatError:
        return wanted  # vcoder predict says what is wrong with the server, in one line
    if wanted not in models and len(models) == 1:
        logger.info(
            "the server at %s does not serve %r; using the one model it serves, %r", base_url, wanted, models[0]
        )
        return models[0]
    return wanted


def predict_argv(args) -> list[str]:
    """The `vcoder predict` arguments for the seed's flags (``args`` from :func:`make_parser`)."""
    from vcoder.data.design2code import list_samples

    port, model = SEED_SERVERS.get(args.model, (8000, args.model))
    base_url = f"http://{args.host}:{args.port or port}"
    argv = ["--testset", args.testset_dir, "--base-url", base_url, "--model", served_model(base_url, model)]
    argv += ["--out", os.path.join(args.output_dir, os.path.basename(os.path.normpath(args.model)))]
    argv += [
        "--max-concurrency",
        str(args.concurrency),
        "--prompt",
        "design2code",
        "--max-tokens",
        str(args.max_tokens),
    ]
    if args.num_samples is not None:
        ids = list_samples(args.testset_dir, suffix=".png")[: max(args.num_samples, 0)]
        argv += ["--ids", ",".join(ids)]
    return argv


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    if not os.path.isdir(args.testset_dir):
        from vcoder.usage import print_error

        message = (
            f"--testset_dir {args.testset_dir!r} is not a folder; extract one with vcoder/eval/extract_testset.py"
        )
        return print_error("generate_predictions.py", message)
    command = [sys.executable, "-m", "vcoder", "predict", *predict_argv(args)]
    logger.info("generate_predictions.py -> vcoder predict %s", " ".join(command[4:]))
    os.execv(sys.executable, command)  # vcoder predict's own output and exit status


if __name__ == "__main__":
    # run as a file, Python puts this folder first on sys.path, where its modules would shadow top-level names
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(main())
