"""Compare vcoder's ``agent_format: webgen_agent`` texts with WebGen-Agent's by structure, not wording.

Reads the seed's files from a clone or bare git directory of github.com/mnluzimu/WebGen-Agent and prints one JSON
object: for each text, what the model or the judge is asked to produce (JSON keys, tags, placeholders, grade
scales, action types) on both sides, and whether they agree. Exit status 1 when one disagrees.

    python scripts/compare_seed_format.py /path/to/WebGen-Agent[.git]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

FEEDBACK = "WebGen-RL/verl/workers/agentic/webgen_agent/feedback/"
FILES = {
    "system": "WebGen-RL/examples/data_preprocess/webgen/system.py",
    "describe": FEEDBACK + "get_screenshot_description_new.py",
    "summary": FEEDBACK + "get_webvoyager_feedback.py",
    "writer": FEEDBACK + "generate_gui_agent_instruction.py",
    "loop": FEEDBACK + "execute_for_feedback.py",
}


def read(repo: Path, path: str) -> str:
    """A file of the seed repository: from the work tree, else from HEAD of a (bare) git directory."""
    if (repo / path).is_file():
        return (repo / path).read_text(encoding="utf-8")
    return subprocess.run(
        ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True, check=True
    ).stdout


def python_string(source: str, name: str) -> str:
    """The triple-quoted string assigned to ``name`` in a Python source."""
    match = re.search(rf'^{name}\s*=\s*"""(.*?)"""', source, flags=re.DOTALL | re.MULTILINE)
    if not match:
        raise SystemExit(f"{name} not found: the seed's code changed; update this script")
    return match.group(1)


def json_keys(text: str) -> list[str]:
    return sorted(set(re.findall(r'"(\w+)":\s*"?<', text)))


def placeholders(text: str) -> list[str]:
    return sorted(set(re.findall(r"(?<!\{)\{(\w+)\}(?!\})", text)))


def scale(text: str) -> list[int]:
    """The grades a prompt's scale lists (lines that start with a grade)."""
    return sorted({int(m) for m in re.findall(r"^\s*[-*]?\s*(\d)\s*[:(]", text, flags=re.MULTILINE)})


def action_types(text: str) -> list[str]:
    return sorted({t for t in re.findall(r"^\s*-\s*(shell|file|start)\s*:", text, flags=re.MULTILINE)})


def feedback_order(text: str, labels: dict[str, str]) -> list[str]:
    found = [(text.find(needle), name) for name, needle in labels.items() if needle in text]
    return [name for _, name in sorted(found)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="a clone or bare git directory of mnluzimu/WebGen-Agent")
    args = parser.parse_args(argv)
    from vcoder.sites import seed_prompts as ours
    from vcoder.sites.seed_feedback import Execution, seed_feedback
    from vcoder.sites.seed_rules import GuiSummary

    src = {k: read(args.repo, v) for k, v in FILES.items()}
    theirs = {
        "system": python_string(src["system"], "system_prompt"),
        "describe": python_string(src["describe"], "screenshot_prompt"),
        "grade": python_string(src["describe"], "appearance_grade_prompt"),
        "summary": python_string(src["summary"], "summary_prompt"),
        "writer": python_string(src["writer"], "function_test_prompt"),
    }
    mine = {
        "system": ours.SEED_SYSTEM_PROMPT,
        "describe": ours.SCREENSHOT_DESCRIPTION_PROMPT,
        "grade": ours.APPEARANCE_GRADE_PROMPT,
        "summary": ours.SUMMARY_PROMPT,
        "writer": ours.GUI_INSTRUCTION_PROMPT,
    }
    checks = {
        "system: action types": (action_types(theirs["system"]), action_types(mine["system"])),
        "system: artifact tags": tuple(
            sorted(set(re.findall(r"<(bolt\w+)", t))) for t in (theirs["system"], mine["system"])
        ),
        "describe: JSON keys": (json_keys(theirs["describe"]), json_keys(mine["describe"])),
        "grade: JSON keys": (json_keys(theirs["grade"]), json_keys(mine["grade"])),
        "grade: scale": (scale(theirs["grade"]), scale(mine["grade"])),
        "summary: JSON keys": (json_keys(theirs["summary"]), json_keys(mine["summary"])),
        "summary: scale": (scale(theirs["summary"]), scale(mine["summary"])),
        "summary: inputs": (len(placeholders(theirs["summary"])), len(placeholders(mine["summary"]))),
        "writer: inputs": (placeholders(theirs["writer"]), placeholders(mine["writer"])),
        "writer: tag": tuple("gui_agent_test" in t for t in (theirs["writer"], mine["writer"])),
        "writer: credentials": ("admin123456" in src["writer"], "admin123456" in ours.GUI_INSTRUCTION_SUFFIX),
    }
    # the feedback turn: the order of its parts after a code turn and after a validated turn
    seed_loop = src["loop"]
    seed_code = feedback_order(
        seed_loop,
        {
            "install": "Installation of dependencies",
            "start": "Starting the service",
            "description": "The screenshot description",
            "suggestions": "Suggestions for Improvement",
            "validate hint": 'type=\\"screenshot_validated\\"/> to signal',
            "request": "The instruction describing the website",
        },
    )
    code_text, _ = seed_feedback(
        Execution(screenshot=b"x"),
        "REQ",
        description={"screenshot_description": "D", "suggestions": "S"},
        screenshot_grade=4,
    )
    ours_code = feedback_order(
        code_text,
        {
            "install": "dependencies were installed",
            "start": "service started",
            "description": "What the screenshot shows",
            "suggestions": "How to improve it",
            "validate hint": 'type="screenshot_validated"/>',
            "request": "The request for the website",
        },
    )
    checks["feedback (code turn): part order"] = (seed_code, ours_code)
    gui_text, _ = seed_feedback(Execution(), "REQ", gui=GuiSummary(3, "fix", False), validated=True)
    checks["feedback: ends with the full-file reminder"] = (
        seed_loop.count("+ reminders_prompt") >= 1,
        code_text.endswith(ours.FULL_FILE_REMINDER) and gui_text.endswith(ours.FULL_FILE_REMINDER),
    )
    report = {name: {"seed": a, "vcoder": b, "same": a == b} for name, (a, b) in checks.items()}
    print(json.dumps(report, indent=1))
    return 0 if all(r["same"] for r in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
