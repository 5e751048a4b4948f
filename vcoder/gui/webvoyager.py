"""WebGen-Bench's GUI agent: WebVoyager (He et al., 2024) as WebGen-Bench runs it, and its verdict reading.

The protocol, read in the public WebGen-Bench repository (Lu et al., 2025; github.com/mnluzimu/WebGen-Bench at
95a9930: ``src/ui_test_bolt/ui_eval_with_answer.py``, ``src/ui_test_bolt/compute_acc.py``, ``webvoyager/run.py``,
``webvoyager/prompts.py``, ``webvoyager/utils.py``):

- one conversation per test case: WebVoyager's system prompt, then a task message that wraps the case in the
  benchmark's ``ui_prompt_template`` ("You can at most interact with the website 15 times ...");
- up to ``max_iter`` = 15 iterations; each sends an observation (the screenshot with numbered element marks and the
  marked elements' texts) unless the previous reply was malformed or its action failed (then a one-line message,
  no screenshot); the 15th sends the limit prompt (the expected result, "answer with YES / NO / PARTIAL") instead;
- only the last ``max_attached_imgs`` = 3 observations keep their screenshot; older ones shrink to their text before
  "Observation:" plus "Observation: A screenshot and some texts. (Omitted in context.)";
- a reply must hold "Thought:" and "Action:" (else the format-error message); the action is the text after
  "Action:", read with WebVoyager's patterns (``Click [n]``, ``Type [n]; [text]``, ``Scroll [n|WINDOW]; [up|down]``,
  ``Wait``, ``GoBack``, ``Google``, ``ANSWER; [text]``); an action that cannot be carried out gets the "cannot be
  executed" message; ``ANSWER`` ends the case;
- sampling: ``--temperature 1``, ``max_tokens`` 1000, ``seed`` 42, a 1024 x 768 window;
- the verdict is read from the LAST assistant message by substring, case-sensitive, in this order: "YES" in it ->
  YES, else "PARTIAL" in it -> PARTIAL, else NO (:func:`read_verdict`). So "NO, not YES" is YES, "PARTIALLY" is
  PARTIAL, "yes" is NO, and a case that ran out of iterations is read from whatever the model said last.

The prompts below are the benchmark's, quoted because they are the protocol (from the files above). Deviations, and
why:

- Marks: vcoder's numbered interactive elements (:class:`~vcoder.gui.env.GuiEnv`, numbered from 1, boxes drawn on
  the screenshot), listed in WebVoyager's ``[n]: <tag> "text";`` form. WebVoyager's own marking script numbers
  from 0 and draws in the page; both label what the agent can act on.
- WebVoyager's fixed pauses (5 s after loading, 3 s after a click or a scroll, 10 s after typing, 5 s for ``Wait``,
  2 s after going back) are caps here: the agent waits until the page has nothing left that could change it
  (:mod:`vcoder.gui.page_changes`), at most that long (:data:`PAUSES_MS`).
- ``Google`` cannot run (no network) and gets the "cannot be executed" message, as a failed action does; so does
  ``Type`` into an element that cannot be filled (WebVoyager clicks it and sends the keys anyway, with its warning).
- ``run.py`` parses ``--temperature 1`` but does not forward it, so its server's default applied; here 1 is sent.
- A request that fails after its retries makes the case an infrastructure failure (the task is retried, through
  :class:`~vcoder.chat.WatchedClient`); WebVoyager stops and reads the last earlier reply.
- The action named in the limit iteration's reply is not carried out (it cannot change the verdict).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

from vcoder.chat import ChatClient, ChatError, image_data_url
from vcoder.gui.env import Action, GuiEnv, Observation, PageHung, draw_marks
from vcoder.gui.page_changes import change_count, next_change
from vcoder.gui.policy import CaseResult, Policy, TestCase, Verdict

logger = logging.getLogger(__name__)

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
#: ms between two looks while settling (each DOM change wakes it sooner), and kept free before the case's deadline
SETTLE_POLL_MS, SETTLE_MARGIN_MS = 250, 1000

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


class WebVoyagerPolicy(Policy):
    """WebGen-Bench's GUI agent (see the module docstring): WebVoyager's prompts, history and action format, the
    verdict read from the last reply.

    Args:
        client: the agent model's client (a ``WatchedClient`` lets a grader see its failures).
        max_iterations: iterations per case, the last one asking for the answer (WebGen-Bench: 15).
        attached_images: screenshots kept in the conversation (WebGen-Bench: 3).
        temperature: sampling temperature (WebGen-Bench: 1).
        max_tokens: reply budget (WebGen-Bench: 1000).
        seed: sampling seed (WebGen-Bench: 42).
    """

    name = "webvoyager"

    def __init__(
        self,
        *,
        client: ChatClient | Any,
        max_iterations: int = MAX_ITERATIONS,
        attached_images: int = ATTACHED_IMAGES,
        temperature: float = TEMPERATURE,
        max_tokens: int = MAX_TOKENS,
        seed: int | None = SEED,
    ):
        if max_iterations < 1 or attached_images < 1 or max_tokens < 1:
            raise ValueError(
                f"max_iterations={max_iterations}, attached_images={attached_images} and max_tokens={max_tokens} "
                "must all be >= 1"
            )
        self.client = client
        self.max_iterations = max_iterations
        self.attached_images = attached_images
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed

    def __repr__(self) -> str:
        return f"WebVoyagerPolicy({self.client!r})"

    def task_message(self, case: TestCase, url: str) -> str:
        """The first message's text before the elements (``run.py``'s ``init_msg``)."""
        question = TASK_PROMPT.format(task=case.task, expected_result=case.expected_result)
        return f"Now given a task: {question}  Please interact with {url} and get the answer. \n" + OBSERVATION_PROMPT

    async def run_case(self, env: GuiEnv, case: TestCase) -> CaseResult:
        """Run one case to a verdict; never raises for the page's or the model's behaviour."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
        task_message = self.task_message(case, env.page.url)
        failure, warning, error = "", "", None
        obs: Observation | None = None
        iteration = 0
        while iteration < self.max_iterations:
            iteration += 1
            final = iteration == self.max_iterations
            if final:
                messages.append({"role": "user", "content": LIMIT_PROMPT.format(expected_result=case.expected_result)})
            elif not failure:
                try:
                    if iteration == 1:
                        await settle(env, PAUSES_MS["load"])
                    obs = await env.observe()
                except PageHung:
                    error = env.error
                    break
                except Exception as exc:  # the document is being replaced: the page, not the agent, failed
                    env.end(f"observe failed: {type(exc).__name__}: {str(exc)[:200]}")
                    error = env.error
                    break
                png = draw_marks(obs.png, obs.elements)
                messages.append(
                    observation_message(iteration, task_message, warning, png, element_texts(obs.elements))
                )
            else:
                messages.append({"role": "user", "content": failure})
            messages = clip_images(messages, self.attached_images)
            try:
                reply = await asyncio.wait_for(
                    self.client.chat(
                        messages, temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed
                    ),
                    max(env.remaining_s, 0.05),  # a request may not outlive the case's deadline
                )
            except asyncio.TimeoutError:
                env.end(f"deadline: case exceeded {env.deadline_ms:g} ms waiting for the model")
                error = env.error
                break
            except ChatError as exc:
                error = f"vlm: {exc}"
                break
            messages.append({"role": "assistant", "content": reply.text})
            action = chosen_action(reply.text)
            if action is None:
                failure = FORMAT_ERROR
                continue
            kind, fields = extract_action(action)
            failure, warning = "", ""
            if kind == "answer" or final:
                break
            problem, warning = await self._execute(env, kind, fields, obs)
            if problem is not None and "intercept" not in problem:  # WebVoyager lets an intercepted click pass
                failure = CANNOT_EXECUTE
            if env.done:  # a hang, navigation away or the deadline
                error = env.error
                break
        return self._result(case, env, messages, iteration, error)

    def _result(self, case, env: GuiEnv, messages, iterations: int, error: str | None) -> CaseResult:
        replies = [m["content"] for m in messages if m["role"] == "assistant"]
        last = replies[-1] if replies else ""
        verdict = read_verdict(last)
        details = (
            f"answer: {verdict.value} {' '.join(last.split())}".strip(),  # whole: the verdict's evidence
            f"iterations: {iterations}",
            *(f"{i}. {' '.join(r.split())[:300]}" for i, r in enumerate(replies, 1)),
        )
        return CaseResult(case.task, verdict, env.steps_taken, error, details)

    async def _execute(
        self, env: GuiEnv, kind: str | None, fields: dict[str, str], obs: Observation | None
    ) -> tuple[str | None, str]:
        """Carry out one WebVoyager action; ``(why it failed or None, a warning for the next observation)``."""
        height = obs_height(env)
        if kind == "click":
            result = await env.act(Action("click", int(fields["number"])))
        elif kind == "type":
            number = int(fields["number"])
            warning = _type_warning(obs, number)
            result = await env.act(Action("type", number, fields["content"]))
            if result.ok:  # WebVoyager hits ENTER after typing
                result = await env.act(Action("press", number, "Enter"))
            if result.ok:
                await settle(env, PAUSES_MS["type"])
            return (None if result.ok else result.error or "type failed"), warning
        elif kind == "scroll" and fields["number"] == "WINDOW":  # 2/3 of the window, as run.py scrolls it
            delta = height * 2 // 3
            result = await env.act(Action("scroll", None, str(delta if fields["content"] == "down" else -delta)))
        elif kind == "scroll":  # run.py focuses the element and presses Alt+arrow (a press on it focuses it first)
            key = "Alt+ArrowDown" if fields["content"] == "down" else "Alt+ArrowUp"
            result = await env.act(Action("press", int(fields["number"]), key))
        elif kind == "wait":
            result = await env.act(Action("wait", None, "0"))
        elif kind == "goback":
            result = await env.act(Action("back"))
        elif kind == "google":
            return "Google: no network here", ""
        else:
            return f"unknown action {kind!r}", ""
        if result.ok:
            await settle(env, PAUSES_MS[kind])
        return (None if result.ok else result.error or f"{kind} failed"), ""

    async def aclose(self) -> None:
        await self.client.aclose()


async def settle(env: GuiEnv, cap_ms: float) -> None:
    """Wait until the page has nothing left that could change it by itself, at most ``cap_ms`` (and never past the
    case's deadline); a page that stops answering is found by the next observation."""
    end = time.monotonic() + max(min(cap_ms, env.remaining_s * 1000 - SETTLE_MARGIN_MS), 0.0) / 1000
    try:
        seen = await change_count(env)
        while (left := (end - time.monotonic()) * 1000) > 0:
            change = await next_change(env, seen, max_ms=min(left, SETTLE_POLL_MS), idle_within_ms=left)
            if change.idle:
                return
            seen = change.count
    except Exception as exc:  # hung or replaced: the next observation says so
        logger.debug("settling the page: %s", exc)


def obs_height(env: GuiEnv) -> int:
    """The viewport's height in px (WebVoyager scrolls the window by 2/3 of it)."""
    size = env.page.viewport_size or {}
    return int(size.get("height") or HEIGHT)


def _type_warning(obs: Observation | None, number: int) -> str:
    """WebVoyager's note when the element typed into may not be a text box."""
    element = next((e for e in (obs.elements if obs else ()) if e.index == number), None)
    if element is None or (element.tag == "textarea") or (element.tag == "input" and element.role == "textbox"):
        return ""
    kind = element.role if element.tag == "input" else None
    return (
        f"note: The web element you're trying to type may not be a textbox, and its tag name is <{element.tag}>, "
        f"type is {kind}."
    )
