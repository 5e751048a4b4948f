"""Design2Code block metrics on hand-built layouts with hand-computed expectations."""

from __future__ import annotations

import difflib
import random

import numpy as np
import pytest

from vcoder.layout import Layout, TextBlock
from vcoder.metrics._blocks import text_color
from vcoder.metrics._matcher import context_bonus as _context_bonus
from vcoder.metrics._matcher import diff_of_means as _diff_of_means
from vcoder.metrics._textsim import SequenceMatcher, TextSimilarity
from vcoder.metrics.design2code import block_scores, match_blocks

W = H = 1000


def tb(text, box, color=(0, 0, 0), background=(255, 255, 255)):
    return TextBlock(text, box, color, background, 16.0, 400, "p")


def page(*blocks, width=W, height=H):
    return Layout(width, height, tuple(blocks))


REF = page(tb("Hello world", (100, 100, 200, 20)), tb("Second block", (100, 300, 200, 20)))


def test_identical_pages_score_one():
    s = block_scores(REF, REF)
    assert (s.block_match, s.text, s.position, s.color) == (1.0, 1.0, 1.0, 1.0)
    assert (s.n_ref, s.n_pred, s.n_matched) == (2, 2, 2)


def test_changed_text_gives_the_sequence_matcher_value():
    pred = page(tb("Hello there", (100, 100, 200, 20)), tb("Second block", (100, 300, 200, 20)))
    s = block_scores(REF, pred)
    # SequenceMatcher("hello there", "hello world"): 7 matching chars of 22 -> 14/22
    assert s.text == pytest.approx((1.0 + 14 / 22) / 2)
    assert s.block_match == 1.0 and s.position == 1.0


def test_moved_block_gives_the_centre_distance_value():
    pred = page(tb("Hello world", (200, 130, 200, 20)), tb("Second block", (100, 300, 200, 20)))
    s = block_scores(REF, pred)
    # centre moved by (100, 30) px on a 1000 px page: 1 - max(0.1, 0.03) = 0.9, mean with the unmoved block
    assert s.position == pytest.approx((0.9 + 1.0) / 2)
    assert s.text == 1.0


def test_red_vs_dark_red_gives_the_ciede2000_value():
    ref = page(tb("Warning", (10, 10, 100, 20), color=(255, 0, 0)))
    pred = page(tb("Warning", (10, 10, 100, 20), color=(139, 0, 0)))
    # CIEDE2000((255,0,0), (139,0,0)) = 23.754 (sRGB D65); colour score 1 - 23.754 / 100
    assert block_scores(ref, pred).color == pytest.approx(0.7624597, abs=1e-6)


def test_missing_block_gives_the_area_ratio():
    ref = page(tb("Title", (0, 0, 100, 50)), tb("A paragraph of text", (0, 100, 400, 100)))
    pred = page(tb("Title", (0, 0, 100, 50)))
    a1, a2 = 0.1 * 0.05, 0.4 * 0.1
    s = block_scores(ref, pred)
    assert s.block_match == pytest.approx(2 * a1 / (2 * a1 + a2))
    assert (s.text, s.n_matched) == (1.0, 1)


def test_split_blocks_are_merged():
    ref = page(tb("Hello world", (100, 100, 200, 20)))
    pred = page(tb("Hello", (100, 100, 90, 20)), tb("world", (200, 100, 100, 20)))
    m = match_blocks(ref, pred)
    assert [b.text for b in m.pred_blocks] == ["hello world"]
    assert m.pred_blocks[0].box == pytest.approx((0.1, 0.1, 0.2, 0.02))
    s = m.scores()
    assert (s.text, s.block_match, s.position, s.n_matched) == (1.0, 1.0, 1.0, 1)
    # and the other way round: the reference side merges too
    assert match_blocks(pred, ref).ref_blocks[0].text == "hello world"


def test_identical_boxes_merge_and_text_is_lowercased():
    ref = page(tb("BIG", (0, 0, 100, 20), color=(0, 0, 0)), tb("News", (0, 0, 100, 20), color=(100, 100, 100)))
    m = match_blocks(ref, ref)
    assert [b.text for b in m.ref_blocks] == ["big news"]
    assert m.ref_blocks[0].color == (50.0, 50.0, 50.0)


def test_low_similarity_pairs_are_dropped():
    ref = page(tb("completely different", (0, 0, 100, 20)))
    pred = page(tb("xyz", (0, 0, 100, 20)))
    s = block_scores(ref, pred)
    assert (s.block_match, s.text, s.position, s.color, s.n_matched) == (0.0, 0.0, 0.0, 0.0, 0)


def test_empty_pages_score_zero():
    for ref, pred in [(page(), page()), (REF, page()), (page(), REF)]:
        s = block_scores(ref, pred)
        assert (s.block_match, s.text, s.position, s.color) == (0.0, 0.0, 0.0, 0.0)
    blank_text = page(tb("   ", (0, 0, 10, 10)), tb("invisible", (0, 0, 0, 0)))
    assert block_scores(REF, blank_text).n_pred == 0


def test_context_bonus_values():
    sim = np.array([[0.9, 0.2], [0.3, 0.6]])
    out = _context_bonus(sim)
    # (0,0): neighbours 0.2, 0.3, 0.6 -> +0.1 * (0.6 + 0.3); (1,1): +0.1 * (0.9 + 0.3); cells <= 0.5 unchanged
    assert out == pytest.approx(np.array([[0.99, 0.2], [0.3, 0.72]]))


def test_difference_of_means_reference_semantics():
    # costs are -similarity: replacing a -0.6 match by -0.9 improves by 0.3; common values cancel
    assert _diff_of_means([-1.0, -0.6], [-1.0, -0.9]) == pytest.approx(0.3)
    assert _diff_of_means([-1.0, -0.9], [-1.0, -0.6]) == pytest.approx(-0.3)


def test_fast_sequence_matcher_equals_difflib():
    rng = random.Random(0)
    for _ in range(300):
        a = "".join(rng.choice("ab cd") for _ in range(rng.randint(0, 40)))
        b = "".join(rng.choice("ab cd") for _ in range(rng.randint(0, 260)))  # > 200 exercises autojunk
        assert SequenceMatcher(None, a, b).ratio() == difflib.SequenceMatcher(None, a, b).ratio()


def test_top_k_matrix_keeps_the_best_cells():
    texts = [f"item number {k} with words {k * 7}" for k in range(60)]
    exact = TextSimilarity().matrix(texts, texts)
    approx = TextSimilarity(exact_cells=100, top_k=4).matrix(texts, texts)
    assert np.allclose(np.diag(approx), 1.0)
    assert np.array_equal(approx.argmax(axis=1), exact.argmax(axis=1))
    assert np.all(approx <= exact + 1e-12)


def test_measured_text_colour_from_pixels():
    img = np.full((50, 100, 3), 255, dtype=np.uint8)
    img[10:20, 10:40] = (200, 0, 0)  # glyph cores
    img[20:22, 10:40] = (230, 128, 128)  # anti-aliased edge
    assert text_color(img, (5, 5, 50, 20), (255, 255, 255), (0, 0, 0)) == (200.0, 0.0, 0.0)
    assert text_color(img, (60, 30, 30, 10), (255, 255, 255), (1, 2, 3)) == (1.0, 2.0, 3.0)
    ref = page(tb("Hi", (5, 5, 50, 20), color=(0, 0, 0)), width=100, height=50)
    s = block_scores(ref, ref, ref_image=img)  # measured red vs CSS black
    assert s.color < 0.6


def test_scores_in_range_and_monotone_under_damage():
    rng = random.Random(3)
    words = [f"w{k}" for k in range(400)]
    ref_blocks = [tb(" ".join(rng.sample(words, 4)), (10, 30 * k, 300, 20)) for k in range(30)]
    ref = page(*ref_blocks, height=1000)
    previous = None
    for removed in (0, 5, 10, 20):
        s = block_scores(ref, page(*ref_blocks[removed:], height=1000))
        for v in (s.block_match, s.text, s.position, s.color):
            assert 0.0 <= v <= 1.0
        if previous is not None:
            assert s.block_match < previous
        previous = s.block_match


def test_bounded_cost_500_blocks():
    rng = random.Random(5)
    vocab = [f"word{k}" for k in range(3000)]
    ref_blocks = [tb(" ".join(rng.sample(vocab, rng.randint(1, 6))), (10, 12 * k, 400, 10)) for k in range(500)]
    pred_blocks = [
        tb(b.text if k % 5 else b.text + " extra", (b.bbox[0] + 5, b.bbox[1], 400, 10))
        for k, b in enumerate(ref_blocks)
    ]
    s = block_scores(page(*ref_blocks, height=6000), page(*pred_blocks, height=6000))
    assert s.n_ref == s.n_pred == 500
    assert s.n_matched >= 490 and s.text > 0.95 and s.block_match > 0.95


def test_validation_messages():
    with pytest.raises(TypeError, match="Layout"):
        block_scores({"width": 1}, REF)
    with pytest.raises(ValueError, match="0x10"):
        block_scores(Layout(0, 10), REF)
    with pytest.raises(ValueError, match="uint8"):
        block_scores(REF, REF, ref_image=np.zeros((10, 10)))
