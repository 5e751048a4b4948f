"""The identical-numbers check: every reward scores the fixed pairs (218) exactly as ``scored_pairs.json`` records.

A speed-up of the rewards must not move any value (tolerance 1e-12). A deliberate change of reward values
regenerates the fixture (``PYTHONPATH=$PWD python -m tests.rewards.scored_pairs --regenerate``; see
``tests/rewards/scored_pairs.py``).
"""

from __future__ import annotations

import json

import pytest

from tests.rewards.scored_pairs import FIXTURE, NAMES, differences, score_pairs

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_fixture_covers_218_pairs_and_every_reward():
    expected = json.loads(FIXTURE.read_text())
    assert len(expected) == 218  # 200 when it was made; the gaming set's 18 new imitations joined them
    for name in NAMES:
        values = [pair["rewards"][name] for pair in expected.values() if pair["rewards"][name] is not None]
        # the pairs must exercise each reward over its range, not sit at one value
        assert len(set(values)) >= 5 and min(values) < 0.2 and max(values) > 0.9, name


def test_every_reward_gives_the_recorded_numbers(pool):
    rewards, renders = differences(json.loads(FIXTURE.read_text()), score_pairs(pool))
    assert not renders, (
        f"{len(renders)} pairs rendered differently from the fixture (the renderer or the fonts changed, not "
        "necessarily a reward); regenerate with `python -m tests.rewards.scored_pairs --regenerate`:\n"
        + "\n".join(renders[:10])
    )
    assert not rewards, f"{len(rewards)} reward values changed:\n" + "\n".join(rewards[:20])
