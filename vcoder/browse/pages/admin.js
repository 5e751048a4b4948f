// The admin: customer and product tables, edit forms.
(function () {
  const S = window.SITE, esc = S.esc, money = (c) => '$' + (c / 100).toFixed(2);
  const find = (rows, id) => rows.find((r) => String(r.id) === String(id));
  window.SITE_APP = {
    title: 'Magento Admin',
    nav: [['Dashboard', '/'], ['Customers', '/customers'], ['Products', '/products']],
    routes: [
      [/^\/$/, (m, q, st) => '<h1>Dashboard</h1><p>Customers: ' + st.customers.length + '</p><p>Products: ' + st.products.length + '</p>'],
      [/^\/customers$/, (m, q, st) => { const g = q.get('group') || '';
        const rows = st.customers.filter((c) => !g || c.group === g);
        return '<h1>Customers</h1><p><a href="#/customers">All</a> ' + st.groups.map((x) => '<a href="#/customers?group=' + x + '">' + esc(x) + '</a>').join(' ') +
          '</p><table id="customers"><tr><th>Name</th><th>Email</th><th>Group</th><th></th></tr>' + rows.map((c) => '<tr><td>' + esc(c.name) + '</td><td>' +
          esc(c.email) + '</td><td>' + esc(c.group) + '</td><td><a href="#/customers/' + c.id + '/edit" aria-label="Edit ' + esc(c.name) + '">Edit</a></td></tr>').join('') + '</table>'; }],
      [/^\/customers\/(\d+)\/edit$/, (m, q, st) => { const c = find(st.customers, m[1]); if (!c) return '<p>No such customer.</p>';
        return '<h1>Edit ' + esc(c.name) + '</h1><label for="email">Email</label> <input id="email" name="email" value="' + esc(c.email) + '"><br>' +
          '<label for="group">Group</label> <select id="group" name="group">' + st.groups.map((x) => '<option' + (x === c.group ? ' selected' : '') + '>' + esc(x) + '</option>').join('') +
          '</select><br><button data-act="save_customer" data-id="' + c.id + '">Save Customer</button>'; }],
      [/^\/products$/, (m, q, st) => '<h1>Products</h1><table id="products"><tr><th>SKU</th><th>Name</th><th>Price</th><th>Stock</th><th></th></tr>' +
        st.products.map((p) => '<tr><td>' + esc(p.sku) + '</td><td>' + esc(p.name) + '</td><td>' + money(p.price) + '</td><td>' + p.stock +
          '</td><td><a href="#/products/' + p.id + '/edit" aria-label="Edit ' + esc(p.name) + '">Edit</a></td></tr>').join('') + '</table>'],
      [/^\/products\/(\d+)\/edit$/, (m, q, st) => { const p = find(st.products, m[1]); if (!p) return '<p>No such product.</p>';
        return '<h1>Edit ' + esc(p.name) + '</h1><label for="stock">Stock</label> <input id="stock" name="stock" type="number" value="' + p.stock + '"><br>' +
          '<button data-act="save_product" data-id="' + p.id + '">Save Product</button>'; }],
    ],
    actions: {
      save_customer: (el, st) => { const c = find(st.customers, el.dataset.id); c.email = S.field('email'); c.group = S.field('group'); S.go('/customers'); },
      save_product: (el, st) => { const p = find(st.products, el.dataset.id); const n = parseInt(S.field('stock'), 10);
        if (!Number.isNaN(n)) p.stock = n; S.go('/products'); },
    },
  };
})();
