// The shop: a catalogue (search, categories), product pages, a cart and orders.
(function () {
  const S = window.SITE, esc = S.esc, money = (c) => '$' + (c / 100).toFixed(2);
  const byId = (st, id) => st.products.find((p) => String(p.id) === String(id));
  const list = (items) => items.length === 0 ? '<p>No products found.</p>' :
    '<ul class="products">' + items.map((p) => '<li><a href="#/product/' + p.id + '">' + esc(p.name) + '</a> ' +
      money(p.price) + '</li>').join('') + '</ul>';
  const cartCount = (st) => st.cart.reduce((n, l) => n + l.qty, 0);
  window.SITE_APP = {
    title: 'One Stop Shop',
    nav: [['Shop', '/'], ['Cart', '/cart'], ['My Orders', '/orders']],
    routes: [
      [/^\/$/, (m, q, st) => '<h1>Catalogue</h1><input name="q" aria-label="Search products" placeholder="Search products" data-enter="search"> ' +
        '<button data-act="search">Search</button><h2>Categories</h2><ul>' +
        st.categories.map((c) => '<li><a href="#/category/' + encodeURIComponent(c) + '">' + esc(c) + '</a></li>').join('') + '</ul>'],
      [/^\/category\/(.+)$/, (m, q, st) => { const c = decodeURIComponent(m[1]);
        return '<h1>' + esc(c) + '</h1>' + list(st.products.filter((p) => p.category === c)); }],
      [/^\/search$/, (m, q, st) => { const t = (q.get('q') || '').toLowerCase();
        return '<h1>Search results for "' + esc(q.get('q') || '') + '"</h1>' + list(st.products.filter((p) => p.name.toLowerCase().includes(t))); }],
      [/^\/product\/(\d+)$/, (m, q, st) => { const p = byId(st, m[1]); if (!p) return '<p>No such product.</p>';
        return '<h1>' + esc(p.name) + '</h1><p>Price: <span id="price">' + money(p.price) + '</span></p><p>Category: ' + esc(p.category) +
          '</p><p>Rating: ' + p.rating + ' of 5</p><p>' + esc(p.description) + '</p><label for="qty">Qty</label> ' +
          '<input id="qty" name="qty" type="number" min="1" value="1"> <button data-act="add" data-id="' + p.id + '">Add to Cart</button>'; }],
      [/^\/cart$/, (m, q, st) => st.cart.length === 0 ? '<h1>Shopping Cart</h1><p id="cart">Your cart is empty.</p>' :
        '<h1>Shopping Cart</h1><table id="cart">' + st.cart.map((l) => { const p = byId(st, l.id);
          return '<tr><td>' + esc(p.name) + '</td><td>Qty: ' + l.qty + '</td><td>' + money(p.price * l.qty) + '</td><td><button data-act="remove" data-id="' + p.id +
            '" aria-label="Remove ' + esc(p.name) + '">Remove</button></td></tr>'; }).join('') + '</table><p>Items: ' + cartCount(st) +
        '</p><button data-act="order">Place Order</button>'],
      [/^\/orders$/, (m, q, st) => '<h1>My Orders</h1>' + (st.orders.length === 0 ? '<p id="orders">You have placed no orders.</p>' :
        '<table id="orders">' + st.orders.map((o) => '<tr><td><a href="#/orders/' + o.id + '">Order #' + o.id + '</a></td><td>' +
          money(o.total) + '</td><td>' + o.lines.map((l) => esc(byId(st, l.id).name) + ' x' + l.qty).join(', ') + '</td></tr>').join('') + '</table>')],
      [/^\/orders\/(\d+)$/, (m, q, st) => { const o = st.orders.find((x) => String(x.id) === m[1]); if (!o) return '<p>No such order.</p>';
        return '<h1>Order #' + o.id + '</h1><p>Total: ' + money(o.total) + '</p><ul id="order-lines">' +
          o.lines.map((l) => '<li>' + esc(byId(st, l.id).name) + ' x' + l.qty + '</li>').join('') + '</ul>'; }],
    ],
    actions: {
      search: () => S.go('/search?q=' + encodeURIComponent(S.field('q'))),
      add: (el, st) => { const qty = Math.max(1, parseInt(S.field('qty'), 10) || 1); const line = st.cart.find((l) => String(l.id) === el.dataset.id);
        if (line) line.qty += qty; else st.cart.push({id: Number(el.dataset.id), qty: qty}); S.go('/cart'); },
      remove: (el, st) => { st.cart = st.cart.filter((l) => String(l.id) !== el.dataset.id); },
      order: (el, st) => { const id = st.next_order++; const total = st.cart.reduce((t, l) => t + byId(st, l.id).price * l.qty, 0);
        st.orders.push({id: id, lines: st.cart, total: total}); st.cart = []; S.go('/orders/' + id); },
    },
  };
})();
