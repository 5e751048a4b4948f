"""Site kinds that page through data or change with time: pagination, bar chart, countdown timer. Builders
follow :mod:`vcoder.data.site_kinds.base`."""

from __future__ import annotations

from vcoder.data.site_kinds.base import (
    Built,
    Ctx,
    by_label,
    by_role,
    by_text,
    click,
    count,
    make_case,
    shows,
    type_into,
    visible,
    wait,
)
from vcoder.data.site_kinds.controls import exact
from vcoder.data.site_kinds.views import PLACES


def pagination(ctx: Ctx) -> Built:
    rng = ctx.rng
    per = rng.choice((3, 4))
    places = rng.sample(PLACES, per * 2 + rng.randint(1, per - 1))
    pages = -(-len(places) // per)
    nxt = ctx.label("Next", "Forward")
    body = f'<ul id="list"></ul><p id="where"></p><button id="prev">Previous</button> <button id="next">{nxt}</button>'
    js = (
        f"const items = {places!r}, per = {per}, pages = {pages};\nlet page = 1;\n"
        "const show = () => {\n  $('#list').innerHTML = items.slice((page - 1) * per, page * per)"
        ".map(t => `<li>${t}</li>`).join('');\n"
        "  $('#where').textContent = `Page ${page} of ${pages}`;\n"
        "  $('#prev').disabled = page === 1; $('#next').disabled = page === pages;\n};\n"
        "$('#next').onclick = () => { page += 1; show(); };\n$('#prev').onclick = () => { page -= 1; show(); };\nshow();"
    )
    nx = click(by_role("button", "Next"))
    item = lambda t: by_text(t, exact=True)  # noqa: E731
    cases = [
        make_case(
            "Click Next",
            f"Page 2 lists '{places[per]}' and no longer '{places[0]}'",
            [nx],
            [exact(f"Page 2 of {pages}"), visible(item(places[per])), visible(item(places[0]), False)],
        ),
        make_case(
            "Click Next until the last page",
            "The last page shows and Next is disabled",
            [nx] * (pages - 1),
            [
                visible(item(places[-1])),
                count(by_role("button", "Next", disabled=True), 1),
                count(by_role("listitem"), len(places) - per * (pages - 1)),
            ],
        ),
        make_case(
            "Click Next, then Previous",
            f"Page 1 lists '{places[0]}' again and no longer '{places[per]}'",
            [nx, click(by_role("button", "Previous"))],
            [exact(f"Page 1 of {pages}"), visible(item(places[0])), visible(item(places[per]), False)],
        ),
    ]
    request = (
        f"listing these cities, {per} per page, in this order: {', '.join(places)}. Each city is a list item. Show "
        f"'Page N of {pages}' and 'Previous' and 'Next' buttons that turn the pages; 'Previous' is disabled on the "
        "first page and 'Next' on the last."
    )
    return Built(body, js, cases, request)


def _series(days: tuple[str, ...], values: list[int]) -> str:
    return ", ".join(f"{d} {v}" for d, v in zip(days, values))


def chart(ctx: Ctx) -> Built:
    rng = ctx.rng
    days = ("Mon", "Tue", "Wed", "Thu", "Fri")
    unit = rng.choice(("orders", "visits", "tickets"))
    now = [rng.randint(2, 19) for _ in days]
    last = [rng.randint(2, 19) for _ in days]
    while max(last) == max(now) or last.count(max(last)) > 1:
        last = [rng.randint(2, 19) for _ in days]
    shown = ctx.label("Last week", "Previous")
    body = (
        f'<button id="this" aria-pressed="true">This week</button> <button id="last" aria-pressed="false">{shown}'
        '</button><div id="bars" class="bars"></div><p id="tot"></p><p id="top"></p>'
    )
    js = (
        f"const days = {list(days)!r}, data = {{now: {now}, last: {last}}};\n"
        "const draw = key => {\n  const v = data[key], m = Math.max(...v);\n"
        '  $(\'#bars\').innerHTML = v.map((x, i) => `<div class="bar" role="img" aria-label="${days[i]}: ${x}"'
        " style=\"height:${x * 8}px\"><span>${days[i]}</span></div>`).join('');\n"
        f"  $('#tot').textContent = 'Total: ' + v.reduce((a, b) => a + b, 0) + ' {unit}';\n"
        "  $('#top').textContent = 'Busiest day: ' + days[v.indexOf(m)];\n"
        "  $('#this').setAttribute('aria-pressed', String(key === 'now'));"
        " $('#last').setAttribute('aria-pressed', String(key === 'last'));\n};\n"
        "$('#this').onclick = () => draw('now');\n$('#last').onclick = () => draw('last');\ndraw('now');"
    )
    bar = lambda d, v: by_role("img", f"{d}: {v}", exact=True)  # noqa: E731
    pressed = lambda name: count(by_role("button", name, pressed=True), 1)  # noqa: E731
    lw, tw = click(by_role("button", "Last week")), click(by_role("button", "This week"))
    # a case credits only what its clicks change: the days, total and busiest day where the two weeks differ
    d = next(i for i in (2, 0, 1, 3, 4) if last[i] != now[i])  # the maxima differ, so some day does
    busy = {k: f"Busiest day: {days[v.index(max(v))]}" for k, v in (("now", now), ("last", last))}
    totals = {k: exact(f"Total: {sum(v)} {unit}") for k, v in (("now", now), ("last", last))}
    differ = sum(now) != sum(last)
    cases = [
        make_case(
            "Switch the chart to 'Last week'",
            f"Last week's bars show ('{days[d]}: {last[d]}') and 'Last week' is pressed",
            [lw],
            [count(bar(days[d], last[d]), 1), pressed("Last week")],
        ),
        make_case(
            "Click 'Last week'",
            f"It shows 'Total: {sum(last)} {unit}' and last week's bars",
            [lw],
            [count(bar(days[d], last[d]), 1)]
            + ([totals["last"]] if differ else [])
            + ([shows(busy["last"])] if busy["last"] != busy["now"] else []),
        ),
        make_case(
            "Click 'Last week', then 'This week'",
            f"It shows 'Total: {sum(now)} {unit}' again",
            [lw, tw],
            [count(bar(days[d], now[d]), 1), pressed("This week")] + ([totals["now"]] if differ else []),
        ),
    ]
    request = (
        f"with a bar chart of daily {unit}, Monday to Friday: this week {_series(days, now)}, last week "
        f"{_series(days, last)}. Each bar's height follows its value and the bar is an image whose accessible name "
        "is like 'Mon: 7'. 'This week' and 'Last week' buttons switch the data (this week first); below the chart "
        f"show 'Total: N {unit}' and 'Busiest day: DAY' (the day with the highest value, as 'Mon')."
    )
    css = ".bars{display:flex;align-items:flex-end;gap:8px;height:170px}.bar{width:40px;background:currentColor}"
    css += ".bar span{display:block;margin-top:-20px;font-size:12px}"
    return Built(body, js, cases, request, css)


def timer(ctx: Ctx) -> Built:
    rng = ctx.rng
    preset = rng.choice((10, 20, 30, 60))
    start = ctx.label("Start", "Go")
    body = (
        f'<label for="sec">Seconds</label><input id="sec" type="number" value="{preset}">'
        f'<p class="big" id="show">{preset} seconds left</p><button id="go">{start}</button> '
        '<button id="rst">Reset</button><p id="msg" role="status"></p>'
    )
    js = (
        "let left = 0, tick = null;\nconst stop = () => { clearInterval(tick); tick = null; };\n"
        "const show = () => { $('#show').textContent = left + ' seconds left'; };\n"
        "const read = () => { left = Math.floor(Number($('#sec').value)); show(); };\n"
        "$('#sec').oninput = () => { stop(); read(); };\n"
        "$('#go').onclick = () => {\n  stop(); read(); $('#msg').textContent = '';\n"
        "  if (!(left > 0)) { $('#msg').textContent = 'Enter a number of seconds'; return; }\n"
        "  tick = setInterval(() => { left -= 1; show();"
        " if (left <= 0) { stop(); $('#msg').textContent = 'Time is up!'; } }, 1000);\n};\n"
        "$('#rst').onclick = () => { stop(); read(); $('#msg').textContent = ''; };"
    )
    field, go = by_label("Seconds"), click(by_role("button", "Start"))
    cases = [
        make_case(
            "Set 1 second and click Start",
            "After a second it says 'Time is up!'",
            [type_into(field, "1"), go, wait(1500)],
            [shows("Time is up!"), exact("0 seconds left")],
        ),
        make_case(
            "Set 2 seconds, Start, then Reset",
            "Two and a half seconds later it still shows '2 seconds left' (the countdown stopped)",
            [type_into(field, "2"), go, click(by_role("button", "Reset")), wait(2500)],
            [exact("2 seconds left")],
        ),
        make_case(
            "Set 0 seconds and click Start",
            "It says 'Enter a number of seconds'",
            [type_into(field, "0"), go],
            [shows("Enter a number of seconds")],
        ),
    ]
    request = (
        f"with a countdown timer: a number field labelled 'Seconds' (preset to {preset}) and a display 'N seconds "
        "left' that follows the field. 'Start' counts down once a second and says 'Time is up!' at 0; 'Reset' "
        "stops it and goes back to the field's value; starting with 0 or less says 'Enter a number of seconds'."
    )
    return Built(body, js, cases, request, key=())  # the cases type their own seconds: one page passes all
