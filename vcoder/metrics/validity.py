"""HTML validity that discriminates: count real HTML5 problems and grade them.

A public validity reward gives ~0.7 to anything inside a fence; this one parses the document (stdlib
``html.parser``, tolerant of anything, linear time, no recursion) while keeping an HTML5-aware element stack, and
counts what a browser had to repair or what a validator would flag.
"""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

__all__ = ["validity_report", "validity_score", "ISSUE_WEIGHTS"]

VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
# HTML5 elements whose end tag may be omitted (closed implicitly by a sibling, the parent's end, or EOF)
OPTIONAL_END = frozenset(
    "html head body li dt dd p rt rp optgroup option colgroup caption thead tbody tfoot tr td th".split()
)
_BLOCK = "address article aside blockquote details div dl fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr main nav ol p pre section table ul"
# start tag -> open elements it closes implicitly when they are on top of the stack
IMPLIED_CLOSE = {
    **{tag: {"p"} for tag in _BLOCK.split()},
    "li": {"li", "p"},
    "dt": {"dt", "dd", "p"},
    "dd": {"dt", "dd", "p"},
    "tr": {"tr", "td", "th"},
    "td": {"td", "th"},
    "th": {"td", "th"},
    "thead": {"tbody", "tfoot", "tr", "td", "th"},
    "tbody": {"thead", "tbody", "tfoot", "tr", "td", "th"},
    "tfoot": {"thead", "tbody", "tr", "td", "th"},
    "option": {"option"},
    "optgroup": {"option", "optgroup"},
    "body": {"head"},
}
KNOWN = frozenset(
    """a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption cite code col
    colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure footer form h1 h2
    h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link main map mark menu meta
    meter nav noscript object ol optgroup option output p param picture pre progress q rp rt ruby s samp script
    search section select slot small source span strong style sub summary sup table tbody td template textarea tfoot
    th thead time title tr track u ul var video wbr svg math center font marquee""".split()
)
HEAD_OK = frozenset("title meta link style script base noscript template".split())
# weight of one occurrence of each issue in the graded score
ISSUE_WEIGHTS = {
    "unclosed": 1.0,
    "misnested": 1.0,
    "stray_end": 1.0,
    "parse_errors": 1.0,
    "unknown_tags": 0.5,
    "duplicate_ids": 0.5,
    "outside_body": 0.5,
    "duplicate_attributes": 0.5,
    "self_closing_non_void": 0.25,
}
# absolute deductions for missing document structure
STRUCTURE_WEIGHTS = {
    "missing_doctype": 0.1,
    "missing_html": 0.05,
    "missing_head": 0.05,
    "missing_body": 0.1,
    "truncated": 0.1,
}
_ATTR_NAME = re.compile(r"""\s([^\s"'>/=]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?""")


class _Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.open: dict[str, int] = {}  # open element counts: membership tests stay O(1) on 50k-deep pages
        self.counts = dict.fromkeys(list(ISSUE_WEIGHTS) + ["n_elements"], 0)
        self.seen: set[str] = set()
        self.ids: dict[str, int] = {}
        self.doctype = False
        self.body_closed = False

    def handle_decl(self, decl):
        if decl.lower().startswith("doctype"):
            if self.seen:
                self.counts["parse_errors"] += 1  # doctype after content
            self.doctype = self.doctype or "html" in decl.lower()

    def unknown_decl(self, data):
        self.counts["parse_errors"] += 1

    def _start(self, tag, attrs, self_closing):
        counts = self.counts
        counts["n_elements"] += 1
        self.seen.add(tag)
        if tag not in KNOWN and "-" not in tag and not self._in_foreign():
            counts["unknown_tags"] += 1
        names = [n for n, _ in attrs]
        if len(names) != len(set(names)):
            counts["duplicate_attributes"] += len(names) - len(set(names))
        for name, value in attrs:
            if name == "id" and value:
                self.ids[value] = self.ids.get(value, 0) + 1
        if tag not in ("html", "head", "body") and tag not in HEAD_OK:
            in_head = self._is_open("head") and not self._is_open("body")
            if self.body_closed or in_head:
                counts["outside_body"] += 1
        closes = IMPLIED_CLOSE.get(tag)
        while closes and self.stack and self.stack[-1] in closes:
            self._pop()
        if tag in VOID:
            return
        if self_closing:
            if not self._in_foreign():
                counts["self_closing_non_void"] += 1
            return
        self.stack.append(tag)
        self.open[tag] = self.open.get(tag, 0) + 1

    def _pop(self) -> str:
        tag = self.stack.pop()
        self.open[tag] -= 1
        return tag

    def _is_open(self, tag: str) -> bool:
        return self.open.get(tag, 0) > 0

    def _in_foreign(self) -> bool:
        return self._is_open("svg") or self._is_open("math")

    def handle_starttag(self, tag, attrs):
        self._start(tag, attrs, False)

    def handle_startendtag(self, tag, attrs):
        self._start(tag, attrs, tag not in VOID)

    def handle_endtag(self, tag):
        if tag == "body":
            self.body_closed = True
        if tag in VOID:  # </br>, </img>: never valid (browsers turn </br> into <br>)
            self.counts["stray_end"] += 1
            return
        if not self._is_open(tag):
            if tag not in ("html", "head", "body") or tag not in self.seen:
                self.counts["stray_end"] += 1
            return
        while self.stack:
            top = self._pop()
            if top == tag:
                return
            if top not in OPTIONAL_END:
                self.counts["misnested"] += 1

    def handle_data(self, data):
        if not data.strip():
            return
        top = self.stack[-1] if self.stack else None
        if top in ("title", "style", "script", "noscript", "template"):
            return
        if self.body_closed or (self.stack and self.stack[0] == "html" and not self._is_open("body")):
            self.counts["outside_body"] += 1

    def finish(self) -> dict[str, int]:
        self.close()
        if self.rawdata.strip():  # an unterminated tag or comment at the end
            self.counts["parse_errors"] += 1
        self.counts["unclosed"] += sum(1 for tag in self.stack if tag not in OPTIONAL_END)
        self.counts["duplicate_ids"] = sum(n - 1 for n in self.ids.values() if n > 1)
        return self.counts


def validity_report(html: str) -> dict[str, int]:
    """Count the HTML5 problems of a document.

    Args:
        html: the document (e.g. ``extract_html`` output).

    Returns:
        Counts: ``unclosed``, ``misnested``, ``stray_end``, ``parse_errors``, ``unknown_tags``, ``duplicate_ids``
        (extra occurrences), ``outside_body`` (text or elements outside ``<body>``), ``duplicate_attributes``,
        ``self_closing_non_void``, ``n_elements``, and 0/1 flags ``missing_doctype``, ``missing_html``,
        ``missing_head``, ``missing_body``, ``truncated`` (no ``</html>`` at the end).
    """
    if not isinstance(html, str):
        raise TypeError(f"validity_report expects the HTML as a str, got {type(html).__name__}")
    checker = _Checker()
    try:
        checker.feed(html)
        counts = checker.finish()
    except AssertionError:  # html.parser asserts on a few malformed declarations
        counts = checker.counts
        counts["parse_errors"] += 1
    lowered = html.lower()
    counts.update(
        missing_doctype=int(not checker.doctype),
        missing_html=int("html" not in checker.seen),
        missing_head=int("head" not in checker.seen),
        missing_body=int("body" not in checker.seen),
        truncated=int(not lowered.rstrip().endswith("</html>")),
    )
    return counts


def validity_score(html: str | None) -> float:
    """Graded HTML validity in [0, 1]: 1 for a clean HTML5 document, falling with every problem found.

    ``score = 1 - structure - 0.6 * w / (w + 0.1 * n_elements + 2)`` where ``structure`` sums fixed deductions for
    a missing doctype (0.1), ``<html>`` (0.05), ``<head>`` (0.05), ``<body>`` (0.1) and a missing final ``</html>``
    (0.1), and ``w`` is the weighted count of element-level problems (``ISSUE_WEIGHTS``: unclosed, misnested and
    stray end tags and parse errors 1; unknown tags, duplicate ids, content outside body, duplicate attributes 0.5;
    self-closing non-void tags 0.25). The element term grows strictly with each problem and saturates at 0.6, and
    is relative to the document size so one slip in a long page costs less than in a tiny one. No HTML, or a
    document without any element, scores 0.

    Args:
        html: the document, or None (no HTML found: 0).

    Returns:
        The validity score in [0, 1].

    Example:
        >>> validity_score("<!DOCTYPE html><html><head><title>t</title></head><body><p>x</p></body></html>")
        1.0
    """
    if html is None or not html.strip():
        return 0.0
    report = validity_report(html)
    if report["n_elements"] == 0:
        return 0.0
    structure = sum(w * report[k] for k, w in STRUCTURE_WEIGHTS.items())
    weighted = sum(w * report[k] for k, w in ISSUE_WEIGHTS.items())
    element_term = 0.6 * weighted / (weighted + 0.1 * report["n_elements"] + 2.0)
    return float(min(max(1.0 - structure - element_term, 0.0), 1.0)) if math.isfinite(element_term) else 0.0
