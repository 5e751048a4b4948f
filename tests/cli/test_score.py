"""`vcoder score` through the real CLI (subprocess): the DESIGN.md contract and its exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.rewards.pages import make_page, to_html

pytestmark = pytest.mark.browser


def vcoder(*args):
    return subprocess.run(
        [sys.executable, "-m", "vcoder", "score", *args], capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("score")
    ref = to_html(make_page(7, n_blocks=4))
    (d / "ref.html").write_text(ref)
    (d / "pred.txt").write_text(f"Sure! Here it is:\n```html\n{ref}\n```")
    (d / "bad.txt").write_text("no html at all")
    from vcoder.rendering import get_default_pool

    get_default_pool().render(ref).pil().save(d / "ref.png")
    return d


def test_identical_prediction_from_raw_model_output(files):
    proc = vcoder("--ref", str(files / "ref.html"), "--pred", str(files / "pred.txt"), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"rewards", "elapsed_ms"}
    names = ["format", "validity", "dom", "ssim", "block", "text", "position", "color", "visual"]
    assert list(out["rewards"]) == names
    for name in ["ssim", "block", "text", "position", "color", "visual", "dom"]:
        assert out["rewards"][name] >= 0.99, (name, out)


def test_screenshot_reference_leaves_layout_rewards_null(files):
    proc = vcoder("--ref", str(files / "ref.png"), "--pred", str(files / "pred.txt"), "--rewards", "ssim,block")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["rewards"]
    assert out["block"] is None and out["ssim"] >= 0.99


def test_no_html_scores_zero(files):
    proc = vcoder("--ref", str(files / "ref.html"), "--pred", str(files / "bad.txt"), "--rewards", "validity,visual")
    assert json.loads(proc.stdout)["rewards"] == {"validity": 0.0, "visual": 0.0}


def test_usage_errors_exit_2(files):
    missing = vcoder("--ref", str(files / "nope.html"), "--pred", str(files / "pred.txt"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    typo = vcoder("--ref", str(files / "ref.html"), "--pred", str(files / "pred.txt"), "--rewards", "blok")
    assert typo.returncode == 2 and "did you mean" in typo.stderr.lower()
