"""The offline fuzzy judge never credits a wrong answer: extra candidates, swapped / negated / hedged numbers,
a reversed order, a negation or a question all score 0, while honest paraphrases keep scoring 1."""

from __future__ import annotations

import asyncio

import pytest

from vcoder.browse import FuzzyJudge, TaskEval, WebTask
from vcoder.browse.evaluators import string_match
from vcoder.browse.fuzzy import offline_match

LICENCES = ["MIT License", "Apache License 2.0", "BSD 3-Clause License"]
LICENSE_Q = "What license does kv-store use?"


def judged(reference: str, answer: str, question: str = LICENSE_Q) -> float:
    ev = TaskEval(("string_match",), reference_answers={"fuzzy_match": [reference]})
    task = WebTask(sites=("repo",), task_id=1, start_url="__REPO__/#/", intent=question, eval=ev)
    assert FuzzyJudge().mode == "offline"
    return asyncio.run(string_match(task, answer))


@pytest.mark.parametrize("licence", LICENCES)
def test_a_stuffed_list_of_licences_is_not_any_of_them(licence):
    assert judged(licence, "MIT License, Apache License 2.0 or BSD 3-Clause License") == 0.0
    assert judged(licence, "; ".join(LICENCES)) == 0.0
    assert judged(licence, licence) == 1.0


@pytest.mark.parametrize(
    "reference, answer, question",
    [
        ("MIT License", "MIT License or Apache License", LICENSE_Q),  # hedged between candidates
        ("MIT License", "either MIT License or BSD", LICENSE_Q),
        ("MIT License", "MIT License, Apache License", LICENSE_Q),  # another candidate of the same kind
        ("MIT License", "MIT License / Apache", LICENSE_Q),
        ("MIT License", "not the MIT License", LICENSE_Q),  # negated
        ("MIT License", "probably MIT License", LICENSE_Q),  # hedged
        ("MIT License", "MIT License?", LICENSE_Q),  # asked back
        ("-5", "5", "What is the balance?"),  # the sign is part of the number
        ("5", "-5", "What is the balance?"),
        ("-5", "minus 5", "What is the balance?"),
        ("$12.50", "$12.50 or $13.00", "What is the price of Red Mug?"),
        ("$12.50", "about $12.50", "What is the price of Red Mug?"),
        ("$12.50", "$12.50, $112.50", "What is the price of Red Mug?"),
        ("12", "12 or 13", "How many posts?"),
        ("3 open, 5 closed", "5 open, 3 closed", "How many issues are open and closed?"),  # swapped numbers
        ("Ada Moreau, Bilal Silva", "Bilal Silva, Ada Moreau", "Who are the two newest customers, in order?"),
        ("Why I switched to tea", "Why I switched to tea, Best maps of the year?", "Which post is top?"),
        ("Why I switched to tea", "Why I switched to tea and Ask me about maps", "Which post is top?"),
    ],
)
def test_wrong_answers_score_zero(reference, answer, question):
    assert judged(reference, answer, question) == 0.0


@pytest.mark.parametrize(
    "reference, answer, question",
    [
        ("MIT License", "It uses the MIT license.", "What is the price?"),  # test_evaluators' paraphrase
        ("MIT License", "kv-store uses the MIT License", LICENSE_Q),
        ("MIT License", "kv-store is licensed under the MIT License", LICENSE_Q),
        ("MIT License", '"mit license"', LICENSE_Q),
        ("$1,200.50", "The price is $1200.5", "What is the price of Red Mug?"),
        ("-5", "The balance is -5.", "What is the balance?"),
        ("Ada Moreau, Bilal Silva", "Ada Moreau and Bilal Silva", "Who are the two newest customers, in order?"),
        ("Best tea of the year?", "Best tea of the year?", "Which post in f/books has the highest score?"),
        (
            "Why I switched to tea",
            "The post with the highest score is Why I switched to tea",
            "Which post has the highest score?",
        ),
    ],
)
def test_honest_paraphrases_still_match(reference, answer, question):
    assert judged(reference, answer, question) == 1.0


def test_the_rule_is_the_function():
    assert offline_match("MIT License", "") == 0.0 and offline_match("", "") == 1.0
    assert offline_match("N/A", "n/a") == 1.0 and offline_match("N/A", "MIT") == 0.0


@pytest.mark.parametrize(
    "answer, verdict",
    [
        ("N/A", 1.0),  # WebArena's exact match comes first
        ("This is not achievable: no such product", 1.0),
        ("N/A: there is no such product in the shop", 1.0),
        ("N/A: I could not log in", 0.0),  # another reason: an LLM would say "different"
        ("not achievable", 0.0),  # no reason at all, where one is asked for
        ("N/A or $3.00", 0.0),  # hedged between refusing and answering
        ("$3.00, otherwise N/A because no such product", 0.0),
        ("$3.00", 0.0),
    ],
)
def test_an_unachievable_tasks_reason_must_be_the_reason(answer, verdict):
    ev = TaskEval(("string_match",), reference_answers={"fuzzy_match": "N/A"}, string_note="no such product")
    task = WebTask(sites=("shop",), task_id=1, start_url="__SHOP__/#/", intent="Buy the Gold Mug", eval=ev)
    assert asyncio.run(string_match(task, answer)) == verdict
