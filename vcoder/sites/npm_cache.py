"""The offline npm cache Bolt projects install from: which packages it holds, and how ``scripts/setup.sh`` fills it.

An episode never reaches a registry: ``npm install --offline`` resolves every range against the packuments and
tarballs of this cache (``$VCODER_NPM_CACHE``, default ``~/.cache/vcoder/npm``), so a project may use exactly the
versions cached here. The cache is filled once, at set-up (the only time the registry is used), by installing each
of the ``PROJECTS`` below into a scratch folder with ``--ignore-scripts``; a range resolves offline to the newest
cached version that satisfies it, so a model's own ranges (``react ^18.2.0``) work when they admit a cached version.

What is cached, and why:

- ``bolt-template``: the Bolt/Vite React TypeScript template WebGen-Agent's models start from (bolt.new's
  ``vite-react-ts`` template): vite ^5.4, @vitejs/plugin-react ^4.3, react / react-dom ^18.3 and their types,
  typescript ^5.5, tailwindcss ^3.4 with postcss and autoprefixer, lucide-react, and the template's ESLint set (a
  package.json copied from the template lists them, and an install fails offline on any one missing).
- ``webgen-apps``: what WebGen-Bench's apps ask for most. Its tasks are multi-page applications (routing), dashboards
  and trackers (charts, dates), forms and stores (ids, state), with icons and animation for appearance: react-router-dom,
  recharts, chart.js + react-chartjs-2, date-fns, dayjs, framer-motion, axios, uuid, zustand, clsx, react-icons,
  @heroicons/react, @headlessui/react. (Chosen from the benchmark's task categories; no installation log was available.)
- ``prompt-example``: the versions of WebGen-Agent's own system-prompt example (vite ^4.2, @vitejs/plugin-react ^3.1,
  react-spring ^9.7), which models trained on it reproduce.

Example:
    >>> sorted(PROJECTS)
    ['bolt-template', 'prompt-example', 'webgen-apps']
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)

BOLT_TEMPLATE = {
    "dependencies": {"lucide-react": "^0.344.0", "react": "^18.3.1", "react-dom": "^18.3.1"},
    "devDependencies": {
        "@eslint/js": "^9.9.1",
        "@types/react": "^18.3.5",
        "@types/react-dom": "^18.3.0",
        "@vitejs/plugin-react": "^4.3.1",
        "autoprefixer": "^10.4.18",
        "eslint": "^9.9.1",
        "eslint-plugin-react-hooks": "^5.1.0-rc.0",
        "eslint-plugin-react-refresh": "^0.4.11",
        "globals": "^15.9.0",
        "postcss": "^8.4.35",
        "tailwindcss": "^3.4.1",
        "typescript": "^5.5.3",
        "typescript-eslint": "^8.3.0",
        "vite": "^5.4.2",
    },
}
WEBGEN_APPS = {
    "dependencies": {
        "react": "^18.3.1",
        "react-dom": "^18.3.1",
        "react-router-dom": "^6.26.0",
        "recharts": "^2.12.0",
        "chart.js": "^4.4.0",
        "react-chartjs-2": "^5.2.0",
        "date-fns": "^3.6.0",
        "dayjs": "^1.11.0",
        "framer-motion": "^11.3.0",
        "axios": "^1.7.0",
        "uuid": "^10.0.0",
        "zustand": "^4.5.0",
        "clsx": "^2.1.0",
        "react-icons": "^5.3.0",
        "@heroicons/react": "^2.1.0",
        "@headlessui/react": "^2.1.0",
    },
    "devDependencies": {"vite": "^5.4.2", "@vitejs/plugin-react": "^4.3.1"},
}
PROMPT_EXAMPLE = {
    "dependencies": {"react": "^18.2.0", "react-dom": "^18.2.0", "react-spring": "^9.7.1"},
    "devDependencies": {
        "@types/react": "^18.0.28",
        "@types/react-dom": "^18.0.11",
        "@vitejs/plugin-react": "^3.1.0",
        "vite": "^4.2.0",
    },
}
#: name -> the dependencies of one scratch project installed into the cache at set-up
PROJECTS = {"bolt-template": BOLT_TEMPLATE, "webgen-apps": WEBGEN_APPS, "prompt-example": PROMPT_EXAMPLE}
#: the file in the cache that records what it was filled with
STAMP = "vcoder-npm-cache.sha256"
#: packages whose presence in the cache ``check`` reports (a build needs them)
REQUIRED = ("vite", "@vitejs/plugin-react", "react", "react-dom", "tailwindcss", "typescript", "lucide-react")


def npm_cache_dir(path: str | os.PathLike | None = None) -> Path:
    """The npm cache folder: the argument, else ``$VCODER_NPM_CACHE``, else ``~/.cache/vcoder/npm``."""
    if path is not None:
        return Path(path)
    env = os.environ.get("VCODER_NPM_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "vcoder" / "npm"


def project_json(name: str, deps: dict) -> str:
    """A package.json for one of ``PROJECTS``."""
    return json.dumps({"name": name, "private": True, "version": "0.0.0", "type": "module", **deps}, indent=2)


def fill(cache: str | os.PathLike | None = None, *, force: bool = False) -> Path:
    """Install every project of ``PROJECTS`` once with the registry, filling the cache (set-up only).

    Idempotent and quick the second time: a stamp in the cache records the ``PROJECTS`` it was filled with, and a
    cache whose stamp matches is left as it is (``force`` refills it).

    Raises:
        RuntimeError: npm is missing or an install failed (its output is in the message).
    """
    target = npm_cache_dir(cache)
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed; install Node.js 18+ (apt-get install nodejs npm)")
    target.mkdir(parents=True, exist_ok=True)
    stamp = target / STAMP
    wanted = hashlib.sha256(json.dumps(PROJECTS, sort_keys=True).encode()).hexdigest()
    if not force and stamp.is_file() and stamp.read_text().strip() == wanted:
        return target
    for name, deps in PROJECTS.items():
        with tempfile.TemporaryDirectory(prefix=f"vcoder-npm-{name}-") as scratch:
            Path(scratch, "package.json").write_text(project_json(name, deps))
            cmd = [npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--cache", str(target)]
            done = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True, timeout=1800)
            if done.returncode != 0:
                raise RuntimeError(f"npm install of the {name} set failed: {(done.stdout + done.stderr)[-2000:]}")
            logger.info("npm cache: %s installed", name)
    stamp.write_text(wanted + "\n")
    return target


def check(cache: str | os.PathLike | None = None) -> dict[str, bool]:
    """Whether the cache holds a packument of each of ``REQUIRED`` (a cheap look at cacache's index)."""
    index = npm_cache_dir(cache) / "_cacache" / "index-v5"
    if not index.is_dir():
        return {name: False for name in REQUIRED}
    found = {name: False for name in REQUIRED}
    for path in index.rglob("*"):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        for name in REQUIRED:
            if not found[name] and f'registry.npmjs.org/{name.replace("/", "%2f")}"' in text:
                found[name] = True
    return found
