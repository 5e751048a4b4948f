"""A loopback OpenAI-compatible server that plays a released WebGen-Agent model (Bolt markup), the screenshot judges
and the GUI agents of both grading protocols (vcoder's, WebGen-Bench's), routed by each request's system prompt.

The builder answers the WebGen-Bench task it recognises (000001: stock reports, 000005: regulatory policies) with
``tests.sites.bolt_apps``: first the app with a broken import, then, only once the feedback quotes Vite's
"Could not resolve", the missing file, then ``finish``. The agent answers YES when the page lists the app's own
controls (so a case passes only on the built, rendered app) and NO otherwise.
"""

from __future__ import annotations

import json
import threading

from tests.eval.webgen_servers import _text, role_of
from tests.servers import JSONHandler, LoopbackServer
from tests.sites.bolt_apps import FINISH, broken_reply, fix_reply

#: words of each task's instruction -> its id
TASKS = {"stock reports": "000001", "regulatory policies": "000005"}
#: an interactive element each built app lists
CONTROLS = {"000001": "Search", "000005": "Sort by"}


def builder_answer(messages: list[dict]) -> str:
    request = _text(messages[1])
    task = next((tid for words, tid in TASKS.items() if words in request), None)
    if task is None:
        return "I cannot help with that."
    turn = sum(m["role"] == "assistant" for m in messages)
    if turn == 0:
        return broken_reply(task)
    if turn == 1:
        return fix_reply(task) if "Could not resolve" in _text(messages[-1]) else broken_reply(task)
    return FINISH


def webvoyager_answer(messages: list[dict]) -> str:
    """WebGen-Bench's WebVoyager agent: YES when the latest observation lists one of the app's controls."""
    seen = any(f'"{control}' in _text(messages[-1]) for control in CONTROLS.values())
    return (
        f"Thought: the app's controls are {'there' if seen else 'missing'}.\nAction: ANSWER; {'YES' if seen else 'NO'}"
    )


def agent_answer(messages: list[dict]) -> str:
    text = _text(messages[-1])
    seen = any(control in text for control in CONTROLS.values())
    verdict = "YES" if seen else "NO"
    return json.dumps({"action": "answer", "verdict": verdict, "reason": f"controls listed: {seen}"})


class BoltModelServer(LoopbackServer):
    """Answers ``/v1/chat/completions`` as the builder, the judge or the agent; lists the model ``scripted``.

    Attributes:
        bodies: ``(role, body)`` of every chat request, in arrival order.
    """

    def __init__(self):
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
                with outer._lock:
                    outer.bodies.append((role, body))
                messages = body["messages"]
                if role == "judge":
                    text = "Clear layout, the requested colours.\nScore: 4"
                elif role == "benchmark_judge":
                    text = "Analysis: clear layout, the requested colours.\n\nGrade: 4"
                elif role == "webvoyager":
                    text = webvoyager_answer(messages)
                elif role == "agent":
                    text = agent_answer(messages)
                else:
                    text = builder_answer(messages)
                message = {"role": "assistant", "content": text}
                self._send(200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

        self._listen(Handler)

    def builder_requests(self) -> list[dict]:
        with self._lock:
            return [b for r, b in self.bodies if r == "builder"]
