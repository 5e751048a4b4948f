"""A literal, slow, independent implementation of the official Design2Code visual scores (test oracle only).

Written from the published definitions (Si et al., 2024, arXiv 2403.03163, and the behaviour of the benchmark's
``metrics/visual_score.py`` / ``metrics/ocr_free_utils.py``), not from vcoder's code, so that comparing the two
checks vcoder's fast path against the benchmark:

- text blocks come from rendered PIXELS: the page is rendered twice with every text-tag element recoloured to a
  unique colour (second copy shifted by +50 per channel) and all backgrounds transparent; pixels whose colour moved
  by +50 are text pixels; a text node's block is the tight box of the text pixels of its colour, normalised by the
  screenshot size, its colour the mean (floored) of the ORIGINAL screenshot at those pixels, its text lower-cased;
  blocks with identical boxes are merged;
- matching is the official unbounded greedy merge search (full Hungarian re-solve for every candidate merge, on
  both sides, until nothing improves by more than 0.05), then a final assignment with a 0.1 context bonus
  (window 1), dropping pairs below 0.5 text similarity;
- colour similarity is CIEDE2000 on Lab computed the way ``colormath`` does (sRGB, D65, Bradford-adapted to D50).

Rendering goes through any callable ``render(html) -> RGB uint8 array`` (the tests pass vcoder's pool with the
Design2Code viewport, full page, base_dir = the page folder); everything else is here.
"""

from __future__ import annotations

import copy
import functools
from collections import Counter
from collections.abc import Callable
from difflib import SequenceMatcher

import numpy as np
from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from scipy.optimize import linear_sum_assignment

TEXT_TAGS = "p h1 h2 h3 h4 h5 h6 div span a b li table td th button footer header figcaption".split()


# ---- text blocks from pixels ----------------------------------------------------------------------------------
def _colour_pool(offset: int) -> list[str]:
    values = range(10, 251, 16)
    return [
        f"#{(r + offset) % 256:02X}{(g + offset) % 256:02X}{(b + offset) % 256:02X}"
        for r in values
        for g in values
        for b in values
    ]


def _set_style(el: Tag, prop: str, value: str) -> None:
    kept = [s for s in el.attrs.get("style", "").split(";") if s.strip() and not s.strip().startswith(prop)]
    kept.append(f"{prop}: {value} !important")
    el["style"] = "; ".join(kept).strip()


def colour_coded(html: str, offset: int) -> str:
    """The page with transparent backgrounds and one unique text colour per text-tag element (pool popped from the end)."""
    soup = BeautifulSoup(html, "html.parser")
    for el in soup.find_all(True):
        _set_style(el, "background-color", "rgba(255, 255, 255, 0.0)")
    pool = _colour_pool(offset)
    for el in soup.find_all(TEXT_TAGS):
        _set_style(el, "color", pool.pop())
        _set_style(el, "opacity", "1.0")
    return str(soup)


def _inline_colour(tag: Tag) -> str | None:
    decls = [s for s in tag.attrs.get("style", "").split(";") if "color" in s and "background-color" not in s]
    if not decls:
        return None
    value = decls[-1].split(":")[1].strip().replace(" !important", "")
    return value if value.startswith("#") else None  # named/rgb() colours never match a coded text colour


def text_items(coded_html: str) -> list[tuple[str, str]]:
    """(text, colour) per non-empty text node under <body>, colour inherited from the nearest inline ``color``."""
    soup = BeautifulSoup(coded_html, "html.parser")
    items: list[tuple[str, str]] = []

    def walk(node, colour: str) -> None:
        if isinstance(node, Comment):
            return
        if isinstance(node, NavigableString):
            if node.strip():
                items.append((node.strip(), colour))
            return
        own = _inline_colour(node) or colour
        for child in node.children:
            walk(child, own)

    if soup.body is not None:
        walk(soup.body, "#000000")
    return items


def pixel_blocks(html: str, render: Callable[[str], np.ndarray]) -> list[dict]:
    """Official-style text blocks of a page: [{'text', 'bbox' (normalised x, y, w, h), 'color' (r, g, b)}]."""
    original = render(html)
    coded = colour_coded(html, 0)
    img1 = render(coded).astype(np.int64)
    img2 = render(colour_coded(html, 50)).astype(np.int64)
    if img1.shape != img2.shape:
        return []
    text_pixels = np.all(np.abs((img1 + 50) % 256 - img2) <= 8, axis=2)
    if not text_pixels.any():
        return []
    height, width = img1.shape[:2]
    blocks = []
    for text, colour in text_items(coded):
        rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
        mask = np.all(np.abs(img1 - rgb) <= 4, axis=2) & text_pixels
        ys, xs = np.nonzero(mask)
        if ys.size == 0:
            continue
        y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
        if original.shape[:2] != (height, width):
            return []
        mean = original[ys, xs].astype(np.float64).mean(axis=0).astype(int)
        bbox = (x0 / width, y0 / height, (x1 - x0 + 1) / width, (y1 - y0 + 1) / height)
        blocks.append({"text": text.lower(), "bbox": bbox, "color": tuple(int(c) for c in mean)})
    return blocks


def merge_by_bbox(blocks: list[dict]) -> list[dict]:
    merged: dict[tuple, dict] = {}
    for b in blocks:
        key = tuple(b["bbox"])
        if key in merged:
            merged[key]["text"] += " " + b["text"]
            merged[key]["color"] = [(a + c) / 2 for a, c in zip(merged[key]["color"], b["color"])]
        else:
            merged[key] = dict(b)
    return list(merged.values())


# ---- matching (official greedy merge search, unbounded) --------------------------------------------------------
@functools.cache
def _ratio(a: str, b: str) -> float:  # memoised only for speed: the value is the plain difflib ratio
    return SequenceMatcher(None, a, b).ratio()


def _sim(a: dict, b: dict) -> float:
    return _ratio(a["text"], b["text"])


def _cost(A: list[dict], B: list[dict]) -> np.ndarray:
    return np.array([[-_sim(a, b) for b in B] for a in A], dtype=np.float64).reshape(len(A), len(B))


def _context(cost: np.ndarray, bonus: float, window: int) -> np.ndarray:
    n, m = cost.shape
    out = cost.copy()
    for i in range(n):
        for j in range(m):
            if out[i, j] >= -0.5:
                continue
            near = cost[max(0, i - window) : i + window + 1, max(0, j - window) : j + window + 1].flatten()
            near = np.sort(near)[::-1]
            near = np.delete(near, np.where(near == cost[i, j])[0][0])
            out[i, j] += bonus * near[-window * 2 :].sum()
    return out


def _match(A, B, bonus, window):
    cost = _context(_cost(A, B), bonus, window)
    rows, cols = linear_sum_assignment(cost)
    return list(zip(rows, cols)), cost[rows, cols].tolist()


def _merge_two(a: dict, b: dict) -> dict:
    x0, y0 = min(a["bbox"][0], b["bbox"][0]), min(a["bbox"][1], b["bbox"][1])
    x1 = max(a["bbox"][0] + a["bbox"][2], b["bbox"][0] + b["bbox"][2])
    y1 = max(a["bbox"][1] + a["bbox"][3], b["bbox"][1] + b["bbox"][3])
    colour = tuple(int(c1 + c2) // 2 for c1, c2 in zip(a["color"], b["color"]))
    return {"text": a["text"] + " " + b["text"], "bbox": (x0, y0, x1 - x0, y1 - y0), "color": colour}


def _improvement(current: list[float], updated: list[float]) -> float:
    c1, c2 = Counter(current), Counter(updated)
    for v in set(current) & set(updated):
        common = min(c1[v], c2[v])
        c1[v] -= common
        c2[v] -= common
    u1, u2 = list(c1.elements()), list(c2.elements())
    m1 = sum(u1) / len(u1) if u1 else 0
    m2 = sum(u2) / len(u2) if u2 else 0
    if m1 - m2 > 0:
        return m1 - m2 if min(u1) > min(u2) else 0.0
    return m1 - m2


def _apply_merges(blocks: list[dict], merges: list[list]) -> list[dict]:
    popped = []
    while merges:
        i, j = merges[0][0], merges[0][1]
        blocks[i] = _merge_two(blocks[i], blocks[j])
        popped.append(j)
        merges = [m for m in merges[1:] if m[0] not in (i, j) and m[1] not in (i, j)]
    for k in sorted(popped, reverse=True):
        if k < len(blocks):
            blocks.pop(k)
    return blocks


def merge_search(A: list[dict], B: list[dict]) -> tuple[list[dict], list[dict], list[tuple[int, int]]]:
    while True:
        changed = False
        _, current = _match(A, B, 0.0, 1)
        for side in ("A", "B"):
            blocks = A if side == "A" else B
            if len(blocks) < 2:
                continue
            merges = []
            for i in range(len(blocks) - 1):
                trial = copy.deepcopy(blocks)
                trial[i] = _merge_two(trial[i], trial[i + 1])
                trial.pop(i + 1)
                _, updated = _match(trial, B, 0.0, 1) if side == "A" else _match(A, trial, 0.0, 1)
                diff = _improvement(current, updated)
                if diff > 0.05:
                    merges.append([i, i + 1, diff])
            merges.sort(key=lambda m: m[2], reverse=True)
            if merges:
                changed = True
                blocks = _apply_merges(blocks, merges)
                if side == "A":
                    A = blocks
                else:
                    B = blocks
                _, current = _match(A, B, 0.0, 1)
        if not changed:
            break
    matching, _ = _match(A, B, 0.1, 1)
    return A, B, matching


# ---- colour: colormath-style Lab (D50 via Bradford) and CIEDE2000 ----------------------------------------------
_SRGB_TO_XYZ = np.array(
    [[0.412456, 0.357576, 0.180438], [0.212673, 0.715152, 0.072175], [0.019334, 0.119192, 0.950304]]
)
_BRADFORD = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])
_D65 = np.array([0.95047, 1.0, 1.08883])
_D50 = np.array([0.96422, 1.0, 0.82521])


def _lab(rgb) -> np.ndarray:
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = _SRGB_TO_XYZ @ lin
    cone_src, cone_dst = _BRADFORD @ _D65, _BRADFORD @ _D50
    xyz = np.linalg.inv(_BRADFORD) @ np.diag(cone_dst / cone_src) @ _BRADFORD @ xyz
    t = xyz / _D50
    f = np.where(t > 216 / 24389, np.cbrt(t), (24389 / 27 * t + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1, lab2) -> float:
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    cbar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(cbar**7 / (cbar**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, c2p - c1p
    dh = h2p - h1p
    if c1p * c2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    dHp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    Lbar, Cbar = (L1 + L2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbar = (h1p + h2p) / 2
    else:
        hbar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = 1 - 0.17 * np.cos(np.radians(hbar - 30)) + 0.24 * np.cos(np.radians(2 * hbar))
    t += 0.32 * np.cos(np.radians(3 * hbar + 6)) - 0.20 * np.cos(np.radians(4 * hbar - 63))
    sl = 1 + 0.015 * (Lbar - 50) ** 2 / np.sqrt(20 + (Lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * Cbar, 1 + 0.015 * Cbar * t
    rt = -2 * np.sqrt(Cbar**7 / (Cbar**7 + 25.0**7)) * np.sin(np.radians(60 * np.exp(-(((hbar - 275) / 25) ** 2))))
    return float(np.sqrt((dLp / sl) ** 2 + (dCp / sc) ** 2 + (dHp / sh) ** 2 + rt * (dCp / sc) * (dHp / sh)))


def colour_similarity(rgb1, rgb2) -> float:
    return max(0.0, 1 - ciede2000(_lab(rgb1), _lab(rgb2)) / 100)


# ---- scores ------------------------------------------------------------------------------------------------------
def scores_from_blocks(pred_blocks: list[dict], ref_blocks: list[dict]) -> dict[str, float]:
    """Block-Match, Text, Position, Colour of prediction blocks against reference blocks (official aggregation)."""
    zero = {"block_match": 0.0, "text": 0.0, "position": 0.0, "color": 0.0}
    if not pred_blocks or not ref_blocks:
        return zero
    A, B, matching = merge_search(merge_by_bbox(pred_blocks), merge_by_bbox(ref_blocks))
    kept = [(i, j, _sim(A[i], B[j])) for i, j in matching]
    kept = [(i, j, s) for i, j, s in kept if s >= 0.5]
    if not kept:
        return zero
    area = lambda b: b["bbox"][2] * b["bbox"][3]  # noqa: E731
    matched_i, matched_j = {i for i, _, _ in kept}, {j for _, j, _ in kept}
    unmatched = sum(area(a) for k, a in enumerate(A) if k not in matched_i)
    unmatched += sum(area(b) for k, b in enumerate(B) if k not in matched_j)
    matched = [area(A[i]) + area(B[j]) for i, j, _ in kept]
    centre = lambda b: (b["bbox"][0] + b["bbox"][2] / 2, b["bbox"][1] + b["bbox"][3] / 2)  # noqa: E731
    position = []
    for i, j, _ in kept:
        (x1, y1), (x2, y2) = centre(A[i]), centre(B[j])
        position.append(1 - max(abs(x2 - x1), abs(y2 - y1)))
    return {
        "block_match": float(sum(matched) / (sum(matched) + unmatched)),
        "text": float(np.mean([s for _, _, s in kept])),
        "position": float(np.mean(position)),
        "color": float(np.mean([colour_similarity(A[i]["color"], B[j]["color"]) for i, j, _ in kept])),
    }


def reference_scores(ref_html: str, pred_html: str, render: Callable[[str], np.ndarray]) -> dict[str, float]:
    """The four official block scores of a prediction page against a reference page, both rendered by ``render``."""
    return scores_from_blocks(pixel_blocks(pred_html, render), pixel_blocks(ref_html, render))
