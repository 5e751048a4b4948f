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
  // bounded: a font that never loads must not eat the deadline
  await Promise.race([document.fonts.ready, vcoder.sleep(limits.fontWaitMs)]);
  return [vcoder.doc(), (LAYOUT)(limits)];
}
