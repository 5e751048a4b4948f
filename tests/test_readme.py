"""Every ``vcoder`` command the README shows parses with today's command line (recipes included), so the README
cannot drift from the CLI; and the README stays a ten-minute read."""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
from pathlib import Path

import pytest

from vcoder.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PIPELINES = {
    "grpo": "vcoder.pipelines.grpo",
    "sft": "vcoder.pipelines.grpo.sft",
    "step-grpo": "vcoder.pipelines.step_grpo",
}


def commands(text: str) -> list[tuple[list[str], bool]]:
    """``(words after "vcoder", whole)`` for each command of the bash blocks (``whole``: parse it all) and of the
    inline code spans (which may name a command without its required options)."""
    found = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            for part in line.split("  #")[0].split("&&"):
                if part.strip().startswith("vcoder "):
                    found.append((shlex.split(part)[1:], True))
    found += [(shlex.split(span), False) for span in re.findall(r"`vcoder ([^`]+)`", text)]
    return found


def subcommand(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser | None:
    """The parser the leading words name (``["agent", "test"]``), or None when one of them names nothing."""
    for word in words:
        if word.startswith("-"):
            break
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            break
        if word not in subs[0].choices:
            return None
        parser = subs[0].choices[word]
    return parser


@pytest.mark.parametrize("words, whole", commands(README), ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_the_readme_command_parses(words, whole):
    parser = build_parser()
    assert subcommand(parser, words) is not None, f"`vcoder {' '.join(words)}`: no such command"
    if not whole and not any(w.startswith("--") for w in words):
        return  # a span that names a command, its options elsewhere
    args = parser.parse_args(words)
    if words[0] == "train":  # the recipe and its overrides, as `vcoder train` will parse them
        from vcoder.pipelines.recipes import parse_recipe

        parse_recipe(importlib.import_module(PIPELINES[words[1]]).make_parser(), list(args.args))


def test_the_scanner_finds_block_and_inline_commands():
    text = "```bash\nvcoder a --x 1 \\\n    --y 2   # note\nls && vcoder b\n```\nthen `vcoder c --z` and `pip x`\n"
    assert commands(text) == [(["a", "--x", "1", "--y", "2"], True), (["b"], True), (["c", "--z"], False)]
    assert subcommand(build_parser(), ["agent", "test"]).prog.endswith("agent test")
    assert subcommand(build_parser(), ["agent", "tset"]) is None


def test_the_readme_stays_short():
    assert len(README.splitlines()) <= 250, "README.md is a ten-minute read: put details in docs/ and link them"
