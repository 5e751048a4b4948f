// The forum: forums of posts with scores, votes, comments and new posts.
(function () {
  const S = window.SITE, esc = S.esc;
  const post = (st, id) => st.posts.find((p) => String(p.id) === String(id));
  const score = (st, p) => p.score + (st.votes[p.id] || 0);
  const row = (st, p) => '<li><button data-act="vote" data-id="' + p.id + '" data-dir="1" aria-label="Upvote ' + esc(p.title) + '">▲</button> ' +
    '<span class="score">' + score(st, p) + '</span> <button data-act="vote" data-id="' + p.id + '" data-dir="-1" aria-label="Downvote ' + esc(p.title) +
    '">▼</button> <a href="#/post/' + p.id + '">' + esc(p.title) + '</a> by ' + esc(p.author) + '</li>';
  window.SITE_APP = {
    title: 'Postmill Forum',
    nav: [['Forums', '/'], ['Submit', '/submit']],
    routes: [
      [/^\/$/, (m, q, st) => '<h1>Forums</h1><ul>' + st.forums.map((f) => '<li><a href="#/f/' + f + '">f/' + esc(f) + '</a></li>').join('') + '</ul>'],
      [/^\/f\/(\w+)$/, (m, q, st) => '<h1>f/' + esc(m[1]) + '</h1><ul class="posts">' +
        st.posts.filter((p) => p.forum === m[1]).map((p) => row(st, p)).join('') + '</ul>'],
      [/^\/post\/(\d+)$/, (m, q, st) => { const p = post(st, m[1]); if (!p) return '<p>No such post.</p>';
        return '<h1>' + esc(p.title) + '</h1><p>in <a href="#/f/' + p.forum + '">f/' + esc(p.forum) + '</a> by ' + esc(p.author) + '</p>' +
          '<ul class="posts">' + row(st, p) + '</ul><p>' + esc(p.body) + '</p><h2>Comments</h2><ul id="comments">' +
          p.comments.map((c) => '<li>' + esc(c.author) + ': ' + esc(c.text) + '</li>').join('') + '</ul>' +
          '<textarea name="comment" aria-label="Comment"></textarea> <button data-act="comment" data-id="' + p.id + '">Post Comment</button>'; }],
      [/^\/submit$/, (m, q, st) => '<h1>Submit a new post</h1><label for="forum">Forum</label> <select id="forum" name="forum">' +
        st.forums.map((f) => '<option>' + esc(f) + '</option>').join('') + '</select><br><input name="title" aria-label="Title" placeholder="Title"><br>' +
        '<textarea name="body" aria-label="Body"></textarea><br><button data-act="submit">Create Post</button>'],
    ],
    actions: {
      vote: (el, st) => { const id = el.dataset.id, dir = Number(el.dataset.dir); st.votes[id] = st.votes[id] === dir ? 0 : dir; },
      comment: (el, st) => { const text = S.field('comment'); if (text) post(st, el.dataset.id).comments.push({author: 'me', text: text}); },
      submit: (el, st) => { const title = S.field('title'); if (!title) return; const id = st.next_post++;
        st.posts.push({id: id, forum: S.field('forum'), title: title, body: S.field('body'), author: 'me', score: 1, comments: []}); S.go('/post/' + id); },
    },
  };
})();
