"""An untrained ORM folder built from the session's tiny VLM (answer tokens added, orm.json written)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def untrained_orm(tiny_vlm_dir, tmp_path_factory):
    from vcoder.orm.model import make_orm

    return make_orm(tiny_vlm_dir, tmp_path_factory.mktemp("orm") / "untrained", image_width=160)
