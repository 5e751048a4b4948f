"""WebRL's text setting on real pages: the observation of a known page, every action, episode reset, the solvers."""

from __future__ import annotations

import pytest

from tests.browse.conftest import Lines, run_episode
from vcoder.browse import ActionParseError, TaskEval, WebTask, generate_all, parse_action
from vcoder.browse.actions import WebAction, action_line, element_comment, to_gui, with_comment
from vcoder.browse.solver import ScriptedSolver, find_element

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CART = TaskEval(("url_match",), reference_url="__SHOP__/#/cart")


def shop_task(start: str = "/", **kw) -> WebTask:
    return WebTask(sites=("shop",), task_id="t", start_url=f"__SHOP__/#{start}", intent="Look around", eval=CART, **kw)


def test_observation_text_of_a_known_page(pool):
    policy = Lines([])
    run_episode(shop_task("/product/1"), policy, pool=pool)
    page = policy.prompts[0].split("Current page (/product/1):\n", 1)[1].split("\n\nTask: Look around\nRound 0")[0]
    assert page == (
        "One Stop Shop\n"
        '<a id="1">Shop</a> <a id="2">Cart</a> <a id="3">My Orders</a>\n'
        "<h1>Compact Kettle</h1>\n"
        "Price: $153.25\n"
        "Category: Outdoor\n"
        "Rating: 3 of 5\n"
        "A compact kettle for everyday use.\n"
        '<label id="4">Qty</label> <input id="5" type="number" value="1">Qty</input> <button id="6">Add to Cart</button>'
    )


def test_every_action_on_a_real_page(pool):
    # ids of the shop's home page: 1 Shop, 2 Cart, 3 My Orders, 4 search box, 5 Search, then the categories
    lines = [
        'do(action="Type", argument="Lamp", element="4")',
        'do(action="Press Enter")',  # on the focused search box: the search runs
        'do(action="Scroll Down")',
        'do(action="Scroll Up")',
        'do(action="Wait")',
        "go_backward()",  # back to the catalogue
        'do(action="Search", argument="Kettle", element="4")',
        'do(action="Click", element="4")',  # the first result's link
        'do(action="Select Dropdown Option", argument="x", element="5")',  # the Qty box is no select: a failed step
        'do(action="Hover", element="4")',  # not offered: a failed step, the episode goes on
        'exit(message="done")',
    ]
    policy = Lines(lines)
    episode = run_episode(shop_task(), policy, pool=pool, step_budget=20)
    routes = [s.route for s in episode.steps]
    assert routes[:8] == [
        "/",
        "/",
        "/search?q=Lamp",
        "/search?q=Lamp",
        "/search?q=Lamp",
        "/search?q=Lamp",
        "/",
        "/search?q=Kettle",
    ]
    assert routes[8].startswith("/product/") and "Kettle" in episode.steps[8].observation
    assert [s.ok for s in episode.steps] == [True] * 8 + [False, False, True]
    assert "Hover" in episode.steps[9].error and episode.answer == "done"
    assert 'Round 9: do(action="Hover", element="4")  (failed:' in policy.prompts[-1]
    # the forum's select and the shop's forms, through a scripted plan: Select Dropdown Option on a real select
    forum = WebTask(
        sites=("forum",),
        task_id="f",
        start_url="__FORUM__/#/submit",
        intent="post",
        eval=TaskEval(
            ("program_html",),
            program_html=(
                {
                    "url": "last",
                    "locator": "document.querySelector('h1').outerText + ' ' + document.body.innerText",
                    "required_contents": {"must_include": ["Hello there", "f/cooking"]},
                },
            ),
        ),
    )
    plan = [
        {"do": "select", "field": "Forum", "option": "cooking"},
        {"do": "type", "field": "Title", "text": "Hello there"},
        {"do": "click", "text": "Create Post"},
        {"do": "exit", "message": ""},
    ]
    done = run_episode(forum, ScriptedSolver(plan), pool=pool)
    assert done.evaluation.score == 1.0 and done.final_url.startswith("__FORUM__/#/post/")


def test_episodes_are_reset_no_state_leaks(pool):
    buy = [
        {"do": "click", "text": "Shop"},
        {"do": "search", "field": "Search products", "text": "Backpack"},
        {"do": "click", "text": "Compact Backpack"},
        {"do": "click", "text": "Add to Cart"},
        {"do": "exit", "message": ""},
    ]
    first = run_episode(shop_task(), ScriptedSolver(buy), pool=pool)
    assert first.evaluation.success and "Compact Backpack" in first.final_page
    second = run_episode(shop_task("/cart"), Lines([]), pool=pool)
    assert "Your cart is empty." in second.steps[0].observation


def test_scripted_solvers_solve_every_generated_task_and_a_wrong_plan_fails(pool):
    tasks = generate_all(seed=2, per_site=5)
    episodes = [run_episode(t, ScriptedSolver(t.solution), pool=pool) for t in tasks]
    assert [e.evaluation.score for e in episodes] == [1.0] * len(tasks), [
        (e.task.intent, e.evaluation.scores, [s.action for s in e.steps]) for e in episodes if not e.evaluation.success
    ]
    kinds = {t.eval.eval_types[0] for t in tasks}
    assert kinds == {"string_match", "url_match", "program_html"}
    wrong = [dict(s) for s in tasks[0].solution]
    wrong[-1]["message"] = "$0.00"
    assert run_episode(tasks[0], ScriptedSolver(wrong), pool=pool).evaluation.score == 0.0


def test_parse_and_write_actions():
    assert parse_action('# Element: the cart\ndo(action="Click", element="2")') == WebAction("Click", 2)
    assert parse_action("exit(message='It is \"x\"')").argument == 'It is "x"'
    for action in [WebAction("Type", 3, 'say "hi"'), WebAction("exit", argument="$1"), WebAction("go_backward")]:
        assert parse_action(action.to_text()) == action
    assert [a.kind for a in to_gui(parse_action('do(action="Search", argument="x", element="1")'))] == [
        "type",
        "press",
    ]
    for bad in [
        "click 3",
        'do(action="Click")',
        'do(action="Fly", element="1")',
        "os.system('x')",
        "",
        'do("Click", "3")',
    ]:
        with pytest.raises(ActionParseError):
            parse_action(bad)
    assert find_element('<a id="3">Cart</a> <button id="4">Add to Cart</button>', "add to cart") == 4
    noted = with_comment('do(action="Click", element="4")', "Add  to\nCart")
    assert noted == '# Element: Add to Cart\ndo(action="Click", element="4")'
    assert element_comment(noted) == "Add to Cart" and parse_action(noted) == WebAction("Click", 4)
    assert action_line(noted) == 'do(action="Click", element="4")' and element_comment("# why\nexit()") is None


def test_an_episode_is_logged_for_sft_the_orm_and_replay(pool, tmp_path):
    from vcoder.browse.records import replay_items, sft_rows, verdict_record, write_jsonl
    from vcoder.data.trajectories import read_trajectories
    from vcoder.verdicts.log import VerdictLog, read_verdicts

    task = generate_all(seed=0, per_site=1)[0]
    episode = run_episode(task, ScriptedSolver(task.solution), pool=pool)
    rows = read_trajectories(write_jsonl(sft_rows(episode), tmp_path / "demos.jsonl"))
    assert len(rows) == len(episode.steps) and [m["role"] for m in rows[0]["messages"]] == [
        "system",
        "user",
        "assistant",
    ]
    assert (
        rows[-1]["messages"][-1]["content"] == episode.steps[-1].action
        and "Round 0: " in rows[-1]["messages"][1]["content"]
    )
    VerdictLog(tmp_path / "verdicts.jsonl").append(verdict_record(episode))
    (record,) = read_verdicts(tmp_path / "verdicts.jsonl")
    assert record.cases[0].verdict == "YES" and record.source == "web_agent" and record.instruction == task.intent
    assert len(replay_items(episode, phase=1)) == len(episode.steps)
    # WebRL's "# Element:" note: kept in the step (the SFT target), left out of the next steps' history
    noted = run_episode(task, ScriptedSolver(task.solution, comment=True), pool=pool)
    assert noted.evaluation.success and [action_line(s.action) for s in noted.steps] == [
        s.action for s in episode.steps
    ]
    first = noted.step_messages()[1]
    shown = element_comment(noted.steps[0].action)
    assert shown and shown in noted.steps[0].observation and first[-1]["content"].startswith("# Element: ")
    assert f"Round 0: {episode.steps[0].action}\n" in first[1]["content"] and "# Element" not in first[1]["content"]
    failed = run_episode(task, Lines(['exit(message="no idea")']), pool=pool)
    assert replay_items(failed, phase=1) == [] and verdict_record(failed).cases[0].verdict == "NO"


def test_the_web_agent_grades_gui_test_cases(pool):
    from vcoder.browse.policies import WebAgentCasePolicy
    from vcoder.gui.policy import Verdict
    from vcoder.gui.runner import run_cases

    html = "<button onclick=\"document.getElementById('n').textContent = 1\">Add</button><p id='n'>0</p>"
    case = {"task": "Click Add.", "expected_result": "The number becomes 1."}
    said_yes = Lines(['do(action="Click", element="1")', 'exit(message="YES")'])
    (result,), _ = run_cases(html, [case], policy=WebAgentCasePolicy(said_yes), pool=pool)
    assert result.verdict is Verdict.YES and result.steps_taken == 1
    assert '<button id="1">Add</button>' in said_yes.prompts[0] and "The number becomes 1." in said_yes.prompts[0]
    (mute,), _ = run_cases(html, [case], policy=WebAgentCasePolicy(Lines(["exit(message='hmm')"])), pool=pool)
    assert mute.verdict is Verdict.NO and "no verdict" in mute.error


def test_a_site_that_is_slow_to_load_starts_again_on_a_fresh_page(pool, monkeypatch, caplog):
    """The ready wait is the machine's, not the policy's: a site not ready in time is opened again on a fresh page
    (twice the wait), and only a site that never loads ends the episode, with a one-line error naming the task."""
    from vcoder.browse import episode as module

    pages, flip_at = [], 2
    ready = module._READY_JS
    # not ready on the first page this test opens, ready on the next (each page is a fresh origin, so the count lives
    # on the Python side: the first wait is told to look for a global that no page defines)
    monkeypatch.setattr(module, "_READY_JS", "() => !!window.__never_defined__")
    real_open = None

    def counting(apool):
        nonlocal real_open
        real_open = apool.open_page

        def open_page(**kwargs):
            pages.append(kwargs)
            if len(pages) == flip_at:
                monkeypatch.setattr(module, "_READY_JS", ready)
            return real_open(**kwargs)

        return open_page

    apool = pool.async_pool
    monkeypatch.setattr(apool, "open_page", counting(apool))
    with caplog.at_level("WARNING", logger=module.__name__):
        episode = run_episode(shop_task("/product/1"), Lines(['exit(message="x")']), pool=pool, action_timeout_ms=300)
    assert len(pages) == 2 and episode.answer == "x"
    assert "not ready after 900 ms (try 1 of 3)" in caplog.text

    monkeypatch.setattr(module, "_READY_JS", "() => !!window.__never_defined__")
    pages.clear()
    flip_at = None
    with pytest.raises(module.SiteNotReady, match=r"the shop site of task .* did not load on 3 fresh pages"):
        run_episode(shop_task("/product/1"), Lines([]), pool=pool, action_timeout_ms=100)
    assert len(pages) == 3
