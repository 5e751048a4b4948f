"""`vcoder data synth` and `vcoder data design2code` end to end (the screenshot path with a real Chromium)."""

from __future__ import annotations

import json

import pytest

from tests.data.parquet import write_parquet
from vcoder.cli import main
from vcoder.data.local import load_local
from vcoder.data.synthetic import generate_page


def test_synth_html_only_writes_pages_and_metadata(tmp_path, capsys):
    assert (
        main(
            [
                "data",
                "synth",
                "--n",
                "3",
                "--seed",
                "5",
                "--difficulty",
                "2",
                "--out",
                str(tmp_path),
                "--no-screenshots",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 3 and summary["failed"] == []
    records = [json.loads(line) for line in (tmp_path / "metadata.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["d2-5", "d2-6", "d2-7"]
    assert (tmp_path / "d2-6.html").read_text() == generate_page(6, difficulty=2).html
    assert all(r["png"] is None and r["difficulty"] == 2 for r in records)
    assert not list(tmp_path.glob("*.png"))


def test_design2code_cli_reports_a_missing_source(tmp_path, capsys):
    assert main(["data", "design2code", "--source", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err  # one line on stderr, like every vcoder usage error
    assert err.startswith("vcoder data design2code: error:") and "neither an existing path nor a hub name" in err


def test_design2code_cli_exports_parquet(tmp_path, capsys):
    write_parquet(tmp_path / "d2c.parquet", 3, idea=False)
    assert main(["data", "design2code", "--source", str(tmp_path / "d2c.parquet"), "--out", str(tmp_path / "t")]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 3
    assert sorted(p.name for p in (tmp_path / "t").iterdir())[-2:] == ["2.png", "rick.jpg"]


@pytest.mark.browser
@pytest.mark.slow
def test_synth_screenshots_and_local_rendering(tmp_path, capsys):
    from PIL import Image

    out = tmp_path / "synth"
    assert main(["data", "synth", "--n", "2", "--out", str(out)]) == 0
    records = [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]
    assert [r["png"] for r in records] == ["d0-0.png", "d0-1.png"]
    with Image.open(out / "d0-0.png") as img:
        assert img.size == (320, 240)
        # the heading and blocks are drawn: the screenshot is not one flat colour
        assert len(img.convert("RGB").getcolors(1 << 16)) > 3
    # a folder with HTML only: the loader renders the missing screenshot
    (out / "d0-1.png").unlink()
    rows = {r["id"]: r for r in load_local(out, render_width=320, render_height=240, max_pixels=None)}
    assert rows["d0-1"]["image"].size == (320, 240)
    assert rows["d0-0"]["image"].size == (320, 240)
