"""Shared fixtures. Markers: browser (real Chromium), slow, gpu (skipped without CUDA)."""

from __future__ import annotations

import pytest

# loopback OpenAI-compatible servers (tiny_vlm_server, ...) and the Bolt build sandbox: registered once so session
# fixtures start once
pytest_plugins = ["tests.servers", "tests.sites.bolt_fixtures"]


def pytest_collection_modifyitems(config, items):
    # the learning runs take minutes each: first in the order, so under pytest-xdist (scripts/test.sh) each starts on
    # a worker at once while the other workers take the short tests, instead of one of them starting last
    items.sort(key=lambda item: item.get_closest_marker("learning") is None)
    # the marker, not `"gpu" in item.keywords`: keywords also hold every folder name (a checkout named gpu/)
    gpu_items = [item for item in items if item.get_closest_marker("gpu") is not None]
    if not gpu_items:
        return  # importing torch just to learn there is no GPU costs seconds
    try:
        import torch

        has_gpu = torch.cuda.is_available()
    except Exception:
        has_gpu = False
    if not has_gpu:
        skip = pytest.mark.skip(reason="needs a CUDA GPU")
        for item in gpu_items:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def pool():
    """One Chromium pool for every test that only needs renders (launching is the expensive part); tests that
    need a pool's own state (a killed browser, a one-slot pool, a short timeout) build their own."""
    from vcoder.rendering import BrowserPool

    with BrowserPool(max_pages=2, timeout_ms=10000) as p:
        yield p


@pytest.fixture(scope="session")
def untrained_orm(tiny_vlm_dir, tmp_path_factory):
    """An untrained ORM folder built from the session's tiny VLM (answer tokens added, orm.json written)."""
    from vcoder.orm.model import make_orm

    return make_orm(tiny_vlm_dir, tmp_path_factory.mktemp("orm") / "untrained", image_width=160)
