"""Pages squashed ahead (``embed_squares``) and a one-thread CPU forward (``cpu_threads``) embed as ``embed`` does."""

from __future__ import annotations

import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("open_clip")

from vcoder.metrics.clip import squash_to_square  # noqa: E402
from vcoder.models.clip import load_clip  # noqa: E402


def _pages(n: int = 5):
    rng = np.random.default_rng(1)
    pages = []
    for k in range(n):
        img = np.full((300 + 170 * k, 480, 3), 250, dtype=np.uint8)
        img[40:140, 30:400] = rng.integers(0, 255, 3)
        img[200:230, 60:300] = rng.integers(0, 255, 3)
        pages.append(img)
    return pages


def test_squares_embed_exactly_as_pages_do():
    tiny = load_clip(tiny=True, pretrained=None, device="cpu", batch_size=2)
    pages = _pages()
    expected = tiny.embed(pages)
    got = tiny.embed_squares([squash_to_square(p, tiny.image_size) for p in pages])
    assert np.array_equal(got, expected)
    with pytest.raises(ValueError, match="squash it"):
        tiny.embed_squares([pages[0]])


def test_one_thread_forward_gives_the_same_embeddings_and_leaves_the_thread_count():
    tiny = load_clip(tiny=True, pretrained=None, device="cpu")
    pages = _pages()
    expected = tiny.embed(pages)
    tiny.cpu_threads = 1
    seen = []

    def run():
        before = torch.get_num_threads()
        seen.append((tiny.embed(pages), before, torch.get_num_threads()))

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    embeddings, before, after = seen[0]
    # equal here (the 200 scored pairs check that exactly); other CPUs' kernels may round differently per thread count
    assert np.allclose(embeddings, expected, atol=1e-6)
    assert before == after  # the caller's thread count is put back
