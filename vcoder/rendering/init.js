// Determinism shim, installed as an init script in every document before the page's own scripts run.
(() => {
  // one token per document, so the capture can tell whether its layout and its screenshot saw the same one;
  // document.open() (or a write after parsing, which opens implicitly) replaces the document's content: new token
  const newToken = () => crypto.getRandomValues(new Uint32Array(2)).join("-");
  let token = newToken();
  const startUrl = location.href;
  for (const name of ["open", "write", "writeln"]) {
    const original = Document.prototype[name];
    Document.prototype[name] = function (...args) {
      if (this === document && (name === "open" || document.readyState !== "loading")) token = newToken();
      return original.apply(this, args);
    };
  }
  // a navigation started while the document is still being parsed stops the parser: the document is complete
  // without ever having been interactive (no DOMContentLoaded), and unfinished
  let parsed = document.readyState !== "loading";
  document.addEventListener("readystatechange", () => {
    if (document.readyState === "interactive") parsed = true;
  });
  const bound = document;
  const realSetTimeout = window.setTimeout.bind(window);
  Object.defineProperty(window, "__vcoder", {
    value: Object.freeze({
      // null when this window now shows a document the init script did not run for
      doc: () =>
        document === bound
          ? { token, url: startUrl, unfinished: document.readyState === "complete" && !parsed }
          : null,
      // vcoder's own waits (load, fonts) run on real time whatever the page does with its timers
      sleep: (ms) => new Promise((resolve) => realSetTimeout(resolve, ms)),
    }),
  });
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
