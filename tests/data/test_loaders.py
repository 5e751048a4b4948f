"""WebSight / local loaders on parquet and folder fixtures: rows, filters, sampling, holdout, errors."""

from __future__ import annotations

import pytest

from vcoder.data.local import load_local
from vcoder.data.websight import load_websight
from vcoder.images import resize_to_max_pixels


def test_websight_rows_have_the_training_shape(websight_parquet):
    rows = list(load_websight(source=websight_parquet, max_samples=5))
    assert len(rows) == 5
    row = rows[0]
    assert set(row) == {"prompt", "image", "html", "id", "idea"}
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert row["prompt"][1]["content"][0] == {"type": "image"}
    assert row["image"].mode == "RGB" and row["html"].startswith("<!DOCTYPE html>")
    assert row["id"].startswith("ws-") and row["idea"].startswith("idea ")


def test_sample_is_deterministic_random_not_the_first_n(websight_parquet):
    a = [r["id"] for r in load_websight(source=websight_parquet, max_samples=10, seed=1)]
    b = [r["id"] for r in load_websight(source=websight_parquet, max_samples=10, seed=1)]
    c = [r["id"] for r in load_websight(source=websight_parquet, max_samples=10, seed=2)]
    everything = [r["id"] for r in load_websight(source=websight_parquet)]
    assert a == b
    assert set(a) != set(c)
    assert set(a) != set(everything[:10])
    assert len(everything) == 60 and set(a) <= set(everything)


def test_sample_does_not_depend_on_row_order(tmp_path, write_parquet):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    forward = tmp_path / "f.parquet"
    write_parquet(forward, 30)
    table = pq.read_table(forward)
    pq.write_table(table.take(pa.array(range(29, -1, -1))), tmp_path / "r.parquet")
    ids = {r["id"] for r in load_websight(source=forward, max_samples=8, seed=3)}
    assert ids == {r["id"] for r in load_websight(source=tmp_path / "r.parquet", max_samples=8, seed=3)}


def test_holdout_never_overlaps_training(websight_parquet):
    train = {r["html"] for r in load_websight(source=websight_parquet, holdout=0.3)}
    held = {r["html"] for r in load_websight(source=websight_parquet, holdout=0.3, split="holdout")}
    assert train.isdisjoint(held)
    assert len(train) + len(held) == 60
    assert 5 <= len(held) <= 35
    # sampling seeds pick from the training side only
    for seed in range(3):
        sample = {r["html"] for r in load_websight(source=websight_parquet, holdout=0.3, max_samples=10, seed=seed)}
        assert sample <= train


def test_filters_bound_html_length_and_image_size(websight_parquet):
    all_rows = list(load_websight(source=websight_parquet, max_pixels=None))
    lengths = sorted(len(r["html"]) for r in all_rows)
    cut = lengths[len(lengths) // 2]
    short = list(load_websight(source=websight_parquet, max_html_chars=cut))
    assert short and all(len(r["html"]) <= cut for r in short) and len(short) < len(all_rows)
    narrow = list(load_websight(source=websight_parquet, max_width=72, min_height=52, max_pixels=None))
    assert narrow and all(r["image"].width <= 72 and r["image"].height >= 52 for r in narrow)
    assert len(narrow) < len(all_rows)


def test_images_are_resized_to_max_pixels_keeping_aspect(websight_parquet):
    rows = list(load_websight(source=websight_parquet, max_samples=3, max_pixels=1000))
    for row in rows:
        w, h = row["image"].size
        assert w * h <= 1000
    from PIL import Image

    big = resize_to_max_pixels(Image.new("RGB", (1280, 720)), 64 * 28 * 28)
    assert big.width * big.height <= 64 * 28 * 28
    assert abs(big.width / big.height - 1280 / 720) < 0.02
    small = Image.new("RGB", (10, 10))
    assert resize_to_max_pixels(small, 1000) is small


def test_bad_sources_and_options_say_what_to_do(tmp_path, websight_parquet, write_parquet):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_websight(source=tmp_path / "nope.parquet")
    write_parquet(tmp_path / "bad.parquet", 3, html_col="html_code")
    with pytest.raises(ValueError, match=r"has columns \['image', 'html_code', 'llm_generated_idea'\] but needs"):
        load_websight(source=tmp_path / "bad.parquet")
    with pytest.raises(ValueError, match="unknown WebSight version 'v9'"):
        load_websight("v9", source=websight_parquet)
    with pytest.raises(TypeError, match="valid filters are: min_html_chars"):
        load_websight(source=websight_parquet, max_html_length=10)
    with pytest.raises(ValueError, match="holdout must be a fraction"):
        load_websight(source=websight_parquet, holdout=1.5)
    with pytest.raises(ValueError, match="min_width=10 is larger than max_width=5"):
        load_websight(source=websight_parquet, min_width=10, max_width=5)


def test_local_parquet_with_html_column_and_ids(tmp_path, png_bytes):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(
        pa.table(
            {"id": ["a", "b", "c"], "html": ["<p>1</p>", "<p>2</p>", "<p>3</p>"], "image": [png_bytes(8, 8)] * 3}
        ),
        tmp_path / "mine.parquet",
    )
    rows = list(load_local(tmp_path / "mine.parquet"))
    assert [r["id"] for r in rows] == ["a", "b", "c"] and rows[1]["html"] == "<p>2</p>"
    with pytest.raises(ValueError, match=r"needs \['html', 'image'\]"):
        pq.write_table(pa.table({"html": ["<p>1</p>"]}), tmp_path / "noimg.parquet")
        load_local(tmp_path / "noimg.parquet")


def test_local_folder_with_screenshots(tmp_path, png_bytes):
    for i in range(6):
        (tmp_path / f"p{i}.html").write_text(f"<h1>{i}</h1>")
        (tmp_path / f"p{i}.png").write_bytes(png_bytes(20, 10))
    rows = list(load_local(tmp_path, max_samples=4, seed=0))
    assert len(rows) == 4 and {r["id"] for r in rows} <= {f"p{i}" for i in range(6)}
    assert all(r["html"] == f"<h1>{r['id'][1:]}</h1>" for r in rows)
    held = {r["id"] for r in load_local(tmp_path, split="holdout", holdout=0.5)}
    train = {r["id"] for r in load_local(tmp_path, holdout=0.5)}
    assert held.isdisjoint(train) and held | train == {f"p{i}" for i in range(6)}
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_local(tmp_path / "missing")


@pytest.mark.parametrize("streaming", [True, False])
def test_hub_code_path_on_a_local_copy(websight_parquet, monkeypatch, streaming):
    """The hub branch, run through the real `datasets` library on the parquet fixture instead of the network."""
    datasets = pytest.importorskip("datasets")
    real_load = datasets.load_dataset
    calls = []

    def load_from_fixture(path, name=None, split=None, streaming=False):
        calls.append((path, name, split, streaming))
        return real_load("parquet", data_files=str(websight_parquet), split=split, streaming=streaming)

    monkeypatch.setattr(datasets, "load_dataset", load_from_fixture)
    rows = list(load_websight("v0.1", streaming=streaming, max_samples=7, seed=4, holdout=0.2, max_html_chars=10**6))
    assert calls == [("HuggingFaceM4/WebSight", "v0.1", "train", streaming)]
    assert len(rows) == 7 and len({r["id"] for r in rows}) == 7
    held = {r["html"] for r in load_websight(source=websight_parquet, split="holdout", holdout=0.2)}
    assert held.isdisjoint(r["html"] for r in rows)
    again = [r["id"] for r in load_websight("v0.1", streaming=streaming, max_samples=7, seed=4, holdout=0.2)]
    assert again == [r["id"] for r in rows]
