"""The turn format: what is accepted, every malformed kind, limits, binary content and hostile paths (pure)."""

from __future__ import annotations

import pytest

from vcoder.sites.turns import (
    SITE_EXTENSIONS,
    FileWrite,
    Malformed,
    SiteLimits,
    SitePathError,
    check_site_path,
    parse_turn,
)

PAGE = "<!DOCTYPE html>\n<html><body><h1>Hi</h1></body></html>"


def files(turn):
    return {w.path: w.content for w in turn.writes}


# accepted


def test_one_file_with_prose_around_and_newlines_trimmed():
    turn = parse_turn(f'Here is the page.\n<file path="index.html">\n{PAGE}\n</file>\nDone.')
    assert turn.ok and files(turn) == {"index.html": PAGE} and not turn.finish and turn.deletes == ()


def test_several_files_deletion_and_finish_in_one_turn():
    text = (
        '<file path="index.html">\n<link rel="stylesheet" href="css/site.css">\n</file>\n'
        "<file path='css/site.css'>\nbody { color: red }\n\n</file>\n"
        '<delete path="old.js"/>\n<finish/>'
    )
    turn = parse_turn(text)
    assert turn.ok and turn.finish
    assert files(turn) == {
        "index.html": '<link rel="stylesheet" href="css/site.css">',
        "css/site.css": "body { color: red }\n",
    }
    assert turn.deletes == ("old.js",)


@pytest.mark.parametrize("finish", ["<finish/>", "<finish />", "<FINISH/>", "<finish>", "  <finish/></finish>"])
def test_finish_alone(finish):
    turn = parse_turn(f"The site is complete.\n{finish}")
    assert turn.ok and turn.finish and turn.writes == ()


def test_delete_only_turn_is_an_action():
    turn = parse_turn('<delete path="a.css" />')
    assert turn.ok and turn.deletes == ("a.css",)


def test_content_keeps_inner_markup_and_custom_elements():
    body = '<file-upload id="u"></file-upload>\n<p>see <b>file</b> &lt;file&gt;</p>\n<script>let file = 1;</script>'
    assert files(parse_turn(f'<file path="index.html">\n{body}\n</file>')) == {"index.html": body}


def test_a_fence_wrapping_a_files_content_is_removed():
    turn = parse_turn('<file path="app.js">\n```javascript\nconsole.log(1);\n```\n</file>')
    assert files(turn) == {"app.js": "console.log(1);"}


def test_lone_fenced_html_block_is_index_html():
    turn = parse_turn(f"Sure! Here it is:\n```html\n{PAGE}\n```\nEnjoy.")
    assert turn.ok and turn.fenced and files(turn) == {"index.html": PAGE}


def test_think_blocks_are_ignored():
    text = '<think>maybe <file path="../x.html">no</file></think>\n<file path="index.html">ok</file>'
    assert files(parse_turn(text)) == {"index.html": "ok"}


def test_dot_slash_prefix_is_normalised():
    assert files(parse_turn('<file path="./js/./app.js">x</file>')) == {"js/app.js": "x"}


# malformed


@pytest.mark.parametrize(
    ("text", "kind", "says"),
    [
        ("", Malformed.NO_ACTION, "no <file> block"),
        ("I will build it now.", Malformed.NO_ACTION, "no <file> block"),
        (f"<!DOCTYPE html>{PAGE}", Malformed.NO_ACTION, "no <file> block"),
        (f"```html\n{PAGE}\n```\n```css\nbody{{}}\n```", Malformed.NO_ACTION, "2 fenced code blocks"),
        ("```css\nbody{}\n```", Malformed.NO_ACTION, "1 fenced code blocks"),
        (f"```html\n{PAGE}", Malformed.UNPARSEABLE, "not closed"),
        ('<file path="index.html">\n<h1>cut off', Malformed.UNPARSEABLE, "no closing </file>"),
        ("<file>x</file>", Malformed.UNPARSEABLE, 'open a file as <file path="RELATIVE/PATH">'),
        ('<file name="a.html">x</file>', Malformed.UNPARSEABLE, "open a file as"),
        ('<file path="a.html" type="text">x</file>', Malformed.UNPARSEABLE, "open a file as"),
        ('<file path="a.html">x<file path="b.css">y</file>', Malformed.UNPARSEABLE, "is not closed before"),
        ("</file>", Malformed.UNPARSEABLE, "closes no open"),
        ('<file path="a.html">x</file></file>', Malformed.UNPARSEABLE, "closes no open"),
        ("<delete>a.css</delete>", Malformed.UNPARSEABLE, "write a deletion as"),
        ("<finish now/>", Malformed.UNPARSEABLE, "<finish/>"),
        ('<file path="a.html">1</file><file path="a.html">2</file>', Malformed.UNPARSEABLE, "twice"),
        ('<file path="a.html">1</file><delete path="a.html"/>', Malformed.UNPARSEABLE, "twice"),
        ('<file path="a.html">1</file><file path="A.html">2</file>', Malformed.UNPARSEABLE, "differ only in case"),
        ('<file path="logo.png">x</file>', Malformed.UNSUPPORTED_TYPE, "images and other binary"),
        ('<file path="server.py">x</file>', Malformed.UNSUPPORTED_TYPE, ".html"),
        ('<file path="a.html">\x00\x01\x02PNG</file>', Malformed.BINARY, "binary content"),
        ('<file path="a.json">{"a": "\ufffd"}</file>', Malformed.BINARY, "binary content"),
    ],
)
def test_malformed_turns(text, kind, says):
    turn = parse_turn(text)
    assert not turn.ok and turn.malformed is kind and says in turn.error, turn.error
    assert turn.writes == () and turn.deletes == () and not turn.finish


def test_a_bad_block_spoils_the_whole_turn_even_with_finish():
    turn = parse_turn('<file path="index.html">ok</file><file path="../evil.html">x</file><finish/>')
    assert turn.malformed is Malformed.BAD_PATH and not turn.finish and turn.writes == ()


def test_every_problem_is_reported_with_the_first_kind():
    turn = parse_turn('<file path="/etc/x.html">a</file><file path="b.exe">b</file>')
    assert turn.malformed is Malformed.BAD_PATH
    assert "absolute" in turn.error and "b.exe" in turn.error


# limits


def test_limits_on_files_and_bytes():
    limits = SiteLimits(max_files=2, max_file_bytes=10, max_total_bytes=15)
    many = "".join(f'<file path="p{i}.html">x</file>' for i in range(3))
    assert parse_turn(many, limits=limits).malformed is Malformed.TOO_MANY_FILES
    assert "3 files, over 2" in parse_turn(many, limits=limits).error
    big = parse_turn('<file path="a.html">' + "é" * 6 + "</file>", limits=limits)  # 12 UTF-8 bytes
    assert big.malformed is Malformed.TOO_LARGE and "12 bytes" in big.error
    total = parse_turn('<file path="a.html">123456789</file><file path="b.html">123456789</file>', limits=limits)
    assert total.malformed is Malformed.TOO_LARGE and "18 bytes, over 15" in total.error
    fits = parse_turn('<file path="a.html">1234567</file><file path="b.html">1234567</file>', limits=limits)
    assert fits.ok


def test_limits_are_validated():
    with pytest.raises(ValueError, match="over max_total_bytes"):
        SiteLimits(max_file_bytes=10, max_total_bytes=5)
    with pytest.raises(ValueError, match=">= 1"):
        SiteLimits(max_files=0)


# paths


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("../x.html", "'..'"),
        ("a/../../x.html", "'..'"),
        ("..", "'..'"),
        ("/etc/passwd.html", "absolute"),
        ("~/x.html", "absolute"),
        ("C:\\Windows\\x.html", "backslash"),
        ("C:/x.html", "drive letter"),
        ("c:x.html", "drive letter"),
        ("\\\\server\\share\\x.html", "backslash"),
        ("//server/share/x.html", "URL"),
        ("a\\..\\x.html", "backslash"),
        ("https://evil.com/x.html", "URL"),
        ("a\x00.html", "control characters"),
        ("a\n.html", "control characters"),
        ("", "empty path"),
        ("   ", "empty path"),
        ("css/", "names a folder"),
        (".", "names no file"),
        ("a//b.html", "empty folder name"),
        (".htaccess.html", "may not start with '.'"),
        ("-rf.html", "may not start with '.' or '-'"),
        ("my page.html", "ASCII letters"),
        ("\uff0e\uff0e/x.html", "ASCII letters"),  # fullwidth dots
        ("ca\u0301fe.html", "ASCII letters"),
        ("%2e%2e/x.html", "ASCII letters"),
        ("index.html.", "ends with a dot"),
        ("CON.html", "reserved device name"),
        ("nUl.css", "reserved device name"),
        ("Lpt1.txt", "reserved device name"),
        ("/".join(["d"] * 9) + "/x.html", "folders deep"),
        ("a" * 200 + ".html", "over 200"),
    ],
)
def test_hostile_paths_are_refused(path, says):
    with pytest.raises(SitePathError, match=None) as info:
        check_site_path(path)
    assert says in str(info.value), str(info.value)
    assert parse_turn(f'<file path="{path}">x</file>').malformed in (Malformed.BAD_PATH, Malformed.UNPARSEABLE)


@pytest.mark.parametrize(
    ("path", "normal"),
    [
        ("index.html", "index.html"),
        ("INDEX.HTML", "INDEX.HTML"),
        ("./css/site.min.css", "css/site.min.css"),
        ("pages/about-us_2.html", "pages/about-us_2.html"),
        ("data/items.json", "data/items.json"),
        ("icons/logo.svg", "icons/logo.svg"),
        ("src/App.jsx", "src/App.jsx"),
        ("console.js", "console.js"),  # 'con' only as a whole name
    ],
)
def test_good_paths(path, normal):
    assert check_site_path(path) == normal


def test_every_site_extension_is_named_in_the_system_prompt():
    from vcoder.data.prompts import SITE_SYSTEM_PROMPT

    for ext in SITE_EXTENSIONS:
        assert ext in SITE_SYSTEM_PROMPT, ext


def test_the_prompts_example_parses():
    from vcoder.data.prompts import SITE_SYSTEM_PROMPT

    example = SITE_SYSTEM_PROMPT.split("file block (the path is relative to the site's root folder):\n")[1]
    example = example.split("\n- Delete")[0]
    assert files(parse_turn(example)) == {"index.html": "<!DOCTYPE html>\n...the whole file..."}


def test_turn_is_a_frozen_value():
    turn = parse_turn('<file path="a.html">x</file>')
    assert turn.writes == (FileWrite("a.html", "x"),)
    with pytest.raises(AttributeError):
        turn.finish = True


def test_renaming_to_a_case_twin_in_one_turn_is_allowed():
    turn = parse_turn('<delete path="INDEX.HTML"/><file path="index.html">x</file>')
    assert turn.ok and turn.deletes == ("INDEX.HTML",) and files(turn) == {"index.html": "x"}
