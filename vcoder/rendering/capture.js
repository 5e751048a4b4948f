// The capture, run by one page.evaluate: wait for the document to finish loading, then read its layout. Returns
// [the document's identity (init.js), the layout's JSON] -- no layout when the document is not the one to capture.
async (limits) => {
  const vcoder = window.__vcoder;
  if (!vcoder) return [null, null];
  // a page whose load event never fires (e.g. it started a navigation we refused) is captured as it is
  if (document.readyState !== "complete") {
    await Promise.race([
      new Promise((resolve) => addEventListener("load", resolve, { once: true })),
      vcoder.sleep(limits.loadWaitMs),
    ]);
  }
  const doc = vcoder.doc();
  if (!doc || doc.unfinished) return [doc, null];
  // the page's timers and fetches run their course (in virtual time, init.js), then its fonts load; all bounded
  // in real time: a page that keeps itself busy, or a font that never loads, must not eat the deadline
  await Promise.race([vcoder.settle(), vcoder.sleep(limits.settleWaitMs)]);
  await Promise.race([document.fonts.ready, vcoder.sleep(limits.fontWaitMs)]);
  await Promise.race([vcoder.settle(), vcoder.sleep(limits.settleWaitMs)]);
  vcoder.pause(); // nothing the page scheduled runs until the screenshot is taken (after() resumes)
  const layout = (LAYOUT)(limits);
  await vcoder.frame(); // the layout's state is on screen before the screenshot is asked for
  return [vcoder.doc(), layout];
}
