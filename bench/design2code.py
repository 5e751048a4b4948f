"""Seconds per sample of `vcoder eval design2code` (CLIP excluded) on generated pages of 50-100 text blocks.

Builds a testset of N reference pages (sections, cards, lists, a table; 50-100 Design2Code text blocks each) and
damaged predictions (text edits, removed and split blocks, recoloured text, shifted layout), then times the whole
evaluation (render both pages once + block metrics in worker processes + results/report writing) with a started
browser pool, and the two parts alone: rendering only, and block metrics only (one process). Optionally times the
literal official-definition reference (tests/eval/d2c_reference.py: 3 renders per page, unbounded merge search) on
a few samples; the official code itself is slower still (fresh browser processes, pure-Python pixel loops).

Wall seconds on a shared machine include the neighbours' load (reported as load_avg_1min); CPU seconds of the
whole process tree (Chromium and metric workers included) do not, so both are printed.

Usage: python bench/design2code.py [--n 12] [--reference 2] [--small] [--json-out FILE]
  --small: 2 samples (the test suite's smoke run; its figures are not comparable)
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = (
    "orbit rocket launch payload module engine telemetry research budget mission science crew station "
    "flight ground support tracking safety control system design team contact price plan data"
).split()


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()


def make_page(seed: int) -> list[tuple[str, str]]:
    """A page as (tag, text) items in order; 50-100 text blocks once rendered."""
    rng = random.Random(seed)
    items = [("h1", sentence(rng, 3))] + [("a", sentence(rng, 1)) for _ in range(rng.randint(3, 6))]
    while len(items) < rng.randint(50, 95):
        kind = rng.choice(("section", "cards", "list", "table"))
        if kind == "section":
            items += [("h2", sentence(rng, 4))] + [("p", sentence(rng, rng.randint(8, 25))) for _ in range(3)]
        elif kind == "cards":
            for _ in range(3):
                items += [("h3", sentence(rng, 2)), ("p", sentence(rng, rng.randint(6, 14)))]
        elif kind == "list":
            items += [("li", sentence(rng, rng.randint(3, 8))) for _ in range(rng.randint(3, 6))]
        else:
            items += [("td", sentence(rng, 2)) for _ in range(6)]
    return items


def to_html(items: list[tuple[str, str]], *, style: str = "") -> str:
    body, k = [], 0
    while k < len(items):
        tag, text = items[k]
        if tag in ("li", "td", "a"):  # group runs into one list / table row / nav
            run = []
            while k < len(items) and items[k][0] == tag:
                run.append(items[k][1])
                k += 1
            if tag == "li":
                body.append("<ul>" + "".join(f"<li>{t}</li>" for t in run) + "</ul>")
            elif tag == "td":
                body.append("<table><tr>" + "".join(f"<td>{t}</td>" for t in run) + "</tr></table>")
            else:
                body.append("<nav>" + " ".join(f'<a href="#">{t}</a>' for t in run) + "</nav>")
            continue
        body.append(f"<{tag}>{text}</{tag}>")
        k += 1
    css = "body{font-family:sans-serif;margin:24px 40px}h3,p{display:inline-block;margin:6px 18px 6px 0}" + style
    return f"<!DOCTYPE html><html><head><style>{css}</style></head><body>{''.join(body)}<img src='rick.jpg'></body></html>"


def damage(items: list[tuple[str, str]], seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for tag, text in items:
        r = rng.random()
        if r < 0.08:
            continue  # removed
        if r < 0.25:
            words = text.split()
            words[rng.randrange(len(words))] = rng.choice(WORDS)
            text = " ".join(words)  # edited
        if r > 0.93 and tag == "p" and len(text.split()) > 6:
            half = len(text.split()) // 2
            out += [(tag, " ".join(text.split()[:half])), (tag, " ".join(text.split()[half:]))]  # split
            continue
        out.append((tag, text))
    return out


def tree_cpu_s() -> float:
    """CPU seconds used so far by this process, its reaped children and its live descendants (Chromium, workers).

    On a shared machine wall time measures the neighbours too; CPU seconds do not (divide by the cores for the
    wall time on an idle machine with perfect overlap).
    """
    import psutil

    me = psutil.Process()
    t = me.cpu_times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in me.children(recursive=True):
        try:
            c = child.cpu_times()
            total += c.user + c.system
        except psutil.Error:
            pass
    return total


def build(folder: Path, n: int) -> None:
    from PIL import Image

    (folder / "testset").mkdir(parents=True)
    (folder / "pred").mkdir()
    Image.new("RGB", (160, 120), (120, 160, 200)).save(folder / "testset" / "rick.jpg", "JPEG")
    for i in range(n):
        items = make_page(i)
        (folder / "testset" / f"{i}.html").write_text(to_html(items))
        restyle = "p{color:#334;}h2{color:#a33;margin-left:30px}" if i % 2 else "body{margin:40px 60px}"
        (folder / "pred" / f"{i}.html").write_text(to_html(damage(items, 1000 + i), style=restyle))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=12, help="samples (default 12)")
    parser.add_argument("--reference", type=int, default=0, help="also time the literal reference on K samples")
    parser.add_argument("--json-out", type=Path, default=None)
    parser.add_argument("--small", action="store_true", help="smoke run: 2 samples")
    args = parser.parse_args()
    if args.small:
        args.n = 2
    sys.path.insert(0, str(ROOT))

    from PIL import Image  # noqa: F401  (warm imports before timing)

    from vcoder.eval.design2code import evaluate
    from vcoder.metrics import block_scores
    from vcoder.rendering import BrowserPool

    with tempfile.TemporaryDirectory() as tmp, BrowserPool(max_pages=2) as pool:
        folder = Path(tmp)
        build(folder, args.n)
        pool.render("<p>warm up</p>")
        refs = [(folder / "testset" / f"{i}.html").read_text() for i in range(args.n)]
        preds = [(folder / "pred" / f"{i}.html").read_text() for i in range(args.n)]

        t, cpu = time.perf_counter(), tree_cpu_s()
        evaluate(folder / "testset", folder / "pred", folder / "out", clip=False, pool=pool, progress=False)
        total, total_cpu = time.perf_counter() - t, tree_cpu_s() - cpu

        t, cpu = time.perf_counter(), tree_cpu_s()
        rendered = pool.render_many(refs + preds, base_dirs=[str(folder / "testset")] * (2 * args.n))
        render_s, render_cpu = time.perf_counter() - t, tree_cpu_s() - cpu
        blocks = [len(r.layout.text_blocks) for r in rendered[: args.n]]

        t, cpu = time.perf_counter(), time.process_time()
        for r, p in zip(rendered[: args.n], rendered[args.n :]):
            block_scores(r.layout, p.layout, ref_image=r.image, pred_image=p.image)
        metric_s, metric_cpu = time.perf_counter() - t, time.process_time() - cpu

        result = {
            "n": args.n,
            "cores": os.cpu_count(),
            "ref_blocks_min": min(blocks),
            "ref_blocks_max": max(blocks),
            "load_avg_1min": round(os.getloadavg()[0], 1),
            "s_per_sample": round(total / args.n, 3),
            "cpu_s_per_sample": round(total_cpu / args.n, 3),
            "render_s_per_sample": round(render_s / args.n, 3),
            "render_cpu_s_per_sample": round(render_cpu / args.n, 3),
            "metrics_s_per_sample_one_process": round(metric_s / args.n, 3),
            "metrics_cpu_s_per_sample": round(metric_cpu / args.n, 3),
            "official_estimate_s_per_sample": [60, 240],
            "speedup_vs_official_min": round(60 / (total / args.n), 1),
        }
        if args.reference:
            sys.path.insert(0, str(ROOT / "tests" / "eval"))
            import d2c_reference

            def render(html: str):
                return pool.render(html, base_dir=str(folder / "testset")).image

            t = time.perf_counter()
            for i in range(args.reference):
                d2c_reference.reference_scores(refs[i], preds[i], render)
            result["literal_reference_s_per_sample"] = round((time.perf_counter() - t) / args.reference, 2)
    print(json.dumps(result))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
