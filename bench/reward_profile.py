"""Where the full reward set's time goes: each stage of scoring one completion, in CPU ms per completion.

Used by ``bench/rewards.py`` (the ``profile`` key of its JSON). The stages are run the way the rewards run them
(``vcoder.rewards.features`` on ``Page`` objects: each page's shared work once, a reference's once for all of its
completions), one after the other on already rendered pages, one thread, no overlap with rendering, each stage
after the ones it uses so that its figure is its own cost, measured in CPU time of the process (the helper threads
of OpenCV and torch included; steadier than wall time on a shared machine). A reference's stages are divided among
its completions.
The sum is the CPU time scoring adds to a completion's render; the bench's ``full_set`` time shows what the
overlapped rewards really add to the wall time.
"""

from __future__ import annotations

import time
from collections import defaultdict

STAGES = {
    "decode_png": "the screenshot PNG decoded to an RGB array (once per page)",
    "extract_html": "the HTML found in the completion (fences, think blocks)",
    "format": "format_score on the completion text",
    "validity": "validity_score: the HTML5-aware parse of the completion",
    "dom_parse": "the page's HTML parsed into its Euler tour (once per page)",
    "dom_lcs": "the bit-parallel LCS of the reference's and the page's tours",
    "content": "content_fraction of the screenshot (the evidence gate's coverage; once per page)",
    "ink_mask": "the screenshot's ink mask (once per page: the ink profile and the visibility checks share it)",
    "ink": "ink_profile from the mask: the backing of the page's own layout, the tile counts",
    "ink_evidence": "the evidence gate and ink_layout_similarity of the two profiles (once per pair)",
    "ssim_grey": "the screenshot resized to the SSIM width and made grey (once per page)",
    "ssim": "SSIM of the two grey images (once per pair; ssim and visual share it)",
    "layout_parsing": "the layout's text blocks normalised, sized and merged (prepare_blocks without the screenshot)",
    "visibility_contrast": "what the screenshot adds to the blocks: the visible-ink box and the text colour",
    "block_matching": "match_prepared_blocks: similarities, merge search, assignment, colours; training scores",
    "clip_preprocess": "the page squashed to CLIP's input (as soon as it is rendered)",
    "clip_forward": "the tiny CLIP model's forward, batched over the batch's pages, per completion",
}


class _Clock:
    def __init__(self) -> None:
        self.ms: dict[str, float] = defaultdict(float)

    def __call__(self, name: str, fn, *args, share: float = 1.0, **kwargs):
        start = time.process_time()
        value = fn(*args, **kwargs)
        self.ms[name] += (time.process_time() - start) * 1000.0 * share
        return value


def profile_batch(refs: list, completions: list[str], renders: dict, settings) -> dict:
    """Per-completion stage costs (ms) of a batch whose pages are rendered already.

    Args:
        refs: the reference HTML of each completion.
        completions: the completion texts.
        renders: ``Rendered`` results keyed by HTML (every reference and every extracted completion).
        settings: the rewards' ``RewardSettings`` (the SSIM width, the format style, CLIP).

    Returns:
        ``{"ms_per_completion": {stage: ms}, "total_ms": ..., "stages": {stage: what it times}}``.
    """
    from vcoder.metrics import extract_html, format_score, tour_similarity, validity_score
    from vcoder.metrics._blocks import prepare_blocks
    from vcoder.rewards import features as f
    from vcoder.rewards.context import Page

    clock = _Clock()
    width = settings.ssim_width

    def page_stages(page: Page, share: float, *, backed: bool) -> None:
        clock("decode_png", lambda: page.image, share=share)
        clock("dom_parse", f.dom_tour, page, share=share)
        clock("content", f.content, page, share=share)
        clock("ink_mask", f.ink_mask, page, share=share)
        clock("ink", f.ink, page, backed=backed, share=share)
        clock("ssim_grey", f.grey, page, width, share=share)
        clock("layout_parsing", prepare_blocks, page.layout, None, share=share)
        clock("visibility_contrast", f.blocks, page, share=share)
        clock("clip_preprocess", f.clip_square, page, settings, share=share)

    ref_pages = {}
    for ref in sorted(set(refs)):
        ref_pages[ref] = page = Page(rendered=renders[ref], key=f"ref:{ref}", source=ref)
        page_stages(page, 1.0 / refs.count(ref), backed=False)
    pages = []
    for ref, text in zip(refs, completions):
        clock("format", format_score, text, style=settings.format_style)
        html = clock("extract_html", extract_html, text)
        clock("validity", validity_score, html)
        page = Page(rendered=renders[html], key=html, source=html)
        pages.append(page)
        page_stages(page, 1.0, backed=True)
        ref_page = ref_pages[ref]
        clock("dom_lcs", tour_similarity, f.dom_tour(ref_page), f.dom_tour(page))
        clock("ink_evidence", f.evidence_gate, ref_page, page, settings)
        clock("ink_evidence", f.ink_score, ref_page, page, settings)
        clock("ssim", f.ssim_value, ref_page, page, settings)
        clock("block_matching", f.block_scores, ref_page, page)
    clock("clip_forward", f.prepare_clip, pages + list(ref_pages.values()), settings)
    ms = clock.ms
    ms["visibility_contrast"] -= ms["layout_parsing"]  # the blocks' preparation includes the layout parsing
    n = len(completions)
    per = {name: round(ms[name] / n, 3) for name in STAGES}
    return {"ms_per_completion": per, "total_ms": round(sum(per.values()), 2), "stages": STAGES}
