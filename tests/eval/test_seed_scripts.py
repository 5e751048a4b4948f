"""VisionCoder's three scripts run as its README spells them, over vcoder's own commands: extract_testset.py (vcoder
data design2code), generate_predictions.py (vcoder predict, against a loopback OpenAI-shaped server) and
demo/inference.py (one screenshot -> one HTML file, rendered by vcoder render)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.data.parquet import png_bytes, write_parquet
from tests.pipelines.runs import ROOT, run_env
from tests.servers import ScriptedServer

EXTRACT = os.path.join(ROOT, "vcoder", "eval", "extract_testset.py")
PREDICT = os.path.join(ROOT, "vcoder", "eval", "generate_predictions.py")
DEMO = os.path.join(ROOT, "vcoder", "demo", "inference.py")
PAGE = "<html><body><h1>Hello</h1></body></html>"
REPLY = f"<think>one heading</think>\n```html\n{PAGE}\n```"


def _run(args, cwd, timeout=300):
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=run_env(), capture_output=True, text=True, timeout=timeout
    )


def test_extract_then_predict_as_the_readme_spells_them(tmp_path):
    d2c = tmp_path / "Design2Code" / "testset_final"
    (d2c / "data").mkdir(parents=True)
    write_parquet(d2c / "data" / "train-00000-of-00001.parquet", 3, idea=False)
    (d2c / "rick.jpg").write_bytes(b"the benchmark's own rick.jpg")
    work = tmp_path / "vision-coder"
    work.mkdir()

    # the seed's defaults are the Design2Code folders beside the checkout
    extracted = _run([EXTRACT], cwd=work)
    assert extracted.returncode == 0, extracted.stderr[-2000:]
    testset = tmp_path / "Design2Code" / "testset_final_extracted"
    assert sorted(p.name for p in testset.iterdir()) == [
        "0.html",
        "0.png",
        "1.html",
        "1.png",
        "2.html",
        "2.png",
        "rick.jpg",
    ]
    assert (testset / "rick.jpg").read_bytes() == b"the benchmark's own rick.jpg"
    assert "-> vcoder data design2code --source ../Design2Code/testset_final/data/" in extracted.stderr

    with ScriptedServer(REPLY, models=("outputs/vcoder-grpo-clip/checkpoint-500",)) as served:
        port = served.base_url.rsplit(":", 1)[1]
        args = [PREDICT, "--model", "vcoder-grpo-clip", "--testset_dir", "../Design2Code/testset_final_extracted"]
        done = _run([*args, "--host", "127.0.0.1", "--port", port, "--num_samples", "2"], cwd=work)
        assert done.returncode == 0, done.stderr[-2000:]
        out = work / "outputs" / "benchmark" / "vcoder-grpo-clip"
        assert (out / "0.html").read_text() == PAGE and (out / "1.html").exists() and not (out / "2.html").exists()
        assert json.loads(done.stdout.splitlines()[-1])["done"] == 2
        sent = served.bodies[-1]
        assert sent["model"] == "outputs/vcoder-grpo-clip/checkpoint-500"  # the README's second server
        assert (sent["temperature"], sent["max_tokens"]) == (0.0, 7500)
    # a server that serves one model under another name (vLLM started on another path): that model, said in the log
    with ScriptedServer(REPLY, models=("my-checkpoint",)) as served:
        port = served.base_url.rsplit(":", 1)[1]
        done = _run([*args, "--port", port, "--num_samples", "1", "--output_dir", "preds"], cwd=work)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "does not serve 'outputs/vcoder-grpo-clip/checkpoint-500'; using the one model it serves" in done.stderr
        assert served.bodies[-1]["model"] == "my-checkpoint"
        assert (work / "preds" / "vcoder-grpo-clip" / "0.html").read_text() == PAGE


@pytest.mark.browser
def test_the_demo_turns_one_screenshot_into_html(tmp_path):
    shot = tmp_path / "shot.png"
    shot.write_bytes(png_bytes(64, 48))
    with ScriptedServer(REPLY, models=("Qwen/Qwen3-VL-2B-Instruct",)) as served:
        port = served.base_url.rsplit(":", 1)[1]
        args = ["--image", str(shot), "--port", port, "--out", "page.html", "--render", "page.png"]
        done = _run([DEMO, *args], cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        # the VisionCoder recipe's training prompt: the one its fine-tuned model learnt
        assert "<think>" in served.bodies[-1]["messages"][0]["content"]
        assert served.bodies[-1]["temperature"] == 0.7
        printed = _run([DEMO, "--image", str(shot), "--port", port], cwd=tmp_path)
    assert (tmp_path / "page.html").read_text() == PAGE
    assert (tmp_path / "page.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert printed.returncode == 0 and printed.stdout == PAGE


@pytest.mark.parametrize(
    "script, argv, said",
    [
        (PREDICT, ["--model", "m", "--testset-dir", "x"], "(did you mean '--testset_dir'?)"),
        (PREDICT, ["--model", "m", "--testset_dir", "nothere"], "--testset_dir 'nothere' is not a folder"),
        (EXTRACT, ["--output_dri", "x"], "(did you mean '--output_dir'?)"),
        (DEMO, ["--image", "nothere.png"], "--image 'nothere.png' is not a file"),
    ],
)
def test_a_wrong_script_line_is_one_line(script, argv, said, tmp_path):
    done = _run([script, *argv], cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and said in done.stderr, done.stderr
