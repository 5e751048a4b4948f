"""A loopback builder + screenshot judge for the WebGen-Agent loop tests: the builder plays canned replies (in order,
per task), the judge grades a screenshot by its colour (green 4, blue 3, red 1), so each step's grade is known by
hand; a GUI-agent request is answered YES."""

from __future__ import annotations

import base64
import io
import json

from tests.servers import ChatServer
from vcoder.gui.judge import JUDGE_SYSTEM_PROMPT

COLOURS = {"green": ((0, 160, 0), 4), "blue": ((0, 0, 200), 3), "red": ((200, 0, 0), 1)}


def page(colour: str, label: str = "") -> str:
    rgb = COLOURS[colour][0]
    return f'<!DOCTYPE html><html><body style="margin:0;background:rgb{rgb}"><p>{label}</p></body></html>'


def site(colour: str, label: str = "") -> str:
    """A reply in vcoder's markup writing a one-colour index.html."""
    return f'<file path="index.html">\n{page(colour, label)}\n</file>\n'


def bolt_site(colour: str, label: str = "", *, finish: bool = False) -> str:
    """A reply in Bolt markup writing a one-colour index.html (a static project: nothing to install or build)."""
    end = '<boltAction type="finish"/>' if finish else ""
    return (
        f'I will build it.\n<boltArtifact id="site" title="Site"><boltAction type="file" filePath="index.html">'
        f"{page(colour, label)}</boltAction>{end}</boltArtifact>"
    )


def grade_of(png: bytes) -> int:
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    pixel = image.getpixel((image.width // 2, image.height - 20))
    return min(COLOURS.values(), key=lambda c: sum(abs(a - b) for a, b in zip(c[0], pixel, strict=True)))[1]


class Models(ChatServer):
    """The builder, the colour judge and a YES GUI agent on one loopback server.

    Args:
        replies: the builder's replies in order; or ``{text: replies}``, per task (the first user turn containing
            ``text``). When a list runs out the builder finishes.

    Attributes:
        bodies: the builder's requests, in arrival order.
    """

    models = ("scripted",)

    def __init__(self, replies):
        super().__init__()
        self.replies = {k: list(v) for k, v in replies.items()} if isinstance(replies, dict) else {"": list(replies)}
        self.bodies = []

    def answer(self, body: dict) -> str:
        messages = body["messages"]
        system = messages[0]["content"] if messages else ""
        if system == JUDGE_SYSTEM_PROMPT:
            url = next(p["image_url"]["url"] for p in messages[1]["content"] if p.get("type") == "image_url")
            return f"Scripted.\nScore: {grade_of(base64.b64decode(url.split(',', 1)[1]))}"
        if "Task:" in json.dumps(messages[-1]):  # the GUI agent on a test case
            return json.dumps({"action": "answer", "verdict": "YES", "reason": "scripted"})
        self.bodies.append(body)
        key = next(k for k in self.replies if k in messages[1]["content"])
        queue = self.replies[key]
        return queue.pop(0) if queue else "<finish/>"
