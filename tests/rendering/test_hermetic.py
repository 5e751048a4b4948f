"""Nothing leaves the machine: a loopback canary server must see zero requests from any page."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from vcoder.rendering import FailureKind

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def canary():
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def _hit(self):
            hits.append(f"{self.command} {self.path}")
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"canary")

        do_GET = do_POST = do_HEAD = do_OPTIONS = _hit

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()


def attack_pages(host: str) -> dict[str, str]:
    u = f"http://{host}"
    return {
        "img": f'<img src="{u}/img.png"><div style="background:url({u}/bg.png);width:9px;height:9px"></div>',
        "script": f'<script src="{u}/s.js"></script><p>x</p>',
        "link": f'<link rel="stylesheet" href="{u}/s.css"><p>x</p>',
        "css_import": f"<style>@import url({u}/imp.css);</style><p>x</p>",
        "font": f"<style>@font-face{{font-family:X;src:url({u}/f.woff2)}}p{{font-family:X}}</style><p>x</p>",
        "fetch": f'<script>fetch("{u}/fetch").catch(() => 0)</script><p>x</p>',
        "keepalive": f'<script>fetch("{u}/ka", {{method: "POST", body: "x", keepalive: true}}).catch(() => 0)</script>x',
        "xhr": f'<script>const x = new XMLHttpRequest(); x.open("GET", "{u}/xhr"); x.send();</script>x',
        "websocket": f'<script>try {{ new WebSocket("ws://{host}/ws"); }} catch (e) {{}}</script>x',
        "eventsource": f'<script>new EventSource("{u}/es");</script>x',
        "beacon": f'<script>navigator.sendBeacon("{u}/beacon", "data");</script>x',
        "ping": f'<a id="a" href="#x" ping="{u}/ping">go</a><script>document.getElementById("a").click()</script>',
        "iframe": f'<iframe src="{u}/frame"></iframe>',
        "meta_refresh": f'<meta http-equiv="refresh" content="0;url={u}/refresh"><p>x</p>',
        "location": f'<script>location.href = "{u}/location";</script><p>x</p>',
        "prefetch": f'<link rel="prefetch" href="{u}/pf"><link rel="preconnect" href="{u}"><link rel="dns-prefetch" href="{u}">x',
        "form": f'<form id="f" action="{u}/form" method="post"><input name="a" value="1"></form>'
        '<script>document.getElementById("f").submit()</script>',
        "window_open": f'<script>window.open("{u}/popup")</script><p>x</p>',
        "worker_fetch": f"<script>new Worker(URL.createObjectURL(new Blob(['fetch(\"{u}/worker\")'])))</script>x",
        "service_worker": '<script>navigator.serviceWorker && navigator.serviceWorker.register("/sw.js")</script>x',
    }


def test_canary_sees_no_request(pool, canary):
    host, hits = canary
    pages = attack_pages(host)
    results = pool.render_many(list(pages.values()), timeout_ms=8000)
    time.sleep(1.5)  # stragglers (beacons, keepalive) would arrive after the render
    assert hits == [], f"requests escaped: {hits}"
    # every page comes back; a script that navigates (location, form.submit) while the document is still being
    # parsed stops the parser: that document is unfinished and fails as a navigation (it was a timeout before)
    failed = {name: r for name, r in zip(pages, results) if not r.ok}
    assert set(failed) <= {"location", "form"}, {name: r.error for name, r in failed.items()}
    assert all(r.kind is FailureKind.NAVIGATION and "still being parsed" in r.error for r in failed.values())
    assert pool.render("<p>still fine</p>").ok


def test_canary_is_reachable_without_the_pool(canary):
    """The canary itself works, so zero hits above means zero escaped requests."""
    import urllib.request

    host, hits = canary
    before = len(hits)
    assert urllib.request.urlopen(f"http://{host}/direct", timeout=5).read() == b"canary"
    assert len(hits) == before + 1
    del hits[before:]


def test_file_urls_are_refused(pool, tmp_path):
    secret = tmp_path / "secret.html"
    secret.write_text("<p>TOP-SECRET-CONTENT</p>")
    html = (
        f'<iframe src="file://{secret}"></iframe><p id="r">none</p>'
        f'<script>fetch("file://{secret}").then(r => r.text()).then(t => document.getElementById("r").textContent = t)'
        ".catch(() => 0)</script>"
    )
    r = pool.render(html)
    assert r.ok
    texts = " ".join(b.text for b in r.layout.text_blocks)
    assert "TOP-SECRET" not in texts


def test_no_state_carries_between_renders(pool):
    writer = """<script>
      localStorage.setItem("k", "v"); sessionStorage.setItem("k", "v");
      document.cookie = "c=1; domain=vcoder.invalid; path=/"; document.cookie = "d=2";
      indexedDB.open("db", 1).onupgradeneeded = (e) => e.target.result.createObjectStore("s");
    </script><p>written</p>"""
    reader = """<p id="r">pending</p><script>
      const out = [localStorage.length, sessionStorage.length, document.cookie || "none"];
      indexedDB.databases().then((dbs) => {
        out.push(dbs.length); document.getElementById("r").textContent = "state " + out.join(",");
      });
    </script>"""
    assert pool.render(writer).ok
    # indexedDB.databases() resolves after the load event on a cold context: re-render (a new origin each time,
    # so each try is as fresh as the first) until the promise made it into the screenshot
    for _ in range(5):
        r = pool.render(reader)
        assert r.ok
        texts = [b.text for b in r.layout.text_blocks]
        if texts != ["pending"]:
            break
    assert texts == ["state 0,0,none,0"]


def test_local_file_beside_page_is_served(pool, tmp_path):
    from PIL import Image

    Image.new("RGB", (40, 30), (255, 0, 0)).save(tmp_path / "rick.jpg")
    html = '<body style="margin:0"><img src="rick.jpg"><img src="../outside.png"><img src="missing.png"></body>'
    r = pool.render(html, base_dir=tmp_path)
    assert r.ok
    imgs = [e for e in r.layout.elements if e.tag == "img"]
    assert imgs[0].bbox[2:] == (40, 30)  # the real file
    assert imgs[1].bbox[2:] == (320, 240) and imgs[2].bbox[2:] == (320, 240)  # placeholders, never the disk
    assert tuple(r.image[10, 10]) == (254, 0, 0) or r.image[10, 10][0] > 240
