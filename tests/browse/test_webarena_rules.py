"""vcoder's evaluators give WebArena's verdicts on WebArena's own rules.

Each case is an input and the verdict WebArena's code gives it (``evaluation_harness/evaluators.py`` and
``helper_functions.py`` of web-arena-x/webarena, read at commit f62e0b9): ``StringEvaluator.clean_answer`` /
``exact_match`` / ``must_include`` (NLTK's ``word_tokenize`` for a one-character reference), ``URLEvaluator``'s
``clean_url`` + ``parse_url`` + ``GOLD in PRED``, ``HTMLContentEvaluator``'s ``str()`` of a locator's value, and the
two judge prompts. The token lists were produced by NLTK 3.10's ``NLTKWordTokenizer``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from tests.browse.conftest import Lines, run_episode
from vcoder.browse import FuzzyJudge, TaskEval, WebTask
from vcoder.browse.evaluators import clean_answer, exact_match, must_include, selected_text, string_match, url_match
from vcoder.browse.wordtok import treebank_tokenize, word_tokenize
from vcoder.chat import Endpoint


def task(ev: TaskEval, intent: str = "How many issues are open?") -> WebTask:
    return WebTask(sites=("shop",), task_id=1, start_url="__SHOP__/#/", intent=intent, eval=ev)


def answers(answer, **refs) -> float:
    return asyncio.run(string_match(task(TaskEval(("string_match",), reference_answers=refs)), answer))


# NLTK 3.10 NLTKWordTokenizer().tokenize(s), the rules word_tokenize applies to each sentence
NLTK_TOKENS = {
    "it is 2:30": ["it", "is", "2:30"],
    "3pm": ["3pm"],
    "-1": ["-1"],
    "5+": ["5+"],
    "5,6 or 5, 6": ["5,6", "or", "5", ",", "6"],
    "$5 (5) 5% #5 5;": ["$", "5", "(", "5", ")", "5", "%", "#", "5", "5", ";"],
    "the answer is 5.": ["the", "answer", "is", "5", "."],
    "5. the end": ["5.", "the", "end"],
    "\"5\" and '5'": ["``", "5", "''", "and", "'", "5", "'"],
    "it's 5 o'clock, isn't it?": ["it", "'s", "5", "o'clock", ",", "is", "n't", "it", "?"],
    "5/10 1-2 5th a.b": ["5/10", "1-2", "5th", "a.b"],
    "5... 5--6 5\u20136": ["5", "...", "5", "--", "6", "5", "\u2013", "6"],
    "cannot gonna": ["can", "not", "gon", "na"],
    "[5] {5} <5>": ["[", "5", "]", "{", "5", "}", "<", "5", ">"],
    "5* 5@ 5&": ["5", "*", "5", "@", "5", "&"],
    "answer: 5": ["answer", ":", "5"],
    "5:": ["5", ":"],
}


@pytest.mark.parametrize("text, tokens", NLTK_TOKENS.items())
def test_the_treebank_rules_are_nltks(text, tokens):
    assert treebank_tokenize(text) == tokens


def test_sentences_end_where_punkt_ends_them_for_a_one_character_token():
    assert word_tokenize("there are 5. 6 are closed") == ["there", "are", "5", ".", "6", "are", "closed"]
    assert word_tokenize("there are 5. the rest") == ["there", "are", "5.", "the", "rest"]  # a number, then a word
    assert word_tokenize("it is open. 3 more") == ["it", "is", "open", ".", "3", "more"]


@pytest.mark.parametrize(
    "raw, cleaned",
    [
        (' "VIP" ', "vip"),
        ("'VIP'", "vip"),
        ("'", ""),
        ('"', ""),
        ("'VIP\"", "'vip\""),
        ("''5''", "'5'"),
        ("N/A", "n/a"),
    ],
)
def test_clean_answer(raw, cleaned):
    assert clean_answer(raw) == cleaned


def test_the_answer_is_cleaned_twice_as_webarena_does():
    # StringEvaluator.__call__ cleans the answer, then exact_match / must_include clean it again
    assert answers("''5''", exact_match="5") == 1.0 and exact_match("5", "''5''") == 0.0


@pytest.mark.parametrize(
    "ref, pred, verdict",
    [
        ("2", "at 2:30", 0.0),  # the tokeniser keeps 2:30 whole
        ("3", "at 3pm", 0.0),
        ("1", "-1", 0.0),
        ("5", "5+ issues", 0.0),
        ("0", "10 issues", 0.0),
        ("5", "5,6", 0.0),
        ("5", "5th", 0.0),
        ("5", "there are 5. the rest are closed", 0.0),  # "5." inside a sentence stays one token
        ("5", "$5", 1.0),
        ("5", "(5)", 1.0),
        ("5", "5%", 1.0),
        ("5", "5, 6", 1.0),
        ("5", "the answer is 5.", 1.0),
        ("5", '"5"', 1.0),
        ("5", "5 open issues", 1.0),
    ],
)
def test_must_include_tokenises_a_one_character_reference(ref, pred, verdict):
    assert answers(pred, must_include=[ref]) == verdict


def test_must_include_is_a_substring_test_otherwise():
    assert answers("at 2:30", must_include=["2", "at"]) == 1.0  # two phrases: no tokenising
    assert answers("$112.50", must_include=["12.50"]) == 1.0  # more than one character: a substring
    assert must_include("3", "13", tokenize=False) == 1.0 and must_include("3", "13", tokenize=True) == 0.0


def test_an_na_reference_replaces_the_score_with_the_reasons_verdict():
    # WebArena: score = ua_match(...) after a failed exact "n/a", whatever the approaches before it scored
    refs = {"must_include": ["$3.00"], "fuzzy_match": "N/A"}
    assert answers("not achievable: there is no such product", **refs) == 1.0
    assert answers("$3.00", **refs) == 0.0


def url(ref: str, pred: str) -> float:
    return url_match(task(TaskEval(("url_match",), reference_url=ref)), pred)


@pytest.mark.parametrize(
    "ref, pred, verdict",
    [
        ("__SHOP__/#/search/?q=mug", "__SHOP__/#/search?q=mug", 0.0),  # only the URL's final slashes are stripped
        ("__SHOP__/#/search?q=mug", "__SHOP__/#/search/?q=mug", 1.0),  # GOLD in PRED: ".../search" in ".../search/"
        ("__SHOP__/#/orders//", "__SHOP__/#/orders", 1.0),  # rstrip: every final slash
        ("__SHOP__/#/category/Home", "__SHOP__/#/category/Homeware", 1.0),  # the base is a substring test
        ("__SHOP__/#/search?q=red+mug", "__SHOP__/#/search?q=red%20mug", 1.0),  # parse_qs decodes both
        ("__SHOP__/#/search?q=", "__SHOP__/#/search", 1.0),  # parse_qs drops blank values
        ("__SHOP__/#/search?q=mug&q=cup", "__SHOP__/#/search?q=cup", 1.0),  # one of the key's values
        ("__SHOP__/#/a?x=1 |OR| __SHOP__/#/b?y=2", "__SHOP__/#/a?x=1", 0.0),  # queries pool over alternatives
        ("__SHOP__/#/a?x=1 |OR| __SHOP__/#/b?y=2", "__SHOP__/#/a?x=1&y=2", 1.0),
        ("__SHOP__#/cart", "__SHOP__/#/cart", 1.0),  # vcoder: the fragment separator normalised
    ],
)
def test_url_match(ref, pred, verdict):
    assert url(ref, pred) == verdict


@pytest.mark.parametrize(
    "value, text", [(None, "None"), (True, "True"), (False, "False"), (5, "5"), (2.5, "2.5"), (["a", 1], "['a', 1]")]
)
def test_a_locators_value_is_pythons_str_of_it(value, text):
    assert selected_text(value) == text


def _page_check(locator: str, **required) -> dict:
    return {"url": "last", "locator": locator, "required_contents": required}


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_program_html_reads_null_as_none_on_a_real_page(pool):
    checks = (
        _page_check("document.querySelector('#no-such-element')", exact_match="None"),  # null
        _page_check("document.querySelector('#no-such-element').outerText", exact_match=""),  # throws
        _page_check("document.title === 'One Stop Shop'", exact_match="true"),  # True, cleaned
        _page_check("[...document.querySelectorAll('h1')].length", exact_match="1"),
        _page_check("", must_include=["<!DOCTYPE html>"]),  # page.content() starts with the doctype
    )
    shop = task(TaskEval(("program_html",), program_html=checks))
    done = run_episode(shop, Lines([]), pool=pool)
    assert done.evaluation.score == 1.0, done.evaluation
    empty = task(
        TaskEval(("program_html",), program_html=(_page_check("document.querySelector('#x')", exact_match=""),))
    )
    assert run_episode(empty, Lines([]), pool=pool).evaluation.score == 0.0  # vcoder used to read null as ""


class _Recorder(BaseHTTPRequestHandler):
    """A loopback OpenAI-compatible judge that records each request and answers ``server.verdict``."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        reply = {"choices": [{"message": {"role": "assistant", "content": self.server.verdict}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def recorder():
    server = HTTPServer(("127.0.0.1", 0), _Recorder)
    server.requests, server.verdict = [], "Correct."
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


def test_the_llm_judge_gets_webarenas_messages(recorder):
    judge = FuzzyJudge(Endpoint(f"http://127.0.0.1:{recorder.server_port}/v1", "judge", max_retries=0))
    fuzzy = TaskEval(("string_match",), reference_answers={"fuzzy_match": ["MIT License"]})
    assert asyncio.run(string_match(task(fuzzy, "What license?"), "The MIT license", judge=judge)) == 1.0
    (body,) = recorder.requests
    system, user = body["messages"]
    assert system == {"role": "system", "content": "You are a helpful assistant"}
    assert (body["temperature"], body["max_tokens"], body["top_p"]) == (0.0, 768, 1.0)
    assert user["content"].startswith("Help a teacher to grade the answer of a student given a question.")
    assert "question: What license?\nreference answer: MIT License\n" in user["content"]
    assert "student answer: the mit license\n" in user["content"]  # WebArena judges the cleaned answer
    assert user["content"].endswith("Conclude the judgement by correct/incorrect/partially correct.")
    recorder.verdict = "partially correct"
    assert asyncio.run(string_match(task(fuzzy), "MIT", judge=judge)) == 0.0

    recorder.verdict, recorder.requests[:] = "same", []
    na = TaskEval(("string_match",), reference_answers={"fuzzy_match": "N/A"}, string_note="no such product")
    assert asyncio.run(string_match(task(na, "Buy the Gold Mug"), "There is no Gold Mug", judge=judge)) == 1.0
    prompt = recorder.requests[0]["messages"][1]["content"]
    assert prompt.startswith(
        "task: Buy the Gold Mug\nactual unachievable reason: no such product\n"
        "reported unachievable reason: there is no gold mug\n"
        "The task described above is inherently unachievable due to the reason specified under 'actual "
        "unachievable reason'."
    )
    assert prompt.endswith(
        "If the stated reason is in line with the actual reason, respond with 'same'. "
        "Otherwise, respond with 'different'."
    )
    recorder.verdict = "different"
    assert asyncio.run(string_match(task(na), "I could not log in", judge=judge)) == 0.0
