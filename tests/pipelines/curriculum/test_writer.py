"""The task writer against real OpenAI-compatible servers on loopback. tests/servers.py's ScriptedServer: good,
malformed, duplicate and out-of-band tasks through parsing and the filters, with counts by reason; a slow server
(timeouts) and an unreachable one (the phase grows its pool with the offline generators and says so). Its
``transformers serve`` of the tiny random VLM: noise replies, every one answered and counted; and a real model too
slow for the timeout (the phase falls back)."""

from __future__ import annotations

import json
import logging
from collections import Counter

import pytest

from tests.servers import SAMPLING, ScriptedServer, dead_port
from vcoder.chat.endpoint import Endpoint
from vcoder.pipelines.curriculum.config import config_from_mapping
from vcoder.pipelines.curriculum.filters import REASONS, filter_candidates, normalise_candidate
from vcoder.pipelines.curriculum.outcomes import summarise
from vcoder.pipelines.curriculum.phase import grow_pool, kind_predictor
from vcoder.pipelines.curriculum.writer import TaskWriter, parse_reply

POOL = [
    {
        "id": "counter-0",
        "kind": "counter",
        "source": "generator",
        "instruction": "Write a single HTML page with a counter: the count (id count) starts at 0 and a plus button "
        "(id inc) adds 1",
        "test_cases": [{"task": "Click + once", "expected_result": "The count shows 1"}],
        "seed": 0,
    },
    {
        "id": "todo-0",
        "kind": "todo",
        "source": "generator",
        "instruction": "Write a todo list page where typing in the box (id new) and pressing Add (id add) adds an item",
        "test_cases": [{"task": "Add an item", "expected_result": "The item appears"}],
        "seed": 0,
    },
]


def writer_endpoint(url: str, model: str, **fields) -> Endpoint:
    """The task writer's endpoint at the curriculum recipe's defaults (2 minutes, one retry, temperature 0.8)."""
    return Endpoint(url, model, **{"timeout_ms": 120_000, "max_retries": 1, "temperature": 0.8, **fields})


def _case(text="Click the button", structured=True):
    case = {"task": text, "expected_result": "Something happens", "task_category": "Functional Testing"}
    if structured:
        case["steps"] = [{"action": "click", "target": "#go"}]
        case["expect"] = [{"target": "#out", "text": "done"}]
    return case


GOOD_A = {
    "instruction": "Build a stopwatch page with a start button (id go) and a time display",
    "ui_instruct": [_case()],
}
GOOD_B = {
    "instruction": "Build a recipe card page whose ingredients list can be collapsed",
    "ui_instruct": [_case("Fold")],
}
GOOD_C = {"instruction": "Build a quiz page that shows the score after the last question", "ui_instruct": [_case()]}
DUPLICATE = {"instruction": POOL[0]["instruction"] + " please", "ui_instruct": [_case(structured=False)]}
NO_CASES = {"instruction": "Build a page with nothing to test in it at all", "ui_instruct": []}
BAD_STEP = {
    "instruction": "Build a page whose test uses an action that does not exist",
    "ui_instruct": [{"task": "Teleport", "steps": [{"action": "teleport", "target": "#x"}]}],
}
REPLIES = [
    "Here you go:\n```json\n" + json.dumps([GOOD_A, NO_CASES, DUPLICATE]) + "\n```",
    "I am sorry, I cannot write tasks today.",
    "\n".join(json.dumps(t) for t in (GOOD_B, BAD_STEP, GOOD_C)),
]
PREDICTED = {GOOD_A["instruction"]: 0.4, GOOD_B["instruction"]: 0.9, GOOD_C["instruction"]: 0.02}


def _summary():
    records = [{"task_id": "counter-0", "score": 0.0}, {"task_id": "todo-0", "score": 0.25}]
    return summarise(records, POOL, threshold=0.5)


def _config(url, **extra):
    return config_from_mapping(
        {
            "train_recipe": "configs/step_grpo/tiny_cpu.yaml",
            "model_name_or_path": "outputs/tiny-model",
            "trainer": "step_grpo",
            "kinds": ["counter", "todo"],
            "new_tasks_per_phase": 6,
            "writer_base_url": url,
            "writer_model": "scripted",
            "writer_requests": 3,
            "writer_failures_shown": 1,
            "replay_weight": 0.0,
            "orm_model": "outputs/orm",
            **extra,
        }
    )


def test_writer_parses_filters_and_counts_by_reason():
    with ScriptedServer(REPLIES) as server:
        writer = TaskWriter(
            writer_endpoint(server.base_url, "scripted", timeout_ms=10_000), failures_shown=1, requests=3
        )
        result = writer.write(POOL, 6, phase=2, seed=5)
    assert server.chat_hits == 3 and result.requests == 3 and result.failed == 0 and not result.no_reply
    assert result.rejected == Counter({"schema": 2, "unparseable": 1})
    assert [c["id"] for c in result.candidates] == ["llm-p2-0", "llm-p2-1", "llm-p2-2", "llm-p2-3"]
    assert [c["instruction"] for c in result.candidates] == [
        GOOD_A["instruction"],
        DUPLICATE["instruction"],
        GOOD_B["instruction"],
        GOOD_C["instruction"],
    ]
    assert result.candidates[0]["test_cases"][0]["steps"] == [{"action": "click", "target": "#go"}]
    # each request shows one failure (cycling) and asks for ceil(6 / 3) = 2 tasks
    shown = [json.loads(b["messages"][1]["content"].split(":\n", 1)[1].split("\n\nWrite")[0]) for b in server.bodies]
    assert [s[0]["instruction"] for s in shown] == [
        POOL[0]["instruction"],
        POOL[1]["instruction"],
        POOL[0]["instruction"],
    ]
    assert all("Write 2 new tasks" in b["messages"][1]["content"] for b in server.bodies)
    assert [b["seed"] for b in server.bodies] == [5, 6, 7] and server.bodies[0]["temperature"] == 0.8

    accepted, rejected, predicted = filter_candidates(
        result.candidates, POOL, lambda ts: [PREDICTED[t["instruction"]] for t in ts], low=0.05, high=0.75
    )
    assert [t["instruction"] for t in accepted] == [GOOD_A["instruction"]] and predicted == [0.4]
    assert rejected == Counter({"duplicate": 1, "too_easy": 1, "too_hard": 1})


def test_grow_pool_with_the_writer_reports_all_rejections():
    with ScriptedServer(REPLIES) as server:
        config = _config(server.base_url)
        writer = TaskWriter(writer_endpoint(server.base_url, "scripted"), failures_shown=1, requests=3)
        grown = grow_pool(
            config, 0, POOL, _summary(), predict=lambda ts: [PREDICTED[t["instruction"]] for t in ts], writer=writer
        )
    assert grown["source"] == "llm" and grown["generated"] == 6  # 4 schema-valid + 2 schema-invalid elements
    assert [t["instruction"] for t in grown["accepted"]] == [GOOD_A["instruction"]]
    assert grown["rejected"] == {"schema": 2, "unparseable": 1, "duplicate": 1, "too_easy": 1, "too_hard": 1}
    assert grown["accepted"][0]["parents"] == ["counter-0"]


def test_slow_server_times_out_and_the_phase_falls_back(caplog):
    with ScriptedServer(REPLIES, delay_s=1.5) as server:
        writer = TaskWriter(writer_endpoint(server.base_url, "scripted", timeout_ms=300, max_retries=0), requests=2)
        result = writer.write(POOL, 4, phase=0)
        assert result.no_reply and not result.unreachable and result.candidates == []
        assert len(result.errors) == 2 and all("timed out after 300 ms" in e for e in result.errors)
        config = _config(server.base_url, writer_timeout_ms=300, writer_max_retries=0, new_tasks_per_phase=2)
        with caplog.at_level(logging.WARNING):
            grown = grow_pool(config, 0, POOL, _summary(), predict=lambda ts: [0.5] * len(ts), writer=writer)
    assert grown["source"] == "offline (task writer gave no reply)"
    assert [t["id"] for t in grown["accepted"]] == ["counter-10000", "todo-10001"]
    assert grown["writer"]["fell_back_to_offline"] and grown["writer"]["failed_requests"] == 2
    assert "growing the pool with the offline generators" in caplog.text


def test_unreachable_endpoint_falls_back_to_offline_generators(caplog):
    url = f"http://127.0.0.1:{dead_port()}"
    config = _config(url, writer_max_retries=0, new_tasks_per_phase=2)
    writer = TaskWriter(writer_endpoint(url, "scripted", timeout_ms=2000, max_retries=0), requests=2)
    with caplog.at_level(logging.WARNING):
        grown = grow_pool(config, 1, POOL, _summary(), predict=lambda ts: [0.3] * len(ts), writer=writer)
    assert grown["writer"]["unreachable"] and grown["source"].startswith("offline")
    assert [t["source"] for t in grown["accepted"]] == ["generator", "generator"]
    assert url in caplog.text and "offline generators" in caplog.text


def test_parse_reply_forms():
    assert parse_reply('{"tasks": [{"a": 1}]}') == [{"a": 1}]
    assert parse_reply("prefix [1, 2] suffix") == [1, 2]
    assert parse_reply("") is None


# the tiny model's greedy output is newlines the server strips to ""; sampling gives real junk for the parsers
NOISE = {"generation_config": SAMPLING}


class _Kept:
    """A real ``TaskWriter`` whose last result the test can read (``grow_pool`` reports only its summary)."""

    def __init__(self, writer: TaskWriter):
        self.writer, self.result = writer, None

    def write(self, failures, n, *, phase, seed=0):
        self.result = self.writer.write(failures, n, phase=phase, seed=seed)
        return self.result


def _assert_every_reply_counted(result):
    """Each reply is ``unparseable``, or each of its JSON values is one ``schema`` rejection or one candidate."""
    parsed = [parse_reply(text) for text in result.replies]
    values = [value for p in parsed if p is not None for value in p]
    assert result.rejected["unparseable"] == sum(p is None for p in parsed)
    assert result.rejected["schema"] == sum(normalise_candidate(v, task_id="t") is None for v in values)
    assert result.rejected["schema"] + len(result.candidates) == len(values)
    assert set(result.rejected) <= {"unparseable", "schema"}


@pytest.mark.slow
def test_writer_counts_every_noise_reply_of_a_real_model(tiny_vlm_server):
    url, model = tiny_vlm_server.base_url, tiny_vlm_server.model
    writer = TaskWriter(
        writer_endpoint(url, model, timeout_ms=120_000, max_tokens=48, extra_body=NOISE), failures_shown=1, requests=3
    )
    result = writer.write(POOL, 6, phase=1, seed=3)
    assert (result.requests, result.failed, result.unreachable, result.errors) == (3, 0, False, [])
    assert len(result.replies) == 3 and not result.no_reply
    assert any(text.strip() for text in result.replies)  # sampled noise came back, not greedy newlines
    _assert_every_reply_counted(result)
    assert [c["id"] for c in result.candidates] == [f"llm-p1-{i}" for i in range(len(result.candidates))]
    assert result.summary() == {
        "requests": 3,
        "failed_requests": 0,
        "unreachable": False,
        "fell_back_to_offline": False,
        "errors": [],
    }


@pytest.mark.slow
def test_grow_pool_with_a_real_model_reports_consistent_counts(tiny_vlm_server):
    url, model = tiny_vlm_server.base_url, tiny_vlm_server.model
    kept = _Kept(
        TaskWriter(writer_endpoint(url, model, max_tokens=48, extra_body=NOISE), failures_shown=1, requests=2)
    )
    summary = _summary()
    config = _config(url, writer_model=model, writer_requests=2, new_tasks_per_phase=4)
    grown = grow_pool(config, 1, POOL, summary, predict=kind_predictor(summary), writer=kept)
    result, rejected = kept.result, grown["rejected"]
    assert grown["source"] == "llm" and grown["writer"] == result.summary()
    assert (result.requests, result.failed, len(result.replies)) == (2, 0, 2)
    _assert_every_reply_counted(result)
    assert grown["generated"] == len(result.candidates) + result.rejected["schema"]
    assert {k: rejected.get(k, 0) for k in ("unparseable", "schema")} == {
        k: result.rejected[k] for k in ("unparseable", "schema")
    }
    # every written element is accepted or rejected for exactly one reason; unparseable replies come on top
    assert grown["generated"] + rejected.get("unparseable", 0) == len(grown["accepted"]) + sum(rejected.values())
    assert set(rejected) <= set(REASONS) and all(v > 0 for v in rejected.values())
    assert all(t["source"] == "llm" and t["parents"] for t in grown["accepted"])


@pytest.mark.slow
def test_real_model_too_slow_for_the_timeout_falls_back(tiny_vlm_server, caplog):
    # greedy decoding runs to max_tokens (the tiny model never stops early): 1000 tokens take over a second, not 400 ms
    url, model = tiny_vlm_server.base_url, tiny_vlm_server.model
    kept = _Kept(TaskWriter(writer_endpoint(url, model, timeout_ms=400, max_retries=0, max_tokens=1000), requests=1))
    config = _config(url, writer_model=model, writer_timeout_ms=400, writer_max_retries=0, new_tasks_per_phase=2)
    with caplog.at_level(logging.WARNING):
        grown = grow_pool(config, 0, POOL, _summary(), predict=lambda ts: [0.5] * len(ts), writer=kept)
    result = kept.result
    assert (result.requests, result.failed, result.unreachable, result.replies) == (1, 1, False, [])
    assert result.no_reply and len(result.errors) == 1 and "timed out after 400 ms" in result.errors[0]
    assert grown["source"] == "offline (task writer gave no reply)"
    assert grown["writer"]["fell_back_to_offline"] and grown["writer"]["failed_requests"] == 1
    assert [t["id"] for t in grown["accepted"]] == ["counter-10000", "todo-10001"]
    assert grown["generated"] == 2 and grown["rejected"] == {}
    assert url in caplog.text and "growing the pool with the offline generators" in caplog.text


def test_the_recipe_sets_the_writers_request_fields():
    from vcoder.pipelines.curriculum.config import CurriculumConfigError
    from vcoder.pipelines.curriculum.run import _writer

    body = {"generation_config": {"do_sample": True}}
    writer = _writer(_config("http://127.0.0.1:9", writer_extra_body=body, writer_temperature=0.3))
    assert writer.endpoint.extra_body == body and writer.endpoint.temperature == 0.3
    with pytest.raises(CurriculumConfigError, match="writer_extra_body must be a mapping"):
        _config("http://127.0.0.1:9", writer_extra_body="do_sample")
