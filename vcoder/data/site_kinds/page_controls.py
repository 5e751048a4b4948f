"""Id-named page kinds whose controls change state: a counter, a todo list, a signup form with validation.

Builders follow :mod:`vcoder.data.site_kinds.base`; the page shell is :func:`vcoder.data.site_kinds.pages.make_page`.
"""

from __future__ import annotations

import json

from vcoder.data.site_kinds.base import WORDS, Built, Ctx, click, make_case, press, type_into

ITEMS = ("Buy milk", "Call Sam", "Water plants", "Pay rent", "Read a book", "Fix the bike", "Book flights")


def counter(ctx: Ctx) -> Built:
    rng = ctx.rng
    start, step = rng.randint(0, 5), rng.randint(1, 3)
    body = (
        f'<div id="count" class="big" aria-live="polite">{start}</div>'
        f'<button id="inc">+ {step}</button> <button id="dec">&minus; {step}</button> <button id="reset">Reset</button>'
        '<p id="status" role="status"></p>'
    )
    js = (
        f"let n = {start};\nconst show = () => {{ $('#count').textContent = n; }};\n"
        f"wire('#inc', 'click', () => {{ n += {step}; show(); }});\n"
        f"wire('#dec', 'click', () => {{ n -= {step}; show(); }});\n"
        f"wire('#reset', 'click', () => {{ n = {start}; show(); $('#status').textContent = 'Counter reset to {start}'; }});"
    )
    cases = [
        make_case(
            "Click the + button three times",
            f"The count shows {start + 3 * step}",
            [click("#inc")] * 3,
            [{"target": "#count", "text": str(start + 3 * step)}],
        ),
        make_case(
            "Click the minus button once",
            f"The count shows {start - step}",
            [click("#dec")],
            [{"target": "#count", "text": str(start - step)}],
        ),
        make_case(
            "Click + twice, then the minus button once",
            f"The count shows {start + step}",
            [click("#inc"), click("#inc"), click("#dec")],
            [{"target": "#count", "text": str(start + step)}],
        ),
        make_case(
            "Click +, then Reset",
            f"The count is back to {start} and a status message says so",
            [click("#inc"), click('role=button[name="Reset"]')],
            [{"target": "#status", "text": f"reset to {start}"}, {"target": "#count", "text": str(start)}],
        ),
    ]
    instruction = (
        f"a counter: the count (id count) starts at {start}; a '+ {step}' button (id inc) adds {step}, a "
        f"'\u2212 {step}' button (id dec) subtracts {step}, and a Reset button (id reset) restores {start} and shows "
        f"'Counter reset to {start}' in a status line (id status)"
    )
    return Built(body, js, cases, instruction)


def todo(ctx: Ctx) -> Built:
    rng = ctx.rng
    first, second, new = rng.sample(ITEMS, 3)
    items = "".join(
        f'<li><input type="checkbox" class="toggle" data-i="{i}"> <span>{t}</span> '
        f'<button class="delete" data-i="{i}">Delete</button></li>'
        for i, t in enumerate((first, second))
    )
    body = (
        '<input id="new-todo" placeholder="What needs doing?" aria-label="New task"> <button id="add-todo">Add</button>'
        '<p id="todo-error" class="error" hidden>Please type a task first</p>'
        f'<ul id="todo-list">{items}</ul><p id="todo-count">2 items left</p>'
    )
    js = (
        f"const items = [{json.dumps(first)}, {json.dumps(second)}].map(t => ({{t, done: false}}));\n"
        "function render() {\n  $('#todo-list').innerHTML = items.map((it, i) => `<li><input type=\"checkbox\" "
        'class="toggle" data-i="${i}" ${it.done ? "checked" : ""}> <span>${it.t}</span> '
        '<button class="delete" data-i="${i}">Delete</button></li>`).join("");\n'
        "  const left = items.filter(it => !it.done).length;\n"
        "  $('#todo-count').textContent = left + (left === 1 ? ' item left' : ' items left');\n}\n"
        "function add() {\n  const v = $('#new-todo').value.trim();\n  $('#todo-error').hidden = !!v;\n"
        "  if (!v) return;\n  items.push({t: v, done: false}); $('#new-todo').value = ''; render();\n}\n"
        "wire('#add-todo', 'click', add);\n"
        "wire('#new-todo', 'keydown', e => { if (e.key === 'Enter') add(); });\n"
        "wire('#todo-list', 'click', e => { if (e.target.matches('.delete')) { items.splice(+e.target.dataset.i, 1); "
        "render(); } });\n"
        "wire('#todo-list', 'change', e => { if (e.target.matches('.toggle')) { "
        "items[+e.target.dataset.i].done = e.target.checked; render(); } });"
    )
    cases = [
        make_case(
            f"Type '{new}' and click Add",
            f"'{new}' appears as a third item",
            [type_into("#new-todo", new), click('role=button[name="Add"]')],
            [{"target": "#todo-list", "text": new}, {"target": "#todo-list li", "count": 3}],
        ),
        make_case(
            f"Type '{new}' and press Enter",
            f"'{new}' appears in the list",
            [type_into("#new-todo", new), press("#new-todo", "Enter")],
            [{"target": "#todo-list", "text": new}],
        ),
        make_case(
            f"Delete '{first}'",
            "One item remains and the counter says 1 item left",
            [click("#todo-list li:nth-child(1) .delete")],
            [{"target": "#todo-list li", "count": 1}, {"target": "#todo-count", "text": "1 item left"}],
        ),
        make_case(
            f"Tick '{first}' as done",
            "The counter says 1 item left",
            [click("#todo-list li:nth-child(1) .toggle")],
            [{"target": "#todo-count", "text": "1 item left"}],
        ),
        make_case(
            f"Add '{new}', then click Add with the input empty",
            "An error asks for a task and the empty task adds nothing",
            [type_into("#new-todo", new), click("#add-todo"), type_into("#new-todo", ""), click("#add-todo")],
            [{"target": "#todo-error", "visible": True}, {"target": "#todo-list li", "count": 3}],
            "Form Validation",
        ),
    ]
    instruction = (
        f"a todo list starting with '{first}' and '{second}': an input (id new-todo) and an Add button (id add-todo) "
        "add a task (Enter works too); an empty task shows 'Please type a task first' (id todo-error); each item "
        "(in ul id todo-list) has a checkbox (class toggle) and a Delete button (class delete); a line (id "
        "todo-count) says 'N items left'"
    )
    return Built(body, js, cases, instruction)


def form(ctx: Ctx) -> Built:
    rng = ctx.rng
    name, submit = rng.choice(WORDS) + " Lee", rng.choice(("Sign up", "Create account", "Register"))
    email, password = f"{name.split()[0].lower()}@example.com", "s3cret-" + str(rng.randint(1000, 9999))
    fields = (
        ("name", "Full name", "text"),
        ("email", "Email", "email"),
        ("password", "Password", "password"),
        ("confirm", "Confirm password", "password"),
    )
    inputs = "".join(
        f'<label for="{f}">{label}</label><input id="{f}" name="{f}" type="{kind}">'
        f'<p id="{f}-error" class="error" hidden></p>'
        for f, label, kind in fields
    )
    body = (
        f'<form id="signup" novalidate>{inputs}<button id="submit" type="submit">{submit}</button></form>'
        '<p id="success" class="ok" role="status" hidden></p>'
    )
    rules = (
        "return {};"
        if ctx.broken == "validation_missing"
        else (
            "const e = {};\n  if (!d.name) e.name = 'Name is required';\n"
            "  if (!/^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$/.test(d.email)) e.email = 'Enter a valid email address';\n"
            "  if (d.password.length < 8) e.password = 'Password must be at least 8 characters';\n"
            "  if (d.confirm !== d.password) e.confirm = 'Passwords do not match';\n  return e;"
        )
    )
    js = (
        f"function validate(d) {{\n  {rules}\n}}\n"
        "wire('#signup', 'submit', ev => {\n  ev.preventDefault();\n"
        "  const d = Object.fromEntries(['name', 'email', 'password', 'confirm'].map(f => [f, $('#' + f).value.trim()]));\n"
        "  const errs = validate(d);\n"
        "  for (const f of Object.keys(d)) { const el = $('#' + f + '-error'); el.textContent = errs[f] || ''; "
        "el.hidden = !errs[f]; }\n  const ok = Object.keys(errs).length === 0;\n"
        "  $('#success').hidden = !ok; if (ok) $('#success').textContent = 'Welcome, ' + d.name + '!';\n});"
    )

    def fill(**over: str) -> list:
        values = {"name": name, "email": email, "password": password, "confirm": password, **over}
        return [type_into(f"#{f}", v) for f, v in values.items()] + [click(f'role=button[name="{submit}"]')]

    def invalid(field: str, text: str, **over: str) -> dict:
        return make_case(
            f"Submit the form with {over and next(iter(over.values())) or 'no'} as the {field}",
            f"An error under the {field} says '{text}'",
            fill(**over),
            [{"target": f"#{field}-error", "visible": True}, {"target": f"#{field}-error", "text": text}],
            "Form Validation",
        )

    cases = [
        invalid("name", "required", name=""),
        invalid("email", "valid email", email="not-an-email"),
        invalid("password", "at least 8", password="abc", confirm="abc"),
        invalid("confirm", "do not match", confirm=password + "x"),
        make_case(
            "Fill every field correctly and submit",
            f"A message says 'Welcome, {name}!'",
            fill(),
            [{"target": "#success", "visible": True}, {"target": "#success", "text": f"Welcome, {name}"}],
        ),
    ]
    instruction = (
        f"a signup form (form id signup, submit button '{submit}') with Full name, Email, Password and Confirm "
        "password fields (ids name, email, password, confirm); on submit, show errors under the fields (ids "
        "name-error, email-error, password-error, confirm-error): 'Name is required', 'Enter a valid email address', "
        "'Password must be at least 8 characters', 'Passwords do not match'; when valid, show 'Welcome, NAME!' "
        "(id success)"
    )
    return Built(body, js, cases, instruction)
