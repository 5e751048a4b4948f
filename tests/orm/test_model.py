"""The ORM model: YES/NO single tokens, P(YES) equals the first generated token's two-way softmax, batching is
neutral, and folders that are not ORMs are refused with a message that says how to make one."""

from __future__ import annotations

import json
import shutil

import pytest
from PIL import Image

from vcoder.orm.model import NotAnORMError, ORMConfig, ORMInput, OutcomeRewardModel, answer_token_ids, user_turn

PROMPTS = [
    "Task: a counter\nScript: none\nDoes the site do what the task asks? Answer YES or NO.",
    "Task: a todo list with an Add button and NOTES\nDoes the site do what the task asks? Answer YES or NO.",
    "short",
]


@pytest.fixture(scope="module")
def orm(untrained_orm):
    return OutcomeRewardModel.load(untrained_orm, device="cpu")


def shots():
    return [Image.new("RGB", (640, 360), c) for c in ("white", "#2563eb", "#16a34a")]


def test_answers_are_whole_word_single_tokens(orm):
    tok = orm.processor.tokenizer
    assert answer_token_ids(tok) == (orm.config.yes_id, orm.config.no_id)
    ids = tok.encode("NOTES YESTERDAY NO YES", add_special_tokens=False)
    assert ids.count(orm.config.no_id) == 1 and ids.count(orm.config.yes_id) == 1


def test_p_yes_is_the_first_generated_tokens_two_way_softmax(orm):
    import torch

    inputs = [ORMInput(p, s) for p, s in zip(PROMPTS, shots())]
    probs = orm.p_yes(inputs, batch_size=3)
    assert all(0.0 < p < 1.0 for p in probs)
    for x, p in zip(inputs, probs):
        text = orm.processor.apply_chat_template(
            user_turn(x.text, with_image=True), tokenize=False, add_generation_prompt=True
        )
        image = x.image.resize((orm.config.image_width, orm.config.image_width * 9 // 16))
        batch = orm.processor(text=[text], images=[image], return_tensors="pt")
        out = orm.model.generate(
            **batch, max_new_tokens=1, do_sample=False, output_scores=True, return_dict_in_generate=True
        )
        pair = out.scores[0][0, [orm.config.yes_id, orm.config.no_id]]
        assert p == pytest.approx(torch.softmax(pair, -1)[0].item(), abs=1e-5)


def test_batching_and_padding_do_not_change_a_score(orm):
    inputs = [ORMInput(p, s) for p, s in zip(PROMPTS, shots())] + [ORMInput(PROMPTS[0], None)]
    together = orm.p_yes(inputs, batch_size=4)
    alone = [orm.p_yes([x])[0] for x in inputs]
    assert together == pytest.approx(alone, abs=1e-5)
    assert together[0] != pytest.approx(together[3], abs=1e-9)  # the screenshot is part of the input


def test_folders_that_are_not_orms_are_refused(tiny_vlm_dir, untrained_orm, tmp_path):
    with pytest.raises(NotAnORMError, match=r"is not an ORM: it has no orm.json; train one with `vcoder orm train"):
        OutcomeRewardModel.load(tiny_vlm_dir)
    with pytest.raises(NotAnORMError, match="does not exist"):
        ORMConfig.load(tmp_path / "missing")
    copy = shutil.copytree(untrained_orm, tmp_path / "copy")
    (copy / "orm.json").write_text(json.dumps({"yes_id": 1}))
    with pytest.raises(NotAnORMError, match="does not describe a vcoder ORM"):
        ORMConfig.load(copy)
    (copy / "orm.json").write_text(json.dumps({"format": "vcoder-orm", "yes_id": 1}))
    with pytest.raises(NotAnORMError, match="misses a field"):
        ORMConfig.load(copy)
    config = ORMConfig.load(untrained_orm)
    (copy / "orm.json").write_text(json.dumps({"format": "vcoder-orm", **vars(config), "yes_id": 5}))
    with pytest.raises(NotAnORMError, match="mixes files of different models"):
        OutcomeRewardModel.load(copy)
