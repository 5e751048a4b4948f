// Layout extraction, run by one page.evaluate in the same render as the screenshot.
// Returns a JSON string (flat lists only: deep nesting would overflow JSON parsers downstream).
// Semantics are documented on vcoder.layout (TextBlock, ElementBox, DomNode, Layout).
(limits) => {
  const BLOCK_TAGS = new Set([
    "P", "H1", "H2", "H3", "H4", "H5", "H6", "DIV", "SPAN", "A", "B", "LI", "TABLE", "TD", "TH", "BUTTON",
    "FOOTER", "HEADER", "FIGCAPTION",
  ]);
  const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META", "LINK"]);
  const doc = document;
  const root = doc.documentElement;
  const body = doc.body || root;
  const sx = window.scrollX, sy = window.scrollY;
  let truncated = false;

  const parseColor = (s) => {
    const m = /rgba?\(([^)]+)\)/.exec(s || "");
    if (!m) return [0, 0, 0, 1];
    const p = m[1].split(/[ ,/]+/).filter((x) => x.length).map(Number);
    return [Math.round(p[0] || 0), Math.round(p[1] || 0), Math.round(p[2] || 0), p.length > 3 ? p[3] : 1];
  };
  const bgCache = new Map();
  const background = (el) => {
    const seen = [];
    let cur = el, found = [255, 255, 255];
    while (cur && cur.nodeType === 1) {
      if (bgCache.has(cur)) { found = bgCache.get(cur); break; }
      seen.push(cur);
      const c = parseColor(getComputedStyle(cur).backgroundColor);
      if (c[3] > 0) { found = [c[0], c[1], c[2]]; break; }
      cur = cur.parentElement;
    }
    for (const s of seen) bgCache.set(s, found);
    return found;
  };
  const visible = (el) => {
    if (!el || !el.isConnected) return false;
    if (el.checkVisibility) return el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    const st = getComputedStyle(el);
    return st.display !== "none" && st.visibility !== "hidden" && st.opacity !== "0";
  };
  const blockOf = (el) => {
    for (let cur = el; cur && cur !== root; cur = cur.parentElement) {
      if (SKIP_TAGS.has(cur.tagName)) return null;
      if (BLOCK_TAGS.has(cur.tagName)) return cur;
      if (cur === body) return body;
    }
    return body;
  };

  // text blocks: visible text nodes grouped by their nearest block-tag ancestor, in document order
  const blocks = new Map();
  const range = doc.createRange();
  const walker = doc.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  let nText = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue.replace(/\s+/g, " ").trim();
    if (!text) continue;
    if (++nText > limits.maxTextNodes) { truncated = true; break; }
    const parent = node.parentElement;
    if (!parent || !visible(parent)) continue;
    const owner = blockOf(parent);
    if (!owner) continue;
    range.selectNodeContents(node);
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const r of range.getClientRects()) {
      if (r.width <= 0 || r.height <= 0) continue;
      x0 = Math.min(x0, r.left); y0 = Math.min(y0, r.top); x1 = Math.max(x1, r.right); y1 = Math.max(y1, r.bottom);
    }
    if (x1 <= x0 || y1 <= y0) continue;
    let b = blocks.get(owner);
    if (!b) {
      if (blocks.size >= limits.maxBlocks) { truncated = true; break; }
      b = { owner, parts: [], box: [x0, y0, x1, y1] };
      blocks.set(owner, b);
    }
    b.parts.push(text);
    b.box = [Math.min(b.box[0], x0), Math.min(b.box[1], y0), Math.max(b.box[2], x1), Math.max(b.box[3], y1)];
  }
  const textBlocks = [];
  for (const b of blocks.values()) {
    const st = getComputedStyle(b.owner);
    const c = parseColor(st.color);
    textBlocks.push({
      text: b.parts.join(" ").replace(/\s+/g, " ").trim(),
      bbox: [b.box[0] + sx, b.box[1] + sy, b.box[2] - b.box[0], b.box[3] - b.box[1]],
      color: [c[0], c[1], c[2]],
      background: background(b.owner),
      font_size: parseFloat(st.fontSize) || 0,
      font_weight: parseInt(st.fontWeight, 10) || 400,
      tag: b.owner === body && !BLOCK_TAGS.has(body.tagName) ? "body" : b.owner.tagName.toLowerCase(),
    });
  }

  // elements and compact DOM: one iterative pre-order walk (a 50k-deep tree must not recurse)
  const elements = [];
  const domTags = [], domParents = [];
  const stack = [[root, 0, -1]];
  while (stack.length) {
    const [el, depth, parentIdx] = stack.pop();
    if (domTags.length >= limits.maxNodes || depth > limits.maxDepth) { truncated = true; continue; }
    const idx = domTags.length;
    domTags.push(el.tagName.toLowerCase());
    domParents.push(parentIdx);
    if (!SKIP_TAGS.has(el.tagName) && elements.length < limits.maxElements) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) elements.push([domTags[idx], depth, r.left + sx, r.top + sy, r.width, r.height]);
    } else if (elements.length >= limits.maxElements) {
      truncated = true;
    }
    const kids = el.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], depth + 1, idx]);
  }

  const width = Math.max(root.scrollWidth, body.scrollWidth || 0, root.clientWidth);
  const height = Math.max(root.scrollHeight, body.scrollHeight || 0, root.clientHeight);
  return JSON.stringify({
    width, height, title: doc.title || "", truncated, text_blocks: textBlocks, elements,
    dom_tags: domTags, dom_parents: domParents,
  });
}
