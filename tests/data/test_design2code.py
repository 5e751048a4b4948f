"""Design2Code loader and test-set export from the parquet and the folder release."""

from __future__ import annotations

import pytest

from vcoder.data.design2code import export_testset, list_samples, load_design2code, sample_key


@pytest.fixture
def folder_release(tmp_path, png_bytes):
    src = tmp_path / "release"
    src.mkdir()
    for page_id in ("2", "10", "1"):
        (src / f"{page_id}.html").write_text(f'<p>page {page_id}</p><img src="rick.jpg">')
        (src / f"{page_id}.png").write_bytes(png_bytes(40, 30))
    (src / "rick.jpg").write_bytes(b"not really a jpeg, but copied byte for byte")
    return src


def test_parquet_release_numbers_rows(tmp_path, write_parquet):
    write_parquet(tmp_path / "d2c.parquet", 4, idea=False)
    rows = list(load_design2code(tmp_path / "d2c.parquet"))
    assert [r["id"] for r in rows] == ["0", "1", "2", "3"]
    assert rows[0]["prompt"][1]["content"][0] == {"type": "image"}
    out = tmp_path / "testset"
    assert export_testset(tmp_path / "d2c.parquet", out) == ["0", "1", "2", "3"]
    assert sorted(p.name for p in out.iterdir()) == [
        *(f"{i}.{e}" for i in range(4) for e in ("html", "png")),
        "rick.jpg",
    ]
    assert (out / "2.html").read_text() == rows[2]["html"]
    from PIL import Image

    with Image.open(out / "rick.jpg") as img:  # a generated placeholder that really is a JPEG
        assert img.format == "JPEG"


def test_folder_release_keeps_ids_and_rick(folder_release, tmp_path):
    before = {p.name: p.read_bytes() for p in folder_release.iterdir()}
    rows = list(load_design2code(folder_release, max_samples=2))
    assert [r["id"] for r in rows] == ["1", "2"]  # numeric order, not string order
    out = tmp_path / "out"
    assert export_testset(folder_release, out) == ["1", "2", "10"]
    assert (out / "rick.jpg").read_bytes() == before["rick.jpg"]
    assert (out / "10.png").read_bytes() == before["10.png"]
    assert {p.name: p.read_bytes() for p in folder_release.iterdir()} == before  # the source is never modified
    with pytest.raises(ValueError, match="is the source folder"):
        export_testset(folder_release, folder_release)


def test_errors_name_the_problem(tmp_path, folder_release, write_parquet):
    write_parquet(tmp_path / "wrong.parquet", 2, html_col="code", idea=False)
    with pytest.raises(ValueError, match=r"has columns \['image', 'code'\] but needs \['image', 'text'\]"):
        list(load_design2code(tmp_path / "wrong.parquet"))
    (folder_release / "10.png").unlink()
    with pytest.raises(FileNotFoundError, match=r"have no screenshot \(e.g. \['10.html'\]\)"):
        list(load_design2code(folder_release))
    with pytest.raises(FileNotFoundError, match="neither an existing path nor a hub name"):
        list(load_design2code(tmp_path / "nothing"))


def test_sample_ids_sort_as_the_benchmark_numbers_them():
    ids = ["10", "2", "a10", "a2", "1", "b", "2a"]
    assert sorted(ids, key=sample_key) == ["1", "2", "2a", "10", "a2", "a10", "b"]


def test_list_samples_of_pages_and_screenshots(folder_release, tmp_path):
    assert list_samples(folder_release) == ["1", "2", "10"]
    (folder_release / "3_marker.png").write_bytes(b"")  # the release's marker screenshots are not samples
    (folder_release / "3.png").write_bytes(b"")
    assert list_samples(folder_release, suffix=".png") == ["1", "2", "3", "10"]
    with pytest.raises(FileNotFoundError, match=r"'.*nothing' is not a folder of <id>.html files; make one with"):
        list_samples(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"holds no <id>.png files; is it the right folder\?"):
        list_samples(tmp_path / "empty", suffix=".png")
