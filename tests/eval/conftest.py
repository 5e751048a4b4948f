"""Shared fixtures for the evaluation tests: the fixture page pairs and a tiny testset builder (the Chromium pool is
tests/conftest.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest

PAGES = Path(__file__).parent / "pages"


def pair_names() -> list[str]:
    return sorted({p.name.split(".")[0] for p in PAGES.glob("*.ref.html")})


@pytest.fixture
def make_testset(tmp_path):
    """Build testset/ (with a rick.jpg) and predictions/ folders.

    ``build({id: (pair, prediction)})``: the reference is ``pages/<pair>.ref.html``; prediction ``"pair"`` copies
    ``pages/<pair>.pred.html``, ``None`` leaves it missing, any other string is written as the prediction file.
    """

    def build(spec: dict[str, tuple[str, str | None]]) -> tuple[Path, Path]:
        from PIL import Image

        testset, preds = tmp_path / "testset", tmp_path / "predictions"
        testset.mkdir()
        preds.mkdir()
        Image.new("RGB", (64, 48), (200, 40, 40)).save(testset / "rick.jpg", "JPEG")
        for sample_id, (pair, prediction) in spec.items():
            (testset / f"{sample_id}.html").write_text((PAGES / f"{pair}.ref.html").read_text())
            if prediction == "pair":
                (preds / f"{sample_id}.html").write_text((PAGES / f"{pair}.pred.html").read_text())
            elif prediction is not None:
                (preds / f"{sample_id}.html").write_text(prediction)
        return testset, preds

    return build
