"""The six interactive page kinds behind :mod:`vcoder.data.interactive`: body HTML, script, test cases, instruction.

Each builder takes a seeded ``random.Random`` and the broken variant (only ``validation_missing`` changes a
builder's output; the other variants are applied to the script by ``make_page``) and returns
``(body_html, script_js, cases, instruction_fragment)``. Scripts attach listeners through ``wire(selector, event,
fn)`` and read elements through ``$(selector)`` so ``make_page`` can break the wiring in one place.
"""

from __future__ import annotations

import json
import random

WORDS = ("Alpha", "Harbor", "Maple", "Nimbus", "Orbit", "Quartz", "Summit", "Willow", "Ember", "Cobalt")
_ITEMS = ("Buy milk", "Call Sam", "Water plants", "Pay rent", "Read a book", "Fix the bike", "Book flights")
_TOPICS = (
    ("Overview", "Profile", "Billing", "Security", "Shipping", "Returns", "Pricing", "Support"),
    (
        "Fast delivery in two days.",
        "Plans start at nine dollars.",
        "Two-factor sign-in is on.",
        "Returns are free for a month.",
        "Chat with us around the clock.",
        "Your data stays private.",
        "Invoices are emailed monthly.",
        "Orders ship from three warehouses.",
    ),
)


def _click(target: str) -> dict:
    return {"action": "click", "target": target}


def _type(target: str, value: str) -> dict:
    return {"action": "type", "target": target, "value": value}


def _case(task: str, expected: str, steps: list, expect: list, category: str = "Functional Testing") -> dict:
    return {"task": task, "expected_result": expected, "task_category": category, "steps": steps, "expect": expect}


def _counter(rng: random.Random, broken: str | None) -> tuple[str, str, list, str]:
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
        _case(
            "Click the + button three times",
            f"The count shows {start + 3 * step}",
            [_click("#inc")] * 3,
            [{"target": "#count", "text": str(start + 3 * step)}],
        ),
        _case(
            "Click the minus button once",
            f"The count shows {start - step}",
            [_click("#dec")],
            [{"target": "#count", "text": str(start - step)}],
        ),
        _case(
            "Click + twice, then the minus button once",
            f"The count shows {start + step}",
            [_click("#inc"), _click("#inc"), _click("#dec")],
            [{"target": "#count", "text": str(start + step)}],
        ),
        _case(
            "Click +, then Reset",
            f"The count is back to {start} and a status message says so",
            [_click("#inc"), _click('role=button[name="Reset"]')],
            [{"target": "#status", "text": f"reset to {start}"}, {"target": "#count", "text": str(start)}],
        ),
    ]
    instruction = (
        f"a counter: the count (id count) starts at {start}; a '+ {step}' button (id inc) adds {step}, a "
        f"'\u2212 {step}' button (id dec) subtracts {step}, and a Reset button (id reset) restores {start} and shows "
        f"'Counter reset to {start}' in a status line (id status)"
    )
    return body, js, cases, instruction


def _todo(rng: random.Random, broken: str | None) -> tuple[str, str, list, str]:
    first, second, new = rng.sample(_ITEMS, 3)
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
        _case(
            f"Type '{new}' and click Add",
            f"'{new}' appears as a third item",
            [_type("#new-todo", new), _click('role=button[name="Add"]')],
            [{"target": "#todo-list", "text": new}, {"target": "#todo-list li", "count": 3}],
        ),
        _case(
            f"Type '{new}' and press Enter",
            f"'{new}' appears in the list",
            [_type("#new-todo", new), {"action": "press", "target": "#new-todo", "value": "Enter"}],
            [{"target": "#todo-list", "text": new}],
        ),
        _case(
            f"Delete '{first}'",
            "One item remains and the counter says 1 item left",
            [_click("#todo-list li:nth-child(1) .delete")],
            [{"target": "#todo-list li", "count": 1}, {"target": "#todo-count", "text": "1 item left"}],
        ),
        _case(
            f"Tick '{first}' as done",
            "The counter says 1 item left",
            [_click("#todo-list li:nth-child(1) .toggle")],
            [{"target": "#todo-count", "text": "1 item left"}],
        ),
        _case(
            "Click Add with the input empty",
            "An error asks for a task and nothing is added",
            [_click("#add-todo")],
            [{"target": "#todo-error", "visible": True}, {"target": "#todo-list li", "count": 2}],
            "Form Validation",
        ),
    ]
    instruction = (
        f"a todo list starting with '{first}' and '{second}': an input (id new-todo) and an Add button (id add-todo) "
        "add a task (Enter works too); an empty task shows 'Please type a task first' (id todo-error); each item "
        "(in ul id todo-list) has a checkbox (class toggle) and a Delete button (class delete); a line (id "
        "todo-count) says 'N items left'"
    )
    return body, js, cases, instruction


def _form(rng: random.Random, broken: str | None) -> tuple[str, str, list, str]:
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
        if broken == "validation_missing"
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
        return [_type(f"#{f}", v) for f, v in values.items()] + [_click(f'role=button[name="{submit}"]')]

    def invalid(field: str, text: str, **over: str) -> dict:
        return _case(
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
        _case(
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
    return body, js, cases, instruction


def _tabs(rng: random.Random, broken: str | None) -> tuple[str, str, list, str]:
    idx = rng.sample(range(len(_TOPICS[0])), 3)
    names, texts = [_TOPICS[0][i] for i in idx], [_TOPICS[1][i] for i in idx]
    tabs = "".join(
        f'<button role="tab" id="tab-{i}" aria-selected="{str(i == 1).lower()}" aria-controls="panel-{i}">{n}</button>'
        for i, n in enumerate(names, 1)
    )
    panels = "".join(
        f'<section role="tabpanel" id="panel-{i}"{"" if i == 1 else " hidden"}><p>{t}</p></section>'
        for i, t in enumerate(texts, 1)
    )
    body = f'<div role="tablist">{tabs}</div>{panels}'
    js = (
        "function show(k) {\n  for (let i = 1; i <= 3; i++) {\n"
        "    $('#tab-' + i).setAttribute('aria-selected', String(i === k)); $('#panel-' + i).hidden = i !== k;\n  }\n}\n"
        "for (let i = 1; i <= 3; i++) wire('#tab-' + i, 'click', () => show(i));"
    )
    cases = [
        _case(
            f"Open the '{names[1]}' tab",
            f"Its panel shows '{texts[1]}'",
            [_click(f'role=tab[name="{names[1]}"]')],
            [{"target": "#panel-2", "text": texts[1]}, {"target": "#tab-2[aria-selected=true]", "count": 1}],
        ),
        _case(
            f"Open the '{names[2]}' tab",
            "Its panel shows and the first panel hides",
            [_click("#tab-3")],
            [{"target": "#panel-3", "visible": True}, {"target": "#panel-1", "visible": False}],
        ),
        _case(
            f"Open '{names[2]}', then '{names[1]}'",
            f"The '{names[1]}' panel shows",
            [_click("#tab-3"), _click("#tab-2")],
            [{"target": "#panel-2", "visible": True}, {"target": "#tab-2[aria-selected=true]", "count": 1}],
        ),
    ]
    instruction = (
        f"three tabs '{names[0]}', '{names[1]}', '{names[2]}' (role tab, ids tab-1..tab-3, aria-selected on the "
        f"active one) switching panels (ids panel-1..panel-3) that say '{texts[0]}', '{texts[1]}', '{texts[2]}'; "
        "only the active panel is visible"
    )
    return body, js, cases, instruction


def _modal(rng: random.Random, broken: str | None) -> tuple[str, str, list, str]:
    label, who = rng.choice(("Subscribe", "Join the list", "Get updates")), rng.choice(WORDS)
    body = (
        f'<button id="open-modal">{label}</button><p id="result" role="status"></p>'
        '<div id="modal" role="dialog" aria-modal="true" aria-labelledby="modal-title" hidden>'
        f'<h2 id="modal-title">{label}</h2><input id="modal-name" placeholder="Your name" aria-label="Your name">'
        '<button id="confirm-modal">Confirm</button> <button id="close-modal">Cancel</button></div>'
    )
    js = (
        "const close = msg => { $('#modal').hidden = true; $('#result').textContent = msg; };\n"
        "wire('#open-modal', 'click', () => { $('#modal').hidden = false; $('#modal-name').focus(); });\n"
        "wire('#confirm-modal', 'click', () => close('Confirmed: ' + ($('#modal-name').value.trim() || 'guest')));\n"
        "wire('#close-modal', 'click', () => close('Cancelled'));\n"
        "wire('#modal', 'keydown', e => { if (e.key === 'Escape') close('Cancelled'); });"
    )
    opened = [_click(f'role=button[name="{label}"]')]
    cases = [
        _case(f"Click '{label}'", "A dialog opens", opened, [{"target": "#modal", "visible": True}]),
        _case(
            f"Open the dialog, enter '{who}' and confirm",
            f"It closes and the page says 'Confirmed: {who}'",
            opened + [_type("#modal-name", who), _click("#confirm-modal")],
            [{"target": "#result", "text": f"Confirmed: {who}"}],
        ),
        _case(
            "Open the dialog and click Cancel",
            "It closes and the page says 'Cancelled'",
            opened + [_click("#close-modal")],
            [{"target": "#modal", "visible": False}, {"target": "#result", "text": "Cancelled"}],
        ),
        _case(
            "Open the dialog and press Escape",
            "It closes and the page says 'Cancelled'",
            opened + [{"action": "press", "target": "#modal-name", "value": "Escape"}],
            [{"target": "#modal", "visible": False}, {"target": "#result", "text": "Cancelled"}],
        ),
    ]
    instruction = (
        f"a '{label}' button (id open-modal) opening a dialog (id modal, role dialog) with a name input (id "
        "modal-name), Confirm (id confirm-modal) and Cancel (id close-modal) buttons; Confirm closes it and shows "
        "'Confirmed: NAME' (id result), Cancel or Escape closes it and shows 'Cancelled'"
    )
    return body, js, cases, instruction


def _accordion(rng: random.Random, broken: str | None) -> tuple[str, str, list, str]:
    idx = rng.sample(range(len(_TOPICS[0])), 3)
    names, texts = [_TOPICS[0][i] for i in idx], [_TOPICS[1][i] for i in idx]
    body = "".join(
        f'<h3><button id="acc-h-{i}" aria-expanded="false" aria-controls="acc-p-{i}">{n}</button></h3>'
        f'<div id="acc-p-{i}" hidden><p>{t}</p></div>'
        for i, (n, t) in enumerate(zip(names, texts), 1)
    )
    js = (
        "function toggle(k) {\n  for (let i = 1; i <= 3; i++) {\n"
        "    const open = i === k && $('#acc-p-' + i).hidden;\n"
        "    $('#acc-p-' + i).hidden = !open; $('#acc-h-' + i).setAttribute('aria-expanded', String(open));\n  }\n}\n"
        "for (let i = 1; i <= 3; i++) wire('#acc-h-' + i, 'click', () => toggle(i));"
    )
    cases = [
        _case(
            f"Expand '{names[0]}'",
            f"It shows '{texts[0]}'",
            [_click("#acc-h-1")],
            [{"target": "#acc-p-1", "text": texts[0]}, {"target": "#acc-h-1[aria-expanded=true]", "count": 1}],
        ),
        _case(
            f"Expand '{names[1]}'",
            f"It shows '{texts[1]}'",
            [_click(f'role=button[name="{names[1]}"]')],
            [{"target": "#acc-p-2", "visible": True}],
        ),
        _case(
            f"Expand '{names[0]}', then '{names[1]}'",
            "Only the second section is open",
            [_click("#acc-h-1"), _click("#acc-h-2")],
            [{"target": "#acc-p-2", "visible": True}, {"target": "#acc-p-1", "visible": False}],
        ),
    ]
    instruction = (
        f"an accordion with sections '{names[0]}', '{names[1]}', '{names[2]}': header buttons (ids acc-h-1..acc-h-3, "
        "aria-expanded) toggle panels (ids acc-p-1..acc-p-3) that are hidden at first; opening one closes the others"
    )
    return body, js, cases, instruction


BUILDERS = {
    "counter": _counter,
    "todo": _todo,
    "form": _form,
    "tabs": _tabs,
    "modal": _modal,
    "accordion": _accordion,
}
