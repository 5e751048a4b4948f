// The repository browser: projects, their files, stars and issues.
(function () {
  const S = window.SITE, esc = S.esc;
  const proj = (st, name) => st.projects.find((p) => p.name === name);
  const tabs = (p) => '<p><a href="#/p/' + p.name + '">Files</a> <a href="#/p/' + p.name + '/issues">Issues</a> <a href="#/p/' + p.name + '/issues/new">New issue</a></p>';
  window.SITE_APP = {
    title: 'GitLab',
    nav: [['Projects', '/']],
    routes: [
      [/^\/$/, (m, q, st) => '<h1>Projects</h1><ul>' + st.projects.map((p) => '<li><a href="#/p/' + p.name + '">' + esc(p.owner + ' / ' + p.name) + '</a> ' +
        p.stars + ' stars</li>').join('') + '</ul>'],
      [/^\/p\/([\w-]+)$/, (m, q, st) => { const p = proj(st, m[1]); if (!p) return '<p>No such project.</p>';
        return '<h1>' + esc(p.owner + ' / ' + p.name) + '</h1><p>' + esc(p.description) + '</p><p><span id="stars">' + p.stars + ' stars</span> <button data-act="star" data-name="' +
          p.name + '">' + (p.starred ? 'Unstar' : 'Star') + '</button></p>' + tabs(p) + '<h2>Files</h2><ul>' +
          Object.keys(p.files).map((f) => '<li><a href="#/p/' + p.name + '/blob/' + f + '">' + esc(f) + '</a></li>').join('') + '</ul>'; }],
      [/^\/p\/([\w-]+)\/blob\/(.+)$/, (m, q, st) => { const p = proj(st, m[1]); const f = p && p.files[m[2]];
        if (f === undefined) return '<p>No such file.</p>';
        return '<h1>' + esc(m[2]) + '</h1><p>in <a href="#/p/' + p.name + '">' + esc(p.name) + '</a></p><pre id="blob">' + esc(f) + '</pre>'; }],
      [/^\/p\/([\w-]+)\/issues$/, (m, q, st) => { const p = proj(st, m[1]); if (!p) return '<p>No such project.</p>';
        const state = q.get('state') || 'opened';
        const shown = p.issues.filter((i) => state === 'all' || i.state === state);
        return '<h1>Issues of ' + esc(p.name) + '</h1>' + tabs(p) + '<p><a href="#/p/' + p.name + '/issues?state=opened">Open</a> <a href="#/p/' + p.name +
          '/issues?state=closed">Closed</a> <a href="#/p/' + p.name + '/issues?state=all">All</a></p><p>' + shown.length + ' issues</p><ul id="issues">' +
          shown.map((i) => '<li>#' + i.iid + ' ' + esc(i.title) + ' (' + i.state + ')' + (i.state === 'opened' ? ' <button data-act="close" data-name="' + p.name +
            '" data-iid="' + i.iid + '" aria-label="Close issue #' + i.iid + '">Close</button>' : '') + '</li>').join('') + '</ul>'; }],
      [/^\/p\/([\w-]+)\/issues\/new$/, (m, q, st) => { const p = proj(st, m[1]); if (!p) return '<p>No such project.</p>';
        return '<h1>New issue in ' + esc(p.name) + '</h1><input name="title" aria-label="Title" placeholder="Title"><br><label for="label">Label</label> ' +
          '<select id="label" name="label"><option>bug</option><option>feature</option><option>docs</option></select><br>' +
          '<button data-act="issue" data-name="' + p.name + '">Create issue</button>'; }],
    ],
    actions: {
      star: (el, st) => { const p = proj(st, el.dataset.name); p.starred = !p.starred; p.stars += p.starred ? 1 : -1; },
      close: (el, st) => { const i = proj(st, el.dataset.name).issues.find((x) => String(x.iid) === el.dataset.iid); i.state = 'closed'; },
      issue: (el, st) => { const p = proj(st, el.dataset.name); const title = S.field('title'); if (!title) return;
        const iid = p.issues.length + 1; p.issues.push({iid: iid, title: title, label: S.field('label'), state: 'opened'}); S.go('/p/' + p.name + '/issues'); },
    },
  };
})();
