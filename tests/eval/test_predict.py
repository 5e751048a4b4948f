"""``vcoder predict`` end to end against real HTTP servers on loopback (scripted, and transformers serve)."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.servers import ScriptedServer, dead_port
from vcoder.chat import image_data_url
from vcoder.cli import main
from vcoder.eval.predict import DESIGN2CODE_PROMPT, make_prompt

HTML_REPLY = "Here you go:\n```html\n<html><body><h1>Hello</h1></body></html>\n```"


def _make_testset(root: Path, n: int = 4) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(1, n + 1):
        buf = io.BytesIO()
        Image.new("RGB", (64, 48), (40 * i, 80, 200)).save(buf, format="PNG")
        (root / f"{i}.png").write_bytes(buf.getvalue())
        (root / f"{i}.html").write_text(f"<html><body><p>page {i}</p></body></html>")
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), "gray").save(buf, format="JPEG")
    (root / "rick.jpg").write_bytes(buf.getvalue())
    return root


def _digest(root: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.iterdir())}


def _predict(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["predict", "--no-progress", *args])
    captured = capsys.readouterr()
    lines = [line for line in captured.out.splitlines() if line.strip()]
    return code, (json.loads(lines[-1]) if lines else None), captured.err


@pytest.fixture
def testset(tmp_path) -> Path:
    return _make_testset(tmp_path / "testset")


def test_prompts(testset):
    png = (testset / "1.png").read_bytes()
    image = {"type": "image_url", "image_url": {"url": image_data_url(png)}}
    d2c = make_prompt("design2code")
    assert d2c.system is None and d2c.user == DESIGN2CODE_PROMPT and "rick.jpg" in d2c.user
    assert d2c.messages(png) == [{"role": "user", "content": [{"type": "text", "text": DESIGN2CODE_PROMPT}, image]}]
    training = make_prompt("training")
    from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT

    assert (training.system, training.user) == (DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT)
    assert training.messages(png) == [
        {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
        {"role": "user", "content": [image, {"type": "text", "text": DEFAULT_USER_PROMPT}]},
    ]
    with pytest.raises(ValueError, match="unknown prompt style 'fancy'; choose one of design2code, training"):
        make_prompt("fancy")


def test_predict_writes_resumes_and_keeps_raw(testset, tmp_path, capsys):
    before = _digest(testset)
    out = tmp_path / "preds"
    with ScriptedServer(HTML_REPLY) as server:
        common = ["--testset", str(testset), "--base-url", server.base_url, "--model", "scripted", "--out", str(out)]
        code, summary, _ = _predict(capsys, *common, "--max-concurrency", "2")
        assert code == 0
        assert summary["n"] == 4 and summary["done"] == 4 and summary["skipped"] == 0 and summary["failed"] == 0
        assert summary["no_html"] == 0 and summary["mean_latency_s"] >= 0
        assert server.chat_hits == 4
        body = server.bodies[0]
        assert body["messages"][0]["content"][0]["text"] == DESIGN2CODE_PROMPT
        assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.0, 4096, 2024)
        for i in range(1, 5):
            assert (out / f"{i}.html").read_text() == "<html><body><h1>Hello</h1></body></html>"
            raw = json.loads((out / f"{i}.raw.json").read_text())
            assert raw["text"] == HTML_REPLY and raw["response"]["choices"][0]["message"]["content"] == HTML_REPLY
            assert raw["model"] == "scripted" and raw["prompt_style"] == "design2code" and raw["request_s"] >= 0
        manifest = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
        assert [m["id"] for m in manifest] == ["1", "2", "3", "4"] and {m["status"] for m in manifest} == {"done"}

        (out / "3.html").unlink()  # resume: only the missing sample is asked again
        code, summary, _ = _predict(capsys, *common)
        assert code == 0 and summary["done"] == 1 and summary["skipped"] == 3 and server.chat_hits == 5
        states = {m["id"]: m["status"] for m in map(json.loads, (out / "predictions.jsonl").read_text().splitlines())}
        assert states == {"1": "skipped", "2": "skipped", "3": "done", "4": "skipped"}

        code, summary, _ = _predict(capsys, *common, "--overwrite", "--ids", "1,2")
        assert code == 0 and summary["n"] == 2 and summary["done"] == 2 and server.chat_hits == 7
    assert _digest(testset) == before  # the testset is never modified
    assert not (out / "rick.jpg").exists()


def test_reply_without_html_is_kept_as_the_prediction(testset, tmp_path, capsys):
    out = tmp_path / "preds"
    with ScriptedServer("I cannot do that.") as server:
        code, summary, _ = _predict(
            capsys, "--testset", str(testset), "--base-url", server.base_url, "--model", "scripted", "--out", str(out)
        )
    assert code == 0 and summary["done"] == 4 and summary["no_html"] == 4
    assert (out / "1.html").read_text() == "I cannot do that."
    assert "no HTML" in json.loads((out / "1.raw.json").read_text())["error"]


def test_training_prompt_from_config(testset, tmp_path, capsys):
    config = tmp_path / "recipe.yaml"
    config.write_text("system_prompt: You are a tiny coder.\nuser_prompt: Write it.\nlearning_rate: 1.0e-4\n")
    with ScriptedServer(HTML_REPLY) as server:
        code, _, _ = _predict(
            capsys,
            *("--testset", str(testset), "--base-url", server.base_url + "/v1", "--model", "scripted"),
            *("--out", str(tmp_path / "p"), "--prompt", "training", "--config", str(config), "--ids", "1"),
        )
    assert code == 0
    messages = server.bodies[0]["messages"]
    assert messages[0] == {"role": "system", "content": "You are a tiny coder."}
    assert messages[1]["content"][1] == {"type": "text", "text": "Write it."}


def test_some_failures_exit_3_and_a_rerun_finishes(testset, tmp_path, capsys):
    out = tmp_path / "preds"
    with ScriptedServer(HTML_REPLY, statuses=(500, 500)) as server:
        common = ["--testset", str(testset), "--base-url", server.base_url, "--model", "scripted", "--out", str(out)]
        code, summary, _ = _predict(capsys, *common, "--max-retries", "0", "--max-concurrency", "1")
        assert code == 3 and summary["failed"] == 2 and summary["done"] == 2
        failed = [m for m in map(json.loads, (out / "predictions.jsonl").read_text().splitlines()) if m["error"]]
        assert len(failed) == 2 and all("500" in m["error"] for m in failed)
        assert len(list(out.glob("*.html"))) == 2
        code, summary, _ = _predict(capsys, *common, "--max-retries", "0")
        assert code == 0 and summary["done"] == 2 and summary["skipped"] == 2


def test_slow_server_times_out_retries_and_fails(testset, tmp_path, capsys):
    out = tmp_path / "preds"
    with ScriptedServer(HTML_REPLY, delay_s=1.0) as server:
        code, summary, _ = _predict(
            capsys,
            *("--testset", str(testset), "--base-url", server.base_url, "--model", "scripted", "--out", str(out)),
            *("--timeout-ms", "200", "--max-retries", "1", "--ids", "1,2"),
        )
        assert code == 3 and summary["failed"] == 2 and server.chat_hits == 4  # 2 samples x (1 try + 1 retry)
    assert not list(out.glob("*.html"))
    errors = [json.loads(line)["error"] for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert all("timed out" in e for e in errors)


def test_unreachable_server_and_wrong_model_write_nothing(testset, tmp_path, capsys):
    out = tmp_path / "preds"
    url = f"http://127.0.0.1:{dead_port()}"
    code, summary, err = _predict(
        capsys, "--testset", str(testset), "--base-url", url, "--model", "m", "--out", str(out), "--max-retries", "0"
    )
    assert code == 2 and summary is None and url in err and "vllm serve" in err and not out.exists()
    with ScriptedServer(HTML_REPLY, models=("real-model",)) as server:
        code, _, err = _predict(
            capsys, "--testset", str(testset), "--base-url", server.base_url, "--model", "typo", "--out", str(out)
        )
    assert code == 2 and "'typo'" in err and "real-model" in err and not out.exists()


@pytest.mark.parametrize(
    ("testset_dir", "base_url", "out_dir", "message"),
    [
        ("nope", "http://127.0.0.1:1", "o", "is not a folder of <id>.png files"),
        ("empty", "http://127.0.0.1:1", "o", "holds no <id>.png files"),
        ("testset", "http://127.0.0.1:1", "testset", "is the testset folder"),
        ("testset", "127.0.0.1:1", "o", "must start with http://"),
    ],
)
def test_usage_errors(testset, tmp_path, capsys, testset_dir, base_url, out_dir, message):
    (tmp_path / "empty").mkdir()
    args = ["--testset", str(tmp_path / testset_dir), "--base-url", base_url, "--model", "m"]
    code, summary, err = _predict(capsys, *args, "--out", str(tmp_path / out_dir))
    assert code == 2 and summary is None and message in err


@pytest.mark.slow
def test_predict_against_transformers_serve(tiny_vlm_server, tmp_path, capsys):
    testset = _make_testset(tmp_path / "testset", n=3)
    out = tmp_path / "preds"
    common = ["--testset", str(testset), "--base-url", tiny_vlm_server.base_url, "--model", tiny_vlm_server.model]
    common += ["--out", str(out), "--max-tokens", "16", "--max-concurrency", "2", "--timeout-ms", "120000"]
    code, summary, err = _predict(capsys, *common)
    assert code == 0, err
    assert summary["done"] == 3 and summary["failed"] == 0
    for i in range(1, 4):
        raw = json.loads((out / f"{i}.raw.json").read_text())
        assert raw["response"]["usage"]["completion_tokens"] >= 1 and raw["response"]["object"] == "chat.completion"
        assert (out / f"{i}.html").exists()  # the tiny model's noise holds no HTML: the raw text stands in
    code, summary, _ = _predict(capsys, *common)
    assert code == 0 and summary["skipped"] == 3 and summary["done"] == 0
