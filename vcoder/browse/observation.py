"""WebRL's text observation: the page as simplified HTML in which every interactive element carries an id.

WebRL (Qi et al., 2024) and VisualAgentBench's WebArena-Lite "WebRL setting" give the policy a simplified HTML of the
page at each step, its interactive elements numbered (``<button id="12">Search</button>``), and read back an action
that names an element by that id. Here the ids are the GUI agent's element numbers (:meth:`GuiEnv.elements`, the
same page-side list its actions resolve against), so the id the policy names is exactly the element it saw. One
``page.evaluate`` walks the visible document: text and headings as lines, each interactive element once, as a tag
with its id, its text, its value and, for a ``select``, its options. Hidden nodes (``display: none``,
``visibility: hidden``) are left out; elements outside the viewport are kept (WebRL's pages are the whole document,
and the policy still has scrolling).

Example (inside a coroutine, ``env`` a :class:`vcoder.gui.env.GuiEnv`)::

    text = await observe_text(env)   # '<h1>Catalogue</h1>\\n<input id="4" value="">Search products</input>'
"""

from __future__ import annotations

import asyncio
from typing import Any

from vcoder.gui.marks import Element

#: reads of a page that changed between listing its elements and walking it, before giving up
STALE_RETRIES = 5
#: one walk of the visible DOM: ["t", text] text, ["b", tag] a block edge (tag: a heading's, else ""), ["e", n, extra]
#: interactive element n (1-based, in the GuiEnv's list) with its tag, input type and a select's options
WALK_JS = """() => {
  const els = window.__vcoderElements || [];
  if (els.some((e) => !e.isConnected)) return null;  // the page changed since the elements were listed
  const ids = new Map(els.map((e, i) => [e, i + 1]));
  const out = [];
  const walk = (node) => {
    if (node.nodeType === 3) {
      const t = node.textContent.replace(/\\s+/g, ' ').trim();
      if (t) out.push(['t', t]);
      return;
    }
    if (node.nodeType !== 1) return;
    if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD'].includes(node.tagName)) return;
    const cs = getComputedStyle(node);
    if (cs.display === 'none' || cs.visibility === 'hidden') return;
    const tag = node.tagName.toLowerCase();
    if (ids.has(node)) {
      const options = tag === 'select' ? Array.from(node.options).map((o) => o.text.trim()) : null;
      out.push(['e', ids.get(node), {tag, type: (node.getAttribute('type') || '').toLowerCase(), options}]);
      return;
    }
    const block = !(cs.display.startsWith('inline') || cs.display === 'table-cell') || tag === 'br';
    const heading = /^h[1-6]$/.test(tag) ? tag : '';
    if (block) out.push(['b', heading]);
    for (const child of node.childNodes) walk(child);
    if (block) out.push(['b', '']);
  };
  walk(document.body);
  return out;
}"""


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;")


def element_tag(element: Element, extra: dict[str, Any]) -> str:
    """One interactive element as WebRL reads it: ``<tag id="n" ...>text</tag>``."""
    tag = extra.get("tag") or "span"
    attrs = [f'id="{element.index}"']
    if extra.get("type"):
        attrs.append(f'type="{_attr(extra["type"])}"')
    if element.value is not None and tag in ("input", "textarea", "select"):
        attrs.append(f'value="{_attr(element.value)}"')
    if extra.get("options"):
        attrs.append("options=" + _attr("|".join(extra["options"])).join('""'))
    return f"<{tag} {' '.join(attrs)}>{element.text}</{tag}>"


def format_walk(items: list, elements: tuple[Element, ...]) -> str:
    """The walk's items as lines of simplified HTML (pure; the layout of a known page is tested)."""
    by_index = {e.index: e for e in elements}
    lines: list[str] = []
    line: list[str] = []
    heading = ""

    def flush() -> None:
        nonlocal heading
        if line:
            text = " ".join(line)
            lines.append(f"<{heading}>{text}</{heading}>" if heading else text)
            line.clear()

    for item in items:
        if item[0] == "b":
            flush()
            heading = item[1]
        elif item[0] == "t":
            line.append(item[1])
        elif item[1] in by_index:
            line.append(element_tag(by_index[item[1]], item[2]))
    flush()
    return "\n".join(lines)


async def observe_page(env: Any) -> tuple[str, tuple[Element, ...]]:
    """The current page of ``env`` (a :class:`vcoder.gui.env.GuiEnv`) as WebRL's text observation, and the elements
    its ids number (refreshed now, valid until the next observation; a screenshot's marks drawn from them match).

    Raises:
        PageHung: the page no longer answers (the episode is then over).
        RuntimeError: the page never held still long enough to be read.
    """
    await env.ensure_started()
    for _ in range(STALE_RETRIES):
        elements = await env.elements()
        items = await env.guard(env.page.evaluate(WALK_JS), what="reading the page")
        if items is not None:
            return format_walk(items, elements), elements
        await asyncio.sleep(0.05)  # a re-render was under way (a route's hashchange fires after the click returned)
    raise RuntimeError(f"the page kept changing while it was read ({STALE_RETRIES} tries)")


async def observe_text(env: Any) -> str:
    """:func:`observe_page`'s text alone."""
    text, _ = await observe_page(env)
    return text
