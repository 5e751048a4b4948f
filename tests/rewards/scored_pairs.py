"""200 fixed (reference, completion) pairs scored by every reward: the identical-numbers check of reward speed-ups.

The pairs are made from seeds alone: pages of the project's synthetic generator (``vcoder.data.synthetic``,
difficulties 1-3) with damaged copies (words, colours, a dropped section, spacing, truncation, hidden text, other
output formats), the damage ladders of ``tests/rewards/pages.py``, the honest and gaming pages of
``tests/rewards/gaming.py`` (the render-built ones included), image-only references (``image`` column, no ``html``),
and edge cases (no HTML, a fragment, a conversational completion). Each reference's completions are one step, scored
the way TRL calls the rewards (all ten concurrently, a fresh render cache per step, references cached across steps).

``scored_pairs.json`` holds every reward's value for every pair and a digest of the two renders behind it, so a
failure says whether a reward changed or the renders did. After a deliberate change of reward values, regenerate it:

    PYTHONPATH=$PWD python -m tests.rewards.scored_pairs --regenerate

and commit the new JSON with the change (``--check`` prints the differences without writing anything).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

FIXTURE = Path(__file__).with_name("scored_pairs.json")
NAMES = ["format", "validity", "dom", "ssim", "clip", "block", "text", "position", "color", "visual"]
TOLERANCE = 1e-12
_HEX = re.compile(r"#([0-9a-fA-F]{6})\b")
_TEXT = re.compile(r">([^<>]*[A-Za-z][^<>]*)<")


def _fenced(html: str) -> str:
    return f"```html\n{html}\n```"


def _words(html: str, seed: int, share: float = 0.3) -> str:
    rng = random.Random(seed)

    def edit(m: re.Match) -> str:
        words = [rng.choice(["lorem", "ipsum", "dolor"]) if rng.random() < share else w for w in m.group(1).split(" ")]
        return ">" + " ".join(words) + "<"

    head, sep, body = html.partition("<body")
    return head + sep + _TEXT.sub(edit, body)


def _colours(html: str, shift: int) -> str:
    def move(m: re.Match) -> str:
        value = int(m.group(1), 16)
        rgb = [(value >> s) & 255 for s in (16, 8, 0)]
        return "#" + "".join(f"{min(255, max(0, c + shift * (1 if k != 1 else -1))):02x}" for k, c in enumerate(rgb))

    return _HEX.sub(move, html)


def _drop_section(html: str, k: int) -> str:
    sections = list(re.finditer(r"<section>.*?</section>\n?", html, re.DOTALL))
    if not sections:
        return html
    m = sections[k % len(sections)]
    return html[: m.start()] + html[m.end() :]


def _synthetic_steps() -> list[dict]:
    from vcoder.data.synthetic import generate_page

    steps = []
    for difficulty in (1, 2, 3):
        for seed in range(4):
            ref = generate_page(seed, difficulty=difficulty).html
            spaced = ref.replace("padding: 12px 24px", "padding: 20px 40px").replace("gap: 12px", "gap: 20px")
            hidden = ref.replace("</style>", "p, h1, h2, h3, a { color: transparent !important; }\n</style>")
            completions = {
                "exact": _fenced(ref),
                "words": _fenced(_words(ref, seed)),
                "colours": _fenced(_colours(ref, 40 + 10 * seed)),
                "drop_section": _fenced(_drop_section(ref, seed)),
                "spacing": _fenced(spaced),
                "truncated": ref[: int(len(ref) * 0.7)],
                "hidden": _fenced(hidden),
                "think_chatter": f"<think>copy it</think>\n{ref}\nHope this helps!",
            }
            steps.append({"name": f"synth-d{difficulty}-s{seed}", "html": ref, "completions": completions})
    return steps


def _ladder_steps() -> list[dict]:
    from tests.rewards.pages import LADDERS, make_page, to_html

    steps = []
    for seed in range(4):
        blocks = make_page(700 + seed)
        completions = {
            f"{name}-{level}": _fenced(to_html(damage(blocks, level, seed=seed)))
            for name, damage in LADDERS.items()
            for level in (1, 3)
        }
        steps.append({"name": f"ladder-{seed}", "html": to_html(blocks), "completions": completions})
    return steps


def _gaming_steps(render) -> list[dict]:
    from tests.rewards import gaming

    steps = []
    for shape in gaming.REFERENCES:
        pages = gaming.variants(shape)
        ref = pages.pop("reference")
        rendered = render(ref)
        pages.update(gaming.render_variants(shape, rendered.layout, rendered.image))
        completions = {name: _fenced(page) for name, page in pages.items()}
        steps.append({"name": f"gaming-{shape}", "html": ref, "completions": completions})
    return steps


def _image_steps(render, synthetic: list[dict]) -> list[dict]:
    steps = []
    for step in synthetic[:3]:  # one reference per difficulty, known by its screenshot only
        picked = ("exact", "words", "colours", "drop_section", "hidden", "think_chatter")
        completions = {name: step["completions"][name] for name in picked}
        steps.append({"name": step["name"] + "-image", "image": render(step["html"]).png, "completions": completions})
    return steps


def _edge_step(synthetic: list[dict]) -> dict:
    ref = synthetic[0]["html"]
    body = ref[ref.index("<body>") + len("<body>") : ref.index("</body>")]
    return {
        "name": "edge",
        "html": ref,
        "completions": {
            "no_html": "I am sorry, I cannot write that page.",
            "empty_fence": "```html\n\n```",
            "fragment": body,
            "conversational": [{"role": "assistant", "content": _fenced(ref)}],
            "two_fences": _fenced(ref) + "\n" + _fenced(ref),
            "blank_body": _fenced("<!DOCTYPE html><html><head></head><body></body></html>"),
            "unclosed_fence": "```html\n" + ref,
            "text_only": _fenced("<p>" + " ".join(_TEXT.findall(ref)) + "</p>"),
            "styled_div": _fenced("<div style='width:600px;height:400px;background:#123456'></div>"),
        },
    }


def build_steps(render) -> list[dict]:
    """The steps (a reference and its completions) of the 200 pairs; ``render(html)`` renders a reference."""
    synthetic = _synthetic_steps()
    steps = synthetic + _ladder_steps() + _gaming_steps(render) + _image_steps(render, synthetic)
    steps.append(_edge_step(synthetic))
    return steps


@contextmanager
def fresh_context(pool):
    """A new reward context rendering on ``pool`` (the process's context is put back afterwards)."""
    from vcoder.rewards import context

    saved = context._CONTEXT, context._CONTEXT_PID
    context._CONTEXT = None
    try:
        ctx = context.get_context()
        ctx.use_pool(pool)
        yield ctx
    finally:
        context._CONTEXT, context._CONTEXT_PID = saved


def _digest(rendered) -> str:
    if rendered is None or not rendered.ok:
        return "-"
    data = rendered.png + json.dumps(rendered.layout.to_dict(), sort_keys=True).encode()
    return hashlib.sha1(data).hexdigest()[:12]


def score_pairs(pool) -> dict[str, dict]:
    """Every reward's value for every pair, and the digests of the renders: ``{pair id: {"rewards", "renders"}}``."""
    from vcoder.metrics import extract_html
    from vcoder.rewards import RewardSettings, build_rewards
    from vcoder.rewards.common import completion_text
    from vcoder.rewards.context import _key

    funcs = build_rewards(NAMES, clip_tiny=True)
    settings = RewardSettings(clip_tiny=True)
    out: dict[str, dict] = {}
    with fresh_context(pool) as ctx:

        def render(html: str):
            return asyncio.run(ctx.render(html, settings, reference=True)).rendered

        for number, step in enumerate(build_steps(render)):
            names, completions = list(step["completions"]), list(step["completions"].values())
            n = len(completions)
            html, image = [step.get("html")] * n, [step.get("image")] * n
            state = SimpleNamespace(global_step=number)

            async def run(completions=completions, html=html, image=image, state=state):
                calls = (
                    f(completions, prompts=[""] * len(completions), html=html, image=image, trainer_state=state)
                    for f in funcs
                )
                return await asyncio.gather(*calls)

            values = asyncio.run(run())
            ref = ctx.references.get(_key(step["html"], settings)) if step.get("html") else None
            ref_digest = _digest(ref.rendered) if ref else hashlib.sha1(step["image"]).hexdigest()[:12]
            for k, name in enumerate(names):
                page_html = extract_html(completion_text(completions[k]))
                page = ctx.completions.get(_key(page_html, settings)) if page_html else None
                out[f"{step['name']}/{name}"] = {
                    "rewards": {reward: values[r][k] for r, reward in enumerate(NAMES)},
                    "renders": f"{ref_digest}/{_digest(page.rendered) if page else '-'}",
                }
    return out


def differences(expected: dict[str, dict], actual: dict[str, dict]) -> tuple[list[str], list[str]]:
    """``(reward changes, render changes)``: pairs whose values moved with the same renders, and pairs whose renders
    moved (their values are then not comparable)."""
    rewards, renders = [], []
    for pair in sorted(set(expected) | set(actual)):
        want, got = expected.get(pair), actual.get(pair)
        if want is None or got is None:
            rewards.append(f"{pair}: {'missing' if got is None else 'not in the fixture'}")
            continue
        if want["renders"] != got["renders"]:
            renders.append(f"{pair}: renders {want['renders']} -> {got['renders']}")
            continue
        for name in NAMES:
            a, b = want["rewards"].get(name), got["rewards"].get(name)
            if (a is None) != (b is None) or (a is not None and abs(a - b) > TOLERANCE):
                rewards.append(f"{pair} {name}: {a!r} -> {b!r}")
    return rewards, renders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score the 200 fixed pairs; compare with or rewrite the fixture.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--regenerate", action="store_true", help=f"rewrite {FIXTURE.name}")
    group.add_argument("--check", action="store_true", help="print the differences, write nothing")
    args = parser.parse_args(argv)
    from vcoder.rendering import BrowserPool

    with BrowserPool(max_pages=2, timeout_ms=10000) as pool:
        actual = score_pairs(pool)
    if args.regenerate:
        lines = [f"{json.dumps(k)}: {json.dumps(actual[k], sort_keys=True)}" for k in sorted(actual)]
        FIXTURE.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # one pair a line: diffs stay readable
        print(f"wrote {len(actual)} pairs to {FIXTURE}")
        return 0
    rewards, renders = differences(json.loads(FIXTURE.read_text()), actual)
    for line in rewards + renders:
        print(line)
    print(f"{len(actual)} pairs: {len(rewards)} reward changes, {len(renders)} render changes")
    return 1 if rewards or renders else 0


if __name__ == "__main__":
    sys.exit(main())
