"""The site-building agent's turn format, parsed (pure: text in, a typed ``Turn`` out; nothing touches the disk).

The format (stable: scripts, checks and the system prompt in :mod:`vcoder.data.prompts` depend on it):

- ``<file path="RELATIVE/PATH">`` ... ``</file>`` writes a whole file (one newline after the opening tag and one
  before the closing tag are not part of the content; a content wrapped in one Markdown fence is unwrapped);
- ``<delete path="RELATIVE/PATH"/>`` deletes a file;
- ``<finish/>`` ends the episode (after the turn's files, if any, are applied and graded);
- files a turn does not write keep their previous content; prose outside the tags is ignored, and so is
  ``<think>`` reasoning;
- a reply with no tag at all whose only code is one fenced ``html`` block is accepted as ``index.html``.

A turn that cannot be applied is *malformed* (``Malformed``): it changes nothing and scores the episode's malformed
value (WebGen-Agent's −1); ``Turn.error`` says what was wrong, for the feedback message.

Example:
    >>> turn = parse_turn('<file path="index.html">\\n<h1>Hi</h1>\\n</file>\\n<finish/>')
    >>> [(w.path, w.content) for w in turn.writes], turn.finish, turn.malformed
    ([('index.html', '<h1>Hi</h1>')], True, None)
    >>> parse_turn('<file path="../x.html">x</file>').malformed
    <Malformed.BAD_PATH: 'bad_path'>
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vcoder.metrics.extract import strip_think
from vcoder.sites.paths import (  # noqa: F401 (re-exported: the turn format's public names)
    MAX_PATH_CHARS,
    MAX_PATH_DEPTH,
    SITE_EXTENSIONS,
    Malformed,
    SitePathError,
    binary_problem,
    check_site_path,
)

ENTRY = "index.html"
#: file types a site may hold (text only: the pool serves them by extension)
_TAG = re.compile(r"<\s*(/?)\s*(file|delete|finish)(?=[\s/>])[^>]*>", re.IGNORECASE)
_OPEN = re.compile(r"<file\s+path\s*=\s*(?:\"([^\"]*)\"|'([^']*)')\s*>", re.IGNORECASE)
_DELETE = re.compile(r"<delete\s+path\s*=\s*(?:\"([^\"]*)\"|'([^']*)')\s*/?\s*>", re.IGNORECASE)
_FINISH = re.compile(r"<finish\s*/?\s*>", re.IGNORECASE)
_CLOSE = re.compile(r"<\s*/\s*file\s*>", re.IGNORECASE)
_FENCE = re.compile(r"(?m)^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.DOTALL)
_FENCE_OPEN = re.compile(r"(?m)^[ \t]*```")
_WRAPPED = re.compile(r"\A[ \t]*```[\w+-]*[ \t]*\n(.*?)\n?[ \t]*```[ \t]*\Z", re.DOTALL)


@dataclass(frozen=True)
class SiteLimits:
    """Bounds on what a turn may write; over them the turn is malformed.

    Attributes:
        max_files: files in one turn, and in the whole site after the turn.
        max_file_bytes: UTF-8 bytes of one file.
        max_total_bytes: UTF-8 bytes of one turn's files, and of the whole site after the turn.
        extensions: the file types the site may hold (a Bolt project's are ``bolt.PROJECT_EXTENSIONS``).
    """

    max_files: int = 20
    max_file_bytes: int = 300_000
    max_total_bytes: int = 1_000_000
    extensions: tuple[str, ...] = SITE_EXTENSIONS

    def __post_init__(self) -> None:
        if min(self.max_files, self.max_file_bytes, self.max_total_bytes) < 1:
            raise ValueError(f"site limits must be >= 1, got {self}")
        if self.max_file_bytes > self.max_total_bytes:
            raise ValueError(
                f"max_file_bytes={self.max_file_bytes} is over max_total_bytes={self.max_total_bytes}; lower it"
            )


@dataclass(frozen=True)
class FileWrite:
    """One whole-file write: a validated site path and the file's text."""

    path: str
    content: str


@dataclass(frozen=True)
class Turn:
    """A parsed reply.

    Attributes:
        writes: files written, in reply order.
        deletes: paths deleted.
        finish: the reply ends the episode.
        malformed: why the turn cannot be applied (None for a good turn; it then writes, deletes or finishes).
        error: what was wrong, in words (every problem found, for the feedback), None for a good turn.
        fenced: the turn was read from a lone fenced html block (accepted as ``index.html``).
    """

    writes: tuple[FileWrite, ...] = ()
    deletes: tuple[str, ...] = ()
    finish: bool = False
    malformed: Malformed | None = None
    error: str | None = None
    fenced: bool = field(default=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.malformed is None


def _attr(match: re.Match) -> str:
    return (match.group(1) if match.group(1) is not None else match.group(2)).strip()


def _content(raw: str) -> str:
    body = re.sub(r"\A[ \t]*\r?\n", "", raw, count=1)
    body = re.sub(r"\r?\n[ \t]*\Z", "", body, count=1)
    wrapped = _WRAPPED.match(body)
    return wrapped.group(1) if wrapped else body


def _scan(text: str, problems: list[tuple[Malformed, str]]):
    """Yield ("write", path, content) / ("delete", path) / ("finish",) from the tagged reply; record problems."""
    pos = 0
    while True:
        tag = _TAG.search(text, pos)
        if tag is None:
            return
        literal = tag.group()[:80]
        closing, name = tag.group(1), tag.group(2).lower()
        pos = tag.end()
        if closing and name == "file":
            problems.append((Malformed.UNPARSEABLE, f"{literal!r} closes no open <file> block"))
        elif closing:
            continue  # </finish>, </delete>: redundant closers are harmless
        elif name == "finish":
            if _FINISH.fullmatch(tag.group()):
                yield ("finish",)
            else:
                problems.append((Malformed.UNPARSEABLE, f"{literal!r}: write the finish tag as <finish/>"))
        elif name == "delete":
            found = _DELETE.fullmatch(tag.group())
            if found:
                yield ("delete", _attr(found))
            else:
                problems.append((Malformed.UNPARSEABLE, f'{literal!r}: write a deletion as <delete path="PATH"/>'))
        else:
            found = _OPEN.fullmatch(tag.group())
            if not found:
                problems.append((Malformed.UNPARSEABLE, f'{literal!r}: open a file as <file path="RELATIVE/PATH">'))
                continue
            path = _attr(found)
            close = _CLOSE.search(text, pos)
            inner = _TAG.search(text, pos, close.start() if close else len(text))
            if inner is not None:
                problems.append(
                    (Malformed.UNPARSEABLE, f"<file path={path!r}> is not closed before {inner.group()[:60]!r}")
                )
                pos = inner.start()
                continue
            if close is None:
                problems.append((Malformed.UNPARSEABLE, f"<file path={path!r}> has no closing </file> (cut off?)"))
                return
            yield ("write", path, _content(text[pos : close.start()]))
            pos = close.end()


def _fenced(text: str) -> tuple[list[tuple[str, str]], Turn | None]:
    """The reply's fenced blocks, and a malformed turn when an opening fence is never closed."""
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    if len(_FENCE_OPEN.findall(text)) % 2:
        return blocks, Turn(
            malformed=Malformed.UNPARSEABLE, error="a ``` fence is not closed (the reply was cut off?)", fenced=True
        )
    return blocks, None


def parse_turn(text: str, *, limits: SiteLimits | None = None) -> Turn:
    """Parse one model reply into a ``Turn`` (never raises for the reply's content).

    Args:
        text: the model's reply (think blocks are ignored).
        limits: per-turn bounds (files, bytes); default ``SiteLimits()``.

    Returns:
        The turn; ``malformed`` and ``error`` are set when it cannot be applied, and then nothing is to be applied.
    """
    limits = limits or SiteLimits()
    text = strip_think(text if isinstance(text, str) else "")
    problems: list[tuple[Malformed, str]] = []
    fenced = False
    if _TAG.search(text):
        actions = list(_scan(text, problems))
    else:
        blocks, cut = _fenced(text)
        if cut is not None:
            return cut
        html = [body for lang, body in blocks if lang in ("html", "htm")]
        if len(blocks) == 1 and len(html) == 1:
            actions, fenced = [("write", ENTRY, html[0].rstrip("\n"))], True
        else:
            what = f"{len(blocks)} fenced code blocks" if blocks else "no <file> block"
            return Turn(
                malformed=Malformed.NO_ACTION,
                error=f"the reply has {what} and no <finish/>: write each file as "
                '<file path="index.html">...</file>, or reply <finish/> when the site is done',
            )
    writes: dict[str, FileWrite] = {}
    deletes: dict[str, str] = {}
    written: dict[str, str] = {}  # case-folded path -> path as written: case twins cannot both be written
    finish = False
    for action in actions:
        if action[0] == "finish":
            finish = True
            continue
        try:
            path = check_site_path(action[1], extensions=limits.extensions)
        except SitePathError as exc:
            problems.append((exc.kind, str(exc)))
            continue
        twin = written.get(path.casefold()) if action[0] == "write" else None
        if path in deletes or (action[0] == "delete" and path in writes) or twin is not None:
            why = f"as {twin!r} and {path!r} (names differ only in case)" if twin not in (None, path) else "twice"
            problems.append((Malformed.UNPARSEABLE, f"the turn writes or deletes {path!r} {why}"))
            continue
        if action[0] == "delete":
            deletes[path] = path
            continue
        written[path.casefold()] = path
        content = action[2]
        size = len(content.encode("utf-8", errors="surrogatepass"))
        binary = binary_problem(path, content)
        if binary:
            problems.append((Malformed.BINARY, binary))
        elif size > limits.max_file_bytes:
            problems.append((Malformed.TOO_LARGE, f"{path} is {size} bytes, over the {limits.max_file_bytes} limit"))
        writes[path] = FileWrite(path, content)
    if len(writes) > limits.max_files:
        problems.append((Malformed.TOO_MANY_FILES, f"the turn writes {len(writes)} files, over {limits.max_files}"))
    total = sum(len(w.content.encode("utf-8", errors="surrogatepass")) for w in writes.values())
    if total > limits.max_total_bytes:
        problems.append((Malformed.TOO_LARGE, f"the turn writes {total} bytes, over {limits.max_total_bytes}"))
    if not problems and not (writes or deletes or finish):
        problems.append((Malformed.NO_ACTION, "the reply writes no file, deletes none and does not <finish/>"))
    if problems:
        shown = [message for _, message in problems[:5]]
        if len(problems) > 5:
            shown.append(f"and {len(problems) - 5} more problems")
        return Turn(malformed=problems[0][0], error="; ".join(shown), fenced=fenced)
    return Turn(tuple(writes.values()), tuple(deletes), finish, fenced=fenced)
