"""``vcoder render``: render HTML files to PNG screenshots + layout JSON with the hermetic pool."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DESCRIPTION = """Render HTML pages offline (hermetic Chromium) to DIR/<stem>.png and DIR/<stem>.json (layout).
Prints one JSON line per page: {"input", "ok", "error", "png", "elapsed_ms"}. Pages are full-page by default
(--full-page is accepted for compatibility; --viewport-only captures only the viewport). Files beside a page
(e.g. rick.jpg) are served to it. Exit status: 0 all pages rendered, 3 some failed, 2 usage error."""


def add_parser(subparsers, name: str) -> None:
    p = subparsers.add_parser(
        name,
        help="render HTML pages to PNG + layout JSON",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("pages", nargs="+", metavar="PAGE.html", help="HTML files to render")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--width", type=int, default=1280, help="viewport width in px (default 1280)")
    p.add_argument("--height", type=int, default=720, help="viewport height in px (default 720)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--full-page", dest="full_page", action="store_true", default=True, help="whole page (default)")
    mode.add_argument("--viewport-only", dest="full_page", action="store_false", help="only the viewport")
    p.add_argument(
        "--render-timeout-ms", type=float, default=15000, help="render deadline per page in ms (default 15000)"
    )
    from vcoder.flag_names import old_flag

    old_flag(p, "--timeout-ms", "render_timeout_ms", type=float)
    p.add_argument("--max-pages", type=int, default=2, help="concurrent browser pages (default 2)")
    p.set_defaults(func=run)


def _usage(msg: str) -> int:
    import sys

    print(f"vcoder render: error: {msg}", file=sys.stderr)
    return 2


def run(args) -> int:
    pages = [Path(p) for p in args.pages]
    missing = [str(p) for p in pages if not p.is_file()]
    if missing:
        return _usage(f"no such file: {', '.join(missing)} (pass existing .html files)")
    if args.width <= 0 or args.height <= 0 or args.render_timeout_ms <= 0 or args.max_pages <= 0:
        return _usage(
            f"--width/--height/--render-timeout-ms/--max-pages must be positive, got {args.width}, {args.height}, "
            f"{args.render_timeout_ms}, {args.max_pages}"
        )
    stems = [p.stem for p in pages]
    dupes = sorted({s for s in stems if stems.count(s) > 1})
    if dupes:
        return _usage(f"several pages share the stem(s) {dupes}; their outputs would overwrite each other")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from vcoder.rendering import BrowserPool

    htmls = [p.read_bytes().decode("utf-8", errors="replace") for p in pages]
    with BrowserPool(max_pages=args.max_pages, timeout_ms=args.render_timeout_ms) as pool:
        results = pool.render_many(
            htmls,
            width=args.width,
            height=args.height,
            full_page=args.full_page,
            base_dirs=[p.resolve().parent for p in pages],
            progress=len(pages) > 3,
        )
    failed = 0
    for page, r in zip(pages, results):
        png = None
        if r.ok:
            png = out / f"{page.stem}.png"
            png.write_bytes(r.png)
            record = {
                "input": str(page),
                "width": r.width,
                "height": r.height,
                "truncated": r.truncated,
                "elapsed_ms": round(r.elapsed_ms, 1),
                "console_errors": list(r.console_errors),
                "layout": r.layout.to_dict(),
            }
            (out / f"{page.stem}.json").write_text(json.dumps(record))
        else:
            failed += 1
        line = {"input": str(page), "ok": r.ok, "error": r.error, "png": str(png) if png else None}
        print(json.dumps({**line, "elapsed_ms": round(r.elapsed_ms, 1)}), flush=True)
    return 3 if failed else 0
