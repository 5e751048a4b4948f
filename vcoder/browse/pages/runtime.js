// vcoder's hermetic multi-page sites: one document, routes in the fragment (#/path?query), state in localStorage.
// A site script defines window.SITE_APP = {title, nav: [[label, route]], routes: [[regexp, view]], actions: {...}}.
// view(match, query, state) returns HTML; a click on [data-act] runs actions[act](el, state) and saves the state.
(function () {
  const KEY = 'vcoder:' + window.SITE_SEED.name;
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
  function load() {
    const kept = localStorage.getItem(KEY);
    if (kept) { try { return JSON.parse(kept); } catch (e) { /* a torn value: start again from the seed */ } }
    return JSON.parse(JSON.stringify(window.SITE_SEED.state));
  }
  const site = {esc, state: load()};
  site.save = function () { localStorage.setItem(KEY, JSON.stringify(site.state)); };
  site.route = function () {
    const raw = location.hash.replace(/^#/, '') || '/';
    const [path, qs] = raw.split('?');
    return {path: path || '/', query: new URLSearchParams(qs || '')};
  };
  // routes render at once (not on the later hashchange), so the page the agent reads next is the new one
  site.go = function (path) { location.hash = '#' + path; site.render(); };
  let shown = null;  // the fragment last rendered: a hashchange for it (after an in-page link) renders nothing more
  site.render = function () {
    shown = location.hash;
    const app = window.SITE_APP, r = site.route();
    let body = '<p>Page not found.</p>';
    for (const [re, view] of app.routes) {
      const m = r.path.match(re);
      if (m) { body = view(m, r.query, site.state); break; }
    }
    const nav = app.nav.map(([label, to]) => '<a href="#' + to + '">' + esc(label) + '</a>').join(' ');
    document.title = app.title;
    document.getElementById('app').innerHTML =
      '<header><strong>' + esc(app.title) + '</strong> <nav>' + nav + '</nav></header><main>' + body + '</main>';
  };
  site.reload = function () { site.state = load(); site.render(); };
  site.field = function (name) { const el = document.querySelector('[name="' + name + '"]'); return el ? el.value.trim() : ''; };
  document.addEventListener('click', function (e) {
    const link = e.target.closest('a[href^="#"]');
    if (link) { e.preventDefault(); site.go(link.getAttribute('href').slice(1)); return; }
    const el = e.target.closest('[data-act]');
    if (!el) return;
    e.preventDefault();
    window.SITE_APP.actions[el.dataset.act](el, site.state);
    site.save();
    site.render();
  });
  document.addEventListener('keydown', function (e) {
    const el = e.target.closest('[data-enter]');
    if (!el || e.key !== 'Enter') return;
    e.preventDefault();
    window.SITE_APP.actions[el.dataset.enter](el, site.state);
    site.save();
    site.render();
  });
  window.addEventListener('hashchange', function () { if (location.hash !== shown) site.render(); });
  window.SITE = site;
  document.addEventListener('DOMContentLoaded', site.render);
})();
