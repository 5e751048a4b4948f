"""SiteGrader on real Chromium: multi-file sites at the virtual origin, settled screenshots, every component."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.servers import ScriptedServer
from vcoder.gui.judge import ScreenshotJudge
from vcoder.gui.vlm_policy import VLMPolicy
from vcoder.rendering import FailureKind, get_default_pool
from vcoder.sites.grading import SiteGrader, reference_scorer_from_reward
from vcoder.sites.records import EpisodeOptions, SiteTask
from vcoder.sites.turns import parse_turn
from vcoder.sites.workspace import SiteWorkspace

pytestmark = pytest.mark.browser

# generous: the machine running the tests may be loaded, and a cold Babel transform is slow there
OPTIONS = EpisodeOptions(
    render_width=640, render_height=400, gui_deadline_ms=20_000, gui_action_timeout_ms=10_000, settle_timeout_ms=20_000
)
SITE = """<file path="index.html">
<!DOCTYPE html><html><head><link rel="stylesheet" href="css/site.css"></head>
<body><h1 id="title">Plants</h1><input id="q" aria-label="Filter"><ul id="list"></ul><a href="about.html">About</a>
<script src="js/app.js"></script></body></html>
</file>
<file path="css/site.css">body { background: rgb(10, 120, 30); margin: 0 } h1 { color: white }</file>
<file path="js/app.js">
let plants = [];
const show = () => {
  const q = document.getElementById('q').value.toLowerCase();
  document.getElementById('list').innerHTML = plants.filter(p => p.toLowerCase().includes(q)).map(i => `<li>${i}</li>`).join('');
};
document.getElementById('q').oninput = show;
fetch('data/plants.json').then(r => r.json()).then(items => { plants = items; show(); });
</file>
<file path="data/plants.json">["Fern", "Cactus", "Ivy"]</file>
<file path="about.html"><h1>About us</h1></file>"""
# the fetched list shows before any action, so each case leaves it first (only what the steps produce counts)
CASES = [
    {
        "task": "Filter by 'c', then clear the filter",
        "expected_result": "Three plants listed",
        "steps": [{"action": "type", "target": "#q", "value": "c"}, {"action": "type", "target": "#q", "value": ""}],
        "expect": [{"target": "#list li", "count": 3}],
    },
    {
        "task": "Filter by 'zz', then by 'iv'",
        "expected_result": "Ivy is listed",
        "steps": [
            {"action": "type", "target": "#q", "value": "zz"},
            {"action": "type", "target": "#q", "value": "iv"},
        ],
        "expect": [{"target": "#list", "text": "Ivy"}],
    },
]


def site(tmp_path, text=SITE):
    ws = SiteWorkspace(tmp_path / "ep")
    applied = ws.apply(parse_turn(text))
    assert applied.malformed is None, applied.error
    return ws, ws.write_site(1)


def grade(grader, ws, site_dir, task, options=OPTIONS):
    return asyncio.run(grader.grade(ws.files, site_dir, task, options))


def test_a_multi_file_site_renders_and_passes_its_cases(tmp_path):
    ws, site_dir = site(tmp_path)
    grades = grade(SiteGrader(pool=get_default_pool()), ws, site_dir, SiteTask("A plant list", tuple_cases()))
    assert grades.error is None and grades.rendered.ok, grades.rendered.error
    assert tuple(grades.rendered.image[5, 5]) == (10, 120, 30)  # the site's own stylesheet
    texts = [b.text for b in grades.rendered.layout.text_blocks]
    assert "Ivy" in " ".join(texts)  # fetched from data/plants.json before the screenshot
    assert grades.gui == 1.0 and [r.verdict.value for r in grades.cases] == ["YES", "YES"]
    assert grades.screenshot is None and grades.notes == (
        "appearance not judged: no screenshot judge endpoint configured",
    )


def tuple_cases(cases=CASES):
    from vcoder.gui.policy import parse_cases

    return tuple(parse_cases(cases))


def test_react_site_is_captured_after_its_first_commit(tmp_path):
    react = """<file path="index.html">
<script src="https://unpkg.com/react@18/umd/react.development.js"></script>
<script src="https://unpkg.com/react-dom@18/umd/react-dom.development.js"></script>
<script src="https://unpkg.com/@babel/standalone/babel.min.js"></script>
<div id="root"></div><script type="text/babel" src="app.jsx"></script>
</file>
<file path="app.jsx">
function App() { const [n, setN] = React.useState(0);
  return <div><p id="n">Clicked {n} times</p><button id="b" onClick={() => setN(n + 1)}>Click</button></div>; }
ReactDOM.createRoot(document.getElementById('root')).render(<App />);
</file>"""
    ws, site_dir = site(tmp_path, react)
    cases = [
        {"task": "Click", "steps": [{"action": "click", "target": "#b"}], "expect": [{"target": "#n", "text": "1"}]}
    ]
    grades = grade(SiteGrader(pool=get_default_pool()), ws, site_dir, SiteTask("A click counter", tuple_cases(cases)))
    assert "Clicked 0 times" in [b.text for b in grades.rendered.layout.text_blocks], grades.rendered.console_errors
    assert grades.gui == 1.0, grades.cases


def test_no_entry_page_scores_zero_where_a_component_can_judge(tmp_path):
    ws, site_dir = site(tmp_path, '<file path="main.html"><p>hi</p></file>')
    grades = grade(SiteGrader(pool=get_default_pool()), ws, site_dir, SiteTask("x", tuple_cases()))
    assert grades.gui == 0.0 and grades.rendered is None and "no index.html" in grades.error
    assert all(r.error == "the site has no index.html" for r in grades.cases)


@pytest.mark.slow
def test_a_hung_page_fails_its_screenshot_and_its_cases(tmp_path):
    from vcoder.rendering import BrowserPool

    ws, site_dir = site(
        tmp_path, '<file path="index.html"><div id="list"></div><script>while (true) {}</script></file>'
    )
    options = EpisodeOptions(render_width=640, render_height=400, settle_timeout_ms=1000, gui_deadline_ms=3000)
    # a pool of its own: a case that hits its deadline on a hung page leaves that page in the pool (GuiEnv does not
    # mark it broken), and the pool's next use of the slot at another viewport size would wait on it forever
    with BrowserPool(max_pages=2) as pool:
        grades = grade(SiteGrader(pool=pool), ws, site_dir, SiteTask("x", tuple_cases()), options)
    assert grades.rendered.kind is FailureKind.TIMEOUT and "failed to render" in grades.error, grades.error
    assert "stopped responding" in grades.error or "did not finish" in grades.error  # while settling, or loading
    assert grades.gui == 0.0 and all(r.verdict.value == "NO" for r in grades.cases)


def test_screenshot_judge_and_vlm_agent_for_natural_language_cases(tmp_path):
    ws, site_dir = site(tmp_path)
    natural = [{"task": "Look at the list", "expected_result": "Plants are listed"}]
    task = SiteTask("A plant list", tuple_cases([*CASES, *natural]))
    answer = '{"action": "answer", "verdict": "PARTIAL", "reason": "only three plants"}'
    with ScriptedServer("Green and tidy.\nScore: 4") as judge_server, ScriptedServer(answer) as agent_server:
        judge = ScreenshotJudge(judge_server.base_url, "scripted")
        agent = VLMPolicy(agent_server.base_url, "scripted")
        grades = grade(SiteGrader(pool=get_default_pool(), judge=judge, gui_agent=agent), ws, site_dir, task)
        without = grade(SiteGrader(pool=get_default_pool()), ws, site_dir, task)
    assert grades.screenshot == 0.8 and grades.judge_reply.startswith("Green and tidy")
    assert grades.gui == pytest.approx((1 + 1 + 0.5) / 3) and grades.notes == ()
    assert [r.verdict.value for r in grades.cases] == ["YES", "YES", "PARTIAL"]
    sent = judge_server.bodies[0]["messages"][1]["content"]
    assert sent[0]["type"] == "image_url" and "A plant list" in sent[-1]["text"]
    assert without.gui == 1.0 and without.notes == (
        "appearance not judged: no screenshot judge endpoint configured",
        "functionality not judged on 1 natural-language case(s): no GUI agent (VLM) endpoint configured",
    )


def test_reference_scorer_from_the_visual_reward(tmp_path):
    from vcoder.rewards import build_reward

    weights = {"block": 1.0, "text": 1.0, "position": 1.0, "color": 1.0, "ssim": 1.0}
    scorer = reference_scorer_from_reward(build_reward("visual", visual_weights=weights))
    page = "<html><body style='margin:0'><h1 style='color:#123'>Fern shop</h1><p>Ferns for sale</p></body></html>"
    ws, site_dir = site(tmp_path, f'<file path="index.html">{page}</file>')
    grader = SiteGrader(pool=get_default_pool(), reference_scorer=scorer)
    same = grade(grader, ws, site_dir, SiteTask("x", reference=page))
    other = grade(grader, ws, site_dir, SiteTask("x", reference="<h2>Cars</h2><p>Used cars, cheap.</p>" * 3))
    assert same.screenshot == pytest.approx(1.0, abs=1e-6)
    assert same.notes == ("functionality not judged: the task has no cases",)
    assert other.screenshot < 0.6


def test_a_zero_weight_switches_a_component_off(tmp_path):
    ws, site_dir = site(tmp_path)
    options = EpisodeOptions(render_width=640, render_height=400, gui_weight=0.0)
    grades = grade(SiteGrader(pool=get_default_pool()), ws, site_dir, SiteTask("x", tuple_cases()), options)
    assert grades.gui is None and grades.cases == () and grades.rendered.ok
    json.dumps(grades.notes)
