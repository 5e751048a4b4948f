"""A loopback OpenAI-compatible server whose answers depend on the request: builder, GUI agent and judge in one.

Tasks run concurrently and their cases too, so answers in arrival order (``tests.servers.ScriptedServer``) would be
a race; here each request is routed by its content. The markers live in the test data: an instruction says which site
to build (``[site:good]``, ``[site:garbage]``, ``[site:fix]``: garbage first, then the good site), a case's task
says what the agent answers (``[YES]``, ``[PARTIAL]``, ``[NO]``); ``fail`` and ``delay_s`` make chosen requests fail
with a 500 or answer late. Under the webgen-bench protocol a case's ``[wv:...]`` marker scripts WebVoyager
(:func:`webvoyager_answer`), ``[site:tall]`` builds a three-screen page, and ``[grade:none]`` in an instruction makes
the benchmark's appearance judge answer without a grade.
"""

from __future__ import annotations

import json
import re
import threading
import time

from tests.servers import JSONHandler, LoopbackServer
from vcoder.eval.webgen_appearance import SYSTEM_PROMPT as BENCHMARK_JUDGE_SYSTEM_PROMPT
from vcoder.gui.judge import JUDGE_SYSTEM_PROMPT
from vcoder.gui.vlm_policy import SYSTEM_PROMPT as AGENT_SYSTEM_PROMPT
from vcoder.gui.webvoyager import FORMAT_ERROR
from vcoder.gui.webvoyager import SYSTEM_PROMPT as WEBVOYAGER_SYSTEM_PROMPT

GOOD_SITE = (
    '<file path="index.html">\n<!DOCTYPE html><html><head><link rel="stylesheet" href="style.css"></head><body>'
    '<h1>Bakery</h1><button id="menu">Menu</button><p id="out"></p></body></html>\n</file>\n'
    '<file path="style.css">body { background: #fde; font-family: sans-serif } h1 { color: #a33 }</file>\n'
)
GARBAGE = "I would build a lovely site here, but I will only describe it."
# three screens tall, one colour per 768 px band (the appearance protocol scrolls through them), and a Menu button
# whose label changes when it is clicked (the WebVoyager agent checks it)
TALL_SITE = (
    '<file path="index.html">\n<!DOCTYPE html><html><head><style>body{margin:0}div{height:768px}</style></head><body>'
    '<button id="menu" onclick="this.textContent=\'Menu opened\'">Menu</button>'
    '<div style="background:#d33"></div><div style="background:#3d3"></div><div style="background:#33d"></div>'
    '<div style="background:#999"></div></body></html>\n</file>\n'
)


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
    if system == WEBVOYAGER_SYSTEM_PROMPT:
        return "webvoyager"
    if system == BENCHMARK_JUDGE_SYSTEM_PROMPT:
        return "benchmark_judge"
    return "builder"


def marker(text: str, kind: str) -> str | None:
    found = re.search(rf"\[{kind}:([\w-]+)\]", text)
    return found.group(1) if found else None


def webvoyager_answer(body: dict) -> str:
    """WebVoyager's replies, scripted by the case's ``[wv:...]`` marker (the task is in the first user message).

    click: click the Menu button by its number, then YES if its label changed; loop: scroll until the limit prompt,
    then "PARTIAL"; scroll-in: scroll inside the Menu button, then YES if that could be done; quirk: an ANSWER of NO whose thought says YES (the benchmark reads YES); format: a reply without
    Thought/Action, then PARTIAL; bad: an element that does not exist, then NO.
    """
    messages = body["messages"]
    script = marker(_text(messages[1]), "wv")
    last = messages[-1]["content"]
    latest = _text(messages[-1])
    turn = sum(m["role"] == "assistant" for m in messages)
    if isinstance(last, str) and last.startswith("You have reached the maximum"):
        return "PARTIAL" if script == "loop" else "NO"
    if script == "click":
        if turn == 0:
            number = re.search(r'\[(\d+)\]: <button> "Menu";', latest).group(1)
            return f"Thought: the menu button.\nAction: Click [{number}]"
        verdict = "YES" if '"Menu opened"' in latest else "NO"
        return f"Thought: the label says so.\nAction: ANSWER; {verdict}"
    if script == "loop":
        return "Thought: more to see.\nAction: Scroll [WINDOW]; [down]"
    if script == "quirk":
        return "Thought: I hoped for YES, but nothing happened.\nAction: ANSWER; NO"
    if script == "format":
        return "Thought: fine.\nAction: ANSWER; PARTIAL" if last == FORMAT_ERROR else "It works, I think."
    if script == "scroll-in":  # scroll inside the Menu button, then say whether that action could be carried out
        if turn == 0:
            number = re.search(r'\[(\d+)\]: <button> "Menu";', latest).group(1)
            return f"Thought: scroll in it.\nAction: Scroll [{number}]; [down]"
        verdict = "NO" if "cannot be executed" in latest else "YES"
        return f"Thought: that worked.\nAction: ANSWER; {verdict}"
    if script == "bad":
        return "Thought: nothing left.\nAction: ANSWER; NO" if turn else "Thought: that one.\nAction: Click [999]"
    return "Thought: done.\nAction: ANSWER; NO"


def answer(body: dict) -> str:
    """What the scripted models say."""
    role = role_of(body)
    if role == "judge":
        return "Pink and tidy.\nScore: 4"
    if role == "webvoyager":
        return webvoyager_answer(body)
    if role == "benchmark_judge":
        instruction = _text(body["messages"][1])
        return "Analysis: pleasant enough." if "[grade:none]" in instruction else "Analysis: tidy.\n\nGrade: 4"
    if role == "agent":
        task = re.search(r"^Task: (.*)$", _text(body["messages"][-1]), re.MULTILINE).group(1)
        verdict = re.search(r"\[(YES|PARTIAL|NO)\]", task).group(1)
        return json.dumps({"action": "answer", "verdict": verdict, "reason": f"scripted {verdict.lower()}"})
    site = marker(_text(body["messages"][1]), "site")
    turn = sum(m["role"] == "assistant" for m in body["messages"])  # replies already given
    if site == "good" or (site == "fix" and turn >= 1):
        return GOOD_SITE + "<finish/>"
    if site == "tall":
        return TALL_SITE + "<finish/>"
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
                    models = [{"id": name, "object": "model"} for name in ("scripted", "scripted-agent")]
                    self._send(200, {"object": "list", "data": models})
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
