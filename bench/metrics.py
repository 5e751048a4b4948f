"""Timings of the pure metrics; prints one JSON object (CPU seconds of this process, and wall seconds).

    python bench/metrics.py [--repeat 3] [--small]

``--small`` (the test suite's smoke run): one run each, 50-block pages only; its figures are not comparable.

Pages are synthetic but shaped like real ones: block texts drawn from a 3,000-word vocabulary, predictions with
~20% of blocks edited, shifted or split, so the merge search has work to do.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from vcoder.layout import ElementBox, Layout, TextBlock
from vcoder.metrics import block_scores, dom_similarity, ink_profile, ssim, validity_score
from vcoder.metrics._blocks import prepare_blocks


def _pages(n: int, seed: int = 0) -> tuple[Layout, Layout]:
    rng = random.Random(seed)
    vocab = [f"w{k}{'abcdefgh'[k % 8]}" for k in range(3000)]
    ref, pred = [], []
    for k in range(n):
        text = " ".join(rng.sample(vocab, rng.randint(1, 8)))
        box = (20.0, 14.0 * k, 600.0, 12.0)
        ref.append(TextBlock(text, box, (0, 0, 0), (255, 255, 255), 14.0, 400, "p"))
        r = rng.random()
        if r < 0.07:  # split in two blocks
            words = text.split()
            half = max(1, len(words) // 2)
            pred.append(
                TextBlock(
                    " ".join(words[:half]), (20.0, 14.0 * k, 300.0, 12.0), (0, 0, 0), (255,) * 3, 14.0, 400, "span"
                )
            )
            if words[half:]:
                pred.append(
                    TextBlock(
                        " ".join(words[half:]),
                        (330.0, 14.0 * k, 290.0, 12.0),
                        (0, 0, 0),
                        (255,) * 3,
                        14.0,
                        400,
                        "span",
                    )
                )
        elif r < 0.14:  # edited
            pred.append(TextBlock(text + " " + rng.choice(vocab), box, (30, 30, 30), (255,) * 3, 14.0, 400, "p"))
        elif r < 0.2:  # moved
            pred.append(TextBlock(text, (60.0, 14.0 * k + 40, 600.0, 12.0), (0, 0, 0), (255,) * 3, 14.0, 400, "p"))
        else:
            pred.append(TextBlock(text, box, (0, 0, 0), (255, 255, 255), 14.0, 400, "p"))
    height = int(14 * n + 100)
    return Layout(1280, height, tuple(ref)), Layout(1280, height, tuple(pred))


def _time(fn, repeat: int) -> dict:
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return {"cpu_s": round(min(cpu), 4), "wall_s": round(min(wall), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="smoke run: one run each, 50-block pages only")
    args = parser.parse_args()
    if args.small:
        args.repeat = 1
    block_scores(*_pages(5))  # warm imports (scipy, skimage)
    out = {}
    for n in (50,) if args.small else (50, 100, 500):
        ref, pred = _pages(n)
        entry = _time(lambda ref=ref, pred=pred: block_scores(ref, pred), args.repeat)
        s = block_scores(ref, pred)
        entry["scores"] = [round(v, 4) for v in (s.block_match, s.text, s.position, s.color)]
        out[f"block_scores_{n}_blocks"] = entry
    rng = np.random.default_rng(0)
    a = np.full((3000, 1280, 3), 255, np.uint8)
    a[::40, :, :] = rng.integers(0, 255, (75, 1280, 3))
    b = np.roll(a, 7, axis=0)
    out["ssim_1280x3000"] = _time(lambda: ssim(a, b), args.repeat)
    out["ssim_1280x3000_scale_0.5"] = _time(lambda: ssim(a, b, scale=0.5), args.repeat)
    html = (
        "<!DOCTYPE html><html><head><title>t</title></head><body>"
        + "<div><p>x</p><span>y</span></div>" * 2000
        + "</body></html>"
    )
    ref, _ = _pages(200)
    ink_layout = Layout(1280, 3000, ref.text_blocks, tuple(ElementBox("div", 2, b.bbox) for b in ref.text_blocks))
    out["ink_profile_1280x3000_200_blocks"] = _time(lambda: ink_profile(a, ink_layout), args.repeat)
    out["visible_blocks_1280x3000_200_blocks"] = _time(lambda: prepare_blocks(ink_layout, a), args.repeat)
    out["validity_6k_elements"] = _time(lambda: validity_score(html), args.repeat)
    out["dom_similarity_6k_elements"] = _time(lambda: dom_similarity(html, html.replace("<span>", "<b>")), args.repeat)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
