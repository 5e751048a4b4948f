"""The web agent with the screenshot (``gui_policy: text_screenshot``): each step's user turn carries the viewport's
marked screenshot as an image part beside WebRL's text observation, the actions unchanged. A loopback VLM stand-in
checks what it receives (one PNG of the viewport's size, before the text, the acted-on element's mark drawn on it) and
answers like the scripted text agent, so the verdict follows what the page did (real Chromium)."""

from __future__ import annotations

import asyncio
import base64
import io

import pytest
from PIL import Image

from tests.rewards.test_gui_text_policy import BROKEN, SPOKEN, WORKING, WebAgentServer, fenced
from tests.servers import ChatServer
from vcoder.browse.prompt import SCREENSHOT_NOTE, SYSTEM_PROMPT, step_prompt
from vcoder.rewards.gui import make_gui_agent_reward

WIDTH, HEIGHT = 640, 400
BUTTON_MARK = (60, 180, 75)  # vcoder.gui.marks' colour of element 1


class VisionAgentServer(ChatServer):
    """Reads the image and the text of each request's user turn; answers the scripted web agent's action, or a
    malformed line when the request has no image (so a missing screenshot fails the case)."""

    def __init__(self) -> None:
        self.seen: list[dict] = []
        super().__init__()

    def answer(self, body: dict) -> str:
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        parts = user if isinstance(user, list) else [{"type": "text", "text": user}]
        images = [
            Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))).convert("RGB")
            for p in parts
            if p["type"] == "image_url"
        ]
        text = "\n".join(p["text"] for p in parts if p["type"] == "text")
        self.seen.append({"system": system, "kinds": [p["type"] for p in parts], "images": images})
        return WebAgentServer.act(text) if images else "I cannot see the page"


def test_a_step_prompt_with_a_screenshot_puts_the_image_first_and_says_what_it_shows():
    plain = step_prompt("Buy a mug", [], '<button id="1">Buy</button>', route="/")
    assert plain[1]["content"].startswith("Task: Buy a mug") and plain[0]["content"] == SYSTEM_PROMPT
    png = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(png, format="PNG")
    seen = step_prompt("Buy a mug", [], '<button id="1">Buy</button>', route="/", screenshot=png.getvalue())
    assert seen[0]["content"] == SYSTEM_PROMPT + SCREENSHOT_NOTE
    image, text = seen[1]["content"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    assert text == {"type": "text", "text": plain[1]["content"]}  # the same text as the text policy reads


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_the_screenshot_policy_sends_the_marked_viewport_and_grades_by_what_the_page_did():
    with VisionAgentServer() as server:
        reward = make_gui_agent_reward(
            gui_base_url=server.base_url,
            gui_model="web-vlm",
            gui_policy="text_screenshot",
            gui_deadline_ms=15000,
            render_width=WIDTH,
            render_height=HEIGHT,
        )
        out = asyncio.run(reward([fenced(WORKING), fenced(BROKEN)], test_cases=[[SPOKEN]] * 2))
    assert out == [1.0, 0.0]
    assert len(server.seen) == 2 + 3  # working: click, YES; broken: click, click, NO (as the text policy)
    for request in server.seen:
        assert request["system"].endswith(SCREENSHOT_NOTE)
        assert request["kinds"] == ["image_url", "text"]  # the screenshot before the text, as the VLM agent sends
        (image,) = request["images"]
        assert image.size == (WIDTH, HEIGHT)
        assert BUTTON_MARK in {c for _, c in image.getcolors(WIDTH * HEIGHT)}  # the button's id is drawn on it


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_real_vlm_server_accepts_the_screenshot_policys_requests(tiny_vlm_server):
    # the tiny random VLM behind `transformers serve`: its replies are noise, so no verdict (NO, 0.0), but every
    # request, a system turn and a user turn of an image part then text, is answered (a refused one would be None)
    reward = make_gui_agent_reward(
        gui_base_url=tiny_vlm_server.base_url,
        gui_model=tiny_vlm_server.model,
        gui_policy="text_screenshot",
        gui_step_limit=1,
        gui_max_tokens=8,
        gui_timeout_ms=120_000,
        gui_deadline_ms=240_000,
        render_width=WIDTH,
        render_height=HEIGHT,
    )
    assert asyncio.run(reward([fenced(WORKING)], test_cases=[[SPOKEN]])) == [0.0]
