"""Bolt turns: WebGen-Agent's markup, parsed (pure: text in, a typed ``BoltTurn`` out; nothing touches the disk).

The format (WebGen-Agent's ``src/prompts/system.py``, bolt.new's): one ``<boltArtifact id=... title=...>`` holding
``<boltAction>`` elements, in order:

- ``<boltAction type="file" filePath="src/App.tsx">`` ... ``</boltAction>`` writes a whole file (a leading newline
  and trailing blank space are not content; a content wrapped in one Markdown fence is unwrapped). Paths are relative
  to the project (``/home/project/``, the WebContainer's working folder, is taken off where a model writes it);
- ``<boltAction type="shell">npm install</boltAction>``: commands joined by ``&&``; installs (``npm install|i|ci|add``,
  with or without package names) and builds (``npm run build``, ``vite build``) are run, offline, in the sandbox of
  :mod:`vcoder.sites.build`; any other command is not run and the feedback says so;
- ``<boltAction type="start">npm run dev</boltAction>`` serves the project: here it is built and its ``dist/`` served
  by the hermetic renderer (a dev server is never started);
- ``<boltAction type="finish"/>`` ends the episode; ``<boltAction type="screenshot_validated"/>`` (WebGen-Agent's
  "the screenshot is fine, test the functions") is accepted and changes nothing; any other type is reported back.

Malformed (``Malformed``; the turn changes nothing and scores −1): tags that do not nest (the seed's
``validate_bolt_markup.py``: an unmatched or mismatched closer, an unclosed tag), an action inside an action, a file
action without ``filePath``, a path that leaves the project, a reply with no action at all. Deliberate departures from
the seed's check: a self-closing ``<boltAction .../>`` is one complete action (the seed counts it as unclosed, yet its
agent asks for ``<boltAction type="finish"/>``), and a nested action is malformed (the seed only checks nesting).
A file the project cannot hold (a dotfile such as ``.gitignore``, an image) is left out with a note, not malformed.

Example:
    >>> turn = parse_bolt_turn('<boltArtifact id="a"><boltAction type="file" filePath="index.html">'
    ...                        '<div id="root"></div></boltAction><boltAction type="start">npm run dev'
    ...                        '</boltAction></boltArtifact>')
    >>> [w.path for w in turn.turn.writes], turn.start, turn.malformed
    (['index.html'], True, None)
    >>> parse_bolt_turn('<boltArtifact><boltAction type="shell">npm i</boltArtifact>').malformed
    <Malformed.UNPARSEABLE: 'unparseable'>
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from vcoder.metrics.extract import strip_think
from vcoder.sites.paths import SITE_EXTENSIONS, Malformed, SitePathError, binary_problem, check_site_path
from vcoder.sites.turns import FileWrite, SiteLimits, Turn

#: file types a Bolt project may hold: a static site's plus TypeScript and CommonJS configs
PROJECT_EXTENSIONS = (*SITE_EXTENSIONS, ".ts", ".tsx", ".cjs", ".cts", ".mts", ".scss", ".vue", ".svelte")
#: bounds for a Bolt project's source files (node_modules and dist are the builder's, bounded there)
PROJECT_LIMITS = SiteLimits(
    max_files=80, max_file_bytes=300_000, max_total_bytes=2_000_000, extensions=PROJECT_EXTENSIONS
)
#: the WebContainer's working folder, which models sometimes write in front of a path
WEBCONTAINER_ROOT = "/home/project/"
#: action types that are understood; any other is reported back
KNOWN_TYPES = ("file", "shell", "start", "finish", "screenshot_validated")
_TAG = re.compile(r"<\s*(/?)\s*(boltArtifact|boltAction)\b([^>]*?)(/?)\s*>")
_ATTR = re.compile(r"""([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_WRAPPED = re.compile(r"\A[ \t]*```[\w+-]*[ \t]*\n(.*?)\n?[ \t]*```[ \t]*\Z", re.DOTALL)
_INSTALL = {"install", "i", "ci", "add", "isntall", "in"}
_FLAG_VALUE = {"--prefix", "--cache", "--registry", "-w", "--workspace"}


@dataclass(frozen=True)
class Command:
    """One command of a shell or start action, classified.

    Attributes:
        text: the command as written.
        kind: ``install`` (npm install, with ``packages`` or from package.json), ``build``, ``serve`` (a dev or
            preview server: the project is built and its dist served instead), or ``other`` (not run).
        packages: the package specs an install names (``lodash``, ``react-icons@^5``), in order.
    """

    text: str
    kind: str
    packages: tuple[str, ...] = ()


@dataclass(frozen=True)
class BoltTurn:
    """A parsed Bolt reply.

    Attributes:
        turn: the files to write and whether the episode finishes, as a ``Turn`` for the workspace (``malformed``
            and ``error`` set when the markup cannot be applied).
        commands: the commands of shell and start actions, in order.
        start: a start action asked for the project to be served.
        notes: what was not applied and why (files left out, commands not run, unknown action types), for feedback.
    """

    turn: Turn
    commands: tuple[Command, ...] = ()
    start: bool = False
    notes: tuple[str, ...] = ()

    @property
    def malformed(self) -> Malformed | None:
        return self.turn.malformed

    @property
    def installs(self) -> tuple[str, ...]:
        """The package specs every install command names (an empty tuple: install from package.json only)."""
        return tuple(p for c in self.commands if c.kind == "install" for p in c.packages)

    @property
    def wants_build(self) -> bool:
        """Whether a command or a start action asks for the project to be installed, built or served."""
        return self.start or any(c.kind in ("install", "build", "serve") for c in self.commands)


def classify_command(text: str) -> list[Command]:
    """Split a shell action on ``&&`` / ``;`` and classify each command (``Command.kind``).

    Example:
        >>> [(c.kind, c.packages) for c in classify_command("npm install -D tailwindcss && npx vite build")]
        [('install', ('tailwindcss',)), ('build', ())]
        >>> classify_command("rm -rf /")[0].kind
        'other'
    """
    out = []
    for part in re.split(r"&&|;|\n", text):
        part = part.strip()
        if not part:
            continue
        try:
            words = shlex.split(part)
        except ValueError:
            out.append(Command(part, "other"))
            continue
        out.append(_classify(part, words))
    return out


def _classify(part: str, words: list[str]) -> Command:
    if words and words[0] == "npx":
        words = [w for w in words[1:] if w not in ("--yes", "-y")]
    tool, rest = (words[0], words[1:]) if words else ("", [])
    if tool in ("npm", "pnpm", "yarn") and (not rest or rest[0] in _INSTALL):
        packages, skip = [], False
        for word in rest[1:]:
            if skip:
                skip = False
            elif word in _FLAG_VALUE:
                skip = True
            elif not word.startswith("-"):
                packages.append(word)
        return Command(part, "install", tuple(packages))
    script = rest[1] if tool in ("npm", "pnpm", "yarn") and rest[:1] == ["run"] and len(rest) > 1 else None
    if tool in ("pnpm", "yarn") and rest and rest[0] in ("build", "dev", "start", "preview"):
        script = rest[0]
    if tool == "npm" and rest[:1] == ["start"]:
        script = "start"
    if script == "build" or (tool == "vite" and rest[:1] == ["build"]):
        return Command(part, "build")
    if script in ("dev", "start", "preview") or (tool == "vite" and rest[:1] in ([], ["dev"], ["preview"])):
        return Command(part, "serve")
    return Command(part, "other")


def project_path(path: str) -> str:
    """A file action's path in the project's terms: ``/home/project/`` and ``./`` taken off (then validated)."""
    path = path.strip()
    if path.startswith(WEBCONTAINER_ROOT):
        path = path[len(WEBCONTAINER_ROOT) :]
    return path


def _content(raw: str) -> str:
    body = re.sub(r"\A[ \t]*\r?\n", "", raw, count=1).rstrip()
    wrapped = _WRAPPED.match(body)
    body = wrapped.group(1) if wrapped else body
    return body + "\n" if body else ""


def _attrs(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) if m.group(2) is not None else m.group(3) for m in _ATTR.finditer(text)}


def _scan(text: str) -> tuple[list[tuple[dict[str, str], str]], str | None]:
    """The actions ``(attributes, content)`` in order, or the first nesting problem (the seed's rules, see above)."""
    stack: list[tuple[str, re.Match]] = []
    actions: list[tuple[dict[str, str], str]] = []
    for tag in _TAG.finditer(text):
        closing, name, attrs, selfclose = tag.group(1), tag.group(2), tag.group(3), tag.group(4)
        if closing:
            if not stack:
                return actions, f"unmatched closing </{name}> at character {tag.start()}"
            if stack[-1][0] != name:
                return actions, f"mismatched closing </{name}> at character {tag.start()}; expected </{stack[-1][0]}>"
            opened = stack.pop()[1]
            if name == "boltAction":
                actions.append((_attrs(opened.group(3)), text[opened.end() : tag.start()]))
            continue
        if stack and stack[-1][0] == "boltAction":
            return actions, f"<{name}> at character {tag.start()} is inside an unclosed <boltAction>"
        if selfclose:
            if name == "boltAction":
                actions.append((_attrs(attrs), ""))
            continue
        stack.append((name, tag))
    if stack:
        return actions, f"missing closing tag for <{stack[-1][0]}> (the reply was cut off?)"
    return actions, None


def parse_bolt_turn(text: str, *, limits: SiteLimits | None = None) -> BoltTurn:
    """Parse one model reply in Bolt markup into a ``BoltTurn`` (never raises for the reply's content).

    Args:
        text: the model's reply (think blocks are ignored).
        limits: bounds on the project's files (default ``PROJECT_LIMITS``).

    Returns:
        The turn; ``malformed`` is set when it cannot be applied, and then nothing is to be applied or run.
    """
    limits = limits or PROJECT_LIMITS
    text = strip_think(text if isinstance(text, str) else "")
    actions, problem = _scan(text)
    if problem is not None:
        return BoltTurn(Turn(malformed=Malformed.UNPARSEABLE, error=f"the Bolt markup is malformed: {problem}"))
    if not actions:
        return BoltTurn(
            Turn(
                malformed=Malformed.NO_ACTION,
                error='the reply has no <boltAction>: write files as <boltAction type="file" filePath="src/App.tsx">'
                '...</boltAction> inside one <boltArtifact>, or reply <boltAction type="finish"/> when done',
            )
        )
    writes: dict[str, FileWrite] = {}
    commands: list[Command] = []
    notes: list[str] = []
    problems: list[tuple[Malformed, str]] = []
    finish = start = False
    for attrs, raw in actions:
        kind = attrs.get("type", "").strip()
        if kind == "file":
            _file(attrs, raw, limits, writes, notes, problems)
        elif kind in ("shell", "start"):
            found = classify_command(raw.strip())
            if not found:
                notes.append(f"an empty {kind} action was ignored")
            commands += found
            start = start or kind == "start"
        elif kind == "finish":
            finish = True
        elif kind == "screenshot_validated":
            notes.append("screenshot_validated: noted (the site is graded after every turn here)")
        else:
            notes.append(
                f"a boltAction of type {kind or '(none)'!r} is not supported and was ignored (use file, "
                "shell, start or finish)"
            )
    notes += [
        f"not run: `{c.text[:120]}` (only installs and builds are run here)" for c in commands if c.kind == "other"
    ]
    total = sum(len(w.content.encode("utf-8", errors="surrogatepass")) for w in writes.values())
    if len(writes) > limits.max_files:
        problems.append((Malformed.TOO_MANY_FILES, f"the turn writes {len(writes)} files, over {limits.max_files}"))
    if total > limits.max_total_bytes:
        problems.append((Malformed.TOO_LARGE, f"the turn writes {total} bytes, over {limits.max_total_bytes}"))
    if problems:
        shown = "; ".join(m for _, m in problems[:5])
        return BoltTurn(Turn(malformed=problems[0][0], error=shown), notes=tuple(notes))
    turn = Turn(tuple(writes.values()), (), finish)
    if not (writes or commands or finish or start):
        turn = Turn(
            malformed=Malformed.NO_ACTION, error="the reply's actions write no file, run nothing and do not finish"
        )
    return BoltTurn(turn, tuple(commands), start, tuple(notes))


def _file(attrs, raw, limits, writes, notes, problems) -> None:
    given = attrs.get("filePath")
    if not given:
        problems.append((Malformed.UNPARSEABLE, 'a file action has no filePath="..." attribute'))
        return
    path = project_path(given)
    try:
        path = check_site_path(path, extensions=limits.extensions)
    except SitePathError as exc:
        parts = path.split("/")
        hidden = any(p.startswith(".") and p not in (".", "..") for p in parts)
        if exc.kind is Malformed.UNSUPPORTED_TYPE or (hidden and ".." not in parts and not path.startswith("/")):
            notes.append(f"{given} was not written (a project here holds text source files only, no dotfiles)")
        else:
            problems.append((exc.kind, str(exc)))
        return
    content = _content(raw)
    binary = binary_problem(path, content)
    size = len(content.encode("utf-8", errors="surrogatepass"))
    if binary:
        problems.append((Malformed.BINARY, binary))
    elif size > limits.max_file_bytes:
        problems.append((Malformed.TOO_LARGE, f"{path} is {size} bytes, over the {limits.max_file_bytes} limit"))
    elif path in writes:
        notes.append(f"{path} was written twice in one reply; the last version is kept")
    writes.pop(path, None)
    writes[path] = FileWrite(path, content)
