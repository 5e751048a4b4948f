"""A Bolt turn in an episode: its project built in the sandbox and the site to serve (the build's ``dist/``).

The episode (:mod:`vcoder.sites.episode`) calls ``serve_project`` once per new version of a project. A project with a
``package.json`` is installed offline and built (:mod:`vcoder.sites.build`; WebGen-Agent runs ``npm install`` and
starts the project after every turn, so does this); a project without one is a static site and is served as written.
What the episode serves is ``dist/`` (its ``index.html`` and text assets), at the pool's virtual origin like any site.
A failed install or build is the model's: the grader sees a site with no page (0 where a component judges) and the
feedback quotes the tool's error; a sandbox that cannot run here is nobody's fault: nothing is judged.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path

from vcoder.sites.bolt import PROJECT_EXTENSIONS, BoltTurn
from vcoder.sites.build import BuildLimits, BuildResult, build_project, sandbox_problem

logger = logging.getLogger(__name__)

#: the longest text file of dist/ handed to the grader (a reference scorer inlines the site's files)
MAX_SERVED_TEXT = 2_000_000

BOLT_SYSTEM_PROMPT = """You are Bolt, an expert front-end developer. You build the web application a user asks for \
as a Vite + React project, over several turns.

Reply with one <boltArtifact id="kebab-case-id" title="Title"> holding <boltAction> elements, in order:
- <boltAction type="file" filePath="src/App.tsx">the whole file</boltAction> writes a file (paths relative to the \
project root; always the full content, never a diff or a placeholder);
- <boltAction type="shell">npm install</boltAction> installs the dependencies listed in package.json (list every \
dependency there first);
- <boltAction type="start">npm run dev</boltAction> starts the project.
When the application is complete and works, reply <boltAction type="finish"/>.

The project: package.json (with "vite" and "@vitejs/plugin-react" in devDependencies), index.html at the root \
loading /src/main.tsx, src/ for components. Packages come from an offline mirror: prefer react, react-dom, \
lucide-react, tailwindcss, react-router-dom, recharts, date-fns, framer-motion, zustand. There is no network at run \
time: no external APIs, images as inline SVG or CSS. After each turn the project is installed, built and opened in \
a browser: you get the install and build errors, a grade of its appearance and the results of functional tests. \
If a login is needed, create the user "admin" with the password "admin123456"."""


def bolt_conversation(instruction: str, system_prompt: str | None = None) -> list[dict[str, str]]:
    """The first two messages of a Bolt episode: the system prompt (``BOLT_SYSTEM_PROMPT`` unless one is given) and
    the request as the user's turn, as WebGen-Agent sends it."""
    if not isinstance(instruction, str) or not instruction.strip():
        raise ValueError(f"instruction must be a non-empty website request, got {instruction!r:.80}")
    system = system_prompt or BOLT_SYSTEM_PROMPT
    return [{"role": "system", "content": system}, {"role": "user", "content": instruction.strip()}]


@dataclass(frozen=True)
class Served:
    """What to grade after a Bolt turn.

    Attributes:
        files: the served site's text files (path -> text); ``index.html`` missing when there is no page.
        site_dir: the folder served (``dist/``, or the project folder for a static site), None when nothing is.
        build: the install + build result (None for a static project).
        error: why there is no site (the build's stage and error text), for the grades and the feedback.
        judged: False when the build could not run here at all (nothing is to be judged).
        package_json: package.json as the install left it, when it differs from the project's.
    """

    files: dict[str, str] = field(default_factory=dict)
    site_dir: Path | None = None
    build: BuildResult | None = None
    error: str | None = None
    judged: bool = True
    package_json: str | None = None


def _text_files(root: Path) -> dict[str, str]:
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and path.suffix.lower() in PROJECT_EXTENSIONS:
            if path.stat().st_size <= MAX_SERVED_TEXT:
                files[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return files


async def serve_project(
    files: dict[str, str],
    project_dir: Path,
    out_dir: Path,
    bolt: BoltTurn,
    *,
    limits: BuildLimits | None = None,
    cache: str | None = None,
) -> Served:
    """Build the project written to ``project_dir`` (when it has a package.json) into ``out_dir``.

    Args:
        files: the project's files (path -> text), as written to ``project_dir``.
        project_dir: the project's source folder (the step's ``site/``).
        out_dir: a new folder for the build's results (``dist/``, logs).
        bolt: the parsed turn (the packages its install commands name).
        limits: the sandbox's bounds.
        cache: the npm cache (default ``npm_cache_dir()``).

    Returns:
        The ``Served`` site; never raises for the project's content.
    """
    if "package.json" not in files:
        return Served(dict(files), project_dir)
    problem = sandbox_problem()
    if problem:
        return Served(error=f"the project was not built: {problem}", judged=False)
    try:
        result = await asyncio.to_thread(
            build_project, project_dir, out_dir, packages=bolt.installs, cache=cache, limits=limits
        )
    except RuntimeError as exc:  # no cache: set-up was not run
        return Served(error=f"the project was not built: {exc}", judged=False)
    changed = result.package_json if result.package_json not in (None, files["package.json"]) else None
    if not result.ok:
        judged = result.stage != "sandbox"
        what = {"install": "npm install", "build": "vite build", "timeout": "the build"}.get(result.stage, "the build")
        return Served(build=result, error=f"{what} failed:\n{result.error}", judged=judged, package_json=changed)
    if result.dist is None or not (result.dist / "index.html").is_file():
        why = "the build wrote no dist/index.html (is index.html at the project root?)"
        return Served(build=result, error=why, package_json=changed)
    return Served(_text_files(result.dist), result.dist, result, package_json=changed)


def served_site(step) -> tuple[dict[str, str], Path | None]:
    """The site a step served, for grading it again (the evaluator's final test cases): ``(files, folder)``.

    A Bolt step's folder is its built ``dist/`` (its text files read back); a static site's its ``site/`` snapshot.
    ``({}, None)`` when the step served nothing (a malformed turn, a failed build): such a site scores 0.
    """
    folder = getattr(step, "served_dir", None)
    if folder is None or not Path(folder).is_dir():
        return {}, None
    return _text_files(Path(folder)), Path(folder)
