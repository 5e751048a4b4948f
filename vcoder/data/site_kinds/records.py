"""Site kinds over records: sortable table, poll, quiz. Builders follow :mod:`vcoder.data.site_kinds.base`."""

from __future__ import annotations

import json

from vcoder.data.site_kinds.base import (
    Built,
    Ctx,
    by_role,
    click,
    make_case,
    shows,
)
from vcoder.data.site_kinds.collections import PRODUCTS, money
from vcoder.data.site_kinds.controls import exact


def table(ctx: Ctx) -> Built:
    rng = ctx.rng
    rows = [(p, c) for p, c in rng.sample(PRODUCTS, 5)]
    cheap, dear, first = min(rows, key=lambda r: r[1]), max(rows, key=lambda r: r[1]), min(rows)
    while rows[0] in (cheap, dear, first):
        rows.append(rows.pop(0))
    price = ctx.label("Price", "Cost")
    body = (
        f'<table><thead><tr><th><button data-k="0">Name</button></th><th><button data-k="1">{price}</button></th>'
        '</tr></thead><tbody id="rows"></tbody></table><p id="how">Unsorted</p>'
    )
    js = (
        f"const rows = {json.dumps(rows)};\nlet key = null, up = true;\n"
        "const money = c => '$' + Math.floor(c / 100) + '.' + String(c % 100).padStart(2, '0');\n"
        "const show = () => { $('#rows').innerHTML = rows.map(([p, c]) => `<tr><td>${p}</td><td>${money(c)}</td></tr>`)"
        ".join(''); };\n"
        "document.querySelectorAll('[data-k]').forEach(b => b.onclick = () => {\n  const k = +b.dataset.k;\n"
        "  up = key === k ? !up : true; key = k;\n"
        "  rows.sort((x, y) => (x[k] < y[k] ? -1 : x[k] > y[k] ? 1 : 0) * (up ? 1 : -1)); show();\n"
        "  $('#how').textContent = `Sorted by ${k ? 'price' : 'name'}, ${up ? 'ascending' : 'descending'}`;\n});\nshow();"
    )
    head = lambda n: click(by_role("columnheader", n))  # noqa: E731
    top = by_role("row") + " >> nth=1"  # the first row under the header row
    cases = [
        make_case(
            "Click the 'Price' column header",
            f"'{cheap[0]}' comes first",
            [head("Price")],
            [{"target": top, "text": cheap[0]}, shows("Sorted by price, ascending")],
        ),
        make_case(
            "Click the 'Price' column header twice",
            f"'{dear[0]}' comes first",
            [head("Price"), head("Price")],
            [{"target": top, "text": dear[0]}, shows("Sorted by price, descending")],
        ),
        make_case(
            "Click the 'Name' column header",
            f"'{first[0]}' comes first",
            [head("Name")],
            [{"target": top, "text": first[0]}, shows("Sorted by name, ascending")],
        ),
    ]
    request = (
        "with a table of products (columns 'Name' and 'Price', prices as $X.XX) in this order: "
        f"{', '.join(f'{p} {money(c)}' for p, c in rows)}. Clicking a column header sorts the rows by that column, "
        "ascending; clicking the same header again reverses the order. Below the table say 'Unsorted' at first, then "
        "'Sorted by name|price, ascending|descending'."
    )
    return Built(body, js, cases, request)


def poll(ctx: Ctx) -> Built:
    rng = ctx.rng
    question, options = rng.choice(
        (
            ("Which season do you like best?", ("Spring", "Summer", "Autumn")),
            ("Where should the team lunch be?", ("Pizza place", "Noodle bar", "Taco stand")),
            ("Which pet would you pick?", ("Cat", "Dog", "Parrot")),
        )
    )
    votes = [rng.randint(3, 12) for _ in options]
    pick = rng.randrange(len(options))
    vote = ctx.label("Vote", "Submit")
    radios = "".join(f'<label><input type="radio" name="o" value="{i}"> {o}</label>' for i, o in enumerate(options))
    body = (
        f'<fieldset><legend>{question}</legend>{radios}</fieldset><button id="vote">{vote}</button>'
        '<p id="msg" role="status"></p><ul id="res"></ul>'
    )
    js = (
        f"const options = {json.dumps(options)}, votes = {votes};\nlet voted = false;\n"
        "const show = () => { $('#res').innerHTML = options.map((o, i) => `<li>${o}: ${votes[i]} votes</li>`).join(''); };\n"
        "$('#vote').onclick = () => {\n  const c = document.querySelector('input[name=o]:checked');\n"
        "  if (voted) { $('#msg').textContent = 'You have already voted'; return; }\n"
        "  if (!c) { $('#msg').textContent = 'Please choose an option'; return; }\n"
        "  votes[+c.value] += 1; voted = true; $('#msg').textContent = 'Thanks for voting'; show();\n};\nshow();"
    )
    choose, go = click(by_role("radio", options[pick])), click(by_role("button", "Vote"))
    after = f"{options[pick]}: {votes[pick] + 1} votes"
    cases = [
        make_case(
            f"Choose '{options[pick]}' and vote",
            f"It shows '{after}'",
            [choose, go],
            [exact(after), shows("Thanks for voting")],
        ),
        make_case(
            "Click Vote without choosing",
            "It says 'Please choose an option'",
            [go],
            [shows("Please choose an option")],
        ),
        make_case(
            f"Vote for '{options[pick]}', then vote again",
            "It says 'You have already voted', counted once",
            [choose, go, go],
            [shows("You have already voted"), exact(after)],
        ),
        make_case(
            f"Click Vote without choosing, then choose '{options[pick]}' and vote",
            f"The empty vote counted nothing: it shows '{after}'",
            [go, choose, go],
            [exact(after), shows("Thanks for voting")],
        ),
    ]
    request = (
        f"with a poll '{question}': radio buttons {', '.join(repr(o) for o in options)} and a 'Vote' button. The "
        f"results list shows 'OPTION: N votes' for each option, starting at {', '.join(map(str, votes))}. Voting "
        "adds one to the chosen option and says 'Thanks for voting'; voting with nothing chosen says 'Please choose "
        "an option'; a second vote says 'You have already voted' and counts nothing."
    )
    # the option voted for is the case's input and the counts are seen one at a time: the question is the content
    return Built(body, js, cases, request, key=(question,))


def quiz(ctx: Ctx) -> Built:
    rng = ctx.rng
    qs = []
    for _ in range(2):
        x, y = rng.randint(2, 9), rng.randint(2, 9)
        wrong = sorted({x + y + d for d in (-2, -1, 1, 2)} - {x + y})[:3]
        choices = sorted([x + y, *rng.sample(wrong, 2)])
        qs.append((f"What is {x} + {y}?", x + y, choices))
    check = ctx.label("Check answer", "Submit")
    body = (
        '<p id="q" class="big"></p><div id="opts"></div>'
        f'<button id="check">{check}</button> <button id="next">Next question</button>'
        '<p id="msg" role="status"></p><p id="score"></p>'
    )
    js = (
        f"const qs = {json.dumps(qs)};\nlet k = 0, score = 0, done = false;\n"
        "const show = () => {\n  const [q, , cs] = qs[k]; $('#q').textContent = q; done = false; $('#msg').textContent = '';\n"
        '  $(\'#opts\').innerHTML = cs.map(c => `<label><input type="radio" name="a" value="${c}"> ${c}</label>`)'
        ".join(' ');\n  $('#score').textContent = `Score: ${score} of ${qs.length}`;\n};\n"
        "$('#check').onclick = () => {\n  const c = document.querySelector('input[name=a]:checked');\n"
        "  if (!c || done) return;\n  done = true;\n"
        "  if (+c.value === qs[k][1]) { score += 1; $('#msg').textContent = 'Correct!'; }\n"
        "  else $('#msg').textContent = `Not quite. The answer is ${qs[k][1]}`;\n"
        "  $('#score').textContent = `Score: ${score} of ${qs.length}`;\n};\n"
        "$('#next').onclick = () => { if (k < qs.length - 1) { k += 1; show(); } };\nshow();"
    )
    (q1, a1, c1), (q2, a2, _) = qs
    bad = next(c for c in c1 if c != a1)
    answer = lambda v: click(by_role("radio", str(v), exact=True))  # noqa: E731
    go = click(by_role("button", "Check answer"))
    cases = [
        make_case(
            f"Answer '{q1}' with {a1}",
            "It says 'Correct!' and 'Score: 1 of 2'",
            [answer(a1), go],
            [shows("Correct!"), exact("Score: 1 of 2")],
        ),
        make_case(
            f"Answer '{q1}' with {bad}",
            f"It says 'Not quite. The answer is {a1}'",
            [answer(bad), go],
            [shows(f"Not quite. The answer is {a1}")],
        ),
        make_case(
            "Answer both questions right",
            "It says 'Score: 2 of 2'",
            [answer(a1), go, click(by_role("button", "Next question")), answer(a2), go],
            [exact("Score: 2 of 2"), shows(q2)],
        ),
        make_case(
            "Answer the first question wrong and the second right",
            "The wrong answer scored nothing: it says 'Score: 1 of 2'",
            [answer(bad), go, click(by_role("button", "Next question")), answer(a2), go],
            [exact("Score: 1 of 2"), shows("Correct!")],
        ),
    ]
    request = (
        f"with a two-question maths quiz: '{q1}' (choices {', '.join(map(str, c1))}) then '{q2}' (choices "
        f"{', '.join(map(str, qs[1][2]))}), one question at a time, answers as radio buttons labelled with the "
        "number. 'Check answer' says 'Correct!' or 'Not quite. The answer is N'; 'Next question' moves on; the page "
        "always shows 'Score: N of 2'."
    )
    return Built(body, js, cases, request)
