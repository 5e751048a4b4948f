"""Helpers of the browse tests: a policy that writes fixed lines, and episodes on the session's browser pool."""

from __future__ import annotations

import json

import pytest


class Lines:
    """A policy that writes the given action lines in turn (then exits), recording the prompts it read."""

    name = "lines"

    def __init__(self, lines):
        self.lines, self.prompts = list(lines), []

    async def act(self, messages):
        self.prompts.append(messages[-1]["content"])
        return self.lines.pop(0) if self.lines else 'exit(message="")'


@pytest.fixture
def storage_state(tmp_path):
    """Writes a Playwright storage-state file holding one site's localStorage state; returns its path."""

    def write(site: str, state: dict) -> str:
        path = tmp_path / f"{site}_state.json"
        entry = {"name": f"vcoder:{site}", "value": json.dumps(state)}
        path.write_text(json.dumps({"cookies": [], "origins": [{"origin": "x", "localStorage": [entry]}]}))
        return str(path)

    return write
