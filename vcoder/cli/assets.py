"""``vcoder assets install|check|npm-fill|npm-check``: the offline caches set-up fills.

``install``/``check``: the front-end asset cache (npm packages the renderer serves in place of CDNs).
``npm-fill``/``npm-check``: the npm cache Bolt projects install from offline (:mod:`vcoder.sites.npm_cache`); a
subcommand rather than ``python -m vcoder.sites.npm_cache``, which runpy warned about twice because the package
``vcoder.sites`` imports the module before running it.
"""

from __future__ import annotations

import json
import sys


def add_parser(subparsers, name: str) -> None:
    p = subparsers.add_parser(
        name,
        help="install or check the offline front-end asset cache and the Bolt projects' npm cache",
        description="Manage the npm asset cache the renderer serves instead of CDNs "
        "($VCODER_ASSETS_DIR, default ~/.cache/vcoder/assets) and the npm cache Bolt projects install from "
        "offline ($VCODER_NPM_CACHE, default ~/.cache/vcoder/npm).",
    )
    p.add_argument(
        "action",
        choices=["install", "check", "npm-fill", "npm-check"],
        help="install: npm ci into the asset cache; check: list its versions; npm-fill: fill the Bolt npm cache "
        "(set-up only, uses the registry); npm-check: report which build packages it holds",
    )
    p.add_argument(
        "--dir",
        default=None,
        help="cache folder (default: $VCODER_ASSETS_DIR or ~/.cache/vcoder/assets; for npm-*: $VCODER_NPM_CACHE or "
        "~/.cache/vcoder/npm)",
    )
    p.set_defaults(func=run)


def _npm(args) -> int:
    import subprocess

    from vcoder.sites import npm_cache

    if args.action == "npm-fill":
        try:
            npm_cache.fill(args.dir)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"vcoder assets npm-fill: {exc}", file=sys.stderr)
            return 1
    found = npm_cache.check(args.dir)
    print(json.dumps({"dir": str(npm_cache.npm_cache_dir(args.dir)), "packages": found}))
    return 0 if all(found.values()) else 1


def run(args) -> int:
    if args.action.startswith("npm-"):
        return _npm(args)
    from vcoder.rendering import assets

    if args.action == "install":
        try:
            target = assets.install(args.dir)
        except RuntimeError as exc:
            print(f"vcoder assets install: {exc}", file=sys.stderr)
            return 1
        print(json.dumps({"installed": str(target), "packages": assets.check(args.dir)}))
        return 0
    found = assets.check(args.dir)
    missing = sorted(k for k, v in found.items() if v is None)
    print(json.dumps({"dir": str(assets.cache_dir(args.dir)), "packages": found, "missing": missing}))
    return 1 if missing else 0
