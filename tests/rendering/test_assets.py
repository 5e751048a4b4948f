"""CDN assets are served offline from the npm cache: Tailwind 2, Bootstrap 4/5, Font Awesome, Google Fonts, and the
script libraries generated sites use without a build step (React + Babel, Vue 3, Alpine.js, Chart.js)."""

from __future__ import annotations

import pytest

from vcoder.rendering.assets import AssetStore, check
from vcoder.rendering.cssprune import PrunableSheet, page_tokens

TW = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"


def test_cache_installed():
    missing = [k for k, v in check().items() if v is None]
    assert not missing, "run `vcoder assets install`"


@pytest.mark.parametrize(
    "url,expect",
    [
        (TW, "tailwindcss/dist/tailwind.min.css"),
        ("https://unpkg.com/tailwindcss@^2/dist/tailwind.min.css", "tailwindcss/dist/tailwind.min.css"),
        (
            "https://stackpath.bootstrapcdn.com/bootstrap/4.5.2/css/bootstrap.min.css",
            "bootstrap4/dist/css/bootstrap.min.css",
        ),
        (
            "https://cdn.jsdelivr.net/npm/bootstrap@5.3.0/dist/css/bootstrap.min.css",
            "bootstrap/dist/css/bootstrap.min.css",
        ),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/5.15.3/webfonts/fa-solid-900.woff2",
            "fontawesome5/webfonts/fa-solid-900.woff2",
        ),
        ("https://use.fontawesome.com/releases/v6.4.0/css/all.css", "fontawesome-free/css/all.css"),
        ("https://code.jquery.com/jquery-3.5.1.min.js", "jquery/dist/jquery.min.js"),
        ("https://cdn.tailwindcss.com", "@tailwindcss/browser/dist/index.global.js"),
        ("https://unpkg.com/react@18/umd/react.production.min.js", "react/umd/react.production.min.js"),
        ("https://unpkg.com/react-dom@18.2.0/umd/react-dom.development.js", "react-dom/umd/react-dom.development.js"),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/react/18.2.0/umd/react.production.min.js",
            "react/umd/react.production.min.js",
        ),
        ("https://unpkg.com/@babel/standalone/babel.min.js", "@babel/standalone/babel.min.js"),
        ("https://cdn.jsdelivr.net/npm/@babel/standalone@7", "@babel/standalone/babel.js"),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/babel-standalone/7.23.5/babel.min.js",
            "@babel/standalone/babel.min.js",
        ),
        ("https://unpkg.com/vue@3/dist/vue.global.js", "vue/dist/vue.global.js"),
        ("https://unpkg.com/vue@3", "vue/dist/vue.global.js"),
        ("https://cdn.jsdelivr.net/npm/vue@3.4.0/dist/vue.global.prod.js", "vue/dist/vue.global.prod.js"),
        ("https://cdnjs.cloudflare.com/ajax/libs/vue/3.4.21/vue.global.min.js", "vue/dist/vue.global.js"),
        ("https://cdn.jsdelivr.net/npm/alpinejs@3.x.x/dist/cdn.min.js", "alpinejs/dist/cdn.min.js"),
        ("https://unpkg.com/alpinejs", "alpinejs/dist/cdn.min.js"),
        ("https://cdnjs.cloudflare.com/ajax/libs/alpinejs/3.13.3/cdn.min.js", "alpinejs/dist/cdn.min.js"),
        ("https://cdn.jsdelivr.net/npm/chart.js", "chart.js/dist/chart.umd.min.js"),
        ("https://cdn.jsdelivr.net/npm/chart.js@4.4.0/dist/chart.umd.js", "chart.js/dist/chart.umd.js"),
        ("https://cdnjs.cloudflare.com/ajax/libs/Chart.js/4.4.1/chart.umd.min.js", "chart.js/dist/chart.umd.min.js"),
        ("https://unpkg.com/react@18", "react/index.js"),  # what unpkg serves too: CommonJS, not a browser build
        ("https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/../../../../etc/passwd", None),
        ("https://example.com/app.css", None),
    ],
)
def test_url_mapping(url, expect):
    got = AssetStore().resolve(url)
    if expect is None:
        assert got is None
    else:
        assert got is not None and str(got[2]).endswith(expect)


def test_google_fonts_css_points_at_local_files():
    css = AssetStore().google_fonts_css("family=Roboto:wght@400;700&family=Unknown+Font&display=swap")
    assert "font-family:'Roboto'" in css and "font-weight:700" in css and "Unknown" not in css


def test_prune_keeps_only_usable_rules():
    sheet = PrunableSheet(
        "*{box-sizing:border-box}.a{color:red}.b .c{color:blue}@media (min-width:640px){.md\\:a{color:green}.z{x:y}}"
        '.w-1\\.5{width:1px}.x::before{content:"{"}'
    )
    out = sheet.prune(
        page_tokens('<div class="a md:a w-1.5">hello</div><script>el.classList.add("b")</script>')
    ).decode()
    assert "*{box-sizing" in out and ".a{color:red}" in out and ".md\\:a" in out and ".w-1\\.5" in out
    assert ".b .c" not in out and ".z" not in out and ".x::before" not in out


@pytest.mark.browser
def test_tailwind_and_bootstrap_render_styled_offline(pool):
    tw = pool.render(f'<link href="{TW}" rel="stylesheet"><div class="bg-blue-500 w-20 h-20"></div>')
    assert tuple(tw.image[40, 40]) == (59, 130, 246)
    bs4 = pool.render(
        '<link rel="stylesheet" href="https://maxcdn.bootstrapcdn.com/bootstrap/4.0.0/css/bootstrap.min.css">'
        '<div class="bg-primary" style="width:80px;height:80px"></div>'
    )
    assert tuple(bs4.image[40, 40]) == (0, 123, 255)  # Bootstrap 4 primary
    bs5 = pool.render(
        '<link href="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css" rel="stylesheet">'
        '<div class="bg-primary" style="width:80px;height:80px"></div>'
    )
    assert tuple(bs5.image[40, 40]) == (13, 110, 253)  # Bootstrap 5 primary


@pytest.mark.browser
def test_pruned_tailwind_matches_full_stylesheet(pool):
    from pathlib import Path

    body = Path(__file__).parents[2].joinpath("examples/pages/tw_landing.html").read_text().split("<body>")[1]
    full_css = AssetStore().resolve(TW)[0].decode()
    linked = pool.render(f'<html><head><link href="{TW}" rel="stylesheet"></head><body>{body}')
    inline = pool.render(f"<html><head><style>{full_css}</style></head><body>{body}")
    assert linked.ok and inline.ok
    assert (linked.image == inline.image).all()


@pytest.mark.browser
def test_font_awesome_icon_renders_glyph(pool):
    fa = "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/5.15.4/css/all.min.css"
    r = pool.render(f'<link rel="stylesheet" href="{fa}"><i class="fas fa-home" style="font-size:60px"></i>')
    icon = next(e for e in r.layout.elements if e.tag == "i")
    x, y, w, h = (int(v) for v in icon.bbox)
    assert (r.image[y : y + h, x : x + w] < 128).any()  # a dark glyph, not an empty box


REACT_UMD = (
    '<script src="https://unpkg.com/react@18/umd/react.production.min.js"></script>'
    '<script src="https://unpkg.com/react-dom@18/umd/react-dom.production.min.js"></script>'
)
REACT = REACT_UMD + '<script src="https://unpkg.com/@babel/standalone/babel.min.js"></script>'


def _texts(rendered) -> str:
    return " ".join(b.text for b in rendered.layout.text_blocks)


def _on_pool_loop(pool, make):
    """Run ``make()`` (a coroutine using live pages) on the pool's own loop: Playwright pages belong to it."""
    import asyncio

    return asyncio.run(pool.async_pool.run_on_loop(make))


@pytest.mark.browser
def test_react_with_in_page_jsx_renders_its_component(pool):
    page = (
        f"<html><head>{REACT}</head><body><div id='root'></div><script type='text/babel'>"
        "function Greeting({ name }) { const [n] = React.useState(3); return <h1>Hello {name}, {n} items</h1>; }"
        "ReactDOM.createRoot(document.getElementById('root')).render(<Greeting name='Ada' />);"
        "</script></body></html>"
    )

    async def text():
        # React 18 commits in a task after the load event, so read the page once the heading exists
        async with pool.async_pool.open_page(page, width=640, height=360) as live:
            await live.wait_for_selector("h1", timeout=10000)
            return await live.inner_text("#root")

    assert _on_pool_loop(pool, text) == "Hello Ada, 3 items"


@pytest.mark.browser
def test_react18_renders_its_committed_content_not_the_blank_load_state(pool):
    # React 18 commits from its scheduler's message tasks after the load event: a JSX component (Babel in the page)
    # with an effect on a timer, and one whose list arrives by fetch; the capture must show both commits
    jsx = (
        f"<html><head>{REACT}</head><body><div id='root'></div><script type='text/babel'>"
        "function Greeting({ name }) { const [n, setN] = React.useState(3);"
        " React.useEffect(() => { setTimeout(() => setN(5), 300); }, []); return <h1>Hello {name}, {n} items</h1>; }"
        "ReactDOM.createRoot(document.getElementById('root')).render(<Greeting name='Ada' />);"
        "</script></body></html>"
    )
    fetched = (
        f"{REACT_UMD}<div id=root></div><script>"
        "const e = React.createElement; function App() { const [items, set] = React.useState([]);"
        " React.useEffect(() => { fetch('data.json').then((r) => r.json()).then(set); }, []);"
        " return e('ul', null, items.map((i) => e('li', { key: i }, 'item ' + i))); }"
        "ReactDOM.createRoot(document.getElementById('root')).render(e(App));</script>"
    )
    first = pool.render(jsx, width=640, height=360)
    second = pool.render(fetched, width=640, height=360, files={"data.json": "[1, 2, 3]"})
    assert first.ok and second.ok, (first.error, second.error)
    assert _texts(first) == "Hello Ada , 5 items"
    assert [b.text for b in second.layout.text_blocks] == ["item 1", "item 2", "item 3"]


@pytest.mark.browser
def test_vue3_app_mounts(pool):
    page = (
        '<script src="https://unpkg.com/vue@3/dist/vue.global.js"></script>'
        '<div id="app"><p>{{ greeting }} ({{ items.length }})</p><li v-for="i in items">{{ i }}</li></div>'
        "<script>Vue.createApp({ data: () => ({ greeting: 'Mounted by Vue', items: ['a1', 'b2'] }) })"
        ".mount('#app');</script>"
    )
    r = pool.render(page, width=640, height=360)
    assert r.ok, r.error
    text = _texts(r)
    assert "Mounted by Vue (2)" in text and "b2" in text and "{{" not in text, text


@pytest.mark.browser
def test_alpine_counter_reacts_to_clicks_on_a_live_page(pool):

    page = (
        '<script defer src="https://cdn.jsdelivr.net/npm/alpinejs@3.x.x/dist/cdn.min.js"></script>'
        '<div x-data="{ count: 0 }"><button id="inc" @click="count++">Add</button>'
        '<span id="out" x-text="`Count: ${count}`">not started</span></div>'
    )

    async def clicks():
        async with pool.async_pool.open_page(page, width=640, height=360) as live:
            await live.wait_for_function("document.querySelector('#out').textContent === 'Count: 0'", timeout=10000)
            await live.click("#inc")
            await live.click("#inc")
            return await live.inner_text("#out")

    assert _on_pool_loop(pool, clicks) == "Count: 2"


@pytest.mark.browser
def test_chartjs_paints_the_canvas(pool):
    page = (
        '<script src="https://cdn.jsdelivr.net/npm/chart.js"></script>'
        '<div style="width:400px;height:300px"><canvas id="c"></canvas></div>'
        "<script>new Chart(document.getElementById('c'), {type: 'bar', options: {animation: false},"
        " data: {labels: ['a', 'b', 'c'], datasets: [{label: 'n', data: [3, 7, 5],"
        " backgroundColor: 'rgb(255, 0, 0)'}]}});</script>"
    )
    r = pool.render(page, width=640, height=360)
    assert r.ok, r.error
    canvas = next(e for e in r.layout.elements if e.tag == "canvas")
    x, y, w, h = (int(v) for v in canvas.bbox)
    assert w > 100 and h > 100, canvas.bbox
    area = r.image[y : y + h, x : x + w].astype(int)
    red = (area[..., 0] > 200) & (area[..., 1] < 60) & (area[..., 2] < 60)
    assert red.sum() > 500, int(red.sum())  # the bars, in their colour
