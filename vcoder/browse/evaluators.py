"""WebArena's three evaluators (``evaluation_harness/evaluators.py`` of Zhou et al., 2024), on WebArena's rules.

- ``string_match`` (``StringEvaluator``) on the final answer: ``clean_answer`` strips white space, then drops the
  first and last character when both are ``'`` or both ``"`` (so a lone ``'`` becomes ``""``), and lower-cases;
  the answer is cleaned once on reading and again inside each comparison, as WebArena does. ``exact_match``
  compares cleaned strings. ``must_include`` needs each reference phrase as a substring of the answer, except when
  the list holds ONE phrase that is one character (and one token): then that character must be one of NLTK's
  ``word_tokenize`` tokens of the answer (:mod:`.wordtok`), so ``"3"`` is not found in ``"13"``, ``"2:30"``,
  ``"3pm"``, ``"-3"`` or ``"3+"``, and is found in ``"$3"``, ``"(3)"``, ``"3%"`` or ``"it is 3."``.
  ``fuzzy_match`` asks a judge whether the answer means each reference (:mod:`.fuzzy`, WebArena's prompts); for
  the reference ``"N/A"`` an exact ``n/a`` scores 1, else the judge compares the answer's reason with the task's
  ``string_note`` and its verdict REPLACES the score so far. The approaches' scores multiply.
- ``url_match`` (``URLEvaluator``, rule ``GOLD in PRED``): the final URL and each reference (references joined by
  ``" |OR| "``) lose their trailing slashes (``rstrip("/")`` of the whole URL, so ``/search/?q=mug`` keeps its
  ``/``); a URL's base is host + path and its query is ``parse_qs`` of the query (blank values dropped, ``+`` and
  ``%xx`` decoded). Some reference base must be a substring of the final base, and for every query key of the
  references (pooled over all references) the final URL must carry one of their values under that key.
- ``program_html`` (``HTMLContentEvaluator``): for each check, go to its ``url`` (``last``: stay), select with its
  ``locator`` -- ``""`` is the page's HTML (``page.content()``), a JS expression starting ``document.`` or
  ``[...document.`` is evaluated and its value turned to text by Python's ``str`` (null and undefined are
  ``"None"``, booleans ``"True"``/``"False"``, arrays ``"['a', 'b']"``), a locator that throws selects ``""`` --
  unescape HTML entities, then ``exact_match`` or every ``must_include`` entry (no tokenisation; alternatives
  joined by ``" |OR| "``).

The evaluators of a task multiply (``EvaluatorComb``). ``tests/browse/test_webarena_rules.py`` checks these verdicts
on cases derived from WebArena's code.

Deviations that remain, and why:
- vcoder's sites keep their route in the URL's fragment (one document per site, so the agent's guard can contain
  it): ``url_match`` reads ``__SHOP__/#/search?q=mug`` as base ``__SHOP__/#/search`` with query ``q=mug`` (WebArena's
  rules applied to the route as if it were the path), where WebArena's ``urlparse`` would drop the fragment. The
  separator is normalised (``__SHOP__#/cart`` is ``__SHOP__/#/cart``). Final URLs are written with the site's
  placeholder (``http://live3.vcoder.invalid/index.html#/cart`` -> ``__SHOP__/#/cart``), as WebArena's references
  are.
- ``program_html`` URLs go to a route of the same site (the fragment, in place) instead of ``page.goto`` and its
  3-second sleep; WebArena's ``func:`` helpers (its sites' REST APIs) and ``prep_actions`` have no counterpart and
  are refused with a one-line error rather than run.
- NLTK's sentence splitter (Punkt, a trained model behind a data download) is approximated (:mod:`.wordtok`); the
  word rules are NLTK's (3.10, the version WebArena's unpinned requirement installs today).
- ``must_include`` also accepts a bare string (one phrase) where WebArena asserts a list, and a ``fuzzy_match`` list
  of references likewise; WebArena would stop with an AssertionError.
- The fuzzy judge (:mod:`.fuzzy`): without an endpoint an offline rule that may be stricter than an LLM, never
  more lenient; with one, the endpoint's model judges (WebArena: gpt-4-1106-preview; the endpoint's ``max_tokens``,
  when set, replaces 768), an empty answer scores without a call (1 only for an empty reference), and a reply with
  no verdict scores 0 where WebArena's assertion would raise.
"""

from __future__ import annotations

import html
import urllib.parse
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from vcoder.browse.fuzzy import FuzzyJudge
from vcoder.browse.tasks import WebTask
from vcoder.browse.wordtok import word_tokenize

#: ``select(url, locator) -> text``: ``url`` is ``"last"`` or a site URL; the text the locator selects there
Selector = Callable[[str, str], Awaitable[str]]


def clean_answer(answer: str) -> str:
    """WebArena's ``clean_answer``: strip, drop the first and last character when both are ``'`` or both ``"``
    (a lone quote included), lower-case."""
    answer = answer.strip()
    if answer[:1] in ("'", '"') and answer.endswith(answer[:1]):
        answer = answer[1:-1]
    return answer.lower()


def exact_match(ref: str, pred: str) -> float:
    return float(clean_answer(pred) == clean_answer(ref))


def must_include(ref: str, pred: str, *, tokenize: bool = False) -> float:
    clean_ref, clean_pred = clean_answer(ref), clean_answer(pred)
    if tokenize and len(clean_ref) == 1 and len(word_tokenize(clean_ref)) == 1:
        return float(clean_ref in word_tokenize(clean_pred))
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
    """WebArena's ``clean_url``: every trailing slash of the whole URL removed, nothing else."""
    return str(url).rstrip("/")


def split_url(url: str) -> tuple[str, dict[str, list[str]]]:
    """``(base, query)`` of a URL: host + path and ``parse_qs`` of the query, the fragment's route read as the path
    (see the deviations above). Nothing is stripped here: ``url_match`` strips the whole URL's trailing slashes
    first, as WebArena does, so ``__SHOP__/#/search/?q=mug`` keeps base ``__SHOP__/#/search/``."""
    parsed = urllib.parse.urlparse(url)
    base, query = parsed.netloc + parsed.path, urllib.parse.parse_qs(parsed.query)
    if parsed.fragment:
        route, _, qs = parsed.fragment.partition("?")
        base = f"{base.rstrip('/')}/#{route}"
        for k, v in urllib.parse.parse_qs(qs).items():
            query.setdefault(k, []).extend(v)
    return base, query


def url_match(task: WebTask, url: str) -> float:
    """WebArena's ``URLEvaluator`` (``GOLD in PRED``) of the final page's site URL."""
    refs = [_clean_url(u) for u in task.eval.reference_url.split(" |OR| ")]
    ref_bases, ref_queries = [], defaultdict(set)
    for ref in refs:
        base, query = split_url(ref)
        ref_bases.append(base)
        for k, v in query.items():
            ref_queries[k].update(v)
    pred_base, pred_query = split_url(_clean_url(url))  # GOLD in PRED: a substring of the final base
    score = float(any(base in pred_base for base in ref_bases))
    for k, values in ref_queries.items():
        score *= float(any(v in pred_query.get(k, []) for v in values))
    return score


def selected_text(value: object) -> str:
    """What WebArena's ``program_html`` compares for a locator's JS value: Python's ``str`` of it (null and undefined
    are ``"None"``, ``true`` is ``"True"``, ``[1, 2]`` is ``"[1, 2]"``); an empty result stays ``""``."""
    return str(value) or ""


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
