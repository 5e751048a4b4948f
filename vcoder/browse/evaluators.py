"""WebArena's three evaluators (``evaluation_harness/evaluators.py`` of Zhou et al., 2024), as WebArena defines them.

- ``string_match`` on the final answer: ``clean`` strips spaces and one pair of surrounding quotes and lower-cases;
  ``exact_match`` compares the cleaned strings; ``must_include`` needs each reference phrase in the answer (when
  the list holds one phrase of one character, the answer's tokens must contain it, so ``"0"`` does not match
  ``"10"``); ``fuzzy_match`` asks an LLM whether the answer is semantically the reference (:mod:`.fuzzy`), and for
  ``"N/A"`` (an unachievable task) wants ``N/A``, else a judged reason. The approaches' scores multiply.
- ``url_match`` (rule ``GOLD in PRED``): some reference URL's base (host + path) is contained in the final URL's,
  and for every query key of the references the final URL carries one of their values. References are joined by
  ``" |OR| "``, and trailing slashes are ignored.
- ``program_html``: for each check, go to its ``url`` (``last``: stay on the final page), select with its
  ``locator`` (a JS expression starting ``document.`` / ``[...document.``, or ``""`` for the page's HTML), unescape
  HTML entities, then ``exact_match`` or every ``must_include`` entry (alternatives joined by ``" |OR| "``).

The evaluators of a task multiply (WebArena's ``EvaluatorComb``).

Deliberate deviations, and why:
- vcoder's sites keep their route in the URL's fragment (one document per site, so the agent's guard can contain
  it): ``url_match`` reads ``__SHOP__/#/search?q=mug`` as base ``__SHOP__/#/search`` with query ``q=mug``, where
  WebArena's ``urlparse`` would drop the fragment. Final URLs are written with the site's placeholder
  (``http://live3.vcoder.invalid/index.html#/cart`` -> ``__SHOP__/#/cart``), as WebArena's references are.
- ``program_html`` URLs go to a route of the same site (the fragment, in place) instead of ``page.goto``; WebArena's
  ``func:`` helpers (its sites' REST APIs) have no counterpart and are refused, as are ``prep_actions``.
- WebArena tokenises with NLTK's ``word_tokenize``; here a regex tokeniser (words, numbers with their decimals,
  single symbols) does the job for the one-character case, without NLTK's data download.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from vcoder.browse.fuzzy import FuzzyJudge
from vcoder.browse.tasks import WebTask

#: ``select(url, locator) -> text``: ``url`` is ``"last"`` or a site URL; the text the locator selects there
Selector = Callable[[str, str], Awaitable[str]]
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|\w+|[^\w\s]")


def clean_answer(answer: str) -> str:
    """WebArena's ``clean_answer``: strip, drop one pair of surrounding quotes, lower-case."""
    answer = answer.strip()
    if len(answer) >= 2 and answer[0] == answer[-1] and answer[0] in "'\"":
        answer = answer[1:-1]
    return answer.lower()


def exact_match(ref: str, pred: str) -> float:
    return float(clean_answer(pred) == clean_answer(ref))


def must_include(ref: str, pred: str, *, tokenize: bool = False) -> float:
    clean_ref, clean_pred = clean_answer(ref), clean_answer(pred)
    if tokenize and len(clean_ref) == 1 and len(_TOKEN.findall(clean_ref)) == 1:
        return float(clean_ref in _TOKEN.findall(clean_pred))
    return float(clean_ref in clean_pred)


async def string_match(task: WebTask, answer: str | None, *, judge: FuzzyJudge | None = None) -> float:
    """WebArena's ``StringEvaluator`` on the final answer (None: the agent gave none, which is the empty string)."""
    pred = clean_answer(answer or "")
    score = 1.0
    for approach, value in (task.eval.reference_answers or {}).items():
        if approach == "exact_match":
            score *= exact_match(value, pred)
        elif approach == "must_include":
            values = [value] if isinstance(value, str) else list(value)
            for ref in values:
                score *= must_include(ref, pred, tokenize=len(values) == 1)
        elif approach == "fuzzy_match":
            judge = judge or FuzzyJudge()
            if value == "N/A":
                score *= exact_match(value, pred)
                if score != 1:
                    score = await judge.unachievable(task.intent, task.eval.string_note, pred)
            else:
                for ref in [value] if isinstance(value, str) else value:
                    score *= await judge.match(task.intent, ref, pred)
    return score


def _clean_url(url: str) -> str:
    return str(url).rstrip("/")


def split_url(url: str) -> tuple[str, dict[str, list[str]]]:
    """``(base, query)`` of a URL, the fragment's route read as path (see the deviations above)."""
    parsed = urllib.parse.urlparse(url)
    base, query = parsed.netloc + parsed.path, urllib.parse.parse_qs(parsed.query)
    if not parsed.netloc and parsed.scheme == "":
        base = parsed.path
    if parsed.fragment:
        route, _, qs = parsed.fragment.partition("?")
        base = f"{_clean_url(base)}/#{route}"
        for k, v in urllib.parse.parse_qs(qs).items():
            query.setdefault(k, []).extend(v)
    return _clean_url(base), query


def url_match(task: WebTask, url: str) -> float:
    """WebArena's ``URLEvaluator`` (``GOLD in PRED``) of the final page's site URL."""
    refs = [_clean_url(u) for u in task.eval.reference_url.split(" |OR| ")]
    ref_bases, ref_queries = [], defaultdict(set)
    for ref in refs:
        base, query = split_url(ref)
        ref_bases.append(base)
        for k, v in query.items():
            ref_queries[k].update(v)
    pred_base, pred_query = split_url(_clean_url(url))
    score = float(any(base in pred_base for base in ref_bases))
    for k, values in ref_queries.items():
        score *= float(any(v in pred_query.get(k, []) for v in values))
    return score


async def program_html(task: WebTask, select: Selector) -> float:
    """WebArena's ``HTMLContentEvaluator``: every check's required contents in what its locator selects."""
    score = 1.0
    for target in task.eval.program_html:
        url, locator = target["url"], target["locator"]
        if url.startswith("func:") or locator.startswith("func:") or target.get("prep_actions"):
            raise ValueError(f"program_html check {target!r}: func: helpers and prep_actions are WebArena-only")
        if locator.strip() and not (locator.startswith("document.") or locator.startswith("[...document.")):
            raise ValueError(f"unknown locator {locator!r}: use a document.* expression or '' (the whole page)")
        selected = html.unescape(await select(url, locator))
        required = target["required_contents"]
        if "exact_match" in required:
            score *= exact_match(required["exact_match"], selected)
        elif "must_include" in required:
            for content in required["must_include"]:
                score *= float(any(must_include(c, selected) for c in content.split(" |OR| ")))
        else:
            raise ValueError(f"unknown required_contents {list(required)!r}: use exact_match or must_include")
    return score


@dataclass(frozen=True)
class Evaluation:
    """A task's outcome: ``score`` is the product of ``scores`` (one per eval type), 1.0 a success.

    ``judged_by`` says who decided: ``"evaluators"`` (the task's own), ``"pending"`` (a task without an evaluator
    whose episode the ORM has not judged yet: score 0.0) or ``"orm"`` (score 1.0 when the ORM said YES; ``scores``
    holds its P(YES) under ``"orm"``).
    """

    score: float
    scores: dict[str, float] = field(default_factory=dict)
    judged_by: str = "evaluators"

    @property
    def success(self) -> bool:
        return self.score >= 1.0


async def evaluate(
    task: WebTask, *, answer: str | None, url: str, select: Selector, judge: FuzzyJudge | None = None
) -> Evaluation:
    """All of a task's evaluators on one final state (WebArena's ``EvaluatorComb``: the scores multiply).

    Args:
        task: the task.
        answer: the agent's final answer (``exit(message=...)``), None if it gave none.
        url: the final page's site URL (``__SHOP__/#/cart``).
        select: reads a locator on the final page or on another route of the site (``program_html``).
        judge: the fuzzy-match judge (default: offline unless an endpoint is configured).
    """
    if task.eval is None:  # a written task: the ORM judges the episode afterwards (vcoder.orm.trajectory)
        return Evaluation(0.0, {}, judged_by="pending")
    scores: dict[str, float] = {}
    for kind in task.eval.eval_types:
        if kind == "string_match":
            scores[kind] = await string_match(task, answer, judge=judge)
        elif kind == "url_match":
            scores[kind] = url_match(task, url)
        else:
            scores[kind] = await program_html(task, select)
    total = 1.0
    for s in scores.values():
        total *= s
    return Evaluation(total, scores)
