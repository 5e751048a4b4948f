"""The CLIP loader: tiny offline model, batching, whole-page preprocessing, checkpoints, clear missing-weight errors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("open_clip")

from vcoder.metrics.clip import clip_similarity  # noqa: E402
from vcoder.models.clip import ClipWeightsNotFound, load_clip  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    return load_clip(tiny=True, pretrained=None, device="cpu", batch_size=2)


def _pages():
    rng = np.random.default_rng(0)
    pages = []
    for k in range(3):
        img = np.full((400 + 100 * k, 320, 3), 255, dtype=np.uint8)
        img[50:120, 20:300] = rng.integers(0, 255, 3)
        pages.append(img)
    return pages


def test_tiny_embeddings_shape_norm_and_batching(tiny):
    pages = _pages()
    emb = tiny.embed(pages)  # batch_size=2: two forward passes
    assert emb.shape == (3, 64) and emb.dtype == np.float32
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    alone = tiny.embed(pages[2:])
    assert np.allclose(alone[0], emb[2], atol=1e-5)
    assert clip_similarity(emb[0], emb[0]) == pytest.approx(1.0, abs=1e-6)
    assert sum(p.numel() for p in tiny.model.parameters()) < 1_000_000


def test_whole_page_is_seen_not_a_centre_crop(tiny):
    page = np.full((2000, 320, 3), 255, dtype=np.uint8)
    footer = page.copy()
    footer[-300:] = (20, 20, 160)  # only at the bottom: a centre crop would not see it
    a, b = tiny.embed([page, footer])
    assert not np.allclose(a, b, atol=1e-3)


def test_checkpoint_round_trip(tiny, tmp_path):
    from safetensors.torch import save_file

    pt, st = tmp_path / "tiny.pt", tmp_path / "tiny.safetensors"
    state = {k: v * 1.01 for k, v in tiny.model.state_dict().items()}  # different from the random init
    torch.save(state, pt)
    save_file({k: v.contiguous() for k, v in state.items()}, str(st))
    pages = _pages()
    from_pt = load_clip(pretrained=str(pt), tiny=True, device="cpu").embed(pages)
    from_st = load_clip(pretrained=st, tiny=True, device="cpu").embed(pages)
    assert np.allclose(from_pt, from_st, atol=1e-6)
    assert not np.allclose(from_pt, tiny.embed(pages), atol=1e-4)
    again = load_clip(pretrained=str(pt), tiny=True, device="cpu").embed(pages)
    assert np.array_equal(from_pt, again)


def test_missing_weights_are_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(ClipWeightsNotFound, match="not on this machine"):
        load_clip("ViT-B-32", "openai", device="cpu")
    with pytest.raises(ClipWeightsNotFound, match="does not exist"):
        load_clip(pretrained=str(tmp_path / "nope.pt"), tiny=True)
    with pytest.raises(ValueError, match="not an open_clip tag"):
        load_clip("ViT-B-32", "no-such-tag")
    with pytest.raises(ValueError, match="unknown open_clip model"):
        load_clip("ViT-Q-99", "openai")


def test_wrong_checkpoint_is_rejected(tmp_path):
    bad = tmp_path / "bad.pt"
    torch.save({"weight": torch.zeros(3)}, bad)
    with pytest.raises(ClipWeightsNotFound, match="does not fit"):
        load_clip(pretrained=bad, tiny=True)


def test_embed_rejects_bad_images(tiny):
    with pytest.raises(ValueError, match=r"images\[0\]"):
        tiny.embed([np.zeros((10, 10), np.float32)])


def _max_cosine_gap(a, b):
    return float(np.max(1.0 - (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))))


def test_resizing_on_the_device_gives_the_opencv_embeddings(tiny):
    assert tiny.resize_on_device is False  # on a CPU OpenCV stays (faster there)
    tensors = load_clip(tiny=True, pretrained=None, device="cpu", batch_size=2, resize_on_device=True)
    rng = np.random.default_rng(1)
    pages = _pages() + [rng.integers(0, 256, (900, 1280, 3), dtype=np.uint8), np.zeros((40, 30, 3), np.uint8)]
    base, moved = tiny.embed(pages), tensors.embed(pages)
    assert _max_cosine_gap(base, moved) < 1e-4
    assert tensors.preprocess(pages[:2]).shape == (2, 3, 64, 64)


@pytest.mark.gpu
def test_cuda_embeddings_equal_the_cpu_ones(tiny):
    on_gpu = load_clip(tiny=True, pretrained=None, device="cuda", batch_size=2)
    assert on_gpu.resize_on_device is True
    pages = _pages() + [np.random.default_rng(2).integers(0, 256, (1552, 1280, 3), dtype=np.uint8)]
    assert _max_cosine_gap(tiny.embed(pages), on_gpu.embed(pages)) < 1e-4
