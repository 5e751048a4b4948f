"""Sites: a render serves a site's files at its origin (relative URLs, fetch, several linked pages); a live page may
navigate within its site; no URL reads outside it."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from vcoder.rendering import FailureKind
from vcoder.rendering.site import mime_type, site_path

SITE = {
    "index.html": (
        '<!DOCTYPE html><html><head><link rel="stylesheet" href="styles.css"><script type="module" src="js/app.js">'
        '</script></head><body><h1 class="title">Home page</h1><p id="data">loading</p>'
        '<a id="about" href="about.html">About us</a> <a id="away" href="https://example.com/">Elsewhere</a>'
        ' <a id="missing" href="nowhere.html">Missing</a>'
        '<form id="search" action="results.html" method="get"><input name="q" value="tea"></form></body></html>'
    ),
    "styles.css": "body { margin: 0; background: rgb(0, 128, 0); } .title { color: rgb(255, 255, 0); }",
    "js/app.js": (
        "const response = await fetch('data.json');\n"
        "const data = await response.json();\n"
        "document.getElementById('data').textContent = 'fetched ' + data.items.join(', ');\n"
    ),
    "data.json": json.dumps({"items": ["alpha", "beta"]}).encode(),
    "about.html": '<!DOCTYPE html><html><head><link rel="stylesheet" href="styles.css"></head><body><h1>About page</h1>'
    '<a id="home" href="./">Home</a><script>document.title = "about"</script></body></html>',
    "results.html": "<p id=r></p><script>r.textContent = 'results for ' + new URLSearchParams(location.search).get('q')"
    "</script>",
}


def texts(r) -> list[str]:
    assert r.ok, r.error
    return [b.text for b in r.layout.text_blocks]


@pytest.mark.browser
def test_a_site_renders_from_its_files(pool):
    r = pool.render(files=SITE)  # no html: the site's index.html
    assert texts(r)[:2] == ["Home page", "fetched alpha, beta"], r.console_errors
    assert tuple(r.image[r.height - 5, 5]) == (0, 128, 0)  # styles.css applied
    assert not r.console_errors
    # html given: it is the document, the files are its site; another entry is the document when html is None
    assert texts(pool.render('<p id="data">x</p><script type="module" src="js/app.js"></script>', files=SITE)) == [
        "fetched alpha, beta"
    ]
    assert texts(pool.render(files=SITE, entry="about.html"))[0] == "About page"


@pytest.mark.browser
def test_render_keeps_one_document_even_in_a_site(pool):
    html = SITE["index.html"].replace("</body>", "<script>location.href = 'about.html'</script></body>")
    r = pool.render(html, files=SITE)
    assert not r.ok and r.kind is FailureKind.NAVIGATION  # it tried to leave while being parsed
    r = pool.render(SITE["index.html"] + "<script>onload = () => location.href = 'about.html'</script>", files=SITE)
    assert texts(r)[0] == "Home page"  # refused after load: the document stays


@pytest.mark.browser
def test_render_many_takes_one_site_per_document(pool):
    other = {**SITE, "data.json": json.dumps({"items": ["gamma"]})}
    before = pool.stats()["dedup_hits"]
    rs = pool.render_many(files=[SITE, other, SITE, None])
    assert [texts(r)[1] for r in rs[:3]] == ["fetched alpha, beta", "fetched gamma", "fetched alpha, beta"]
    assert rs[2].cached and pool.stats()["dedup_hits"] == before + 1
    assert rs[3].kind is FailureKind.EMPTY
    with pytest.raises(TypeError, match="one mapping per document"):
        pool.render_many(["<p>x</p>"], files=SITE)
    with pytest.raises(ValueError, match="inside the site"):
        pool.render("<p>x</p>", files={"../escape.txt": "x"})


@pytest.mark.browser
def test_a_live_page_navigates_within_its_site_and_nowhere_else(pool):
    apool = pool.async_pool

    async def episode():
        seen = {}
        async with apool.open_page(files=SITE) as page:
            await page.wait_for_function("document.getElementById('data').textContent.startsWith('fetched')")
            for name in ("away", "missing"):  # refused: the document stays
                await page.click(f"#{name}")
                await asyncio.sleep(0.5)
                seen[name] = await page.evaluate("document.querySelector('h1').textContent")
            async with page.expect_navigation():
                await page.click("#about")
            seen["about"] = texts(await apool.snapshot(page))
            async with page.expect_navigation():
                await page.click("#home")  # "./": the site's index.html
            seen["home"] = await page.evaluate("document.querySelector('h1').textContent")
            async with page.expect_navigation():
                await page.evaluate("document.getElementById('search').submit()")  # a GET form
            seen["form"] = await page.evaluate("document.getElementById('r').textContent")
            async with page.expect_navigation():
                await page.evaluate("location.href = 'about.html'")
            seen["script"] = await page.evaluate("document.title")
        return seen

    seen = asyncio.run(apool.run_on_loop(episode))
    assert seen == {
        "away": "Home page",
        "missing": "Home page",
        "about": ["About page", "Home"],
        "home": "Home page",
        "form": "results for tea",
        "script": "about",
    }


@pytest.mark.browser
def test_no_url_reads_outside_the_site(pool, tmp_path):
    (tmp_path / "secret.txt").write_text("TOP-SECRET")
    site = tmp_path / "site"
    site.mkdir()
    (site / "ok.txt").write_text("inside")
    os.symlink(tmp_path / "secret.txt", site / "link.txt")
    probes = [
        "ok.txt",
        "../secret.txt",
        "/../secret.txt",
        "%2e%2e/secret.txt",
        "..%2fsecret.txt",
        "%2e%2e%2fsecret.txt",
        "..%5csecret.txt",
        "link.txt",
        "/etc/passwd",
        "..%2f..%2f..%2f..%2fetc%2fpasswd",
        "file:///etc/passwd",
    ]
    html = (
        "<p id=out></p><script>"
        f"Promise.all({json.dumps(probes)}.map((u) => fetch(u).then((r) => r.text()).catch(() => 'refused')))"
        ".then((all) => { out.textContent = all.join(' | '); });</script>"
    )
    for kwargs in ({"base_dir": site}, {"files": {"ok.txt": "inside"}, "base_dir": site}):
        (text,) = texts(pool.render(html, **kwargs))
        assert text.split(" | ") == ["inside"] + ["refused"] * (len(probes) - 1), text


def test_site_paths_never_leave_the_site():
    assert site_path("/a/b.css") == "a/b.css" and site_path("/") == "index.html" and site_path("x/") == "x/index.html"
    for bad in ("../x", "/a/../../x", "%2e%2e/x", "%2E%2E%2Fx", "a%2f..%2f..%2fx", "..\\x", "a/%00.html"):
        assert site_path(bad) is None, bad
    assert mime_type("app.js").startswith("text/javascript") and mime_type("d.json").startswith("application/json")
    assert mime_type("s.css").startswith("text/css") and mime_type("blob.bin") == "application/octet-stream"


@pytest.mark.browser
def test_a_cdn_stylesheet_keeps_the_classes_the_site_s_scripts_use(pool):
    tw = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"
    site = {
        "index.html": f'<link rel="stylesheet" href="{tw}"><body><p>x</p><script src="paint.js"></script></body>',
        "paint.js": "document.body.classList.add('bg-red-600');",  # a class named only in the script
    }
    r = pool.render(files=site)
    assert r.ok and tuple(r.image[r.height - 5, 5]) == (220, 38, 38)  # Tailwind 2's red-600
