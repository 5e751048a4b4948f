"""The reward context's memo: a derived feature is computed once however many rewards ask concurrently."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from vcoder.images import to_rgb_array
from vcoder.rewards.context import Page


def test_feature_computed_once_under_concurrency():
    page = Page.from_image(np.zeros((4, 4, 3), np.uint8))
    calls = []
    lock = threading.Lock()

    def slow(p):
        with lock:
            calls.append(1)
        time.sleep(0.05)
        return 42

    with ThreadPoolExecutor(8) as pool:
        values = list(pool.map(lambda _: page.feature("x", slow), range(8)))
    assert values == [42] * 8
    assert len(calls) == 1


def test_reference_image_forms_agree(tmp_path):
    from PIL import Image

    arr = (np.arange(2 * 3 * 3) % 255).astype(np.uint8).reshape(2, 3, 3)
    img = Image.fromarray(arr)
    path = tmp_path / "x.png"
    img.save(path)
    for form in (img, arr, str(path), {"bytes": path.read_bytes()}, path.read_bytes()):
        assert np.array_equal(to_rgb_array(form), arr)
