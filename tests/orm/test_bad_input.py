"""Bad input to the ORM gets a message naming what is wrong and what to do: a verdict log with a missing field
(line and field), a base model that cannot be loaded, an ORM folder that is not one (or lost its weights)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.inprocess import vcoder
from tests.orm.test_verdicts import good_line, record
from vcoder.orm.model import NotAnORMError, OutcomeRewardModel
from vcoder.orm.train import BaseModelError, TrainOptions, train_orm
from vcoder.verdicts.log import VerdictLog


def vcoder_orm(*args: str) -> subprocess.CompletedProcess:
    # in this process (an exception would fail the test, as a traceback on stderr does): no import per call
    return vcoder("orm", *args)


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "verdicts.jsonl"
    for i in range(4):
        VerdictLog(path).append(record(i))
    return path


def test_a_missing_field_is_named_by_file_line_and_field(tmp_path):
    bad = json.loads(good_line())
    del bad["instruction"]
    path = tmp_path / "verdicts.jsonl"
    path.write_text(good_line() + "\n" + json.dumps(bad) + "\n")
    out = vcoder_orm("check", "--verdicts", str(path))
    assert out.returncode == 2 and out.stdout == ""
    assert f"vcoder orm: error: {path}:2: field 'instruction' is missing (it must be a string)" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("{tmp}/nothere", "base model '{tmp}/nothere': no such folder; pass a model folder"),
        ("{tmp}", "base model '{tmp}' is not a model folder (it has no config.json)"),
    ],
)
def test_a_base_model_that_cannot_be_loaded(log, tmp_path, model, message):
    model, message = model.format(tmp=tmp_path), message.format(tmp=tmp_path)
    with pytest.raises(BaseModelError) as info:
        train_orm(log, model, tmp_path / "orm", options=TrainOptions(max_steps=1))
    assert message in str(info.value) and "vcoder models tiny" in str(info.value)
    assert not (tmp_path / "orm").exists()  # nothing was written


def test_the_cli_exits_2_on_an_unloadable_base_model_and_a_missing_orm(log, tmp_path):
    out = vcoder_orm(
        "train", "--verdicts", str(log), "--model-name-or-path", str(tmp_path / "none"), "--out", str(tmp_path / "o")
    )
    assert out.returncode == 2 and "no such folder" in out.stderr and "Traceback" not in out.stderr
    (tmp_path / "task.json").write_text(json.dumps({"instruction": "A counter"}))
    out = vcoder_orm(
        "score", "--orm-model", str(tmp_path / "none"), "--task", str(tmp_path / "task.json"), "--site", "."
    )
    assert out.returncode == 2 and f"ORM folder '{tmp_path / 'none'}' does not exist" in out.stderr


def test_an_orm_folder_without_its_weights_is_refused(untrained_orm, tmp_path):
    copy = shutil.copytree(untrained_orm, tmp_path / "copy")
    for weights in copy.glob("*.safetensors"):
        weights.unlink()
    with pytest.raises(NotAnORMError, match="has orm.json but no loadable model weights .*; retrain it"):
        OutcomeRewardModel.load(copy, device="cpu")
