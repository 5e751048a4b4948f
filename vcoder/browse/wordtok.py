"""NLTK's ``word_tokenize`` as WebArena's ``must_include`` applies it, without NLTK or its data download.

WebArena tokenises the answer when the reference is one character (``"3"`` must be a token of the answer, not a
digit inside ``"13"``). ``nltk.word_tokenize`` first splits sentences with Punkt's trained English model, then
splits each sentence with NLTK's improved Treebank rules. The Treebank rules are reproduced here (checked against
NLTK 3.10's ``NLTKWordTokenizer`` on a grid of answers, ``tests/browse/test_webarena_rules.py``); what they do to
a one-character token:

- kept whole: ``2:30`` and ``5,6`` (``:`` / ``,`` before a digit), ``3pm``, ``-1``, ``5+``, ``5/10``, ``1-2``,
  ``5th``, ``a.b``, and a period inside a sentence (``5.`` before another word of the same sentence);
- split off: ``$ % & ; @ # * ? !``, brackets, ``--`` and Unicode dashes, ``:`` / ``,`` not before a digit,
  ``...``, double quotes, a sentence's final period, quotes and clitics (``'s``, ``n't``, ...).

Punkt's model is not reproduced. A sentence ends after ``.``, ``?`` or ``!`` and white space, except after a
one-character or numeric token with a period when the next word starts with a lower-case letter (Punkt's
orthographic rule for numbers and initials, which answers WebArena lower-cases meet): that is the only Punkt
decision that changes whether a one-character token appears.

Example:
    >>> word_tokenize("at 2:30, 3pm or -1 (5+)? 7 and 8.")
    ['at', '2:30', ',', '3pm', 'or', '-1', '(', '5+', ')', '?', '7', 'and', '8', '.']
"""

from __future__ import annotations

import re

_CLOSERS = "\\]\\)}>\"'\u00bb\u201d\u2019"
# (pattern, replacement) in NLTK's order: opening quotes, punctuation, brackets, dashes; then (on the text padded
# with a space each side) closing quotes and clitics, then the MacIntyre contractions.
_OPENING = [
    (r"([\u00ab\u201c\u2018\u201e]|`+)", r" \1 "),
    (r'^"', "``"),
    (r"(``)", r" \1 "),
    (r"([ (\[{<])(\"|'')", r"\1 `` "),
    (r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)", r"\1 "),
]
_PUNCT = [
    (rf"([^.])(\.)([{_CLOSERS} ]*)\s*$", r"\1 \2 \3 "),
    (r"([:,])([^\d])", r" \1 \2"),
    (r"([:,])$", r" \1 "),
    (r"\.{2,}", r" \g<0> "),
    (r"[;@#$%&]", r" \g<0> "),
    (r"[\u2012-\u2015]", r" \g<0> "),
    (r"([^.])(\.)([\]\)}>\"']*)\s*$", r"\1 \2\3 "),
    (r"[?!]", r" \g<0> "),
    (r"([^'])' ", r"\1 ' "),
    (r"[*]", r" \g<0> "),
    (r"[\]\[\(\)\{\}<>]", r" \g<0> "),
    (r"--", r" -- "),
]
_CLOSING = [
    (r"([\u00bb\u201d\u2019])", r" \1 "),
    (r"''", " '' "),
    (r'"', " '' "),
    (r"\s+", " "),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "),
    (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
]
_CONTRACTIONS = [
    r"(?i)\b(can)(not)\b",
    r"(?i)\b(d)('ye)\b",
    r"(?i)\b(gim)(me)\b",
    r"(?i)\b(gon)(na)\b",
    r"(?i)\b(got)(ta)\b",
    r"(?i)\b(lem)(me)\b",
    r"(?i)\b(more)('n)\b",
    r"(?i)\b(wan)(na)(?=\s)",
    r"(?i) ('t)(is)\b",
    r"(?i) ('t)(was)\b",
]
_RULES = [(re.compile(p), r) for p, r in _OPENING + _PUNCT]
_ENDS = [(re.compile(p), r) for p, r in _CLOSING] + [(re.compile(p), r" \1 \2 ") for p in _CONTRACTIONS]
_SENTENCE_END = re.compile(r"[.?!][" + _CLOSERS + r"]*\s+")
_NUMBER_OR_INITIAL = re.compile(r"(?:-?[.,]?\d[\d,.-]*|[^\W\d])\.$")


def treebank_tokenize(sentence: str) -> list[str]:
    """NLTK's improved Treebank word tokenizer on one sentence (``NLTKWordTokenizer().tokenize``)."""
    for pattern, replacement in _RULES:
        sentence = pattern.sub(replacement, sentence)
    sentence = f" {sentence} "
    for pattern, replacement in _ENDS:
        sentence = pattern.sub(replacement, sentence)
    return sentence.split()


def sentences(text: str) -> list[str]:
    """The text's sentences, split where Punkt would (see the module docstring for what is approximated)."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        before = text[start : m.start() + 1].split()
        after = text[m.end() : m.end() + 1]
        if text[m.start()] == "." and before and _NUMBER_OR_INITIAL.match(before[-1]) and after.islower():
            continue
        out.append(text[start : m.end()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s for s in out if s]


def word_tokenize(text: str, *, preserve_line: bool = False) -> list[str]:
    """``nltk.word_tokenize(text, preserve_line=...)``: sentences (unless ``preserve_line``), then their tokens."""
    parts = [text] if preserve_line else sentences(text)
    return [token for part in parts for token in treebank_tokenize(part)]
