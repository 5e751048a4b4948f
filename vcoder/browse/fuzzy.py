"""WebArena's fuzzy string match: an LLM judges whether an answer means the reference, with an offline fallback.

WebArena (``evaluation_harness/helper_functions.py``: ``llm_fuzzy_match`` and ``llm_ua_match``) sends a system
message "You are a helpful assistant" and a user message, at temperature 0, top_p 1 and 768 tokens at most.
``llm_fuzzy_match`` asks the model to "help a teacher to grade the answer of a student" given the question, the
reference and the answer, and to conclude with correct / incorrect / partially correct; a reply containing
"partially correct" or "incorrect" scores 0, else 1 (WebArena asserts it contains "correct"). ``llm_ua_match`` gives
the task, the "actual unachievable reason" (the task's ``string_note``) and the "reported unachievable reason" and
asks for ``same`` or ``different``; "different" scores 0, else 1. :class:`FuzzyJudge` sends those two prompts,
word for word (:data:`MATCH_PROMPT`, :data:`UNACHIEVABLE_PROMPT`), to any OpenAI-compatible endpoint
(:class:`vcoder.chat.Endpoint`); a reply with neither verdict scores 0 where WebArena's assertion would raise.

Without an endpoint (CI, offline runs) it falls back, and says so in its ``mode``. The offline rule may be stricter
than an LLM judge, never more lenient: the answer matches when

1. every content word and number of the reference appears in the answer, in the reference's order (numbers read
   with their sign, ``$1,200.50`` as ``1200.5`` and ``-5`` as ``-5``, never ``5``);
2. every other word of the answer is framing: a stop word, a common answer verb ("uses", "costs", ...) or a word of
   the question -- never another number, another name, a negation or a hedge ("or", "not", "maybe", ...);
3. the answer asks nothing (no ``?`` unless the reference has one).

So "It uses the MIT license." matches "MIT License", and none of "MIT License, Apache License 2.0 or BSD 3-Clause
License", "not MIT License", "5" for "-5", "5 open, 3 closed" for "3 open, 5 closed", or "MIT License?" does. An
unachievable task's reason matches offline when the answer says ``N/A`` / ``not achievable`` / ``not available``
and states every content word of the task's ``string_note`` (:func:`offline_unachievable`).

Example:
    >>> offline_match("MIT License", "It uses the MIT license.", question="What license does kv-store use?")
    1.0
    >>> offline_match("MIT License", "MIT License or Apache License 2.0")
    0.0
"""

from __future__ import annotations

import functools
import logging
import re

from vcoder.chat import Endpoint, connect

logger = logging.getLogger(__name__)

#: WebArena's ``llm_fuzzy_match`` user message (its system message: :data:`SYSTEM_PROMPT`)
MATCH_PROMPT = (
    "Help a teacher to grade the answer of a student given a question. Keep in mind that the student may use "
    "different phrasing or wording to answer the question. The goal is to evaluate whether the answer is "
    "semantically equivalent to the reference answer.\nquestion: {question}\nreference answer: {reference}\n"
    "all the string 'N/A' that you see is a special sequence that means 'not achievable'\nstudent answer: {answer}\n"
    "Conclude the judgement by correct/incorrect/partially correct."
)
#: WebArena's ``llm_ua_match`` user message
UNACHIEVABLE_PROMPT = (
    "task: {question}\nactual unachievable reason: {reference}\nreported unachievable reason: {answer}\n"
    "The task described above is inherently unachievable due to the reason specified under 'actual unachievable "
    "reason'. An individual previously attempted this task and was unable to complete it. They provided a reason "
    "for their failure, which is listed under 'reported unachievable reason'. Your role is to review both the "
    "actual and reported reasons. Determine if the reported reason aligns with the actual reason, even if "
    "implicitly. If the stated reason is in line with the actual reason, respond with 'same'. Otherwise, respond "
    "with 'different'."
)
SYSTEM_PROMPT = "You are a helpful assistant"
#: WebArena's sampling for both judges
JUDGE_SAMPLING = {"temperature": 0.0, "max_tokens": 768, "top_p": 1.0}

_STOP = {"the", "a", "an", "of", "is", "are", "it", "and", "to", "in", "on", "for", "with", "by", "at"}
# framing an answer may add around the reference (besides _STOP and the question's words)
_FRAME = _STOP | {
    *"was were be been its s this that there here as from has have had do does did which who whose what".split(),
    *"answer final called named titled use uses used using cost costs priced price total licensed under".split(),
}
# never framing, even when the question has them: a hedge, a negation or an alternative changes the answer
_HEDGE = set(
    "or nor either neither not no never none nothing t isn aren wasn doesn don didn cannot can couldn won maybe "
    "perhaps possibly probably likely unlikely might could guess unsure unclear unknown except but instead rather "
    "than without approximately about around roughly nearly almost least".split()
)
_UA = ("n/a", "not achievable", "not available", "cannot be done", "impossible")
_TOKEN = re.compile(r"(?<![\w.])([-\u2212]?)\$?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)|([^\W\d_]+)")


def _number(sign: str, digits: str) -> str:
    digits = re.sub(r",(?=\d{3}(?!\d))", "", digits)
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    value = digits.lstrip("0") or "0"
    return f"#-{value}" if sign and value != "0" else f"#{value}"


def _tokens(text: str) -> list[str]:
    """Lower-cased words and numbers (``#`` + the normalised value, sign kept) of ``text``, in order."""
    out = []
    for m in _TOKEN.finditer(text.lower()):
        if m.group(2) is not None:
            out.append(_number(m.group(1), m.group(2)))
        elif m.group(3) is not None:
            out.append(_number("", m.group(3)))
        else:
            out.append(m.group(4))
    return out


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "e", "d"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def offline_match(reference: str, answer: str, *, question: str = "") -> float:
    """1.0 when ``answer`` states ``reference`` and nothing else (the offline rule of the module docstring)."""
    if not answer.strip():
        return float(not reference.strip())
    need = [w for w in _tokens(reference) if w not in _STOP]
    have = _tokens(answer)
    if not need:
        return float(" ".join(reference.lower().split()) == " ".join(answer.lower().split()))
    if "?" in answer and "?" not in reference:
        return 0.0
    asked = {_stem(w) for w in _tokens(question) if not w.startswith("#")}

    def framing(word: str) -> bool:
        return not word.startswith("#") and word not in _HEDGE and (word in _FRAME or _stem(word) in asked)

    @functools.cache
    def covers(i: int, j: int) -> bool:  # have[i:] states need[j:] and frames the rest
        if i == len(have):
            return j == len(need)
        if j < len(need) and have[i] == need[j] and covers(i + 1, j + 1):
            return True
        return framing(have[i]) and covers(i + 1, j)

    return float(covers(0, 0))


def offline_unachievable(reason: str, answer: str) -> float:
    """1.0 when ``answer`` says the task cannot be done (``N/A``, ``not achievable``, ...), states every content
    word of the actual ``reason`` and hedges nothing the reason does not (a reason it does not state scores 0)."""
    low = answer.lower()
    if not any(m in low for m in _UA):
        return 0.0
    said, because = set(_tokens(answer)), set(_tokens(reason))
    hedged = (said & _HEDGE) - because - {"not", "no", "cannot", "t"}  # "not achievable", "no such ..."
    numbers = {w for w in said if w.startswith("#")} - because  # an answer beside the refusal
    return float(all(w in said for w in because - _STOP) and not hedged and not numbers)


class FuzzyJudge:
    """The fuzzy-match judge: an LLM behind ``endpoint``, or the offline rule when none is configured.

    Args:
        endpoint: an OpenAI-compatible endpoint (None or unconfigured: offline).
    """

    def __init__(self, endpoint: Endpoint | None = None) -> None:
        self.endpoint = endpoint if endpoint is not None and endpoint.configured else None
        self.mode = "llm" if self.endpoint else "offline"

    async def _ask(self, prompt: str) -> str:
        sampling = dict(JUDGE_SAMPLING, max_tokens=self.endpoint.max_tokens or JUDGE_SAMPLING["max_tokens"])
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
        async with connect(self.endpoint) as client:
            reply = await client.chat(messages, **sampling)
        return reply.text.lower()

    async def match(self, question: str, reference: str, answer: str) -> float:
        """WebArena's ``llm_fuzzy_match``: 1.0 when judged correct (an empty answer matches an empty reference)."""
        if not answer:
            return float(not reference)
        if self.endpoint is None:
            return offline_match(reference, answer, question=question)
        text = await self._ask(MATCH_PROMPT.format(question=question, reference=reference, answer=answer))
        if "partially correct" in text or "incorrect" in text:
            return 0.0
        return float("correct" in text)

    async def unachievable(self, question: str, reason: str, answer: str) -> float:
        """WebArena's ``llm_ua_match``: the answer's reason for not doing the task is the reference reason."""
        if self.endpoint is None:
            return offline_unachievable(reason, answer)
        text = await self._ask(UNACHIEVABLE_PROMPT.format(question=question, reference=reason, answer=answer))
        return float("different" not in text and "same" in text)
