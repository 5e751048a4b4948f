"""How tall, and how much hidden text, honest imperfect pages have against their references (issue 34, deliverable 6).

The imitation factor (``vcoder.rewards.features.imitation_factor``) lets a page be up to ``MAX_STRETCH`` times as tall
as its reference, and hide ``HIDDEN_TOLERANCE`` more of its written text than the reference hides, before it pays.
This measures both axes exactly as the factor does (the screenshots' ``vcoder.metrics.height_ratio``; the pages'
``features.hidden_text`` minus the reference's), rendered full-page through vcoder's pool (real Chromium):

- honest pages: the references vcoder generates or ships (synthetic pages of difficulty 0-3, the 21 site kinds'
  reference solutions, the Design2Code-style pairs of ``tests/eval/pages``, the six reference shapes of the gaming
  tests) against honest variants of them (``tests/rewards/honest.py``: fonts, sizes, spacing, line height, a
  narrower column, reworded text, a section missing or added, another layout, placeholder sizes, colours, and
  combinations), plus the honest attempts that ship beside them (the gaming tests' ``honest``, ``nudged`` and
  ``delete_half``, a site kind in its other style, the Design2Code-style predictions but ``hidden_text``);
- gaming pages: every imitation of ``tests/rewards/gaming.py`` on the six shapes, and ``hidden_text.pred.html``.

    python -m tests.rewards.free_zone [--small] [--seeds 8] [--out free_zone.json] [--rows rows.jsonl]
    python -m tests.rewards.free_zone --from-rows rows.jsonl   # the report again, no rendering

Prints one JSON document: the quantiles of each axis for honest and gaming pages (honest ones also by family, and the
largest values by transform), the share of each set the factor charges with the constants in ``features.py`` now and
with the ones before (``BEFORE``), the honest pages it charges, and each gaming page's ``[height_ratio,
hidden_excess, charged]``. The measured rows of the last full run are ``experiments/results/free_zone_rows.jsonl``.
It lives with the tests (it measures the rewards' internals; ``test_free_zone.py`` runs it small); it was
``experiments/free_zone.py``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUANTILES = (0.5, 0.9, 0.95, 0.99, 1.0)
#: honest attempts the project ships beside its gaming pages (the rest of ``variants`` are imitations)
SHIPPED_HONEST = ("honest", "nudged", "delete_half")
#: the free zone before this measurement (set from the gaming pages): MAX_STRETCH, HIDDEN_TOLERANCE
BEFORE = (1.5, 0.05)


def references(small: bool, seeds: int) -> list[dict]:
    """``{"family", "name", "html", "width", "height", "shipped": {name: honest page}}`` for every reference."""
    from tests.rewards.gaming import all_shapes, variants
    from vcoder.data.site_kinds import KINDS, make_site
    from vcoder.data.synthetic import generate_page

    refs = []
    for difficulty in (1,) if small else (0, 1, 2, 3):
        for seed in range(1 if small else seeds):
            page = generate_page(seed, difficulty=difficulty)
            size = (page.meta["width"], page.meta["height"])  # difficulty 0 renders at 320x240, as its recipes do
            refs.append(_ref("synthetic", page.id, page.html, size))
    for kind in KINDS[:1] if small else KINDS:
        site = make_site(kind, 0)
        refs.append(
            _ref("site_kind", kind, site["html"], shipped={"accent": make_site(kind, 0, style="accent")["html"]})
        )
    if not small:
        for ref in sorted((ROOT / "tests/eval/pages").glob("*.ref.html")):
            stem = ref.name.removesuffix(".ref.html")
            pred = ref.with_name(f"{stem}.pred.html")
            shipped = {} if stem == "hidden_text" else {"pred": pred.read_text()}
            refs.append(_ref("d2c_pages", stem, ref.read_text(), shipped=shipped))
    for shape in list(all_shapes())[: 1 if small else None]:
        pages = variants(shape)
        refs.append(_ref("gaming_shape", shape, pages["reference"], shipped={n: pages[n] for n in SHIPPED_HONEST}))
    return refs


def _ref(family, name, html, size=(1280, 720), shipped=None) -> dict:
    return {
        "family": family,
        "name": name,
        "html": html,
        "width": size[0],
        "height": size[1],
        "shipped": shipped or {},
    }


def gaming_pages(small: bool) -> list[tuple[str, str, dict[str, str]]]:
    """``(shape, reference, {name: page})``: the gaming tests' imitations of each shape (and the hidden-text pair)."""
    from tests.rewards.gaming import all_shapes, render_variants, variants
    from vcoder.rendering import get_default_pool

    out = []
    for shape in list(all_shapes())[: 1 if small else None]:
        pages = variants(shape)
        reference = pages.pop("reference")
        rendered = get_default_pool().render(reference, full_page=True, timeout_ms=15000)
        pages.update(render_variants(shape, rendered.layout, rendered.image))
        out.append((shape, reference, {n: p for n, p in pages.items() if n not in SHIPPED_HONEST}))
    if not small:
        pages = ROOT / "tests/eval/pages"
        pred = (pages / "hidden_text.pred.html").read_text()
        out.append(("d2c_pages", (pages / "hidden_text.ref.html").read_text(), {"hidden_text": pred}))
    return out


def measure(reference: str, pages: list[str], *, width: int = 1280, height: int = 720) -> list[dict]:
    """``{"height_ratio", "hidden_excess", "factor"}`` of each page against ``reference``, as the rewards see them."""
    from vcoder.metrics import height_ratio
    from vcoder.rendering import get_default_pool
    from vcoder.rewards.context import Page
    from vcoder.rewards.features import hidden_text, imitation_factor

    renders = get_default_pool().render_many(
        [reference, *pages], width=width, height=height, full_page=True, timeout_ms=15000
    )
    ref_render, *page_renders = renders
    if not ref_render.ok:
        raise RuntimeError(f"the reference did not render: {ref_render.error}")
    ref = Page(rendered=ref_render, key="ref", source=reference)
    out = []
    for k, (html, rendered) in enumerate(zip(pages, page_renders)):
        if not rendered.ok:
            out.append(None)
            continue
        page = Page(rendered=rendered, key=f"page{k}", source=html)
        out.append(
            {
                "height_ratio": height_ratio(ref.image.shape, page.image.shape),
                "hidden_excess": hidden_text(page) - hidden_text(ref),
                "factor": imitation_factor(ref, page),
            }
        )
    return out


def quantiles(values: list[float]) -> dict[str, float]:
    import numpy as np

    arr = np.asarray(values, dtype=np.float64)
    return {f"q{round(q * 100)}": round(float(np.quantile(arr, q)), 4) for q in QUANTILES} | {"n": len(values)}


def summary(rows: list[dict], zone: tuple[float, float]) -> dict:
    """Quantiles of both axes over ``rows``, and the shares the factor charges with ``zone`` and ``BEFORE``."""
    return {
        "n": len(rows),
        "height_ratio": quantiles([r["height_ratio"] for r in rows]),
        "hidden_excess": quantiles([r["hidden_excess"] for r in rows]),
        "penalised": round(sum(_outside(r, *zone) for r in rows) / max(1, len(rows)), 4),
        "penalised_before": round(sum(_outside(r, *BEFORE) for r in rows) / max(1, len(rows)), 4),
    }


def _outside(row: dict, max_stretch: float, tolerance: float) -> bool:
    """Whether the factor charges ``row`` with these constants (it is exactly 1 inside both, below 1 outside)."""
    return row["height_ratio"] > max_stretch or row["hidden_excess"] > tolerance


def measure_all(small: bool = False, seeds: int = 8, combos: int = 4) -> list[dict]:
    """Every honest and gaming page measured: ``{"set", "page", "transform" (honest), "height_ratio",
    "hidden_excess"}``."""
    from tests.rewards.honest import honest_variants

    rows: list[dict] = []
    for k, ref in enumerate(references(small, seeds)):
        pages = {**honest_variants(ref["html"], k, combos=1 if small else combos), **ref["shipped"]}
        for (name, _), value in zip(pages.items(), measure(ref["html"], list(pages.values()), **_size(ref))):
            if value is not None:
                transform = f"shipped:{name}" if name in ref["shipped"] else name
                page = f"{ref['family']}/{ref['name']}/{name}"
                rows.append({"set": "honest", "page": page, "transform": transform, **_axes(value)})
    for shape, reference, pages in gaming_pages(small):
        for name, value in zip(pages, measure(reference, list(pages.values()))):
            if value is not None:
                rows.append({"set": "gaming", "page": f"{shape}/{name}", **_axes(value)})
    return rows


def _axes(value: dict) -> dict:
    return {"height_ratio": value["height_ratio"], "hidden_excess": value["hidden_excess"]}


def report(rows: list[dict]) -> dict:
    """The report of measured ``rows`` against the constants of ``features.py`` now (see the module docstring)."""
    from vcoder.rewards import features

    zone = (features.MAX_STRETCH, features.HIDDEN_TOLERANCE)
    honest = [r for r in rows if r["set"] == "honest"]
    gaming = [r for r in rows if r["set"] == "gaming"]
    by_transform: dict[str, dict] = {}
    for row in honest:
        for t in row["transform"].split("+"):
            entry = by_transform.setdefault(t, {"n": 0, "max_height_ratio": 0.0, "max_hidden_excess": -1.0})
            entry["n"] += 1
            entry["max_height_ratio"] = round(max(entry["max_height_ratio"], row["height_ratio"]), 4)
            entry["max_hidden_excess"] = round(max(entry["max_hidden_excess"], row["hidden_excess"]), 4)
    families = sorted({r["page"].split("/")[0] for r in honest})
    return {
        "thresholds": {"max_stretch": zone[0], "hidden_tolerance": zone[1]},
        "thresholds_before": {"max_stretch": BEFORE[0], "hidden_tolerance": BEFORE[1]},
        "honest": summary(honest, zone),
        "gaming": summary(gaming, zone),
        "honest_by_family": {f: summary([r for r in honest if r["page"].startswith(f + "/")], zone) for f in families},
        "honest_by_transform": by_transform,
        "honest_outside": sorted(
            [r["page"], round(r["height_ratio"], 3), round(r["hidden_excess"], 3)]
            for r in honest
            if _outside(r, *zone)
        ),
        # [height ratio, hidden excess, whether the factor charges it]
        "gaming_pages": {
            r["page"]: [round(r["height_ratio"], 3), round(r["hidden_excess"], 3), _outside(r, *zone)] for r in gaming
        },
    }


def _size(ref: dict) -> dict:
    return {"width": ref["width"], "height": ref["height"]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="one reference of three families, one shape's games")
    parser.add_argument("--seeds", type=int, default=8, help="synthetic pages per difficulty (0-3)")
    parser.add_argument("--combos", type=int, default=4, help="pages of 2-3 transforms together per reference")
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    parser.add_argument("--rows", type=Path, default=None, help="write every measured page here (JSON lines)")
    parser.add_argument("--from-rows", type=Path, default=None, help="report on rows measured before (no rendering)")
    args = parser.parse_args(argv)
    if args.from_rows is not None:
        rows = [json.loads(line) for line in args.from_rows.read_text().splitlines() if line.strip()]
    else:
        rows = measure_all(small=args.small, seeds=args.seeds, combos=args.combos)
    if args.rows is not None:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = json.dumps(report(rows), indent=1)
    if args.out is not None:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
