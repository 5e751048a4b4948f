"""The real outside parts of WebGen-Agent's loop (:class:`~vcoder.sites.seed_episode.SeedServices`) on vcoder's
sandbox and browser pool: a project is installed and built offline (:func:`~vcoder.sites.projects.serve_project`,
standing in for the seed's ``npm install`` + ``npm run dev``), its page is rendered once it settles for the
screenshot, and the GUI agent (the WebVoyager policy by default, as the seed runs it) tests it.

Deviations from ``execute_for_feedback.py``: the project is built with ``vite build`` and served as static files
(no dev server, no network), so the "start log" is the build's outcome; the install/build logs are the sandbox's
error text. The GUI agent runs the written test as one case of vcoder's WebVoyager (WebGen-Bench's task wrapping,
its 15-iteration budget) where the seed passes it to WebVoyager as the bare question; the trajectory given to the
summary keeps each reply's first 300 characters.

Example::

    services = seed_services(connect(Endpoint(url, "Qwen/Qwen2.5-VL-32B-Instruct")), pool=get_default_pool(),
                             gui_agent=WebVoyagerPolicy(connect(Endpoint(url, "Qwen/Qwen2.5-VL-32B-Instruct"))),
                             options=EpisodeOptions(turn_format="bolt", agent_format="webgen_agent"))
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from vcoder.chat import ChatClient
from vcoder.gui.policy import Policy, TestCase
from vcoder.sites.bolt import BoltTurn
from vcoder.sites.grading import SiteGrader, render_site
from vcoder.sites.projects import serve_project
from vcoder.sites.records import EpisodeOptions
from vcoder.sites.seed_episode import Executor, SeedServices
from vcoder.sites.seed_feedback import Execution, SeedJudge
from vcoder.sites.turns import Turn


def seed_services(
    vlm: ChatClient,
    *,
    pool: Any,
    options: EpisodeOptions,
    gui_agent: Policy | None = None,
    judge_max_tokens: int | None = None,
) -> SeedServices:
    """``SeedServices`` on the sandbox and ``pool``.

    Args:
        vlm: the seed's VLM (screenshot description and grade, GUI-test writer, GUI-run summary).
        pool: the rendering pool.
        options: the episode's settings (viewport, timeouts, build limits, GUI step limit).
        gui_agent: the GUI agent's policy (None: validated turns get no GUI feedback).
        judge_max_tokens: reply budget of a judging call.
    """
    runner = SiteGrader(pool=pool, gui_agent=gui_agent)
    execute = project_executor(runner.pool, options)

    async def run_gui(execution: Execution, instruction: str) -> tuple[str, str]:
        if execution.site is None:
            raise RuntimeError("the project serves no page to test")
        html, site_dir = execution.site
        [result] = await runner.run_cases(html, site_dir, [TestCase(task=instruction)], gui_agent, options)
        # the seed's convert_to_string: a placeholder for each observation, then the agent's reply (details 3+)
        replies = [d.split(". ", 1)[-1] for d in result.details[2:]]
        trajectory = "".join(f"[webpage screenshot]\n\n{r}\n\n" for r in replies).strip()
        return trajectory or f"(no trajectory) {result.error or ''}".strip(), replies[-1] if replies else ""

    return SeedServices(
        SeedJudge(vlm, max_tokens=judge_max_tokens),
        execute=execute,
        gui_agent=run_gui if gui_agent is not None else None,
    )


def project_executor(pool: Any, options: EpisodeOptions) -> Executor:
    """The seed loop's project runner on the sandbox and ``pool``: writes a turn's files, builds and serves the
    project (install, then ``vite build`` for a Node project; a static site as it is), and screenshots its page.

    Args:
        pool: the (async) rendering pool.
        options: the episode's settings (viewport, timeouts, build limits).

    Returns:
        An ``Executor``: ``(files, turn, folder) -> Execution``.
    """

    async def execute(files: dict[str, str], turn: int, folder: Path | None) -> Execution:
        root = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="vcoder-seed-run-"))
        project = root / "project"
        for path, text in files.items():
            target = project / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        served = await serve_project(
            dict(files), project, root / "build", BoltTurn(Turn(())), limits=options.build_limits
        )
        stage = served.build.stage if served.build is not None else None
        install_out = f"npm ERR! error: {served.error}" if stage == "install" else "installed"
        start_log = f"error: {served.error}" if served.error and stage != "install" else "built and served"
        html = served.files.get("index.html")
        if html is None or served.site_dir is None:
            why = served.error or "the project serves no index.html"
            return Execution((("npm install", install_out),), start_log, None, f"Error: {why}")
        try:
            rendered = await render_site(pool, served.site_dir, html, options)
        except Exception as exc:  # the browser would not start: the seed reports a screenshot error
            return Execution((("npm install", install_out),), start_log, None, f"Error: browser: {exc}")
        png = rendered.png if rendered.ok else None
        return Execution(
            (("npm install", install_out),),
            start_log,
            png,
            "" if png is not None else f"Error: {rendered.error}",
            site=(html, served.site_dir),
        )

    return execute
