"""WebArena's fuzzy string match: an LLM judges whether an answer means the reference, with an offline fallback.

WebArena (``evaluation_harness/helper_functions.py``) asks GPT-4 to "help a teacher grade the answer of a student"
given the question, the reference and the answer, and to conclude with correct / incorrect / partially correct;
only ``correct`` scores 1. For an unachievable task (reference ``N/A``) it asks whether the answer's reason
matches the task's ``string_note``. :class:`FuzzyJudge` sends the same two questions to any OpenAI-compatible
endpoint (:class:`vcoder.chat.Endpoint`).

Without an endpoint (CI, offline runs) it falls back, and says so in its ``mode``: the answer matches when every
content word and number of the reference (lower-cased, punctuation dropped, ``$1,200.50`` read as ``1200.50``)
appears in the answer. It is stricter than a judge about paraphrase and never credits a wrong number; an
unachievable task's answer matches when it says ``N/A`` / ``not achievable`` / ``not available``.
"""

from __future__ import annotations

import logging
import re

from vcoder.chat import Endpoint, connect

logger = logging.getLogger(__name__)

MATCH_PROMPT = (
    "Help a teacher to grade the answer of a student given a question. Keep in mind that the student may use "
    "different phrasing or wording to answer the question. The goal is to evaluate whether the answer is "
    "semantically equivalent to the reference answer.\nquestion: {question}\nreference answer: {reference}\n"
    "all the string 'N/A' that you see is a special sequence that means 'not achievable'\nstudent answer: {answer}\n"
    "Conclude the judgement by correct/incorrect/partially correct."
)
UNACHIEVABLE_PROMPT = (
    "You are given the task, the reason why it is not achievable and an answer. Is the answer's reason for not "
    "doing the task the same as the given one?\ntask: {question}\nreason: {reference}\nanswer: {answer}\n"
    "Conclude the judgement by same/different."
)
_STOP = {"the", "a", "an", "of", "is", "are", "it", "and", "to", "in", "on", "for", "with", "by", "at"}
_UA = ("n/a", "not achievable", "not available", "cannot be done", "impossible")


def _words(text: str) -> list[str]:
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text.lower())
    return [w for w in re.findall(r"\d+(?:\.\d+)?|[a-z]+", text) if w not in _STOP]


def offline_match(reference: str, answer: str) -> float:
    """1.0 when every content word and number of ``reference`` is in ``answer`` (the fallback rule above)."""
    if not answer.strip():
        return float(not reference.strip())
    need, have = _words(reference), set(_words(answer))
    return float(bool(need) and all(w in have for w in need))


class FuzzyJudge:
    """The fuzzy-match judge: an LLM behind ``endpoint``, or the offline rule when none is configured.

    Args:
        endpoint: an OpenAI-compatible endpoint (None or unconfigured: offline).
    """

    def __init__(self, endpoint: Endpoint | None = None) -> None:
        self.endpoint = endpoint if endpoint is not None and endpoint.configured else None
        self.mode = "llm" if self.endpoint else "offline"

    async def _ask(self, prompt: str) -> str:
        async with connect(self.endpoint) as client:
            reply = await client.chat(
                [{"role": "user", "content": prompt}], temperature=0.0, max_tokens=self.endpoint.max_tokens or 256
            )
        return reply.text.lower()

    async def match(self, question: str, reference: str, answer: str) -> float:
        """WebArena's ``llm_fuzzy_match``: 1.0 when judged correct (an empty answer matches an empty reference)."""
        if not answer:
            return float(not reference)
        if self.endpoint is None:
            return offline_match(reference, answer)
        text = await self._ask(MATCH_PROMPT.format(question=question, reference=reference, answer=answer))
        if "partially correct" in text or "incorrect" in text:
            return 0.0
        return float("correct" in text)

    async def unachievable(self, question: str, reason: str, answer: str) -> float:
        """WebArena's ``llm_ua_match``: the answer's reason for not doing the task is the reference reason."""
        if self.endpoint is None:
            return float(any(m in answer.lower() for m in _UA))
        text = await self._ask(UNACHIEVABLE_PROMPT.format(question=question, reference=reason, answer=answer))
        return float("different" not in text and "same" in text)
