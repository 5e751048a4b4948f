"""Ink: text visibility, readable size, ink evidence and ink layout on hand-drawn screenshots; training forms."""

from __future__ import annotations

import random

import numpy as np
import pytest

from vcoder.layout import ElementBox, Layout, TextBlock
from vcoder.metrics import block_scores, ink_evidence, ink_layout_similarity, ink_mask, ink_profile, match_blocks
from vcoder.metrics._blocks import prepare_blocks
from vcoder.metrics.ink import glyph_size, visible_ink_box

W, H = 400, 200


def blank(color=(255, 255, 255)) -> np.ndarray:
    return np.full((H, W, 3), color, dtype=np.uint8)


def draw_text(img: np.ndarray, x: int, y: int, n_chars: int, size: int = 16, color=(0, 0, 0)) -> np.ndarray:
    """Glyph-like ink: per character two 2 px vertical strokes of the glyph's height, 0.6 em apart."""
    advance, height = int(0.6 * size), int(0.75 * size)
    for k in range(n_chars):
        x0 = x + k * advance
        img[y : y + height, x0 : x0 + 2] = color
        img[y : y + height, x0 + advance // 2 : x0 + advance // 2 + 2] = color
    return img


def block(text: str, box, size: float = 16.0, tag: str = "p") -> TextBlock:
    return TextBlock(text, box, (0, 0, 0), (255, 255, 255), size, 400, tag)


TEXT = "hello there world"  # 17 characters
BOX = (20.0, 40.0, 17 * 9.6, 19.0)  # one line of 16 px text


def test_ink_mask_marks_both_sides_of_sharp_edges_only():
    img = blank()
    img[:, 100:] = (0, 0, 0)  # one sharp edge
    img[:, 200:300] = np.linspace(0, 255, 100, dtype=np.uint8)[None, :, None]  # a smooth gradient: no ink
    mask = ink_mask(img)
    assert mask[:, 99].all() and mask[:, 100].all()
    assert mask.sum() == 2 * H + 2 * H  # the edge at 100, and the jumps into and out of the gradient
    with pytest.raises(ValueError, match="uint8"):
        ink_mask(np.zeros((4, 4)))


def test_visible_text_gets_its_tight_ink_box():
    img = draw_text(blank(), 20, 42, len(TEXT))
    box = visible_ink_box(img, BOX, len(TEXT), 16.0)
    assert box is not None
    x, y, w, h = box
    assert (x, y, h) == (20.0, 42.0, 12.0)  # the first stroke's first column, the strokes' 12 rows
    assert x + w == 20 + 16 * 9 + 4 + 2 + 1  # the last glyph's second stroke ends at +6, its right edge's pixel +1


@pytest.mark.parametrize(
    "hide",
    [
        "blank",  # transparent text, or text the colour of its background
        "faint",  # opacity 0.05: 13 levels of contrast
        "bar",  # a coloured bar over the box: ink only at its two ends
        "clipped",  # one row of the text shows
        "covered_half",  # covered but for the first 20% of the line
    ],
)
def test_hidden_text_shows_no_ink(hide):
    img = blank()
    if hide == "faint":
        draw_text(img, 20, 42, len(TEXT), color=(242, 242, 242))
    elif hide == "bar":
        img[40:59, 20:183] = (200, 40, 40)
    elif hide == "clipped":
        draw_text(img, 20, 42, len(TEXT))[43:, :] = 255
    elif hide == "covered_half":
        draw_text(img, 20, 42, len(TEXT))[:, 52:] = 255
    assert visible_ink_box(img, BOX, len(TEXT), 16.0) is None


def test_glyph_size_sees_transforms_and_tiny_fonts():
    assert glyph_size(BOX, 17, 16.0) == 16.0  # the CSS size, when the box agrees
    assert glyph_size((0, 0, 8.2, 1.0), 17, 16.0) == pytest.approx(0.89, abs=0.01)  # scale(0.05): box shrinks
    assert glyph_size(BOX, 17, 1.0) == 1.0  # a 1 px font
    assert glyph_size((0, 0, 0, 0), 17, 16.0) == 0.0


def test_prepare_blocks_keeps_visible_readable_text_only():
    img = draw_text(blank(), 20, 42, len(TEXT))
    layout = Layout(
        W,
        H,
        (
            block(TEXT, BOX),
            block("hidden words here", (20.0, 120.0, 163.2, 19.0)),  # nothing drawn there
            block("tiny words", (20.0, 160.0, 6.0, 1.0)),  # scaled to nothing
            block("off the page", (-9999.0, 10.0, 115.2, 19.0)),
        ),
    )
    with_image = prepare_blocks(layout, img)
    assert [b.text for b in with_image] == [TEXT]
    assert with_image[0].box[1] == pytest.approx(42 / H)  # the ink box, normalised
    # without a screenshot visibility cannot be judged: only the size rule applies
    assert [b.text for b in prepare_blocks(layout)] == [TEXT, "hidden words here", "off the page"]


def test_hidden_text_scores_nothing_against_its_visible_self():
    shown = draw_text(blank(), 20, 42, len(TEXT))
    layout = Layout(W, H, (block(TEXT, BOX),))
    assert block_scores(layout, layout, ref_image=shown, pred_image=shown).text == 1.0
    hidden = block_scores(layout, layout, ref_image=shown, pred_image=blank())
    assert (hidden.block_match, hidden.text, hidden.position, hidden.n_pred) == (0.0, 0.0, 0.0, 0)


def _page(texts, *, height=1000, shift=0):
    return Layout(
        1000, height, tuple(block(t, (50.0, 30.0 * k + shift, 9.6 * len(t), 19.0)) for k, t in enumerate(texts))
    )


def test_training_forms_equal_official_on_a_perfect_copy_and_fall_with_deletion():
    rng = random.Random(0)
    words = [f"w{k}x" for k in range(200)]
    texts = [" ".join(rng.sample(words, 4)) for _ in range(12)]
    ref = _page(texts)
    perfect = match_blocks(ref, ref)
    assert perfect.training_scores() == perfect.scores()
    moved = match_blocks(ref, _page(texts, shift=40))  # every block 40 px lower on a 1000 px page
    assert moved.training_scores().position == pytest.approx(0.96)
    for trial in range(20):  # deleting blocks never raises an aspect (the official means can rise)
        keep = sorted(rng.sample(range(12), rng.randint(1, 11)))
        pred = Layout(1000, 1000, tuple(_page(texts, shift=40).text_blocks[k] for k in keep))
        full, part = moved.training_scores(), match_blocks(ref, pred).training_scores()
        for aspect in ("block_match", "text", "position", "color"):
            assert getattr(part, aspect) <= getattr(full, aspect) + 1e-12, (trial, aspect, keep)


def test_training_forms_penalise_extra_and_shrunken_text():
    texts = ["first block of text", "second block of text", "third block of text"]
    ref = _page(texts)
    doubled = Layout(1000, 1000, _page(texts).text_blocks + _page(texts, shift=500).text_blocks)
    assert match_blocks(ref, doubled).scores().text == 1.0  # official: repeats cost nothing on Text
    assert match_blocks(ref, doubled).training_scores().text == pytest.approx(0.5)
    small = Layout(1000, 1000, tuple(block(t, (50.0, 30.0 * k, 4.8 * len(t), 9.5)) for k, t in enumerate(texts)))
    assert match_blocks(ref, small).scores().block_match == 1.0  # official: size is ignored
    assert match_blocks(ref, small).training_scores().block_match == pytest.approx(0.5)  # sqrt of 1/4 area


def _profile_page(texts_at, *, layout_blocks=True, elements=()):
    img = blank()
    blocks = []
    for x, y, n in texts_at:
        draw_text(img, x, y, n)
        blocks.append(block("x" * n, (float(x), float(y - 2), 9.6 * n, 19.0)))
    layout = Layout(W, H, tuple(blocks) if layout_blocks else (), tuple(elements))
    return img, layout


def test_ink_evidence_counts_backed_ink_only():
    ref_img, _ = _profile_page([(20, 20, 17), (20, 80, 17)])
    ref = ink_profile(ref_img)
    honest_img, honest_layout = _profile_page([(22, 22, 17), (22, 84, 17)])
    assert ink_evidence(ref, ink_profile(honest_img, honest_layout)) == pytest.approx(1.0)
    # the same pixels with no DOM text behind them (a canvas drawing): nothing backs the ink
    canvas = ElementBox("canvas", 2, (0.0, 0.0, float(W), float(H)))
    assert ink_evidence(ref, ink_profile(honest_img, Layout(W, H, (), (canvas,)))) == 0.0
    half_img, half_layout = _profile_page([(22, 22, 17)])
    assert ink_evidence(ref, ink_profile(half_img, half_layout)) == pytest.approx(0.5)
    twice_img, twice_layout = _profile_page([(20, 20, 17), (20, 80, 17), (20, 120, 17), (20, 160, 17)])
    assert ink_evidence(ref, ink_profile(twice_img, twice_layout)) == pytest.approx(0.5)
    assert ink_evidence(ink_profile(blank()), ink_profile(blank(), Layout(W, H))) == 1.0


def test_ink_layout_tolerates_nudges_and_spacing_not_moves():
    ref_img, _ = _profile_page([(20, 20, 17), (20, 80, 17), (20, 140, 17)])
    ref = ink_profile(ref_img)

    def sim(spec):
        img, layout = _profile_page(spec)
        return ink_layout_similarity(ref, ink_profile(img, layout))

    assert sim([(20, 20, 17), (20, 80, 17), (20, 140, 17)]) == pytest.approx(1.0)
    nudged = sim([(22, 22, 17), (22, 82, 17), (22, 142, 17)])  # a third of a tile (6 px here, 20 px at 1280)
    spaced = sim([(20, 20, 17), (20, 88, 17), (20, 156, 17)])  # spacing grows down the page
    moved = sim([(220, 20, 17), (220, 80, 17), (220, 140, 17)])  # everything in the other half of the page
    half = sim([(20, 20, 17)])
    assert nudged > 0.8 and spaced > 0.8
    assert moved < 0.3 and half < 0.5
