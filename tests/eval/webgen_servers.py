"""A loopback OpenAI-compatible server whose answers depend on the request: builder, GUI agent and judge in one.

Tasks run concurrently and their cases too, so answers in arrival order (``tests.servers.ScriptedServer``) would be
a race; here each request is routed by its content. The markers live in the test data: an instruction says which site
to build (``[site:good]``, ``[site:garbage]``, ``[site:fix]``: garbage first, then the good site), a case's task
says what the agent answers (``[YES]``, ``[PARTIAL]``, ``[NO]``); ``fail`` and ``delay_s`` make chosen requests fail
with a 500 or answer late.
"""

from __future__ import annotations

import json
import re
import threading
import time

from tests.servers import JSONHandler, LoopbackServer
from vcoder.gui.judge import JUDGE_SYSTEM_PROMPT
from vcoder.gui.vlm_policy import SYSTEM_PROMPT as AGENT_SYSTEM_PROMPT

GOOD_SITE = (
    '<file path="index.html">\n<!DOCTYPE html><html><head><link rel="stylesheet" href="style.css"></head><body>'
    '<h1>Bakery</h1><button id="menu">Menu</button><p id="out"></p></body></html>\n</file>\n'
    '<file path="style.css">body { background: #fde; font-family: sans-serif } h1 { color: #a33 }</file>\n'
)
GARBAGE = "I would build a lovely site here, but I will only describe it."


def _text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def role_of(body: dict) -> str:
    """``judge``, ``agent`` or ``builder``, from the request's system prompt."""
    system = _text(body["messages"][0]) if body.get("messages") else ""
    if system == JUDGE_SYSTEM_PROMPT:
        return "judge"
    if system == AGENT_SYSTEM_PROMPT:
        return "agent"
    return "builder"


def marker(text: str, kind: str) -> str | None:
    found = re.search(rf"\[{kind}:([\w-]+)\]", text)
    return found.group(1) if found else None


def answer(body: dict) -> str:
    """What the scripted models say."""
    role = role_of(body)
    if role == "judge":
        return "Pink and tidy.\nScore: 4"
    if role == "agent":
        task = re.search(r"^Task: (.*)$", _text(body["messages"][-1]), re.MULTILINE).group(1)
        verdict = re.search(r"\[(YES|PARTIAL|NO)\]", task).group(1)
        return json.dumps({"action": "answer", "verdict": verdict, "reason": f"scripted {verdict.lower()}"})
    site = marker(_text(body["messages"][1]), "site")
    turn = sum(m["role"] == "assistant" for m in body["messages"])  # replies already given
    if site == "good" or (site == "fix" and turn >= 1):
        return GOOD_SITE + "<finish/>"
    return GARBAGE


class RoutedServer(LoopbackServer):
    """Answers ``/v1/chat/completions`` with ``answer(body)``.

    Args:
        fail: ``(role, text)`` pairs: a request of that role whose messages contain the text gets HTTP 500.
        delay_s: ``(role, text, seconds)``: such a request is answered that late.

    Attributes:
        bodies: ``(role, body)`` of every chat request, in arrival order.
    """

    def __init__(self, *, fail=(), delay_s=()):
        self.fail, self.delay_s = list(fail), list(delay_s)
        self.bodies: list[tuple[str, dict]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(JSONHandler):
            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                role = role_of(body)
                seen = json.dumps(body["messages"])
                with outer._lock:
                    outer.bodies.append((role, body))
                    failing = any(r == role and t in seen for r, t in outer.fail)
                    delay = sum(s for r, t, s in outer.delay_s if r == role and t in seen)
                time.sleep(delay)
                if failing:
                    self._send(500, {"error": {"message": "scripted failure"}})
                    return
                message = {"role": "assistant", "content": answer(body)}
                self._send(200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

        self._listen(Handler)

    def count(self, role: str, text: str = "") -> int:
        """Chat requests of ``role`` whose messages contain ``text``."""
        with self._lock:
            return sum(r == role and text in json.dumps(b["messages"]) for r, b in self.bodies)
