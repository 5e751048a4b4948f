"""Numbered interactive elements of a page and the marked screenshot drawn from them (set-of-marks prompting).

``ELEMENTS_JS`` lists the visible interactive elements in ONE ``page.evaluate`` (a round trip per element would
cost ~1 ms each) and keeps them in a page-side array, so an element number resolves to exactly the element the
agent saw. :func:`draw_marks` draws each element's box and number on the screenshot for VLM policies
(WebVoyager, He et al., 2024).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

INTERACTIVE_SELECTOR = (
    "a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], [role=tab], "
    "[role=checkbox], [role=menuitem], [onclick], summary, label[for], [tabindex]:not([tabindex='-1']), "
    "[contenteditable=''], [contenteditable=true]"
)
ELEMENTS_JS = """([sel, cap]) => {
  const out = [], keep = [];
  const vw = window.innerWidth, vh = window.innerHeight;
  for (const el of document.querySelectorAll(sel)) {
    if (out.length >= cap) break;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none' || Number(cs.opacity) === 0) continue;
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || '').toLowerCase();
    let role = el.getAttribute('role') || '';
    if (!role) {
      if (tag === 'a') role = 'link';
      else if (tag === 'button' || tag === 'summary' || ['button', 'submit', 'reset'].includes(type)) role = 'button';
      else if (tag === 'select') role = 'combobox';
      else if (tag === 'textarea') role = 'textbox';
      else if (tag === 'input') role = ['checkbox', 'radio', 'range'].includes(type) ? type : 'textbox';
      else if (tag === 'label') role = 'label';
      else role = 'generic';
    }
    let text = el.getAttribute('aria-label') || '';
    if (!text && el.labels && el.labels.length) text = el.labels[0].innerText;
    if (!text && tag === 'select') text = el.selectedIndex >= 0 ? el.options[el.selectedIndex].text : '';
    if (!text) text = (el.innerText || '').trim();
    if (!text && tag !== 'select') text = el.value || el.getAttribute('placeholder') || '';
    if (!text) text = el.getAttribute('title') || el.getAttribute('alt') || '';
    text = String(text).replace(/\\s+/g, ' ').trim().slice(0, 80);
    const value = ('value' in el && tag !== 'button') ? String(el.value).slice(0, 80) : null;
    const inView = r.bottom > 0 && r.right > 0 && r.top < vh && r.left < vw;
    keep.push(el);
    out.push({tag, role, text, value, box: [r.left, r.top, r.width, r.height], inView});
  }
  window.__vcoderElements = keep;
  return out;
}"""


@dataclass(frozen=True)
class Element:
    """One numbered interactive element of the current page state.

    Attributes:
        index: the number shown on the marked screenshot and accepted as an action target (1-based).
        tag: lower-case tag name.
        role: ARIA role or the implicit one (link, button, textbox, combobox, checkbox, ...).
        text: accessible text (aria-label, label, inner text, value/placeholder, title/alt), <= 80 chars.
        value: current value of form fields, else None.
        box: ``(x, y, width, height)`` in viewport CSS pixels (= screenshot pixels).
        in_view: True when the element intersects the viewport.
    """

    index: int
    tag: str
    role: str
    text: str
    value: str | None
    box: tuple[float, float, float, float]
    in_view: bool

    def describe(self) -> str:
        """One line for a text prompt, e.g. ``[3] button "Add"``."""
        extra = f" value={self.value!r}" if self.value else ""
        return f'[{self.index}] {self.role} "{self.text}"{extra}'


_MARK_COLOURS = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (0, 128, 128))


def draw_marks(png: bytes, elements: tuple[Element, ...] | list[Element]) -> bytes:
    """Draw each in-view element's box and number on a screenshot (set-of-marks prompting).

    Args:
        png: the viewport screenshot.
        elements: elements from the same observation (viewport coordinates).

    Returns:
        A new PNG with the marks.
    """
    from PIL import ImageDraw, ImageFont

    from vcoder.images import to_pil

    img = to_pil(png)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    for el in elements:
        if not el.in_view:
            continue
        colour = _MARK_COLOURS[el.index % len(_MARK_COLOURS)]
        x, y, w, h = el.box
        draw.rectangle([x, y, x + w - 1, y + h - 1], outline=colour, width=2)
        label = str(el.index)
        left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
        lx, ly = max(0.0, x), max(0.0, y - (bottom - top) - 4)
        draw.rectangle([lx, ly, lx + right - left + 4, ly + bottom - top + 4], fill=colour)
        draw.text((lx + 2 - left, ly + 2 - top), label, fill=(255, 255, 255), font=font)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()
