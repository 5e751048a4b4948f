"""The local front-end asset cache: npm packages served in place of CDN URLs.

``vcoder assets install`` runs npm into the cache folder (``$VCODER_ASSETS_DIR``, default ``~/.cache/vcoder/assets``)
from the ``package.json``/``package-lock.json`` shipped beside this module. ``AssetStore.resolve`` maps a CDN URL
(jsdelivr, unpkg, cdnjs, bootstrapcdn, use.fontawesome.com, code.jquery.com, cdn.tailwindcss.com, Google Fonts) to
the bytes of the matching file in that cache, by package and major version. Besides CSS frameworks and fonts, the
cache holds the script libraries generated sites load without a build step: React + ReactDOM 18 (UMD), Babel
standalone (in-page JSX), Vue 3, Alpine.js 3 and Chart.js 4.
"""

from __future__ import annotations

import json
import logging
import mimetypes
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from vcoder.rendering.cssprune import PrunableSheet

logger = logging.getLogger(__name__)

SPEC_DIR = Path(__file__).parent / "assets"
JSDELIVR = "https://cdn.jsdelivr.net/npm"

# cdnjs library name -> npm package name
CDNJS_NAMES = {
    "twitter-bootstrap": "bootstrap",
    "font-awesome": "@fortawesome/fontawesome-free",
    "jquery": "jquery",
    "popper.js": "popper.js",
    "tailwindcss": "tailwindcss",
    "bootstrap": "bootstrap",
    "react": "react",
    "react-dom": "react-dom",
    "babel-standalone": "@babel/standalone",
    "vue": "vue",
    "alpinejs": "alpinejs",
    "Chart.js": "chart.js",
    "chart.js": "chart.js",
}
# bootstrapcdn / fontawesome path head -> npm package name
BOOTSTRAPCDN_NAMES = {"bootstrap": "bootstrap", "font-awesome": "@fortawesome/fontawesome-free"}
# what a CDN serves for a bare package URL
DEFAULT_FILES = {
    "tailwindcss": "dist/tailwind.min.css",
    "bootstrap": "dist/css/bootstrap.min.css",
    "@fortawesome/fontawesome-free": "css/all.min.css",
    "jquery": "dist/jquery.min.js",
    "popper.js": "dist/umd/popper.min.js",
    "@popperjs/core": "dist/umd/popper.min.js",
    "@tailwindcss/browser": "dist/index.global.js",
}
CONTENT_TYPES = {
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".map": "application/json",
}


def cache_dir(assets_dir: str | os.PathLike | None = None) -> Path:
    """The asset cache folder: the argument, else ``$VCODER_ASSETS_DIR``, else ``~/.cache/vcoder/assets``."""
    if assets_dir:
        return Path(assets_dir).expanduser()
    env = os.environ.get("VCODER_ASSETS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "vcoder" / "assets"


def install(assets_dir: str | os.PathLike | None = None, *, npm: str = "npm") -> Path:
    """Install the asset packages with npm into the cache folder (idempotent).

    npm runs in a staging folder beside the cache and the finished ``node_modules`` is swapped in by two renames,
    so renders running meanwhile (other processes share the cache) never see a half-installed tree.

    Args:
        assets_dir: target folder (default: ``cache_dir()``).
        npm: the npm executable.

    Returns:
        The cache folder.

    Raises:
        RuntimeError: npm is missing or failed (its output is in the message).
    """
    target = cache_dir(assets_dir)
    target.mkdir(parents=True, exist_ok=True)
    if shutil.which(npm) is None:
        raise RuntimeError(f"npm executable {npm!r} not found; install it (Debian: apt-get install npm) and retry")
    lock = (SPEC_DIR / "package-lock.json").read_bytes()
    stamp = target / "node_modules" / ".vcoder-lock"
    if stamp.exists() and stamp.read_bytes() == lock:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(SPEC_DIR / name, target / name)
        return target
    staging = target / f".install-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(SPEC_DIR / name, staging / name)
        cmd = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
        proc = subprocess.run(cmd, cwd=staging, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(
                f"`{' '.join(cmd)}` failed in {staging} (exit {proc.returncode}):\n{proc.stderr[-2000:]}"
            )
        (staging / "node_modules" / ".vcoder-lock").write_bytes(lock)
        old = target / f".old-node_modules-{os.getpid()}"
        if (target / "node_modules").exists():
            os.replace(target / "node_modules", old)
        os.replace(staging / "node_modules", target / "node_modules")
        for name in ("package.json", "package-lock.json"):
            os.replace(staging / name, target / name)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def check(assets_dir: str | os.PathLike | None = None) -> dict[str, str | None]:
    """Installed version of every asset package (None when missing)."""
    wanted = json.loads((SPEC_DIR / "package.json").read_text())["dependencies"]
    modules = cache_dir(assets_dir) / "node_modules"
    out: dict[str, str | None] = {}
    for alias in wanted:
        meta = modules / alias / "package.json"
        out[alias] = json.loads(meta.read_text()).get("version") if meta.exists() else None
    return out


def _entry_file(folder: Path, style: bool) -> str:
    """What a CDN serves for a bare package URL: the ``style`` entry for a stylesheet, else the package's browser
    build as unpkg/jsdelivr pick it (their own fields, then a string ``browser``, then ``main``)."""
    info = json.loads((folder / "package.json").read_text())
    keys = ("style",) if style else ("jsdelivr", "unpkg", "browser", "main")
    for key in keys:
        value = info.get(key)
        if isinstance(value, str) and value:
            return value.removeprefix("./")
    return ""


class AssetStore:
    """Maps CDN URLs to files of the local npm cache; files are read once and kept in memory."""

    def __init__(self, assets_dir: str | os.PathLike | None = None):
        self.root = cache_dir(assets_dir) / "node_modules"
        self._files: dict[Path, bytes | None] = {}
        self._sheets: dict[Path, PrunableSheet] = {}
        self._sheet_lock = threading.Lock()
        # npm package name -> [(major version, folder)], aliases (bootstrap4) included under the real name
        self.packages: dict[str, list[tuple[int, Path]]] = {}
        if not self.root.is_dir():
            logger.warning(
                "front-end asset cache %s is missing: CDN stylesheets (Tailwind, Bootstrap, ...) will not load and "
                "pages render unstyled; run `vcoder assets install` (or set VCODER_ASSETS_DIR)",
                self.root,
            )
            return
        wanted = json.loads((SPEC_DIR / "package.json").read_text())["dependencies"]
        for alias in wanted:
            meta = self.root / alias / "package.json"
            if not meta.exists():
                continue
            info = json.loads(meta.read_text())
            major = int(re.match(r"\d+", info.get("version", "0")).group())
            self.packages.setdefault(info["name"], []).append((major, meta.parent))

    def _read(self, path: Path) -> bytes | None:
        if path not in self._files:
            self._files[path] = path.read_bytes() if path.is_file() else None
        return self._files[path]

    def package_file(self, name: str, version: str | None, path: str, *, style: bool = False) -> Path | None:
        """The local file for ``name@version/path`` (same major version preferred, else the closest one)."""
        found = self.packages.get(name)
        if not found:
            return None
        m = re.match(r"v?(\d+)", version or "")
        major = int(m.group(1)) if m else max(v for v, _ in found)
        folder = min(found, key=lambda vf: (abs(vf[0] - major), -vf[0]))[1]
        path = path.strip("/")
        if not path:
            path = DEFAULT_FILES.get(name, "") or _entry_file(folder, style)
        # a CDN's minified copy of a file npm ships only unminified (cdnjs' vue.global.min.js): same code
        unminified = re.sub(r"\.min(\.[a-z]+)$", r"\1", path)
        for base in dict.fromkeys((path, unminified)):
            for cand in (base, f"dist/{base}", f"dist/css/{base}", f"dist/js/{base}", f"dist/umd/{base}"):
                full = (folder / cand).resolve()
                if full.is_relative_to(folder.resolve()) and full.is_file():
                    return full
        return None

    def sheet(self, path: Path) -> PrunableSheet:
        """The parsed (prunable) form of a big stylesheet, parsed once (thread-safe: callers wait for one parse)."""
        with self._sheet_lock:
            if path not in self._sheets:
                self._sheets[path] = PrunableSheet(self._read(path).decode("utf-8", errors="replace"))
            return self._sheets[path]

    def has_sheet(self, path: Path) -> bool:
        return path in self._sheets

    def prewarm(self) -> None:
        """Parse Tailwind 2's big stylesheet ahead of the first page that links it."""
        target = self.package_file("tailwindcss", "2", "dist/tailwind.min.css")
        if target is not None:
            self.sheet(target)

    def resolve(self, url: str, *, style: bool = False) -> tuple[bytes, str, Path] | None:
        """Body, content type and local file for a known CDN URL, or None (not one, or the file is missing).

        Args:
            url: the requested URL.
            style: True when the request is for a stylesheet (picks a package's CSS entry for bare URLs).
        """
        parts = urlsplit(url)
        host, path = parts.netloc.lower(), unquote(parts.path)
        if host in ("fonts.googleapis.com",):
            return self.google_fonts_css(parts.query).encode(), "text/css; charset=utf-8", None
        target = self._locate(host, path, style)
        if target is None:
            return None
        body = self._read(target)
        if body is None:
            return None
        ctype = CONTENT_TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ctype.startswith(("text/", "application/javascript")) and "charset" not in ctype:
            ctype += "; charset=utf-8"
        return body, ctype, target

    def _locate(self, host: str, path: str, style: bool) -> Path | None:
        if host in ("cdn.jsdelivr.net", "unpkg.com"):
            rest = (
                path[len("/npm/") :] if host == "cdn.jsdelivr.net" and path.startswith("/npm/") else path.lstrip("/")
            )
            m = re.match(r"((?:@[^/@]+/)?[^/@]+)(?:@([^/]+))?(/.*)?$", rest)
            if m:
                return self.package_file(m.group(1), m.group(2), m.group(3) or "", style=style)
        elif host == "cdnjs.cloudflare.com":
            m = re.match(r"/ajax/libs/([^/]+)/([^/]+)/(.*)$", path)
            if m and m.group(1) in CDNJS_NAMES:
                return self.package_file(CDNJS_NAMES[m.group(1)], m.group(2), m.group(3), style=style)
        elif host.endswith("bootstrapcdn.com"):
            m = re.match(r"/([^/]+)/([^/]+)/(.*)$", path)
            if m and m.group(1) in BOOTSTRAPCDN_NAMES:
                return self.package_file(BOOTSTRAPCDN_NAMES[m.group(1)], m.group(2), m.group(3), style=style)
        elif host == "use.fontawesome.com":
            m = re.match(r"/releases/(v[^/]+)/(.*)$", path)
            if m:
                return self.package_file("@fortawesome/fontawesome-free", m.group(1), m.group(2), style=style)
        elif host == "code.jquery.com":
            m = re.match(r"/jquery-(\d+)[\d.]*?((?:\.slim)?(?:\.min)?\.js)$", path)
            if m:
                return self.package_file("jquery", m.group(1), f"dist/jquery{m.group(2)}")
        elif host == "cdn.tailwindcss.com":
            return self.package_file("@tailwindcss/browser", None, "")
        return None

    def google_fonts_css(self, query: str) -> str:
        """``@font-face`` rules pointing at local fontsource files for the requested families (empty if unknown)."""
        rules = []
        for spec in parse_qs(query).get("family", []):
            for fam in spec.split("|"):
                name, _, variants = fam.partition(":")
                name = name.replace("+", " ").strip()
                pkg = "@fontsource/" + name.lower().replace(" ", "-")
                found = self.packages.get(pkg)
                if not found:
                    continue
                folder = found[0][1]
                weights = sorted({int(w) for w in re.findall(r"(?<![\d.])([1-9]00)(?!\d)", variants)} or {400})
                for weight in weights:
                    for style in ("normal", "italic"):
                        fname = f"{pkg.split('/')[1]}-latin-{weight}-{style}.woff2"
                        if (folder / "files" / fname).is_file():
                            rules.append(
                                f"@font-face{{font-family:'{name}';font-style:{style};font-weight:{weight};"
                                f"font-display:block;src:url({JSDELIVR}/{pkg}@{found[0][0]}/files/{fname}) "
                                "format('woff2');}"
                            )
        return "\n".join(rules)
