"""The curriculum's tasks: the offline task space, the per-kind mix that keeps a phase in the band, training rows.

A task is a plain JSON mapping ``{"id", "kind", "source", "instruction", "test_cases", "seed"}``:

- ``screenshot-<d>`` (one-shot GRPO): the synthetic page ``generate_page(seed, difficulty=d)``; the policy sees its
  screenshot and writes the HTML; ``test_cases`` is empty.
- an id-named page kind (``counter``, ``todo``, ... for Step-GRPO): :func:`vcoder.data.site_kinds.pages.site_task`'s
  instruction and structured test cases; the policy must build the page.
- ``llm`` (Step-GRPO): written by the task-writing LLM in the WebGen-Bench form (instruction + test cases).

Offline, the generators are the task space and the next phase's mix is chosen by per-kind success
(:func:`choose_mix`): kinds whose success rate lies in the band first, nearest the band's middle first.

Screenshot tasks are split by content like the one-shot quickstart's pages (:func:`task_split`: the page's heading,
block labels and columns, with the quickstart's salt): training pools draw only ``train`` pages, so the held-out
pages (``test``, or ``validation`` for pilots) are neither in a pool nor among the quickstart SFT's training pages
that the CPU curricula start from.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from vcoder.suggest import unknown_names

SCREENSHOT_PREFIX = "screenshot-"
LLM_KIND = "llm"


def interactive_kinds() -> tuple[str, ...]:
    """The id-named page kinds of :mod:`vcoder.data.site_kinds.pages` (Step-GRPO's offline kinds)."""
    from vcoder.data.site_kinds.pages import KINDS

    return KINDS


def screenshot_kinds() -> tuple[str, ...]:
    """The one-shot screenshot kinds ``screenshot-0`` .. ``screenshot-3`` (by page difficulty)."""
    return tuple(f"{SCREENSHOT_PREFIX}{d}" for d in range(4))


def check_kinds(kinds: Sequence[str], *, trainer: str, allowed: Sequence[str]) -> None:
    """Refuse kinds the trainer cannot train on: ``allowed`` is the trainer's kinds (grpo: screenshot-0..3;
    step_grpo: interactive kinds), ``trainer`` its name in the message."""

    if not kinds:
        raise ValueError("kinds is empty; name at least one offline task kind, e.g. [screenshot-0]")
    allowed = tuple(allowed)
    bad = [k for k in kinds if k not in allowed]
    if bad:
        raise ValueError(
            f"kinds {unknown_names(bad, allowed)} cannot train with trainer={trainer!r}; allowed: {allowed}"
        )
    if len(set(kinds)) != len(kinds):
        raise ValueError(f"kinds={list(kinds)} names a kind twice")


def offline_task(kind: str, seed: int) -> dict[str, Any]:
    """One generator task of ``kind`` from ``seed`` (deterministic)."""
    if kind.startswith(SCREENSHOT_PREFIX):
        difficulty = int(kind[len(SCREENSHOT_PREFIX) :])
        return {
            "id": f"{kind}-{seed}",
            "kind": kind,
            "source": "generator",
            "instruction": f"Write the HTML/CSS of the screenshot (synthetic page {seed}, difficulty {difficulty}).",
            "test_cases": [],
            "seed": seed,
        }
    from vcoder.data.site_kinds.pages import site_task

    row = site_task(kind, seed)
    return {
        "id": row["id"],
        "kind": kind,
        "source": "generator",
        "instruction": row["instruction"],
        "test_cases": json.loads(row["test_cases"]),
        "seed": seed,
    }


def task_content(kind: str, seed: int) -> str:
    """The content key of a generator task: a screenshot task's page content
    (:func:`vcoder.data.synthetic.content_key`), an interactive task's cases (steps and expectations)."""
    if kind.startswith(SCREENSHOT_PREFIX):
        from vcoder.data.synthetic import content_key, generate_page

        return content_key(generate_page(seed, difficulty=int(kind[len(SCREENSHOT_PREFIX) :])))
    cases = offline_task(kind, seed)["test_cases"]
    return f"{kind}:" + json.dumps([[c.get("steps", []), c["expect"]] for c in cases], sort_keys=True)


def task_split(kind: str, seed: int) -> str:
    """The split of a generator task, from its content (screenshot pages share the one-shot quickstart's split)."""
    from vcoder.data.splits import content_split

    salt = "synthetic" if kind.startswith(SCREENSHOT_PREFIX) else "interactive"
    return content_split(task_content(kind, seed), salt=salt)


def _train_seed(kind: str, seed: int, used: set[tuple[str, int]]) -> int:
    """The first seed from ``seed`` on that is not ``used`` and, for a screenshot kind, whose page is in ``train``
    (interactive kinds have no held-out set: any seed trains)."""
    while (kind, seed) in used or (kind.startswith(SCREENSHOT_PREFIX) and task_split(kind, seed) != "train"):
        seed += 1
    used.add((kind, seed))
    return seed


def initial_pool(kinds: Sequence[str], n: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` training tasks cycling through ``kinds``: task ``i`` uses the first free seed from
    ``seed + i // len(kinds)`` on (a screenshot kind's seeds skip pages outside ``train``)."""
    used: set[tuple[str, int]] = set()
    return [offline_task(k, _train_seed(k, seed + i // len(kinds), used)) for i, k in _cycle(kinds, n)]


def _cycle(kinds: Sequence[str], n: int) -> list[tuple[int, str]]:
    return [(i, kinds[i % len(kinds)]) for i in range(n)]


def band_distance(rate: float, low: float, high: float) -> float:
    """0 inside ``[low, high]``, else how far outside."""
    return max(low - rate, rate - high, 0.0)


def choose_mix(
    rates: Mapping[str, float | None], kinds: Sequence[str], n: int, *, low: float, high: float
) -> list[str]:
    """The kinds of the next ``n`` offline tasks, chosen by per-kind success so the phase stays in the band.

    Kinds in the band (or never tried: None, worth exploring) share the tasks round-robin, nearest the band's
    middle first; when no kind is in the band, the nearest ones (by :func:`band_distance`) get them all.

    Example:
        >>> choose_mix({"a": 0.0, "b": 0.4, "c": 0.9}, ["a", "b", "c"], 3, low=0.05, high=0.75)
        ['b', 'b', 'b']
        >>> choose_mix({"a": 0.0, "b": 0.02}, ["a", "b"], 2, low=0.05, high=0.75)
        ['b', 'b']
    """
    if n <= 0:
        return []
    middle = (low + high) / 2
    inside = [k for k in kinds if rates.get(k) is None or low <= float(rates[k]) <= high]
    if inside:
        ordered = sorted(inside, key=lambda k: abs((middle if rates.get(k) is None else rates[k]) - middle))
    else:
        best = min(band_distance(float(rates[k]), low, high) for k in kinds)
        ordered = [k for k in kinds if math.isclose(band_distance(float(rates[k]), low, high), best)]
    return [ordered[i % len(ordered)] for i in range(n)]


def new_offline_tasks(kinds: Sequence[str], *, phase: int, base_seed: int) -> list[dict[str, Any]]:
    """One fresh training task per entry of ``kinds``; phase ``p`` draws seeds from ``base_seed + 10_000 (p + 1)``
    on (entry ``i`` from ``+ i``, a screenshot kind's seeds skipping pages outside ``train``), so they never repeat
    the initial pool's or another phase's."""
    base, used = base_seed + 10_000 * (phase + 1), set()
    return [offline_task(kind, _train_seed(kind, base + i, used)) for i, kind in enumerate(kinds)]


def site_rows(tasks: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Step-GRPO's training rows of site ``tasks``: the site conversation, the instruction and the test cases."""
    from vcoder.data.prompts import make_site_conversation

    return [
        {
            "prompt": make_site_conversation(t["instruction"]),
            "instruction": t["instruction"],
            "id": t["id"],
            "test_cases": json.dumps(t["test_cases"]),
            "reference": "",
        }
        for t in tasks
    ]


def screenshot_rows(tasks, script_args, *, pool=None) -> list[dict[str, Any]]:
    """One-shot GRPO's training rows of screenshot ``tasks``: each page rendered (``pool``: a shared browser pool),
    its screenshot resized to the recipe's ``max_pixels``, the prompt of the recipe."""
    from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT, make_conversation
    from vcoder.data.synthetic import generate_page
    from vcoder.images import resize_to_max_pixels
    from vcoder.rendering import pool_or_private

    width, height = script_args.synthetic_width, script_args.synthetic_height
    pages = [generate_page(t["seed"], difficulty=int(t["kind"][len(SCREENSHOT_PREFIX) :])) for t in tasks]
    with pool_or_private(pool, max_pages=2) as renderer:
        size = {"width": width, "height": height, "full_page": True}
        shots = renderer.render_many([p.html for p in pages], **size)
        retry = [i for i, r in enumerate(shots) if not r.ok]  # a loaded machine occasionally fails a screenshot
        for i, rendered in zip(retry, renderer.render_many([pages[i].html for i in retry], **size)):
            shots[i] = rendered
    failed = [(t["id"], r.error) for t, r in zip(tasks, shots) if not r.ok]
    if failed:
        raise RuntimeError(f"{len(failed)} task pages failed to render, e.g. {failed[:3]}; check Chromium")
    system = DEFAULT_SYSTEM_PROMPT if script_args.system_prompt is None else script_args.system_prompt
    prompt = make_conversation(system_prompt=system, user_prompt=script_args.user_prompt or DEFAULT_USER_PROMPT)
    return [
        {
            "prompt": prompt,
            "image": resize_to_max_pixels(r.pil(), script_args.max_pixels),
            "html": p.html,
            "id": t["id"],
            "kind": t["kind"],
        }
        for t, p, r in zip(tasks, pages, shots)
    ]
