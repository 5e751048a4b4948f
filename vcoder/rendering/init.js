// Determinism shim, installed as an init script in every document before the page's own scripts run.
// It exposes window.__vcoder (non-enumerable, frozen) to vcoder's capture script: doc(), sleep(), settle(),
// next(), pause(), after(), frame().
(() => {
  const realSetTimeout = window.setTimeout.bind(window);
  const realClearTimeout = window.clearTimeout.bind(window);
  const realFrame = window.requestAnimationFrame.bind(window);

  // ---- isolation: the tab keeps window.name across navigations, so a render could read what an earlier one (a
  // fresh origin on the same site) wrote; a top-level document starts with none, unless a document of its own
  // origin navigated to it (a live page following its own link keeps it, as in any browser)
  if (window === window.top) {
    let own = false;
    try {
      own = document.referrer !== "" && new URL(document.referrer).origin === location.origin;
    } catch (e) {}
    if (!own) window.name = "";
  }

  // ---- the document's identity ----
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
  const identity = () =>
    document === bound ? { token, url: startUrl, unfinished: document.readyState === "complete" && !parsed } : null;

  // ---- seeded Math.random (mulberry32): same page, same "random" numbers ----
  let seed = 0x2f6b1d35;
  Math.random = function random() {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  // ---- virtual time ----
  // One clock for Date, performance.now, timers and animation frames, in integer microseconds. It starts at
  // 2024-01-01T00:00:00Z, moves STEP_US per read (so busy-wait loops end) and jumps to a timer's due time when the
  // timer fires. Timers fire in due order as fast as the page runs (fast-forward) until HORIZON_US of virtual time
  // or MAX_FIRES callbacks; past that a rendered page's timers stop (what it shows no longer changes) while a live
  // page's (an agent's, origin "live<n>.") follow real time. Two seconds let loaders, fade-ins and typed text
  // finish, and stop before carousels turn (Bootstrap's every 5 s, Slick's and Swiper's every 3 s).
  const EPOCH_US = 1704067200000 * 1000;
  const STEP_US = 100;
  const HORIZON_US = 2000 * 1000;
  const MAX_FIRES = 2000;
  const FRAME_US = 16667;
  const LIVE = /^live\d+\./.test(location.hostname);
  let clockUs = EPOCH_US;
  const read = () => (clockUs += STEP_US);

  const RealDate = Date;
  class VirtualDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(Math.floor(read() / 1000));
      else super(...args);
    }
    static now() {
      return Math.floor(read() / 1000);
    }
  }
  window.Date = new Proxy(VirtualDate, { apply: () => new VirtualDate().toString() });
  performance.now = function now() {
    return (read() - EPOCH_US) / 1000;
  };
  Object.defineProperty(performance, "timeOrigin", { value: EPOCH_US / 1000 });

  const timers = new Map(); // id -> {id, due, seq, fn, args, every, depth}
  let nextId = 1;
  let seq = 0;
  let fires = 0;
  let depth = 0; // nesting level of the timer callback running now (HTML clamps nested timers to 4 ms)
  let paused = false;
  let pumpQueued = false;
  let realHandle = null;
  let inflight = 0; // fetches, response bodies and XHRs under way
  const settleWaiters = [];
  const channel = new MessageChannel(); // a macrotask per timer, unclamped, so real events interleave as usual
  // Work a page queues for itself outside the timers runs in message tasks (React's scheduler commits in one, and
  // yields between slices by posting the next): settled also means two of our own message tasks in a row saw no
  // timer due, no fetch and no message posted by the page since the previous one (bounded by the capture's wait).
  const realPost = MessagePort.prototype.postMessage;
  const post = (port) => realPost.call(port, null);
  let posted = false;
  MessagePort.prototype.postMessage = function postMessage(...args) {
    posted = true;
    return realPost.apply(this, args);
  };
  const realWindowPost = window.postMessage;
  window.postMessage = function postMessage(...args) {
    posted = true;
    return realWindowPost.apply(this, args);
  };
  const confirmChannel = new MessageChannel();
  let confirming = false;
  let quiet = 0;
  const confirm = () => {
    if (!confirming) {
      confirming = true;
      posted = false;
      post(confirmChannel.port2);
    }
  };

  const schedule = () => {
    if (!pumpQueued && !paused) {
      pumpQueued = true;
      post(channel.port2);
    }
  };
  const addUs = (fn, delayUs, args, every, nested) => {
    if (nested && depth >= 5 && delayUs < 4000) delayUs = 4000;
    const id = nextId++;
    timers.set(id, { id, due: clockUs + delayUs, seq: seq++, fn, args, every, depth: depth + 1 });
    schedule();
    return id;
  };
  // like browsers: no, negative, non-numeric or over-2^31-1 delays mean 0
  const toUs = (ms) => {
    const n = Number(ms);
    return n > 0 && n <= 2147483647 ? Math.floor(n) * 1000 : 0;
  };
  const earliest = () => {
    let best = null;
    for (const t of timers.values()) if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    return best;
  };
  const fastForward = (t) => fires < MAX_FIRES && t.due - EPOCH_US <= HORIZON_US;
  const settled = () => {
    const t = earliest();
    return inflight === 0 && !(t && fastForward(t));
  };
  const fire = (t) => {
    fires++;
    if (t.due > clockUs) clockUs = t.due;
    if (t.every) {
      t.due += t.every;
      t.seq = seq++;
    } else {
      timers.delete(t.id);
    }
    schedule(); // before the page's code: an exception it throws is reported as usual and the clock goes on
    const outer = depth;
    depth = t.depth;
    try {
      if (typeof t.fn === "function") t.fn.apply(window, t.args);
      else (0, eval)(String(t.fn));
    } finally {
      depth = outer;
    }
  };
  channel.port1.onmessage = () => {
    pumpQueued = false;
    if (paused) return;
    if (realHandle !== null) realClearTimeout(realHandle);
    realHandle = null;
    const t = earliest();
    if (t && fastForward(t)) return fire(t);
    if (t && LIVE) {
      realHandle = realSetTimeout(() => {
        realHandle = null;
        const next = earliest();
        if (!paused && next) fire(next);
      }, (t.due - clockUs) / 1000);
    }
    if (settled() && settleWaiters.length) confirm();
  };

  confirmChannel.port1.onmessage = () => {
    confirming = false;
    quiet = settled() && !posted ? quiet + 1 : 0;
    if (quiet >= 2) {
      quiet = 0;
      for (const resolve of settleWaiters.splice(0)) resolve();
    } else if (settled()) confirm();
    else schedule(); // the pump confirms again once it is settled
  };

  window.setTimeout = function setTimeout(fn, ms, ...args) {
    return addUs(fn, toUs(ms), args, 0, true);
  };
  window.setInterval = function setInterval(fn, ms, ...args) {
    return addUs(fn, Math.max(toUs(ms), 4000), args, Math.max(toUs(ms), 4000), true);
  };
  window.clearTimeout = window.clearInterval = function clearTimeout(id) {
    timers.delete(id);
  };
  // animation frames: one virtual frame every FRAME_US, every callback of a frame with the same timestamp
  let frameCallbacks = new Map();
  let frameId = 0;
  let frameTimer = null;
  const runFrame = () => {
    frameTimer = null;
    const callbacks = frameCallbacks;
    frameCallbacks = new Map();
    const stamp = (clockUs - EPOCH_US) / 1000;
    for (const callback of callbacks.values()) {
      try {
        callback(stamp);
      } catch (error) {
        realSetTimeout(() => {
          throw error; // reported like any uncaught error, the other callbacks of the frame still run
        });
      }
    }
  };
  window.requestAnimationFrame = function requestAnimationFrame(callback) {
    frameCallbacks.set(++frameId, callback);
    if (frameTimer === null) frameTimer = addUs(runFrame, FRAME_US - ((clockUs - EPOCH_US) % FRAME_US), [], 0, false);
    return frameId;
  };
  window.cancelAnimationFrame = function cancelAnimationFrame(id) {
    frameCallbacks.delete(id);
  };
  window.requestIdleCallback = function requestIdleCallback(callback) {
    return addUs(() => callback({ didTimeout: false, timeRemaining: () => 50 }), 1000, [], 0, false);
  };
  window.cancelIdleCallback = window.clearTimeout;

  // what the page fetches is part of what it shows: the capture waits for it (see settle)
  const track = (promise) => {
    inflight++;
    const done = () => {
      inflight--;
      schedule();
    };
    return promise.then(
      (value) => (done(), value),
      (error) => {
        done();
        throw error;
      }
    );
  };
  const realFetch = window.fetch;
  window.fetch = function fetch(...args) {
    return track(realFetch.apply(this, args));
  };
  for (const name of ["arrayBuffer", "blob", "formData", "json", "text"]) {
    const original = Response.prototype[name];
    Response.prototype[name] = function (...args) {
      return track(original.apply(this, args));
    };
  }
  const realSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function send(...args) {
    inflight++;
    let counted = true;
    const done = () => {
      if (counted) inflight--;
      counted = false;
      schedule();
    };
    this.addEventListener("loadend", done, { once: true });
    try {
      return realSend.apply(this, args);
    } catch (error) {
      done();
      throw error;
    }
  };

  Object.defineProperty(window, "__vcoder", {
    value: Object.freeze({
      // null when this window now shows a document the init script did not run for
      doc: identity,
      // vcoder's own waits (load, fonts) run on real time whatever the page does with its timers
      sleep: (ms) => new Promise((resolve) => realSetTimeout(resolve, ms)),
      // resolves when no timer is left to fast-forward and nothing is being fetched
      settle: () =>
        new Promise((resolve) => {
          settleWaiters.push(resolve);
          if (settled()) confirm();
          else schedule();
        }),
      // ms until the earliest timer that will still fire (0: one is due now or fast-forwarded), -1 when none will:
      // with settle(), how a GUI check knows that a page left alone will not change any more
      next: () => {
        const t = earliest();
        if (!t) return -1;
        if (fastForward(t)) return 0;
        return LIVE ? Math.max(0, (t.due - clockUs) / 1000) : -1;
      },
      // no timer or frame runs from the layout read until after the screenshot
      pause: () => {
        paused = true;
        if (realHandle !== null) realClearTimeout(realHandle);
        realHandle = null;
      },
      // the screenshot is taken: the capture learns which document the page shows now; a live page's timers go
      // on (resume), a rendered page's stay stopped: nothing it scheduled runs until the next render replaces it
      after: (resume) => {
        if (resume) {
          paused = false;
          schedule();
        }
        return identity();
      },
      // resolves after the next real frame is produced: a screenshot asked for before a new document's first
      // compositor frame fails ("Unable to capture screenshot")
      frame: () => new Promise((resolve) => realFrame(() => realSetTimeout(resolve, 0))),
    }),
  });

  // ---- no transitions or animations: boxes are final when the layout is read; adopted sheets stay out of the DOM
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(
      "*, *::before, *::after { transition: none !important; animation: none !important; " +
        "caret-color: transparent !important; scroll-behavior: auto !important; }"
    );
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch (e) {}
})();
