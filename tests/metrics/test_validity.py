"""validity_score discriminates: clean pages high, each kind of damage lowers it with its amount."""

from __future__ import annotations

import pytest

from vcoder.metrics.validity import validity_report, validity_score

CLEAN = [
    "<!DOCTYPE html><html><head><title>t</title></head><body><p>x</p></body></html>",
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css">
<style>.a > p { color: red; }</style><script>if (1 < 2 && 3 > 1) { console.log("<div>"); }</script></head>
<body><header class="a"><nav><ul><li>Home<li>About</ul></nav></header>
<main><p>First<p>Second <br> line<img src="x.png" alt=""><input type="text"></p>
<table><thead><tr><th>A<th>B<tbody><tr><td>1<td>2<tr><td>3<td>4</table>
<select><option>a<option>b</select><svg viewBox="0 0 10 10"><path d="M0 0"/><circle r="1"/></svg>
<my-widget></my-widget><dl><dt>T<dd>D</dl></main><footer>&copy; 2024</footer></body></html>""",
]


@pytest.mark.parametrize("html", CLEAN)
def test_clean_pages_score_high(html):
    assert validity_score(html) >= 0.95
    report = validity_report(html)
    assert sum(v for k, v in report.items() if k != "n_elements") == 0, report


def _page(body: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>"


BASE = "".join(
    f'<section id="s{k}"><div class="c"><p>text {k}</p><span>more</span></div></section>' for k in range(12)
)


def _damage(kind: str, amount: int) -> str:
    body = BASE
    for k in range(amount):
        if kind == "unclosed":
            body = body.replace(f"<p>text {k}</p><span>more</span></div>", f"<p>text {k}</p><span>more</div>")
        elif kind == "misnested":
            body = body.replace(f"<p>text {k}</p>", f"<p><b><i>text {k}</b></i></p>")
        elif kind == "stray_end":
            body = body.replace(f"<p>text {k}</p>", f"<p>text {k}</p></em>")
        elif kind == "duplicate_ids":
            body = body.replace(f'id="s{k + 1}"', 'id="s0"', 1)
        elif kind == "unknown_tags":
            body = body.replace(f"<p>text {k}</p>", f"<blink2>text {k}</blink2>")
    return _page(body)


@pytest.mark.parametrize("kind", ["unclosed", "misnested", "stray_end", "duplicate_ids", "unknown_tags"])
def test_each_damage_lowers_the_score_monotonically(kind):
    scores = [validity_score(_damage(kind, n)) for n in (0, 1, 2, 4, 8)]
    assert scores[0] >= 0.95
    assert all(a > b for a, b in zip(scores, scores[1:])), scores
    report = validity_report(_damage(kind, 2))
    # an element left open is closed by its parent's end tag: browsers repair it, we count it as misnested
    assert (report[kind] + report["misnested"] if kind == "unclosed" else report[kind]) >= 2


def test_structure_defects():
    full = _page("<p>x</p>")
    base = validity_score(full)
    for broken, flag in [
        (full.replace("<!DOCTYPE html>", ""), "missing_doctype"),
        (full.replace("<head><title>t</title></head>", ""), "missing_head"),
        (full.replace("<body>", "").replace("</body>", ""), "missing_body"),
        (full[: -len("</html>")], "truncated"),
    ]:
        assert validity_report(broken)[flag] == 1
        assert validity_score(broken) < base
    outside = full.replace("</body>", "</body><p>after</p>")
    assert validity_report(outside)["outside_body"] >= 1 and validity_score(outside) < base
    text_in_head = full.replace("<title>t</title>", "<title>t</title>loose text")
    assert validity_report(text_in_head)["outside_body"] == 1


def test_not_a_constant_for_fenced_junk():
    scores = {
        validity_score("<div>hello"),
        validity_score("<html><body><p>hi</p></body></html>"),
        validity_score(_page("<div><span></div></span><p id=a></p><p id=a>")),
        validity_score(CLEAN[0]),
    }
    assert len(scores) == 4 and max(scores) == 1.0 and min(scores) < 0.5
    assert validity_score(None) == 0.0 and validity_score("just words") == 0.0 and validity_score("") == 0.0


def test_huge_and_deep_inputs_do_not_recurse():
    deep = _page("<div>" * 50_000 + "x" + "</div>" * 50_000)
    assert validity_score(deep) >= 0.95
    assert 0.0 <= validity_score("<div>" * 20_000) < 0.5


def test_rejects_non_str():
    with pytest.raises(TypeError, match="str"):
        validity_report(b"<html></html>")
