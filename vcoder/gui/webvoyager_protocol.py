"""WebGen-Bench's WebVoyager protocol as text: its budgets, its prompts (quoted verbatim, they are the protocol),
how a reply is read (the action, the verdict) and how the conversation is kept (marked elements' texts, old
screenshots omitted). Pure: no page, no model; :mod:`vcoder.gui.webvoyager` runs the agent on it and lists the
sources and the deviations.
"""

from __future__ import annotations

import re
from typing import Any

from vcoder.chat import image_data_url
from vcoder.gui.policy import Verdict

#: WebGen-Bench's iteration budget per case (``--max_iter 15``)
MAX_ITERATIONS = 15
#: screenshots kept in the conversation (``--max_attached_imgs 3``)
ATTACHED_IMAGES = 3
#: WebGen-Bench's sampling: ``--temperature 1``, ``max_tokens=1000`` and ``--seed 42`` in ``webvoyager/run.py``
TEMPERATURE = 1.0
MAX_TOKENS = 1000
SEED = 42
#: WebVoyager's window (``--window_width 1024 --window_height 768``)
WIDTH, HEIGHT = 1024, 768
#: WebVoyager's fixed pauses in ms (``run.py``), the longest the agent waits for the page to settle
PAUSES_MS = {"load": 5000, "click": 3000, "type": 10000, "scroll": 3000, "wait": 5000, "goback": 2000}

# WebVoyager's SYSTEM_PROMPT (webvoyager/prompts.py in WebGen-Bench), verbatim: it is the protocol
SYSTEM_PROMPT = """Imagine you are a robot browsing the web, just like humans. Now you need to complete a task. \
In each iteration, you will receive an Observation that includes a screenshot of a webpage and some texts. This \
screenshot will feature Numerical Labels placed in the TOP LEFT corner of each Web Element.
Carefully analyze the visual information to identify the Numerical Label corresponding to the Web Element that \
requires interaction, then follow the guidelines and choose one of the following actions:
1. Click a Web Element.
2. Delete existing content in a textbox and then type content.\x20
3. Scroll up or down. Multiple scrolls are allowed to browse the webpage. Pay attention!! The default scroll is the \
whole window. If the scroll widget is located in a certain area of the webpage, then you have to specify a Web \
Element in that area. I would hover the mouse there and then scroll.
4. Wait. Typically used to wait for unfinished webpage processes, with a duration of 5 seconds.
5. Go back, returning to the previous webpage.
6. Answer. This action should only be chosen when all questions in the task have been solved.

Correspondingly, Action should STRICTLY follow the format:
- Click [Numerical_Label]
- Type [Numerical_Label]; [Content]
- Scroll [Numerical_Label or WINDOW]; [up or down]
- Wait
- GoBack
- ANSWER; [content]

Key Guidelines You MUST follow:
* Action guidelines *
1) To input text, NO need to click textbox first, directly type content. After typing, the system automatically \
hits `ENTER` key. Sometimes you should click the search button to apply search filters. Try to use simple language \
when searching.\x20\x20
2) You must Distinguish between textbox and search button, don't type content into the button! If no textbox is \
found, you may need to click the search button first before the textbox is displayed.\x20
3) Execute only one action per iteration.\x20
4) STRICTLY Avoid repeating the same action if the webpage remains unchanged. You may have selected the wrong web \
element or numerical label. Continuous use of the Wait is also NOT allowed.
5) When a complex Task involves multiple questions or steps, select "ANSWER" only at the very end, after addressing \
all of these questions (steps). Flexibly combine your own abilities with the information in the web page. Double \
check the formatting requirements in the task when ANSWER.\x20
* Web Browsing Guidelines *
1) Don't interact with useless web elements like Login, Sign-in, donation that appear in Webpages. Pay attention to \
Key Web Elements like search textbox and menu.
2) Vsit video websites like YouTube is allowed BUT you can't play videos. Clicking to download PDF is allowed and \
will be analyzed by the Assistant API.
3) Focus on the numerical labels in the TOP LEFT corner of each rectangle (element). Ensure you don't mix them up \
with other numbers (e.g. Calendar) on the page.
4) Focus on the date in task, you must look for results that match the date. It may be necessary to find the \
correct year, month and day at calendar.
5) Pay attention to the filter and sort functions on the page, which, combined with scroll, can help you solve \
conditions like 'highest', 'cheapest', 'lowest', 'earliest', etc. Try your best to find the answer that best fits \
the task.

Your reply should strictly follow the format:
Thought: {Your brief thoughts (briefly summarize the info that will help ANSWER)}
Action: {One Action format you choose}

Then the User will provide:
Observation: {A labeled screenshot Given by User}"""

# WebGen-Bench's ui_prompt_template (src/ui_test_bolt/ui_eval_with_answer.py), verbatim
TASK_PROMPT = """

Task: {task}

Expected Result: {expected_result}

Instructions:
- Attempt the task as a user would, using the UI elements available.
- Make multiple attempts if needed to try and achieve the expected result.
- Observe whether the expected result is fully, partially, or not at all achieved.
- IMPORTANT: You can at most interact with the website 15 times. If the limit is reached, directly output your answer.

At the end of your testing, answer only with one of the following:
- YES: if the expected result was fully achieved.
- NO: if the expected result could not be achieved at all.
- PARTIAL: if only some aspects of the expected result were achieved.

"""

# webvoyager/run.py's ui_limit_prompt_template, verbatim
LIMIT_PROMPT = (
    "You have reached the maximum number of allowed interactions with the website.\n\n"
    "Please evaluate the outcome of your attempts based on the expected result:\n\n"
    "Expected Result: {expected_result}\n\n"
    "Now, answer with one of the following:\n"
    "- YES: if the expected result was fully achieved during your interactions.\n"
    "- NO: if the expected result was not achieved at all.\n"
    "- PARTIAL: if the expected result was only partially achieved.\n\n"
    "Provide your final answer based on your testing experience."
)
OBSERVATION_PROMPT = "Observation: please analyze the attached screenshot and give the Thought and Action. "
ELEMENTS_NOTE = (
    "I've provided the tag name of each element and the text it contains (if text exists). "
    "Note that <textarea> or <input> may be textbox, but not exactly. "
    "Please focus more on the screenshot and then refer to the textual information.\n"
)
FORMAT_ERROR = "Format ERROR: Both 'Thought' and 'Action' should be included in your reply."
CANNOT_EXECUTE = (
    "The action you have chosen cannot be executed. Please double-check if you have selected the wrong Numerical "
    "Label or Action or Action format. Then provide the revised Thought and Action."
)
OMITTED = "Observation: A screenshot and some texts. (Omitted in context.)"

# webvoyager/utils.py's extract_information patterns, tried in this order
_ACTION_PATTERNS = (
    ("click", r"Click \[?(\d+)\]?"),
    ("type", r"Type \[?(\d+)\]?[; ]+\[?(.[^\]]*)\]?"),
    ("scroll", r"Scroll \[?(\d+|WINDOW)\]?[; ]+\[?(up|down)\]?"),
    ("wait", r"^Wait"),
    ("goback", r"^GoBack"),
    ("google", r"^Google"),
    ("answer", r"ANSWER[; ]+\[?(.[^\]]*)\]?"),
)
_KEYWORDS = re.compile(r"Thought:|Action:|Observation:")


def read_verdict(text: str | None) -> Verdict:
    """The verdict as WebGen-Bench's ``compute_acc.py`` reads it from the last assistant message: "YES" anywhere in
    it is YES, else "PARTIAL" anywhere is PARTIAL, else NO (case-sensitive substrings, YES first).

    Example:
        >>> [read_verdict(t).value for t in ("Action: ANSWER; YES", "NO, not YES", "PARTIALLY", "yes", None)]
        ['YES', 'YES', 'PARTIAL', 'NO', 'NO']
    """
    text = text or ""
    if "YES" in text:
        return Verdict.YES
    if "PARTIAL" in text:
        return Verdict.PARTIAL
    return Verdict.NO


def chosen_action(reply: str) -> str | None:
    """The action text of a reply (what follows "Action:"), or None when the reply lacks "Thought:" or "Action:".

    As WebVoyager splits it: the third piece of the reply cut at every "Thought:", "Action:" and "Observation:".
    """
    if "Thought:" not in reply or "Action:" not in reply:
        return None
    pieces = _KEYWORDS.split(reply)
    return pieces[2].strip() if len(pieces) > 2 else ""


def extract_action(text: str) -> tuple[str | None, dict[str, str]]:
    """``(kind, fields)`` of an action text with WebVoyager's patterns: ``click`` {number}, ``type`` {number,
    content}, ``scroll`` {number, content}, ``wait``, ``goback``, ``google``, ``answer`` {content}; (None, {}) when no
    pattern matches.

    Example:
        >>> extract_action("Type [5]; [hello world]")
        ('type', {'number': '5', 'content': 'hello world'})
        >>> extract_action("ANSWER; PARTIAL")
        ('answer', {'content': 'PARTIAL'})
    """
    for kind, pattern in _ACTION_PATTERNS:
        match = re.search(pattern, text)
        if not match:
            continue
        if kind in ("type", "scroll"):
            return kind, {"number": match.group(1), "content": match.group(2).strip("\"'")}
        if kind == "answer":
            return kind, {"content": match.group(1)}
        if kind == "click":
            return kind, {"number": match.group(1)}
        return kind, {}
    return None, {}


def element_texts(elements) -> str:
    """The marked elements as WebVoyager lists them: ``[n]: <tag> "text";`` for form controls, ``[n]: "text";`` for
    others, elements without text left out unless they are text boxes or buttons; tab-separated."""
    lines = []
    for el in elements:
        if not el.in_view:
            continue
        text = el.text
        control = el.tag in ("input", "textarea", "button")
        if not text:
            if el.role == "textbox" or el.tag == "button":
                lines.append(f'[{el.index}]: <{el.tag}> "";')
        elif len(text) < 200:
            lines.append(f'[{el.index}]: <{el.tag}> "{text}";' if control else f'[{el.index}]: "{text}";')
    return "\t".join(lines)


def clip_images(messages: list[dict[str, Any]], keep: int) -> list[dict[str, Any]]:
    """WebVoyager's ``clip_message_and_obs``: the last ``keep`` user messages that carry a screenshot keep it; older
    ones become their text before "Observation:" plus the "(Omitted in context.)" line."""
    out: list[dict[str, Any]] = []
    images = 0
    for message in reversed(messages):
        if message["role"] != "user" or isinstance(message["content"], str):
            out.append(message)
        elif images < keep:
            images += 1
            out.append(message)
        else:
            text = message["content"][0]["text"]
            out.append({"role": "user", "content": text.split("Observation:")[0].strip() + OMITTED})
    return out[::-1]


def observation_message(iteration: int, task_message: str, warning: str, png: bytes, texts: str) -> dict[str, Any]:
    """One observation as WebVoyager's ``format_msg`` writes it (the task message on the first iteration)."""
    if iteration == 1:
        text = task_message + ELEMENTS_NOTE + texts
    else:
        text = (
            f"Observation:{warning} please analyze the attached screenshot and give the Thought and Action. "
            + ELEMENTS_NOTE
            + texts
        )
    # WebVoyager's parts order: the text, then the screenshot
    return {"role": "user", "content": [{"type": "text", "text": text}, _image(png)]}


def _image(png: bytes) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": image_data_url(png)}}
