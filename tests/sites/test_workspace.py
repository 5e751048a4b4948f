"""SiteWorkspace: files applied turn by turn, all or nothing; the episode folder written without ever leaving DIR."""

from __future__ import annotations

import os

import pytest

from vcoder.sites.turns import FileWrite, Malformed, SiteLimits, SitePathError, Turn, parse_turn
from vcoder.sites.workspace import SiteWorkspace, WorkspaceError, inline_site


def apply(ws, text):
    return ws.apply(parse_turn(text, limits=ws.limits))


def tree(root):
    """Every path under root (relative), links included, without following links."""
    found = []
    for here, dirs, names in os.walk(root):
        found += [os.path.relpath(os.path.join(here, n), root) for n in dirs + names]
    return sorted(found)


@pytest.fixture
def outside(tmp_path):
    target = tmp_path / "outside"
    target.mkdir()
    (target / "keep.txt").write_text("original")
    return target


def test_turns_accumulate_and_unwritten_files_keep_their_content():
    ws = SiteWorkspace()
    apply(ws, '<file path="index.html">v1</file><file path="app.js">a</file><file path="old.css">o</file>')
    done = apply(ws, '<file path="index.html">v2</file><delete path="old.css"/><delete path="gone.js"/>')
    assert dict(ws.files) == {"index.html": "v2", "app.js": "a"}
    assert done.written == ("index.html",) and done.deleted == ("old.css",)
    assert done.notes == ("gone.js was not in the site; nothing to delete",)


def test_a_malformed_turn_changes_nothing():
    ws = SiteWorkspace()
    apply(ws, '<file path="index.html">v1</file>')
    done = apply(ws, '<file path="index.html">v2</file><file path="../x.html">x</file>')
    assert done.malformed is Malformed.BAD_PATH and "'..'" in done.error
    assert dict(ws.files) == {"index.html": "v1"}


def test_site_limits_are_checked_after_the_turn_and_refuse_it_whole():
    ws = SiteWorkspace(limits=SiteLimits(max_files=2, max_file_bytes=10, max_total_bytes=12))
    apply(ws, '<file path="index.html">12345</file><file path="a.css">12345</file>')
    more = apply(ws, '<file path="b.js">1</file>')
    assert more.malformed is Malformed.TOO_MANY_FILES and "3 files, over 2" in more.error
    bigger = apply(ws, '<file path="a.css">12345678</file>')
    assert bigger.malformed is Malformed.TOO_LARGE and "13 bytes, over 12" in bigger.error
    assert dict(ws.files) == {"index.html": "12345", "a.css": "12345"}
    swap = apply(ws, '<delete path="a.css"/><file path="b.js">1234567</file>')  # deletions count first
    assert swap.malformed is None and sorted(ws.files) == ["b.js", "index.html"]


def test_a_case_twin_of_an_existing_file_is_refused():
    ws = SiteWorkspace()
    apply(ws, '<file path="index.html">a</file><file path="Style.css">s</file>')
    twin = apply(ws, '<file path="style.css">t</file>')
    assert twin.malformed is Malformed.BAD_PATH and "'Style.css'" in twin.error
    assert apply(ws, '<file path="Style.css">t</file>').malformed is None


def test_missing_entry_page_is_noted_with_its_case_twin():
    ws = SiteWorkspace()
    assert apply(ws, '<file path="INDEX.HTML">a</file>').notes == (
        "the site has no index.html (names are case-sensitive: found INDEX.HTML)",
    )
    assert ws.entry is None
    assert apply(ws, '<file path="index.html">b</file>').malformed is Malformed.BAD_PATH
    assert apply(ws, '<delete path="INDEX.HTML"/><file path="index.html">b</file>').notes == ()
    assert dict(ws.files) == {"index.html": "b"} and ws.entry == "b"


def test_hand_built_turns_are_validated_again():
    with pytest.raises(SitePathError, match="'..'"):
        SiteWorkspace().apply(Turn(writes=(FileWrite("../x.html", "x"),)))


def test_digest_follows_content_not_history():
    a, b = SiteWorkspace(), SiteWorkspace()
    apply(a, '<file path="index.html">x</file><file path="a.css">y</file>')
    apply(b, '<file path="a.css">y</file>')
    assert a.digest() != b.digest()
    apply(b, '<file path="index.html">x</file>')
    assert a.digest() == b.digest()


def test_snapshots_and_step_files_on_disk(tmp_path):
    ws = SiteWorkspace(tmp_path / "ep")
    apply(ws, '<file path="index.html">v1</file><file path="css/site.css">c</file>')
    site = ws.write_site(1)
    ws.write_step_file(1, "feedback.md", "good")
    ws.write_step_file(1, "screenshot.png", b"\x89PNG")
    apply(ws, '<file path="index.html">v2</file>')
    ws.write_site(2)
    ws.write_file("episode.json", "{}")
    assert site == tmp_path / "ep" / "step_1" / "site"
    assert (site / "css" / "site.css").read_text() == "c" and (
        tmp_path / "ep/step_2/site/index.html"
    ).read_text() == "v2"
    assert tree(tmp_path / "ep") == [
        "episode.json",
        "step_1",
        "step_1/feedback.md",
        "step_1/screenshot.png",
        "step_1/site",
        "step_1/site/css",
        "step_1/site/css/site.css",
        "step_1/site/index.html",
        "step_2",
        "step_2/site",
        "step_2/site/css",
        "step_2/site/css/site.css",
        "step_2/site/index.html",
    ]
    with pytest.raises(ValueError, match="not one of"):
        ws.write_step_file(1, "../../evil.txt", "x")
    with pytest.raises(ValueError, match="plain file name"):
        ws.write_file("../evil.json", "x")


def test_memory_only_workspace_writes_nothing():
    ws = SiteWorkspace()
    apply(ws, '<file path="index.html">x</file>')
    assert ws.write_site(1) is None and ws.write_step_file(1, "reply.txt", "r") is None and ws.step_dir(1) is None


def test_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "ep").mkdir()
    (tmp_path / "ep" / "old.txt").write_text("x")
    with pytest.raises(WorkspaceError, match="not empty"):
        SiteWorkspace(tmp_path / "ep")


def test_a_step_folder_planted_as_a_symlink_is_not_followed(tmp_path, outside):
    ws = SiteWorkspace(tmp_path / "ep")
    apply(ws, '<file path="index.html">x</file>')
    os.symlink(outside, tmp_path / "ep" / "step_1")
    with pytest.raises(WorkspaceError, match="already exists"):
        ws.write_site(1)
    with pytest.raises(WorkspaceError, match="following a link"):
        ws.write_step_file(1, "reply.txt", "r")
    assert tree(outside) == ["keep.txt"]


def test_planted_file_links_inside_a_step_folder_are_not_written_through(tmp_path, outside):
    ws = SiteWorkspace(tmp_path / "ep")
    planted = tmp_path / "ep" / "step_1"
    planted.mkdir()
    os.symlink(outside / "keep.txt", planted / "reply.txt")
    os.link(outside / "keep.txt", planted / "feedback.md")
    with pytest.raises(WorkspaceError):
        ws.write_step_file(1, "reply.txt", "overwritten")
    with pytest.raises(WorkspaceError):
        ws.write_step_file(1, "feedback.md", "overwritten")
    assert (outside / "keep.txt").read_text() == "original" and tree(outside) == ["keep.txt"]


def test_a_symlinked_subfolder_of_the_site_is_not_followed(tmp_path, outside):
    ws = SiteWorkspace(tmp_path / "ep")
    apply(ws, '<file path="index.html">x</file><file path="css/a.css">y</file>')
    (tmp_path / "ep" / "step_1").mkdir()
    # step_1 exists (planted): the snapshot refuses to reuse it rather than write into whatever it holds
    with pytest.raises(WorkspaceError):
        ws.write_site(1)
    ws2 = SiteWorkspace(tmp_path / "ep2")
    apply(ws2, '<file path="index.html">x</file><file path="css/a.css">y</file>')
    ws2._create("step_1", dir_only=True)
    ws2._create("step_1/site", dir_only=True)
    os.symlink(outside, tmp_path / "ep2" / "step_1" / "site" / "css")
    with pytest.raises(WorkspaceError, match="following a link"):
        ws2._create("step_1/site/css/a.css", b"y")
    assert tree(outside) == ["keep.txt"]


def test_replacing_the_episode_folder_by_a_link_does_not_redirect_writes(tmp_path, outside):
    ws = SiteWorkspace(tmp_path / "ep")
    apply(ws, '<file path="index.html">x</file>')
    os.rename(tmp_path / "ep", tmp_path / "moved")
    os.symlink(outside, tmp_path / "ep")
    ws.write_site(1)
    assert (tmp_path / "moved" / "step_1" / "site" / "index.html").read_text() == "x"
    assert tree(outside) == ["keep.txt"]


def test_inline_site_inlines_own_files_only():
    files = {
        "index.html": (
            '<link rel="stylesheet" href="css/a.css"><link rel="stylesheet" href="https://cdn.x/b.css">'
            '<link rel="icon" href="icon.svg"><script src="./app.js"></script>'
            '<script type="text/babel" src="ui.jsx"></script><script src="missing.js"></script>'
        ),
        "css/a.css": "body{color:red}",
        "app.js": "document.write('</script>')",
        "ui.jsx": "const A = () => <b/>;",
        "icon.svg": "<svg/>",
    }
    out = inline_site(files)
    assert "<style>body{color:red}</style>" in out and 'href="https://cdn.x/b.css"' in out
    assert '<link rel="icon" href="icon.svg">' in out
    assert "<script>document.write('<\\/script>')</script>" in out
    assert '<script type="text/babel">const A = () => <b/>;</script>' in out
    assert '<script src="missing.js"></script>' in out
    assert inline_site({"a.html": "x"}) is None
