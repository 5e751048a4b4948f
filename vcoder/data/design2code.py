"""Design2Code (Si et al., 2024): 484 real web pages as a test set, from any of its three releases.

- The original folder release: ``<id>.html`` + ``<id>.png`` (+ ``rick.jpg``, the image every page links to).
  Ids are the file stems.
- The Hugging Face parquet release ``SALT-NLP/Design2Code-hf`` (columns ``image``, ``text``), as local files.
  That release drops the ids: rows are numbered ``0..N-1`` in file order, and a warning says so.
- A hub name (``datasets.load_dataset(name, split="train")``) for users with hub access; ids as for parquet.

:func:`export_testset` writes the layout ``vcoder eval design2code`` and ``vcoder predict`` read;
:func:`list_samples` lists a folder's sample ids in the benchmark's order (:func:`sample_key`), for all of them.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vcoder.data.common import DEFAULT_MAX_PIXELS, check_columns, limit, make_row
from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT
from vcoder.data.sources import TableSource
from vcoder.images import to_png

logger = logging.getLogger(__name__)

HUB_ID = "SALT-NLP/Design2Code-hf"
COLUMNS = ["image", "text"]
PLACEHOLDER_NAME = "rick.jpg"
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def iter_pairs(source: str | Path = HUB_ID) -> Iterator[tuple[str, str, Any]]:
    """Yield ``(id, html, image)`` for every page of a Design2Code release, in id order where ids exist.

    The source is checked now (a missing path or wrong columns raise here); pages are read lazily.

    Args:
        source: a folder release, a parquet file / folder / ``save_to_disk`` folder, or a hub dataset name.

    Returns:
        An iterator of (id, html, image) where image is PNG bytes, an image path, or a PIL image.
    """
    path = Path(source)
    if path.is_dir() and any(path.glob("*.html")):
        return _folder_pairs(path)
    if path.exists():
        table = TableSource(path)
        check_columns(table.columns, COLUMNS, f"Design2Code source {str(source)!r}")
        logger.warning("the parquet release of Design2Code has no page ids; numbering rows 0..N-1 in file order")
        return ((str(i), row["text"], row["image"]) for i, row in enumerate(table.iter_rows(COLUMNS)))
    if not _HUB_NAME.match(str(source)):
        raise FileNotFoundError(
            f"Design2Code source {str(source)!r} is neither an existing path nor a hub name like {HUB_ID!r}"
        )
    from datasets import load_dataset

    ds = load_dataset(str(source), split="train")
    check_columns(ds.column_names, COLUMNS, f"hub dataset {str(source)!r}")
    logger.warning("the hub release of Design2Code has no page ids; numbering rows 0..N-1")
    return ((str(i), row["text"], row["image"]) for i, row in enumerate(ds))


def sample_key(sample_id: str) -> tuple:
    """Sort key of a sample id as Design2Code numbers them: digit runs as numbers (2 before 10), the rest as text."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", sample_id) if p)


def list_samples(folder: str | os.PathLike, *, suffix: str = ".html") -> list[str]:
    """Sample ids of a Design2Code-layout folder: the stems of its ``<id><suffix>`` files, in :func:`sample_key` order.

    Args:
        folder: a testset (``vcoder data design2code``), a predictions folder or the folder release.
        suffix: ``.html`` (pages: references or predictions) or ``.png`` (screenshots; the ``<id>_marker.png``
            files of the benchmark's release are not samples).

    Returns:
        The ids, e.g. ``["1", "2", "10"]``.

    Raises:
        FileNotFoundError: ``folder`` is not a folder, or holds no ``<id><suffix>`` file.
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(
            f"testset {str(root)!r} is not a folder of <id>{suffix} files; make one with `vcoder data design2code`"
        )
    ids = [p.stem for p in root.glob(f"*{suffix}") if p.is_file() and not p.stem.endswith("_marker")]
    if not ids:
        raise FileNotFoundError(f"testset {str(root)!r} holds no <id>{suffix} files; is it the right folder?")
    return sorted(ids, key=sample_key)


def _folder_pairs(folder: Path) -> Iterator[tuple[str, str, Any]]:
    ids = list_samples(folder)
    missing = [f"{i}.html" for i in ids if not (folder / f"{i}.png").exists()]
    if missing:
        raise FileNotFoundError(
            f"{len(missing)} page(s) in {str(folder)!r} have no screenshot (e.g. {missing[:3]}); "
            "each <id>.html needs an <id>.png beside it"
        )
    return (
        (i, (folder / f"{i}.html").read_text(encoding="utf-8", errors="replace"), folder / f"{i}.png") for i in ids
    )


def load_design2code(
    source: str | Path = HUB_ID,
    *,
    max_samples: int | None = None,
    max_pixels: int | None = DEFAULT_MAX_PIXELS,
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
    user_prompt: str = DEFAULT_USER_PROMPT,
) -> Iterator[dict[str, Any]]:
    """Rows ``{"prompt", "image", "html", "id"}`` from a Design2Code release (see :func:`iter_pairs`).

    Args:
        source: folder release, parquet file/folder, or hub name (default ``SALT-NLP/Design2Code-hf``).
        max_samples: the first N pages in id order (a benchmark is scored whole; this is for smoke runs).
        max_pixels: screenshots are downscaled to at most this many pixels, keeping aspect (``None``: unchanged).
        system_prompt, user_prompt: the prompt in every row.

    Returns:
        A lazy iterator of rows.
    """
    kwargs = {"max_pixels": max_pixels, "system_prompt": system_prompt, "user_prompt": user_prompt}
    rows = (make_row(i, html, image, **kwargs) for i, html, image in iter_pairs(source))
    return limit(rows, max_samples)


def placeholder_image(width: int = 256, height: int = 256):
    """A deterministic neutral placeholder for ``rick.jpg`` when a release does not ship one."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (width, height), (190, 190, 190))
    draw = ImageDraw.Draw(img)
    draw.rectangle([width // 4, height // 4, 3 * width // 4, 3 * height // 4], fill=(150, 150, 150))
    return img


def _write_png(image: Any, dest: Path) -> None:
    if isinstance(image, (Path, str)) and str(image).lower().endswith(".png"):
        shutil.copyfile(image, dest)
        return
    if isinstance(image, dict) and image.get("bytes"):
        image = image["bytes"]
    dest.write_bytes(to_png(image))


def export_testset(source: str | Path, out_dir: str | Path, *, max_samples: int | None = None) -> list[str]:
    """Write a Design2Code test set folder: ``<id>.html``, ``<id>.png`` and ``rick.jpg``.

    The source is never modified. ``rick.jpg`` is copied from a folder release that has it; otherwise a
    placeholder is generated (rendering serves a placeholder for it anyway; the file keeps the layout complete).

    Args:
        source: folder release, parquet file/folder, or hub name.
        out_dir: destination folder (created); must not be the source folder.
        max_samples: export only the first N pages in id order.

    Returns:
        The ids written, in order.
    """
    out = Path(out_dir)
    src = Path(source)
    if src.exists() and src.is_dir() and src.resolve() == out.resolve():
        raise ValueError(
            f"--out {str(out)!r} is the source folder; choose another folder (sources are never modified)"
        )
    out.mkdir(parents=True, exist_ok=True)
    ids = []
    for page_id, html, image in limit(iter_pairs(source), max_samples):
        (out / f"{page_id}.html").write_text(html, encoding="utf-8")
        _write_png(image, out / f"{page_id}.png")
        ids.append(page_id)
    rick = src / PLACEHOLDER_NAME if src.is_dir() else None
    if rick is not None and rick.exists():
        shutil.copyfile(rick, out / PLACEHOLDER_NAME)
    else:
        placeholder_image().save(out / PLACEHOLDER_NAME, format="JPEG", quality=90)
    logger.info("exported %d Design2Code pages to %s", len(ids), out)
    return ids
