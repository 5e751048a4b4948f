"""Site kinds whose controls change state: counter, todo list, signup form, rating. Builders follow
:mod:`vcoder.data.site_kinds.base`."""

from __future__ import annotations

import json

from vcoder.data.site_kinds.base import (
    Built,
    Ctx,
    by_label,
    by_role,
    by_text,
    click,
    count,
    in_,
    make_case,
    shows,
    type_into,
    visible,
)

#: 14 items: 182 (first, second) pairs, the todo list's content (7 gave 42, too few to hold some out)
_ITEMS = (
    "Buy milk",
    "Call Sam",
    "Water plants",
    "Pay rent",
    "Read a book",
    "Fix the bike",
    "Book flights",
    "Walk the dog",
    "Clean the oven",
    "Post a letter",
    "Bake bread",
    "Renew passport",
    "Wash the car",
    "Plan the party",
)
_COUNTED = ("Visitors", "Cups of tea", "Push-ups", "Pages read", "Laps", "Goals", "Tickets sold", "Steps")
NAMES = ("Ada", "Grace", "Linus", "Margaret", "Alan", "Barbara", "Dennis", "Frances")


def exact(text: str) -> dict:
    """Expect an element whose whole visible text is ``text`` ("Visitors: 7", not "Visitors: 17")."""
    return visible(by_text(text, exact=True))


def counter(ctx: Ctx) -> Built:
    rng = ctx.rng
    # 8 things x 5 steps x 16-20 starts: 720 variants, so each split of the kind holds dozens (it had 120)
    step = rng.randint(1, 5)
    start = rng.randint(step, 20)
    what = rng.choice(_COUNTED)
    inc = ctx.label("Increase", "More")
    body = (
        f'<p class="big" id="n">{what}: {start}</p><button id="inc">{inc}</button> <button id="dec">Decrease</button> '
        '<button id="reset">Reset</button><p id="msg" role="status"></p>'
    )
    js = (
        f"let n = {start};\nconst show = () => {{ $('#n').textContent = '{what}: ' + n; }};\n"
        f"$('#inc').onclick = () => {{ n += {step}; show(); }};\n"
        f"$('#dec').onclick = () => {{ n = Math.max(0, n - {step}); show(); }};\n"
        f"$('#reset').onclick = () => {{ n = {start}; show(); $('#msg').textContent = 'Reset to {start}'; }};"
    )
    up = [click(by_role("button", "Increase"))]
    cases = [
        make_case(
            "Click Increase three times",
            f"It shows '{what}: {start + 3 * step}'",
            up * 3,
            [exact(f"{what}: {start + 3 * step}")],
        ),
        make_case(
            "Click Decrease once",
            f"It shows '{what}: {start - step}'",
            [click(by_role("button", "Decrease"))],
            [exact(f"{what}: {start - step}")],
        ),
        make_case(
            "Click Increase, then Reset",
            f"It shows '{what}: {start}' and 'Reset to {start}'",
            up + [click(by_role("button", "Reset"))],
            [exact(f"{what}: {start}"), shows(f"Reset to {start}")],
        ),
    ]
    request = (
        f"that counts {what.lower()}. It shows '{what}: N', starting at {start}. An 'Increase' button adds {step}, "
        f"a 'Decrease' button subtracts {step} (never below 0), and a 'Reset' button goes back to {start} and "
        f"shows the message 'Reset to {start}'."
    )
    return Built(body, js, cases, request, key=(what, start, step))


def todo(ctx: Ctx) -> Built:
    rng = ctx.rng
    first, second, new = rng.sample(_ITEMS, 3)
    add = ctx.label("Add", "Create")
    body = (
        f'<label for="t">New task</label><input id="t"> <button id="add">{add}</button>'
        '<p id="err" class="error" role="alert"></p><ul id="list"></ul><p id="left"></p>'
    )
    js = (
        f"const items = [{json.dumps(first)}, {json.dumps(second)}].map(t => ({{t, done: false}}));\n"
        "function render() {\n  $('#list').innerHTML = '';\n  items.forEach((it, i) => {\n"
        "    const li = document.createElement('li'), lab = document.createElement('label');\n"
        "    const box = document.createElement('input'); box.type = 'checkbox'; box.checked = it.done;\n"
        "    box.onchange = () => { it.done = box.checked; render(); };\n"
        "    lab.append(box, ' ' + it.t);\n    const del = document.createElement('button'); del.textContent = 'Delete';\n"
        "    del.onclick = () => { items.splice(i, 1); render(); };\n    li.append(lab, ' ', del); $('#list').append(li);\n"
        "  });\n  $('#left').textContent = 'Left to do: ' + items.filter(it => !it.done).length;\n}\n"
        "$('#add').onclick = () => {\n  const t = $('#t').value.trim();\n"
        "  $('#err').textContent = t ? '' : 'Please type a task first';\n"
        "  if (t) { items.push({t, done: false}); $('#t').value = ''; render(); }\n};\nrender();"
    )
    item = by_role("listitem")
    cases = [
        make_case(
            f"Type '{new}' as a new task and click Add",
            "It is listed as a third task",
            [type_into(by_label("New task"), new), click(by_role("button", "Add"))],
            [count(item, 3), visible(by_text(new)), exact("Left to do: 3")],
        ),
        make_case(
            f"Delete '{first}'",
            f"Only '{second}' is left",
            [click(in_(item, first, by_role("button", "Delete")))],
            [count(item, 1), visible(by_text(first), False)],
        ),
        make_case(
            f"Tick '{second}' as done",
            "It shows 'Left to do: 1'",
            [click(by_role("checkbox", second))],
            [exact("Left to do: 1"), count(by_role("checkbox", second, checked=True), 1)],
        ),
        make_case(
            f"Add '{new}', then click Add with the task field empty",
            "The empty task adds nothing; it says 'Please type a task first'",
            [type_into(by_label("New task"), new), click(by_role("button", "Add"))]
            + [type_into(by_label("New task"), ""), click(by_role("button", "Add"))],
            [shows("Please type a task first"), count(item, 3)],
        ),
    ]
    request = (
        f"with a todo list holding '{first}' and '{second}'. A text field labelled 'New task' and an 'Add' button "
        "add a task to the end of the list (an empty field adds nothing and shows 'Please type a task first'). "
        "Each task is a list item with a checkbox labelled with the task's text (ticked = done) and a 'Delete' "
        "button. Below the list, show 'Left to do: N' with the number of tasks not done."
    )
    return Built(body, js, cases, request, key=(first, second))  # the new task's text is the case's input


def signup(ctx: Ctx) -> Built:
    rng = ctx.rng
    name = rng.choice(NAMES)
    email = f"{name.lower()}@example.com"
    submit = ctx.label("Sign up", "Register")
    body = (
        '<form id="f" novalidate><label for="name">Name</label><input id="name">'
        '<label for="email">Email</label><input id="email">'
        '<label for="pw">Password</label><input id="pw" type="password">'
        f'<button>{submit}</button></form><div id="out" role="status"></div>'
    )
    js = (
        "$('#f').onsubmit = e => {\n  e.preventDefault();\n  const errs = [];\n"
        "  if (!$('#name').value.trim()) errs.push('Please enter your name');\n"
        "  if (!/^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$/.test($('#email').value)) errs.push('Please enter a valid email address');\n"
        "  if ($('#pw').value.length < 8) errs.push('Password must be at least 8 characters');\n"
        "  $('#out').innerHTML = errs.length ? errs.map(m => `<p class=\"error\">${m}</p>`).join('')\n"
        "    : `<p class=\"ok\">Welcome, ${$('#name').value.trim()}!</p>`;\n};"
    )

    def fill(mail: str, pw: str) -> list[dict]:
        return [
            type_into(by_label("Name"), name),
            type_into(by_label("Email"), mail),
            type_into(by_label("Password"), pw),
            click(by_role("button", "Sign up")),
        ]

    cases = [
        make_case(
            "Sign up with a name, a valid email and a long password",
            f"It says 'Welcome, {name}!'",
            fill(email, "correct-horse"),
            [shows(f"Welcome, {name}!")],
        ),
        make_case(
            "Sign up with a valid email, then again with the email 'not-an-email'",
            "It asks for a valid email address and no longer welcomes",
            fill(email, "correct-horse")
            + [type_into(by_label("Email"), "not-an-email"), click(by_role("button", "Sign up"))],
            [shows("Please enter a valid email address"), count(by_text("Welcome"), 0)],
        ),
        make_case(
            "Sign up with the password 'short'",
            "It says the password must be at least 8 characters",
            fill(email, "short"),
            [shows("Password must be at least 8 characters")],
        ),
    ]
    request = (
        "with a signup form: fields labelled 'Name', 'Email' and 'Password' and a 'Sign up' button. On submit, "
        "check the fields and stay on the page: an empty name shows 'Please enter your name', an email that is not "
        "like name@domain.tld shows 'Please enter a valid email address', a password shorter than 8 characters "
        "shows 'Password must be at least 8 characters'; when all is well show 'Welcome, NAME!'."
    )
    return Built(body, js, cases, request, key=())  # the name is the case's input: one page passes every draw


def rating(ctx: Ctx) -> Built:
    rng = ctx.rng
    thing = rng.choice(("this recipe", "our service", "the hotel", "this article", "the concert"))
    word = ctx.label("Rate", "Give")
    a, b = rng.sample(range(1, 6), 2)
    stars = "".join(
        f'<button class="star" aria-pressed="false" aria-label="{word} {i}" data-i="{i}">&#9733;</button>'
        for i in range(1, 6)
    )
    body = f'<p>How do you like {thing}?</p><div>{stars}</div><p id="said">Not rated yet</p><button id="clr">Clear rating</button>'
    js = (
        "const show = k => {\n  document.querySelectorAll('.star').forEach(s => {\n"
        "    s.setAttribute('aria-pressed', String(+s.dataset.i === k)); s.style.opacity = +s.dataset.i <= k ? 1 : 0.35;\n"
        "  });\n  $('#said').textContent = k ? `You rated ${k} out of 5` : 'Not rated yet';\n};\n"
        "document.querySelectorAll('.star').forEach(s => s.onclick = () => show(+s.dataset.i));\n"
        "$('#clr').onclick = () => show(0);"
    )
    star = lambda i: by_role("button", f"Rate {i}")  # noqa: E731
    cases = [
        make_case(
            f"Click the star for {a}",
            f"It says 'You rated {a} out of 5'",
            [click(star(a))],
            [shows(f"You rated {a} out of 5"), count(by_role("button", f"Rate {a}", pressed=True), 1)],
        ),
        make_case(
            f"Click the star for {a}, then the one for {b}",
            f"It says 'You rated {b} out of 5'",
            [click(star(a)), click(star(b))],
            [shows(f"You rated {b} out of 5"), count(by_role("button", pressed=True), 1)],
        ),
        make_case(
            "Rate, then click 'Clear rating'",
            "It says 'Not rated yet' and no star is pressed",
            [click(star(b)), click(by_role("button", "Clear rating"))],
            [shows("Not rated yet"), count(by_role("button", pressed=True), 0)],
        ),
    ]
    request = (
        f"asking 'How do you like {thing}?' with five star buttons named 'Rate 1' to 'Rate 5' (as their "
        "accessible names). Clicking one marks it pressed (aria-pressed, only one at a time), fills the stars up to "
        "it and says 'You rated N out of 5'; before any click the page says 'Not rated yet'. A 'Clear rating' "
        "button goes back to 'Not rated yet'."
    )
    return Built(body, js, cases, request, key=())  # the stars clicked are the case's input; the thing is unchecked
