"""VisionCoder's single-image inference, over `vcoder predict` (+ `vcoder render`): one screenshot -> one HTML file.

    python3 vcoder/demo/inference.py --image shot.png --out page.html [--render page.png]
    python3 vcoder/demo/inference.py --image shot.png --port 8001 --model outputs/vcoder-grpo-clip/checkpoint-500

asks the model on a running OpenAI-compatible server (vLLM, as the seed's demo: ``--host``/``--port``/``--model``,
default ``Qwen/Qwen3-VL-2B-Instruct`` on port 8000) for the HTML of the screenshot. It puts the image in a one-page
test set and runs ``python -m vcoder predict`` on it (logged as one line), so the request, retries and HTML
extraction are vcoder predict's; the HTML goes to ``--out`` (default: stdout). ``--render PNG`` renders it with
``vcoder render`` (hermetic Chromium) to compare with the screenshot. The prompt is the VisionCoder recipe's
training prompt (``--prompt training --config configs/grpo/visioncoder_qwen3_vl_2b.yaml``), the one the fine-tuned
model learnt; ``--prompt design2code`` asks the benchmark's question instead. Sampling is the seed demo's
(temperature 0.7, at most 4096 tokens). Exit 0 done, 2 usage error or unreachable server (one line), 3 no answer.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile

logger = logging.getLogger("inference")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECIPE = os.path.join(ROOT, "configs", "grpo", "visioncoder_qwen3_vl_2b.yaml")


def make_parser():
    from vcoder.usage import OneLineParser

    parser = OneLineParser(prog="inference.py", description=__doc__.splitlines()[0])
    parser.add_argument("--image", required=True, help="the screenshot (PNG, JPEG, WebP)")
    parser.add_argument("--out", default=None, help="write the HTML here (default: print it)")
    parser.add_argument("--render", default=None, metavar="PNG", help="also render the HTML to this screenshot")
    parser.add_argument("--host", default="127.0.0.1", help="server host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="server port (default 8000)")
    parser.add_argument("--model", default="Qwen/Qwen3-VL-2B-Instruct", help="model name as the server knows it")
    parser.add_argument("--prompt", choices=("training", "design2code"), default="training", help="which prompt")
    parser.add_argument("--config", default=RECIPE, help="recipe whose prompts --prompt training uses")
    parser.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (default 0.7)")
    parser.add_argument("--max_tokens", type=int, default=4096, help="completion token limit (default 4096)")
    return parser


def _vcoder(*argv: str, stdout=None) -> int:
    logger.info("inference.py -> vcoder %s", " ".join(argv))
    return subprocess.run([sys.executable, "-m", "vcoder", *argv], stdout=stdout).returncode


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    if not os.path.isfile(args.image):
        from vcoder.usage import print_error

        return print_error("inference.py", f"--image {args.image!r} is not a file; pass a screenshot")
    with tempfile.TemporaryDirectory(prefix="vcoder-demo-") as tmp:
        testset, preds = os.path.join(tmp, "testset"), os.path.join(tmp, "pred")
        os.makedirs(testset)
        from PIL import Image  # any image format in, the PNG the test set layout wants out

        Image.open(args.image).convert("RGB").save(os.path.join(testset, "0.png"))
        command = ["predict", "--testset", testset, "--base-url", f"http://{args.host}:{args.port}"]
        command += ["--model", args.model, "--out", preds, "--prompt", args.prompt, "--no-progress"]
        command += ["--temperature", str(args.temperature), "--max-tokens", str(args.max_tokens)]
        if args.prompt == "training":
            command += ["--config", args.config]
        status = _vcoder(*command, stdout=subprocess.DEVNULL)  # its summary line is not the demo's output
        html_path = os.path.join(preds, "0.html")
        if status != 0 or not os.path.isfile(html_path):
            return status or 3
        if args.out:
            shutil.copyfile(html_path, args.out)
        else:
            with open(html_path, encoding="utf-8") as handle:
                sys.stdout.write(handle.read())
        if args.render:
            page = args.out or os.path.join(tmp, "page.html")
            if not args.out:
                shutil.copyfile(html_path, page)
            shots = os.path.join(tmp, "shots")
            if _vcoder("render", page, "--out", shots, "--full-page", stdout=subprocess.DEVNULL) != 0:
                return 3
            stem = os.path.splitext(os.path.basename(page))[0]
            shutil.copyfile(os.path.join(shots, f"{stem}.png"), args.render)
    return 0


if __name__ == "__main__":
    # run as a file, Python puts this folder first on sys.path; keep the package's modules out of the top level
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(main())
