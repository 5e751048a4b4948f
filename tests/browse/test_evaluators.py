"""WebArena's evaluators: string match (exact / must include / fuzzy), URL match, and program_html on real pages in
hand-made final states (a storage state loaded into the site, the agent exiting at once)."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from tests.browse.conftest import Lines, run_episode
from vcoder.browse import FuzzyJudge, TaskEval, WebTask
from vcoder.browse.evaluators import must_include, string_match, url_match
from vcoder.browse.sites import build_state
from vcoder.chat import Endpoint


def task(ev: TaskEval, site: str = "shop", **kw) -> WebTask:
    kw.setdefault("start_url", f"__{site.upper()}__/#/")
    return WebTask(sites=(site,), task_id=1, intent="What is the price?", eval=ev, **kw)


def score(ev: TaskEval, answer, judge=None) -> float:
    return asyncio.run(string_match(task(ev), answer, judge=judge))


def test_exact_match_cleans_quotes_spaces_and_case():
    ev = TaskEval(("string_match",), reference_answers={"exact_match": "VIP"})
    assert score(ev, ' "vip" ') == 1.0
    assert score(ev, "VIP group") == 0.0 and score(ev, None) == 0.0


def test_must_include_needs_every_phrase_and_tokenizes_one_character():
    ev = TaskEval(("string_match",), reference_answers={"must_include": ["$12.50", "mug"]})
    assert score(ev, "The Mug costs $12.50.") == 1.0
    assert score(ev, "It costs $12.50") == 0.0
    assert must_include("0", "10 issues", tokenize=True) == 0.0  # WebArena: "0" is not found inside "10"
    assert must_include("0", "0 issues", tokenize=True) == 1.0 and must_include("0", "10", tokenize=False) == 1.0
    one = TaskEval(("string_match",), reference_answers={"must_include": ["3"]})
    assert score(one, "3 open issues") == 1.0 and score(one, "13 open issues") == 0.0


def test_fuzzy_match_offline_fallback_and_not_achievable():
    ev = TaskEval(("string_match",), reference_answers={"fuzzy_match": ["MIT License"]})
    assert score(ev, "It uses the MIT license.") == 1.0
    assert score(ev, "Apache License 2.0") == 0.0 and score(ev, "") == 0.0
    na = TaskEval(("string_match",), reference_answers={"fuzzy_match": "N/A"}, string_note="no such product")
    assert score(na, "N/A") == 1.0 and score(na, "This is not achievable: no such product") == 1.0
    assert score(na, "$3.00") == 0.0


class _Judge(BaseHTTPRequestHandler):
    """A loopback OpenAI-compatible server whose judge calls an answer correct iff it mentions 'twelve'."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        answer = prompt.split("student answer:")[1]
        verdict = "correct" if "twelve" in answer.lower() else "incorrect"
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": f"So: {verdict}"}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_fuzzy_match_asks_the_llm_with_webarenas_question():
    server = HTTPServer(("127.0.0.1", 0), _Judge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        judge = FuzzyJudge(Endpoint(f"http://127.0.0.1:{server.server_port}/v1", "judge", max_retries=0))
        assert judge.mode == "llm"
        ev = TaskEval(("string_match",), reference_answers={"fuzzy_match": ["$12.50"]})
        assert score(ev, "twelve dollars and fifty cents", judge) == 1.0  # the offline rule would say 0
        assert score(ev, "$12.50 exactly", judge) == 0.0  # ... and 1 here: the judge decides
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    "ref, url, expected",
    [
        ("__SHOP__/#/category/Kitchen", "__SHOP__/#/category/Kitchen", 1.0),
        ("__SHOP__/#/category/Kitchen", "__SHOP__/#/category/Office", 0.0),
        ("__SHOP__/#/search?q=mug", "__SHOP__/#/search?q=mug&page=2", 1.0),  # GOLD in PRED: extra keys are fine
        ("__SHOP__/#/search?q=mug", "__SHOP__/#/search?q=lamp", 0.0),
        ("__SHOP__/#/cart |OR| __SHOP__/#/orders", "__SHOP__/#/orders/", 1.0),  # alternatives, trailing slash
        ("__SHOP__/#/cart", "__FORUM__/#/cart", 0.0),
    ],
)
def test_url_match(ref, url, expected):
    assert url_match(task(TaskEval(("url_match",), reference_url=ref)), url) == expected


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_program_html_on_hand_made_final_states(pool, storage_state):
    state = build_state("shop", seed=0)
    mug = state["products"][0]
    check = TaskEval(
        ("program_html",),
        program_html=(
            {
                "url": "__SHOP__/#/cart",
                "locator": "document.querySelector('#cart').outerText",
                "required_contents": {"must_include": [mug["name"], "Qty: 2 |OR| Qty: two"]},
            },
            {"url": "last", "locator": "document.title", "required_contents": {"exact_match": "One Stop Shop"}},
        ),
    )
    carted = dict(state, cart=[{"id": mug["id"], "qty": 2}])
    ok = run_episode(task(check, storage_state=storage_state("shop", carted)), Lines([]), pool=pool)
    assert ok.evaluation.score == 1.0 and ok.evaluation.scores == {"program_html": 1.0}
    wrong_qty = dict(state, cart=[{"id": mug["id"], "qty": 3}])
    bad = run_episode(task(check, storage_state=storage_state("shop", wrong_qty)), Lines([]), pool=pool)
    assert bad.evaluation.score == 0.0
    empty = run_episode(task(check), Lines([]), pool=pool)  # no storage state: the seed's empty cart
    assert empty.evaluation.score == 0.0


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_combined_evaluators_multiply_on_a_final_page(pool):
    ev = TaskEval(
        ("string_match", "url_match"),
        reference_answers={"exact_match": "Kitchen"},
        reference_url="__SHOP__/#/category/Kitchen",
    )
    kitchen = task(ev, start_url="__SHOP__/#/category/Kitchen")
    right = run_episode(kitchen, Lines(['exit(message="Kitchen")']), pool=pool)
    assert right.final_url == "__SHOP__/#/category/Kitchen" and right.evaluation.score == 1.0
    wrong = run_episode(kitchen, Lines(['exit(message="Office")']), pool=pool)
    assert wrong.evaluation.scores == {"string_match": 0.0, "url_match": 1.0} and wrong.evaluation.score == 0.0
