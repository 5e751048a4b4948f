"""``vcoder assets install|check``: the front-end asset cache (npm packages served in place of CDNs)."""

from __future__ import annotations

import json
import sys


def add_parser(subparsers, name: str) -> None:
    p = subparsers.add_parser(
        name,
        help="install or check the offline front-end asset cache",
        description="Manage the npm asset cache the renderer serves instead of CDNs "
        "($VCODER_ASSETS_DIR, default ~/.cache/vcoder/assets).",
    )
    p.add_argument("action", choices=["install", "check"], help="install: npm ci into the cache; check: list versions")
    p.add_argument("--dir", default=None, help="cache folder (default: $VCODER_ASSETS_DIR or ~/.cache/vcoder/assets)")
    p.set_defaults(func=run)


def run(args) -> int:
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
