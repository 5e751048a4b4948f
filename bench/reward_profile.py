"""Where the full reward set's time goes: each stage of scoring one completion, timed alone, in ms per completion.

Used by ``bench/rewards.py`` (the ``profile`` key of its JSON). The stages are the pure functions the rewards call,
run one after the other on already rendered pages (one thread, no overlap, nothing memoised between stages), so
each figure is the CPU cost of that stage for one completion; a reference's stages are divided by its G
completions, as the reward context pays them once per reference. The sum is what scoring costs a completion on one
core when nothing is shared; the bench's ``full_set`` time shows what the overlapped, memoised rewards really pay.
"""

from __future__ import annotations

import time
from collections import defaultdict

STAGES = {
    "decode_png": "the screenshot PNG decoded to an RGB array (rendered.image)",
    "extract_html": "the HTML found in the completion (fences, think blocks)",
    "format": "format_score on the completion text",
    "validity": "validity_score: the HTML5-aware parse of the completion",
    "dom_parse": "the completion's and the reference's HTML parsed into Euler tours (dom_tokens)",
    "dom_lcs": "the bit-parallel LCS of the two tours",
    "content": "content_fraction of the screenshot (the evidence gate's coverage)",
    "ink": "ink_profile: the ink mask, the backing of the page's own layout, the tile counts",
    "ink_evidence": "ink_evidence and ink_layout_similarity of the two profiles",
    "ssim": "ssim at the configured width: resize, grey, structural_similarity",
    "layout_parsing": "prepare_blocks without the screenshot: text normalised, glyph sizes, boxes merged",
    "visibility_contrast": "what the screenshot adds to prepare_blocks: the visible-ink box and the text colour",
    "block_matching": "match_blocks after block preparation: similarities, merge search, assignment, colours",
    "clip_preprocess": "the page squashed and normalised to CLIP's input",
    "clip_forward": "the tiny CLIP model's forward pass (batched over the whole batch, divided per page)",
}


def _timed(out: dict[str, float], name: str, fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    out[name] += (time.perf_counter() - start) * 1000.0
    return value


def profile_batch(refs: list, completions: list[str], renders: dict, settings, embedder) -> dict:
    """Per-completion stage costs (ms) of a batch whose pages are rendered already.

    Args:
        refs: the reference HTML of each completion.
        completions: the completion texts.
        renders: ``Rendered`` results keyed by HTML (every reference and every extracted completion).
        settings: the rewards' ``RewardSettings`` (the SSIM width, the format style).
        embedder: the CLIP embedder the rewards use.

    Returns:
        ``{"ms_per_completion": {stage: ms}, "total_ms": ..., "stages": {stage: what it times}}``.
    """
    from vcoder.images import decode_png
    from vcoder.metrics import (
        content_fraction,
        extract_html,
        format_score,
        ink_evidence,
        ink_layout_similarity,
        ink_profile,
        lcs_length,
        match_blocks,
        ssim,
        validity_score,
    )
    from vcoder.metrics._blocks import prepare_blocks
    from vcoder.metrics.dom import dom_tokens

    t: dict[str, float] = defaultdict(float)
    n = len(completions)
    ref_data = {}
    for ref in sorted(set(refs)):
        share: dict[str, float] = defaultdict(float)
        rendered = renders[ref]
        image = _timed(share, "decode_png", decode_png, rendered.png)
        tokens = _timed(share, "dom_parse", dom_tokens, ref)
        _timed(share, "content", content_fraction, image[::3, ::3])
        profile = _timed(share, "ink", ink_profile, image, None)
        _timed(share, "layout_parsing", prepare_blocks, rendered.layout, None)
        _timed(share, "visibility_contrast", prepare_blocks, rendered.layout, image)
        _timed(share, "clip_preprocess", embedder.preprocess, [image])
        group = refs.count(ref)
        for name, ms in share.items():
            t[name] += ms / group
        ref_data[ref] = (rendered, image, profile, tokens, share["visibility_contrast"])
    images, page_preprocess_ms = [], 0.0
    for ref, text in zip(refs, completions):
        rendered_ref, ref_image, ref_profile, ref_tokens, ref_prepare_ms = ref_data[ref]
        _timed(t, "format", format_score, text, style=settings.format_style)
        html = _timed(t, "extract_html", extract_html, text)
        _timed(t, "validity", validity_score, html)
        rendered = renders[html]
        image = _timed(t, "decode_png", decode_png, rendered.png)
        images.append(image)
        tokens = _timed(t, "dom_parse", dom_tokens, html)
        _timed(t, "dom_lcs", lcs_length, ref_tokens, tokens)
        _timed(t, "content", content_fraction, image[::3, ::3])
        profile = _timed(t, "ink", ink_profile, image, rendered.layout)
        _timed(t, "ink_evidence", ink_evidence, ref_profile, profile)
        _timed(t, "ink_evidence", ink_layout_similarity, ref_profile, profile)
        _timed(t, "ssim", ssim, ref_image, image, width=settings.ssim_width)
        _timed(t, "layout_parsing", prepare_blocks, rendered.layout, None)
        prepare_ms = -t["visibility_contrast"]
        _timed(t, "visibility_contrast", prepare_blocks, rendered.layout, image)
        prepare_ms += t["visibility_contrast"]
        start = time.perf_counter()
        match_blocks(rendered_ref.layout, rendered.layout, ref_image=ref_image, pred_image=image)
        # match_blocks prepares both pages' blocks itself: the rest of its time is the matching
        t["block_matching"] += (time.perf_counter() - start) * 1000.0 - prepare_ms - ref_prepare_ms
        page_preprocess_ms -= t["clip_preprocess"]
        _timed(t, "clip_preprocess", embedder.preprocess, [image])
        page_preprocess_ms += t["clip_preprocess"]
    start = time.perf_counter()
    embedder.embed(images)
    # embed squashes the pages itself: the forward is what is left once their preprocessing is taken out
    t["clip_forward"] += (time.perf_counter() - start) * 1000.0 - page_preprocess_ms
    # prepare_blocks with the screenshot does all that it does without it, plus the visibility checks
    t["visibility_contrast"] -= t["layout_parsing"]
    per = {name: round(t[name] / n, 3) for name in STAGES}
    return {"ms_per_completion": per, "total_ms": round(sum(per.values()), 2), "stages": STAGES}
