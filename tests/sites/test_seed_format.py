"""WebGen-Agent's own format (``agent_format: webgen_agent``): the malformed rules, the repetition test, the 1-5
summary reading, where each grade lands, the dropped trajectory, and whole episodes against a loopback VLM server
with canned model replies."""

from __future__ import annotations

import asyncio
import io
import json
import os
from dataclasses import dataclass

import pytest
from PIL import Image

from tests.servers import ChatServer
from vcoder.chat import Endpoint, connect
from vcoder.sites.episode import run_site_episode
from vcoder.sites.records import EpisodeOptions
from vcoder.sites.seed_episode import SeedServices, run_seed_episode
from vcoder.sites.seed_feedback import Execution, SeedJudge
from vcoder.sites.seed_prompts import (
    APPEARANCE_GRADE_PROMPT,
    FULL_FILE_REMINDER,
    GUI_INSTRUCTION_PROMPT,
    SCREENSHOT_DESCRIPTION_PROMPT,
    SEED_SYSTEM_PROMPT,
    seed_system_prompt,
)
from vcoder.sites.seed_rules import (
    SeedLedger,
    drops_trajectory,
    has_repetition,
    read_grade,
    read_summary,
    seed_malformed,
)

VALIDATED = '<boltAction type="screenshot_validated"/>'
FINISH = '<boltAction type="finish"/>'
CODE = """Plan: a counter.
<boltArtifact id="counter" title="Counter">
<boltAction type="file" filePath="index.html"><!doctype html><button id="b">0</button></boltAction>
</boltArtifact>"""
CODE2 = CODE.replace(">0<", ">1<")
PROSE = " ".join(f"{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}{chr(97 + i * 7 % 26)}" for i in range(93))  # 371
REPEATING = "<boltArtifact id='x' title='x'>" + "<div class='card'>item</div>\n" * 60 + "</boltArtifact>"


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


# ---- the rules, each on its own ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (FINISH + " " * 400, "finish reply longer than 400"),
        (VALIDATED + "x" * 400, "screenshot_validated reply longer than 400"),
        (FINISH + "<boltArtifact id='a' title='a'></boltArtifact>", "finish reply that holds a <boltArtifact>"),
        (VALIDATED + "<boltArtifact id='a' title='a'></boltArtifact>", "holds a <boltArtifact>"),
        (REPEATING, "repeats itself"),
        ("<boltArtifact id='a' title='a'><boltAction type='file' filePath='a'>x</boltArtifact>", "does not close"),
    ],
)
def test_each_malformed_rule(reply, why):
    assert why in seed_malformed(reply)


@pytest.mark.parametrize("reply", [FINISH, VALIDATED, "Looks right. " + VALIDATED, CODE, FINISH + " " + PROSE])
def test_well_formed_replies(reply):
    assert seed_malformed(reply) is None


def test_repetition_window_and_ratio():
    # numbers and colours are one token: rows that differ only in them repeat
    rows = "".join(f"<li style='color:#{i:03x}'>row {i}</li>\n" for i in range(60))
    assert has_repetition(rows)
    assert not has_repetition(" ".join(f"word{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(300)))
    assert not has_repetition("ab" * 49)  # under two windows: never repetition


def test_cut_reply_drops_unless_it_repeats():
    assert drops_trajectory(CODE[:60], cut=True)
    assert not drops_trajectory(REPEATING, cut=True)
    assert not drops_trajectory(CODE, cut=False)


@pytest.mark.parametrize(
    ("summary", "said_yes", "grade", "suggestions", "passed"),
    [
        (
            'Analysis. {"test_passed": false, "improvement_suggestions": "fix cart", "grade": 2}',
            False,
            2,
            "fix cart",
            0,
        ),
        ('```json\n{"test_passed": true, "improvement_suggestions": "", "grade": "5"}\n```', False, 5, "", 1),
        ('{"test_passed": false, "improvement_suggestions": "x", "grade": "4/5"}', True, 4, "", 1),
        ('{"test_passed": false, "grade": 3.5}', False, 3.5, None, 0),
        ("no json here, grade 4", False, 0, None, 0),
        ('{"grade": ', False, 0, None, 0),
        (None, False, 0, None, 0),
    ],
)
def test_summary_reading(summary, said_yes, grade, suggestions, passed):
    got = read_summary(summary, said_yes)
    assert (got.grade, got.suggestions, got.passed) == (grade, suggestions, bool(passed))


def test_grade_reading():
    assert [read_grade(v) for v in ({"grade": 4}, {"grade": "grade: 3"}, {"grade": True}, {}, "-1", None)] == [
        4,
        3,
        0,
        0,
        -1,
        0,
    ]


def test_ledger_puts_gui_grade_on_previous_code_turn():
    ledger = SeedLedger()
    ledger.code_turn(1, screenshot=2, good=True)
    ledger.code_turn(2, screenshot=4, good=True)
    ledger.validated_turn(3, gui=5, good=True)
    ledger.code_turn(4, screenshot=3, good=False)  # a repeating code turn: -1
    ledger.validated_turn(5, gui=4, good=False)  # the bad validated turn: its own -1, the code turn keeps its grades
    assert ledger.turn_rewards(5) == [2, 9, None, -1.0, -1.0]


def test_options_need_bolt_for_the_seed_format():
    with pytest.raises(ValueError, match="turn_format='bolt'"):
        EpisodeOptions(agent_format="webgen_agent")
    with pytest.raises(ValueError, match="agent_format"):
        EpisodeOptions(agent_format="webgen")


def test_system_prompt_from_a_file(tmp_path):
    assert seed_system_prompt() == SEED_SYSTEM_PROMPT
    (tmp_path / "p.txt").write_text("You are Bolt.\n")
    assert seed_system_prompt(tmp_path / "p.txt") == "You are Bolt."
    with pytest.raises(ValueError, match="is not a file"):
        seed_system_prompt(tmp_path / "missing.txt")


# ---- whole episodes against a loopback VLM ------------------------------------------------------------------------


class SeedVLM(ChatServer):
    """The judging VLM: canned JSON for each of the seed's four jobs, told apart by their prompts; records requests."""

    def __init__(self, appearance: int = 4, gui_grade: int = 3) -> None:
        super().__init__()
        self.appearance, self.gui_grade, self.jobs = appearance, gui_grade, []

    def answer(self, body: dict) -> str:
        user = body["messages"][-1]["content"]
        text = user[0]["text"] if isinstance(user, list) else user
        if text == APPEARANCE_GRADE_PROMPT:
            self.jobs.append("appearance")
            return json.dumps({"analysis": "Clean.", "grade": self.appearance})
        if text == SCREENSHOT_DESCRIPTION_PROMPT:
            self.jobs.append("describe")
            return json.dumps(
                {
                    "is_error": False,
                    "error_message": "",
                    "screenshot_description": "A red button.",
                    "suggestions": "Center it.",
                }
            )
        if text.startswith(GUI_INSTRUCTION_PROMPT.split("{")[0][:60]):
            self.jobs.append("write_test")
            return '<boltAction type="gui_agent_test">Click the button and check the count.</boltAction>'
        self.jobs.append("summary")
        return "The count did not reset.\n" + json.dumps(
            {"test_passed": False, "improvement_suggestions": "Add a reset.", "grade": self.gui_grade}
        )


@dataclass
class Canned:
    text: str
    cut: bool = False


def canned(*replies):
    seen: list[list[dict]] = []

    async def policy(messages):
        seen.append(messages)
        return replies[len(seen) - 1]

    return policy, seen


async def execute(files, turn, folder):
    return Execution(
        installs=(("npm install", "added 7 packages"),),
        start_log="VITE ready at http://localhost:5173",
        screenshot=png(),
    )


async def gui_agent(execution, instruction):
    assert "admin123456" in instruction and "Click the button" in instruction
    return "Thought: press it\nAction: Click [1]\n\nThought: no reset\nAction: ANSWER; NO", "ANSWER; NO"


def run(policy, vlm, **kw):
    services = SeedServices(SeedJudge(connect(Endpoint(vlm.base_url, "vlm"))), execute=execute, gui_agent=gui_agent)
    options = EpisodeOptions(turn_format="bolt", agent_format="webgen_agent", max_turns=kw.pop("max_turns", 5))
    task = {"instruction": "A counter page with a red button.", "id": "t1"}
    return asyncio.run(run_site_episode(task, policy, grader=services, options=options, **kw))


def test_episode_messages_and_rewards():
    policy, seen = canned(CODE, CODE2, "The page is right. " + VALIDATED, FINISH)
    with SeedVLM(appearance=4, gui_grade=3) as vlm:
        result = run(policy, vlm)
    assert [s.reward for s in result.steps] == [4, 7, None, None]  # GUI grade 3 added to turn 2's appearance 4
    assert result.finished and result.final_reward == 7
    assert sorted(vlm.jobs[:4]) == ["appearance"] * 2 + ["describe"] * 2 and vlm.jobs[4:] == ["write_test", "summary"]
    roles = [m["role"] for m in result.messages]
    assert roles == ["system", "user"] + ["assistant", "user"] * 3 + ["assistant"]
    assert result.messages[0]["content"] == SEED_SYSTEM_PROMPT
    assert result.messages[1]["content"] == "A counter page with a red button."
    code_feedback, gui_feedback = result.messages[3]["content"], result.messages[7]["content"]
    for text in (code_feedback, gui_feedback):
        assert text.startswith("The dependencies were installed.\n\nThe service started.")
        assert text.endswith("A counter page with a red button.\n\n" + FULL_FILE_REMINDER)
    assert "A red button." in code_feedback and "Center it." in code_feedback and VALIDATED in code_feedback
    assert "Add a reset." in gui_feedback and FINISH in gui_feedback and "A red button." not in gui_feedback
    assert len(seen[3]) == 8 and seen[3][-1] == result.messages[7]  # the model saw each feedback turn


def test_malformed_turns_in_an_episode():
    policy, _ = canned(CODE, REPEATING, VALIDATED + " " * 400, FINISH + "<boltArtifact id='a' title='a'/>")
    with SeedVLM(appearance=2, gui_grade=5) as vlm:
        result = run(policy, vlm)
    # turn 2 repeats (-1); turn 3's GUI grade goes to turn 2's entry, and turn 3 itself is too long (-1); turn 4 too
    assert [s.reward for s in result.steps] == [2, -1.0, -1.0, -1.0]
    assert [s.malformed for s in result.steps] == [False, True, True, True]


def test_validated_first_turn_and_no_gui_agent():
    policy, _ = canned(VALIDATED, FINISH)
    with SeedVLM() as vlm:
        services = SeedServices(SeedJudge(connect(Endpoint(vlm.base_url, "vlm"))), execute=execute)
        options = EpisodeOptions(turn_format="bolt", agent_format="webgen_agent")
        result = asyncio.run(run_seed_episode({"instruction": "A page"}, policy, services, options=options))
    assert [s.reward for s in result.steps] == [0, None]
    assert "No GUI-agent feedback could be obtained." in result.messages[3]["content"]


@pytest.mark.parametrize(
    ("reply", "dropped"), [(Canned(CODE[:70], cut=True), True), (Canned(REPEATING, cut=True), False)]
)
def test_cut_reply_ends_the_episode(reply, dropped):
    policy, seen = canned(Canned(CODE), reply, Canned(FINISH))
    with SeedVLM() as vlm:
        result = run(policy, vlm)
    assert len(seen) == 2
    if dropped:
        assert [s.reward for s in result.steps] == [None, None] and result.error.startswith("dropped")
        assert result.final_reward is None
    else:
        assert [s.reward for s in result.steps] == [4, -1.0] and result.error is None


def test_seed_model_recipes_use_the_seed_format():
    import glob
    import os

    import yaml

    root = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "step_grpo")
    seed = sorted(glob.glob(os.path.join(root, "qwen*.yaml")))
    assert len(seed) == 7
    for path in seed:
        recipe, text = yaml.safe_load(open(path)), open(path).read()
        assert (recipe["agent_format"], recipe["top_p"], recipe["max_grad_norm"], recipe["max_turn_tokens"]) == (
            "webgen_agent",
            0.95,
            0.5,
            9000,
        ), path
        assert "DeepSeek" not in text and "_get_instructions_and_gui_instructions" in text, path
    tiny = yaml.safe_load(open(os.path.join(root, "tiny_cpu.yaml")))
    assert tiny.get("agent_format", "vcoder") == "vcoder"


SEED_REPO = "/work/.mirror/mnluzimu+WebGen-Agent/repo"


@pytest.mark.skipif(not os.path.isdir(SEED_REPO), reason="no local copy of mnluzimu/WebGen-Agent")
def test_texts_match_the_seed_by_structure(capsys):
    from scripts.compare_seed_format import main

    status = main([SEED_REPO])
    report = json.loads(capsys.readouterr().out)
    assert status == 0, {k: v for k, v in report.items() if not v["same"]}
    assert report["describe: JSON keys"]["seed"] == [
        "error_message",
        "is_error",
        "screenshot_description",
        "suggestions",
    ]


def test_step_grpo_arguments_switch_the_format(tmp_path):
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments

    # the grader built from the recipe needs the seed's VLM; a caller that hands in its own grader does not
    with pytest.raises(ValueError, match="judge_base_url"):
        step_grpo.build_trainer(StepGRPOScriptArguments(agent_format="webgen_agent"), None, None)
    with pytest.raises(ValueError, match="agent_format"):
        StepGRPOScriptArguments(agent_format="seed")
    (tmp_path / "system.txt").write_text("The published prompt.")
    args = StepGRPOScriptArguments(
        agent_format="webgen_agent",
        judge_base_url="http://127.0.0.1:9",
        judge_model="vlm",
        system_prompt_file=str(tmp_path / "system.txt"),
    )
    options = args.episode_options()
    assert (options.agent_format, options.turn_format, options.system_prompt) == (
        "webgen_agent",
        "bolt",
        "The published prompt.",
    )
