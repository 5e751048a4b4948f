// Determinism shim, installed as an init script in every document before the page's own scripts run.
(() => {
  // seeded Math.random (mulberry32): same page, same "random" numbers
  let seed = 0x2f6b1d35;
  Math.random = function random() {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // the clock starts at a fixed epoch (2024-01-01T00:00:00Z) and advances in real time, so pages that wait on
  // time still make progress while printed dates are stable
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  const start = realNow();
  const now = () => 1704067200000 + (realNow() - start);
  class FixedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(now());
      else super(...args);
    }
    static now() {
      return now();
    }
  }
  window.Date = new Proxy(FixedDate, { apply: () => new FixedDate().toString() });
  // no transitions or animations: boxes are final when the layout is read; adopted sheets stay out of the DOM
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(
      "*, *::before, *::after { transition: none !important; animation: none !important; " +
        "caret-color: transparent !important; scroll-behavior: auto !important; }"
    );
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch (e) {}
})();
