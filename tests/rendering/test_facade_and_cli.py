"""The sync facade, cross-loop awaits, the default pool, and the `vcoder render` CLI (real subprocess)."""

from __future__ import annotations

import asyncio
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from vcoder.rendering import AsyncBrowserPool, BrowserPool, get_default_pool

ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize("name", ["__init__", "render", "render_many"])
def test_sync_facade_has_the_async_signatures(name):
    sync_sig = inspect.signature(getattr(BrowserPool, name))
    async_sig = inspect.signature(getattr(AsyncBrowserPool, name))
    # the one difference: the async pool may be bound to a loop, the sync facade brings its own
    assert list(sync_sig.parameters.values()) == [p for p in async_sig.parameters.values() if p.name != "loop"]
    options = [p for p in sync_sig.parameters.values() if p.name not in ("self", "html", "htmls")]
    assert options and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in options)
    assert sync_sig.return_annotation == async_sig.return_annotation


def test_default_pool_takes_the_constructor_options_by_name():
    params = inspect.signature(get_default_pool).parameters
    assert list(params) == [n for n in inspect.signature(BrowserPool).parameters]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is None for p in params.values())


@pytest.mark.browser
def test_sync_pool_refuses_inside_running_loop(pool):
    async def inside():
        with pytest.raises(RuntimeError, match="AsyncBrowserPool"):
            pool.render("<p>x</p>")
        # the async pool awaited from this foreign loop is forwarded to the pool's own loop
        r = await pool.async_pool.render("<p>from another loop</p>")
        return r

    r = asyncio.run(inside())
    assert r.ok and r.layout.text_blocks[0].text == "from another loop"


@pytest.mark.browser
def test_default_pool_is_shared():
    a, b = get_default_pool(), get_default_pool()
    assert a is b
    assert a.render("<b>shared</b>").layout.text_blocks[0].text == "shared"
    a.close()
    assert get_default_pool() is not a
    get_default_pool().close()


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "vcoder", "render", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.browser
def test_cli_render_ok_failed_and_usage(tmp_path):
    good, bad = tmp_path / "good.html", tmp_path / "bad.html"
    good.write_text("<h1>Hello</h1>")
    bad.write_text("   ")
    proc = _cli(str(good), "--out", str(tmp_path / "o"), "--width", "800")
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout.strip())
    assert (
        line["ok"]
        and line["error"] is None
        and Path(line["png"]).is_file()
        and set(line) == {"input", "ok", "error", "png", "elapsed_ms"}
    )
    layout = json.loads((tmp_path / "o" / "good.json").read_text())["layout"]
    assert layout["width"] == 800 and layout["text_blocks"][0]["text"] == "Hello"

    proc = _cli(str(good), str(bad), "--out", str(tmp_path / "o2"), "--viewport-only")
    assert proc.returncode == 3
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["ok"] for x in lines] == [True, False] and lines[1]["error"].startswith("empty:")

    assert _cli(str(tmp_path / "missing.html"), "--out", str(tmp_path)).returncode == 2
    assert _cli(str(good), "--out", str(tmp_path), "--width", "-5").returncode == 2
