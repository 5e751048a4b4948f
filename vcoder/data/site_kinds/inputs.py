"""Site kinds built around form inputs: checkout stepper, theme toggle, unit converter, message box with a
character limit. Builders follow :mod:`vcoder.data.site_kinds.base`."""

from __future__ import annotations

from vcoder.data.site_kinds.base import (
    Built,
    Ctx,
    by_label,
    by_role,
    click,
    count,
    make_case,
    press,
    select,
    shows,
    type_into,
    value,
)
from vcoder.data.site_kinds.controls import NAMES, exact


def stepper(ctx: Ctx) -> Built:
    rng = ctx.rng
    name = rng.choice(NAMES) + " " + rng.choice(("Lovelace", "Hopper", "Turing", "Ritchie", "Liskov"))
    speed = rng.choice(("Express", "Overnight"))
    nxt = ctx.label("Next", "Continue")
    body = (
        '<p id="where" class="ok"></p><section id="s1"><label for="nm">Full name</label><input id="nm"></section>'
        '<section id="s2" hidden><label for="sp">Delivery speed</label><select id="sp"><option>Standard</option>'
        "<option>Express</option><option>Overnight</option></select></section>"
        '<section id="s3" hidden><p id="sum"></p></section><p id="err" class="error"></p>'
        f'<button id="back">Back</button> <button id="next">{nxt}</button>'
    )
    js = (
        "let k = 1;\nconst show = () => {\n  [1, 2, 3].forEach(i => { $('#s' + i).hidden = i !== k; });\n"
        "  $('#where').textContent = `Step ${k} of 3`; $('#back').disabled = k === 1; $('#next').disabled = k === 3;\n"
        "  $('#sum').textContent = `${$('#nm').value.trim()}, ${$('#sp').value} delivery`;\n};\n"
        "$('#next').onclick = () => {\n  if (k === 1 && !$('#nm').value.trim()) { $('#err').textContent = "
        "'Please enter your name'; return; }\n  $('#err').textContent = ''; k += 1; show();\n};\n"
        "$('#back').onclick = () => { k -= 1; show(); };\nshow();"
    )
    go = click(by_role("button", "Next"))
    named = [type_into(by_label("Full name"), name), go]
    cases = [
        make_case(f"Enter '{name}' and click Next", "It shows 'Step 2 of 3'", named, [exact("Step 2 of 3")]),
        make_case(
            f"Enter '{name}', Next, choose {speed} delivery, Next",
            f"It sums up '{name}, {speed} delivery'",
            named + [select(by_label("Delivery speed"), speed), go],
            [shows(f"{name}, {speed} delivery"), exact("Step 3 of 3")],
        ),
        make_case(
            f"Enter '{name}', Next, Back, clear the name and click Next",
            "It stays on step 1 and asks for the name",
            named + [click(by_role("button", "Back")), type_into(by_label("Full name"), ""), go],
            [shows("Please enter your name"), exact("Step 1 of 3")],
        ),
        make_case(
            f"Enter '{name}', Next, then Back",
            "Step 1 shows again with the name kept",
            named + [click(by_role("button", "Back"))],
            [exact("Step 1 of 3"), value(by_label("Full name"), name)],
        ),
    ]
    request = (
        "with a three-step checkout wizard that shows 'Step N of 3' and one step at a time. Step 1: a field "
        "labelled 'Full name'; step 2: a drop-down labelled 'Delivery speed' (Standard, Express, Overnight); step 3: "
        "a summary 'NAME, SPEED delivery'. 'Next' and 'Back' buttons move between steps; 'Next' on step 1 with an "
        "empty name stays there and shows 'Please enter your name'; going back keeps what was entered."
    )
    return Built(body, js, cases, request, key=())  # name and speed are the case's input: one page passes all


def theme(ctx: Ctx) -> Built:
    rng = ctx.rng
    topic = rng.choice(("Reading list", "Travel notes", "Garden diary", "Recipe box"))
    toggle = ctx.label("Dark mode", "Night")
    body = (
        f"<p>{topic}: a quiet place for your notes.</p>"
        f'<button id="dm" aria-pressed="false">{toggle}</button> <button id="big">Larger text</button>'
        '<p id="st">Light theme is on</p><p id="sz">Text size: 16px</p>'
    )
    js = (
        "let dark = false, size = 16;\n$('#dm').onclick = () => {\n  dark = !dark; document.body.classList.toggle('dark', dark);\n"
        "  $('#dm').setAttribute('aria-pressed', String(dark));\n"
        "  $('#st').textContent = dark ? 'Dark theme is on' : 'Light theme is on';\n};\n"
        "$('#big').onclick = () => { size = Math.min(size + 2, 24); document.body.style.fontSize = size + 'px';"
        " $('#sz').textContent = 'Text size: ' + size + 'px'; };"
    )
    dm = click(by_role("button", "Dark mode"))
    cases = [
        make_case(
            "Click 'Dark mode'",
            "It says 'Dark theme is on' and the button is pressed",
            [dm],
            [shows("Dark theme is on"), count(by_role("button", "Dark mode", pressed=True), 1)],
        ),
        make_case(
            "Click 'Dark mode' twice",
            "It says 'Light theme is on' again",
            [dm, dm],
            [shows("Light theme is on"), count(by_role("button", "Dark mode", pressed=False), 1)],
        ),
        make_case(
            "Click 'Larger text' twice",
            "It says 'Text size: 20px'",
            [click(by_role("button", "Larger text"))] * 2,
            [exact("Text size: 20px")],
        ),
    ]
    request = (
        f"for a '{topic}' with a 'Dark mode' toggle button (aria-pressed says whether it is on) that switches the "
        "page between a light and a dark colour scheme and says 'Dark theme is on' or 'Light theme is on', and a "
        "'Larger text' button that grows the page's text by 2px per click from 16px up to 24px, shown as "
        "'Text size: Npx'."
    )
    css = "body.dark{background:#1c1917;color:#f5f5f4}body.dark main{background:#292524}"
    return Built(body, js, cases, request, css, key=())  # the topic is never checked: one page passes all


def converter(ctx: Ctx) -> Built:
    rng = ctx.rng
    c1, c2 = rng.sample((0, 5, 10, 15, 20, 25, 30, 35, 40, 100), 2)
    conv = ctx.label("Convert", "Calculate")
    body = (
        f'<label for="c">Celsius</label><input id="c" inputmode="decimal"> <button id="go">{conv}</button>'
        '<p id="out" role="status"></p>'
    )
    js = (
        "const go = () => {\n  const raw = $('#c').value.trim(), c = Number(raw);\n"
        "  $('#out').textContent = raw === '' || Number.isNaN(c) ? 'Please enter a number'\n"
        "    : `${c} Celsius is ${Math.round((c * 9 / 5 + 32) * 10) / 10} Fahrenheit`;\n};\n"
        "$('#go').onclick = go;\n$('#c').onkeydown = e => { if (e.key === 'Enter') go(); };"
    )
    field = by_label("Celsius")
    f = lambda c: f"{c} Celsius is {c * 9 // 5 + 32} Fahrenheit"  # noqa: E731
    cases = [
        make_case(
            f"Enter {c1} and click Convert",
            f"It says '{f(c1)}'",
            [type_into(field, str(c1)), click(by_role("button", "Convert"))],
            [shows(f(c1))],
        ),
        make_case(
            f"Enter {c2} and press Enter",
            f"It says '{f(c2)}'",
            [type_into(field, str(c2)), press(field, "Enter")],
            [shows(f(c2))],
        ),
        make_case(
            "Enter 'warm' and click Convert",
            "It says 'Please enter a number'",
            [type_into(field, "warm"), click(by_role("button", "Convert"))],
            [shows("Please enter a number")],
        ),
    ]
    request = (
        "that converts temperatures: a field labelled 'Celsius' and a 'Convert' button (pressing Enter in the field "
        "converts too) that show 'C Celsius is F Fahrenheit' (F rounded to one decimal, e.g. '20 Celsius is 68 "
        "Fahrenheit'); anything that is not a number shows 'Please enter a number'."
    )
    return Built(body, js, cases, request, key=())  # the temperatures are the case's input: one page passes all


#: message boxes: (field label, button, the button's decoy name, what a send says)
_BOXES = (
    ("Message", "Send", "Post", "Message sent"),
    ("Comment", "Post", "Publish", "Comment posted"),
    ("Note", "Save", "Keep", "Note saved"),
    ("Status update", "Share", "Publish", "Update shared"),
    ("Feedback", "Submit", "Send in", "Feedback received"),
)


def message(ctx: Ctx) -> Built:
    rng = ctx.rng
    # 41 limits x 5 boxes: 205 variants (it had 3: the typed text is the case's input, not the page's content);
    # every short text fits the smallest limit and the long one overflows the largest
    limit = rng.randint(20, 60)
    field, real, decoy, done = rng.choice(_BOXES)
    short = rng.choice(("See you soon", "Thanks for the help", "Running late today", "Lunch at noon?"))
    long = "This message is far too long to fit inside the limit of the box"
    send = ctx.label(real, decoy)
    body = (
        f'<label for="m">{field}</label><textarea id="m" rows="3" cols="40"></textarea><p id="left">{limit} '
        f'characters left</p><button id="send">{send}</button><p id="sent" role="status"></p>'
    )
    js = (
        f"const LIMIT = {limit};\n$('#m').oninput = () => {{\n  const n = $('#m').value.length;\n"
        "  $('#left').textContent = n <= LIMIT ? `${LIMIT - n} characters left` : `Too long by ${n - LIMIT}`;\n"
        "  $('#send').disabled = n > LIMIT || n === 0;\n};\n"
        f"$('#send').onclick = () => {{ $('#sent').textContent = '{done}'; $('#m').value = ''; $('#m').oninput(); }};\n"
        "$('#m').oninput();"
    )
    box = by_label(field)
    cases = [
        make_case(
            f"Type '{short}'",
            f"It shows '{limit - len(short)} characters left'",
            [type_into(box, short)],
            [exact(f"{limit - len(short)} characters left")],
        ),
        make_case(
            f"Type '{short}', then replace it with a message over the limit",
            f"It shows 'Too long by {len(long) - limit}' and {real} is disabled",
            [type_into(box, short), type_into(box, long)],
            [exact(f"Too long by {len(long) - limit}"), count(by_role("button", real, disabled=True), 1)],
        ),
        make_case(
            f"Type '{short}' and click {real}",
            f"It says '{done}'",
            [type_into(box, short), click(by_role("button", real))],
            [shows(done)],
        ),
    ]
    request = (
        f"with a text area labelled '{field}' limited to {limit} characters. Below it show 'N characters left' as "
        f"the user types, or 'Too long by N' when over the limit; a '{real}' button is disabled while the text is "
        f"too long (or empty) and otherwise shows '{done}' and clears the box."
    )
    return Built(body, js, cases, request, key=(limit, field, real, done))  # the typed text is the case's input
