"""Serve huge utility stylesheets (Tailwind 2's 2.9 MB ``tailwind.min.css``) pruned to what a page can use.

Sending and parsing the full file costs ~250-500 ms per render here (Playwright disables the browser cache while
requests are intercepted, so nothing is reused across renders). A rule is dropped only when one of the classes
its selector requires appears nowhere in the page's HTML, not even as a word in a script, so such a rule could not
match any element the page creates from its own text: the pixels stay the same (tests compare against the full
file). Rules without class requirements (preflight, ``*``, element selectors) and all other at-rules are kept.
"""

from __future__ import annotations

import re

PRUNE_MIN_BYTES = 256 * 1024
_CLASS = re.compile(r"\.((?:\\[0-9a-fA-F]{1,6} ?|\\.|[\w-])+)")
_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?|\\(.)")
_SPECIAL = re.compile(r"[{};\"']|/\*")
_TOKEN = re.compile(r"[^\s\"'<>=`]+")


def _unescape(name: str) -> str:
    if "\\" not in name:
        return name
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2), name)


def page_tokens(html: str) -> frozenset[str]:
    """Every word of the page (split on whitespace, quotes, ``<>=`` and backticks): a superset of its classes."""
    return frozenset(_TOKEN.findall(html))


def _blocks(css: str, start: int, end: int):
    """Top-level ``(prelude, body span)`` pairs of ``css[start:end]`` (statements like ``@charset``: body None)."""
    item, depth, open_at, pos = start, 0, 0, start
    while True:
        m = _SPECIAL.search(css, pos, end)
        if m is None:
            return
        c, pos = m.group(), m.end()
        if c in ('"', "'"):
            close = css.find(c, pos, end)
            pos = end if close < 0 else close + 1
        elif c == "/*":
            close = css.find("*/", pos, end)
            pos = end if close < 0 else close + 2
        elif c == "{":
            if depth == 0:
                open_at = pos
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                yield css[item : open_at - 1].strip(), (open_at, pos - 1)
                item = pos
        elif depth == 0:  # ";" ends a top-level statement
            yield css[item : pos - 1].strip(), None
            item = pos


def _split_selectors(prelude: str) -> list[str]:
    if "(" not in prelude and "[" not in prelude:
        return prelude.split(",")
    parts, depth, cur = [], 0, []
    for c in prelude:
        depth += c in "(["
        depth -= c in ")]"
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


class PrunableSheet:
    """A parsed stylesheet: leaf rules with the class sets their selectors require, indexed by one class each."""

    def __init__(self, css: str):
        # rules: (wrapper at-rule prelude or None, rule text)
        self.rules: list[tuple[str | None, str]] = []
        self.always: list[int] = []
        self.index: dict[str, list[tuple[int, frozenset[str]]]] = {}
        for prelude, body in _blocks(css, 0, len(css)):
            if body is not None and prelude.startswith(("@media", "@supports")):
                for inner, ibody in _blocks(css, *body):
                    self._add(prelude, inner, ibody, css)
            else:
                self._add(None, prelude, body, css)

    def _add(self, wrapper, prelude, body, css) -> None:
        idx = len(self.rules)
        self.rules.append((wrapper, prelude + ";" if body is None else f"{prelude}{{{css[body[0] : body[1]]}}}"))
        if body is None or prelude.startswith("@"):
            self.always.append(idx)
            return
        for selector in _split_selectors(prelude):
            needed = frozenset(_unescape(m) for m in _CLASS.findall(selector))
            if not needed:
                self.always.append(idx)
                return
            self.index.setdefault(min(needed), []).append((idx, needed))

    def prune(self, tokens: frozenset[str]) -> bytes:
        """The stylesheet restricted to rules that can match given the page's words, as UTF-8 bytes."""
        keep = set(self.always)
        for token in tokens:
            for idx, needed in self.index.get(token, ()):
                if idx not in keep and needed <= tokens:
                    keep.add(idx)
        return _assemble(self, tuple(sorted(keep)))


def _assemble(sheet: PrunableSheet, kept: tuple[int, ...]) -> bytes:
    out, open_wrapper = [], None
    for idx in kept:
        wrapper, text = sheet.rules[idx]
        if wrapper != open_wrapper:
            if open_wrapper is not None:
                out.append("}")
            if wrapper is not None:
                out.append(wrapper + "{")
            open_wrapper = wrapper
        out.append(text)
    if open_wrapper is not None:
        out.append("}")
    return "\n".join(out).encode()
