"""The ORM's prompt: exact layout, what the summary shows, and that the label never leaks into it."""

from __future__ import annotations

from vcoder.orm.examples import agent_runs, label_of, record_text
from vcoder.orm.prompt import QUESTION, AgentRun, orm_prompt, page_summary, text_change
from vcoder.verdicts.records import CaseVerdict, VerdictRecord, site_hash

PAGE = (
    "<html><head><title>Demo  Counter</title></head><body><h1>Demo</h1><div id=count>0</div>"
    '<button id="inc">+ 1</button><input id="name" type="text" placeholder="Your name">'
    '<a href="#x" onclick="go()">More</a><script>\nlet n = 0;\n  wire("#inc", () => n++);\n</script></body></html>'
)


def test_page_summary_lists_title_text_controls_and_script():
    assert page_summary(PAGE, ["Demo", "0", "+ 1", "", "More"]) == (
        "Page title: Demo Counter\n"
        "Visible text: Demo | 0 | + 1 | More\n"
        'Controls: button#inc "+ 1"; input#name[text] "Your name"; a "More"\n'
        'Script: let n = 0; wire("#inc", () => n++); [inline handlers: onclick on a]'
    )


def test_a_page_without_script_says_so_and_long_parts_are_cut():
    summary = page_summary("<p>" + "word " * 200 + "</p>", ["word " * 200])
    lines = summary.split("\n")
    assert lines[0] == "Page title: (none)" and lines[2] == "Controls: (none)" and lines[3] == "Script: none"
    assert lines[1].endswith("…") and len(lines[1]) == len("Visible text: ") + 240
    assert page_summary("<<<>>> <script>x(", []).endswith("Script: x(")  # broken markup still summarised


def test_text_change():
    assert text_change("A\nB\n0", "A\nB\n3") == 'shows "3"; no longer "0"'
    assert text_change("A", "A\nSaved") == 'shows "Saved"'
    assert text_change("A\nerr", "A") == 'no longer "err"'
    assert text_change("A\n\n B", "A\nB ") == "no visible change"
    assert text_change(None, "A") is None


def test_the_exact_prompt_layout():
    cases = [{"task": "Click +", "expected_result": "It shows 1"}, {"task": "Reset"}]
    runs = [AgentRun("Click +", ("click #inc",), 'shows "1"'), AgentRun("Reset", (), None)]
    text = orm_prompt("Make a\n counter.", cases, "SUMMARY", runs=runs, history=["wrote index.html"])
    assert text == (
        "Task: Make a counter.\n"
        "Test cases:\n"
        "1. Click + -> It shows 1\n"
        "2. Reset\n"
        "SUMMARY\n"
        "Agent runs:\n"
        '1. click #inc => shows "1"\n'
        "2. no actions => outcome not recorded\n"
        "Build turns:\n"
        "1. wrote index.html\n"
        f"{QUESTION}"
    )
    assert orm_prompt("Make a counter.", cases, "SUMMARY") == "\n".join(text.split("\n")[:5] + [QUESTION])


def test_record_views_and_labels_never_show_the_verdicts():
    files = {"index.html": PAGE}
    rec = VerdictRecord(
        task_id="t",
        instruction="Make a counter",
        site_hash=site_hash(files),
        site_files=files,
        score=0.25,
        source="gui_agent",
        test_cases=({"task": "Click +", "expected_result": "It shows 1"},),
        cases=(CaseVerdict("Click +", "PARTIAL", "1 of 2 expectations unmet", ("click #inc",), "no visible change"),),
    )
    site, agent = (record_text(rec, ["Demo"], PAGE, view=v) for v in ("site", "agent"))
    assert "Agent runs:" not in site and "1. click #inc => no visible change" in agent
    for text in (site, agent):
        assert "PARTIAL" not in text and "expectations unmet" not in text and "0.25" not in text
    assert label_of(rec, 0.5) == 0 and label_of(rec, 0.25) == 1
    no_runs = VerdictRecord(**{**vars(rec), "cases": (CaseVerdict("Click +", "NO"),)})
    assert agent_runs(no_runs) == []
