"""A site under construction: its files in memory, applied turn by turn, and the episode folder on disk.

The episode folder ``DIR`` holds one ``step_<k>/`` per turn: ``site/`` (a full snapshot of the site's files after
the turn), ``reply.txt`` (the model's reply), ``feedback.md``, ``screenshot.png`` and ``step.json``. Nothing is ever
written outside ``DIR``: site paths are validated by :func:`~vcoder.sites.turns.check_site_path`, and every
write goes through directory file descriptors opened from ``DIR`` with ``O_NOFOLLOW`` and files created with
``O_EXCL``, so a symlink or hard link planted inside ``DIR`` (even while an episode runs) makes the write fail with
a ``WorkspaceError`` instead of following it. POSIX only (``dir_fd``).

Example:
    >>> from vcoder.sites.turns import parse_turn
    >>> ws = SiteWorkspace(limits=SiteLimits())
    >>> ws.apply(parse_turn('<file path="index.html"><p>hi</p></file>')).written
    ('index.html',)
    >>> dict(ws.files)
    {'index.html': '<p>hi</p>'}
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from vcoder.sites.turns import ENTRY, Malformed, SiteLimits, Turn, check_site_path

#: the files of a step folder besides ``site/`` (nothing else is ever written there)
STEP_FILES = ("reply.txt", "feedback.md", "screenshot.png", "step.json")
_LINKS = re.compile(r"<link\b[^>]*>", re.IGNORECASE)
_SCRIPTS = re.compile(r"<script\b([^>]*)>\s*</script\s*>", re.IGNORECASE)
_SRC = re.compile(r"""\b(src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)


class WorkspaceError(RuntimeError):
    """The episode folder cannot be written safely (not empty at the start, or tampered with: a planted link)."""


@dataclass(frozen=True)
class Applied:
    """What applying a turn did: the paths written and deleted, notes for the feedback, or why it was refused.

    A refused turn (``malformed`` set) changed nothing.
    """

    written: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    malformed: Malformed | None = None
    error: str | None = None


def _size(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


class SiteWorkspace:
    """The site's files (path -> text) and, when ``root`` is given, the episode folder they are written to.

    Args:
        root: the episode folder (created; must be empty or absent). None keeps everything in memory.
        limits: site-wide bounds checked after each turn (files and total bytes).

    Raises:
        WorkspaceError: ``root`` exists and is not an empty folder.
    """

    def __init__(self, root: str | os.PathLike | None = None, *, limits: SiteLimits | None = None):
        self.limits = limits or SiteLimits()
        self._files: dict[str, str] = {}
        self.root = None if root is None else Path(root)
        self._root_fd: int | None = None
        if self.root is not None:
            if self.root.exists() and (not self.root.is_dir() or any(self.root.iterdir())):
                raise WorkspaceError(f"episode folder {str(self.root)!r} exists and is not empty; give a new folder")
            self.root.mkdir(parents=True, exist_ok=True)
            # every later write starts from this descriptor: replacing DIR by a link afterwards changes nothing
            self._root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)

    @property
    def files(self) -> Mapping[str, str]:
        """The site's current files (read-only view)."""
        return MappingProxyType(self._files)

    @property
    def entry(self) -> str | None:
        """The entry page's HTML (``index.html``), None when the site has none."""
        return self._files.get(ENTRY)

    def total_bytes(self) -> int:
        return sum(_size(text) for text in self._files.values())

    def digest(self) -> str:
        """A hash of the site's paths and contents (identical sites, identical digests)."""
        h = hashlib.sha256()
        for path in sorted(self._files):
            h.update(path.encode() + b"\0" + self._files[path].encode("utf-8", errors="surrogatepass") + b"\0")
        return h.hexdigest()

    def apply(self, turn: Turn) -> Applied:
        """Apply a well-formed turn's writes and deletions, all or nothing.

        Refused (nothing changes): a malformed turn; a path that differs only in case from another file of the site;
        more than ``limits.max_files`` files or ``limits.max_total_bytes`` bytes in the site afterwards.
        """
        if not turn.ok:
            return Applied(malformed=turn.malformed, error=turn.error)
        after = dict(self._files)
        notes = []
        deleted = []
        for path in turn.deletes:
            if after.pop(check_site_path(path, extensions=self.limits.extensions), None) is None:
                notes.append(f"{path} was not in the site; nothing to delete")
            else:
                deleted.append(path)
        folded = {p.casefold(): p for p in after}
        for write in turn.writes:
            path = check_site_path(write.path, extensions=self.limits.extensions)  # again: a Turn may be built by hand
            twin = folded.get(path.casefold())
            if twin is not None and twin != path:
                return Applied(
                    malformed=Malformed.BAD_PATH,
                    error=f"{path!r} differs only in case from the site's {twin!r}; write {twin!r} or delete it first",
                )
            after[path] = write.content
        total = sum(_size(text) for text in after.values())
        if len(after) > self.limits.max_files:
            return Applied(
                malformed=Malformed.TOO_MANY_FILES,
                error=f"the site would have {len(after)} files, over {self.limits.max_files}; delete some",
            )
        if total > self.limits.max_total_bytes:
            return Applied(
                malformed=Malformed.TOO_LARGE,
                error=f"the site would have {total} bytes, over {self.limits.max_total_bytes}; make it smaller",
            )
        self._files = after
        if ENTRY not in after:
            cased = [p for p in after if p.casefold() == ENTRY]
            notes.append(
                f"the site has no {ENTRY} (names are case-sensitive: found {cased[0]})"
                if cased
                else f"the site has no {ENTRY}, its entry page"
            )
        return Applied(tuple(w.path for w in turn.writes), tuple(deleted), tuple(notes))

    # disk
    def step_dir(self, step: int) -> Path | None:
        """``DIR/step_<step>`` (None without an episode folder)."""
        return None if self.root is None else self.root / f"step_{step}"

    def write_site(self, step: int) -> Path | None:
        """Write the current files to ``DIR/step_<step>/site/`` and return that folder (None without a folder)."""
        if self._root_fd is None:
            return None
        self._create(f"step_{step}", dir_only=True)
        self._create(f"step_{step}/site", dir_only=True)
        for path, text in sorted(self._files.items()):
            self._create(
                f"step_{step}/site/{check_site_path(path, extensions=self.limits.extensions)}",
                text.encode("utf-8", errors="surrogatepass"),
            )
        return self.root / f"step_{step}" / "site"

    def write_step_file(self, step: int, name: str, data: bytes | str) -> Path | None:
        """Write one of ``STEP_FILES`` into ``DIR/step_<step>/`` (created if needed; None without a folder)."""
        if name not in STEP_FILES:
            raise ValueError(f"step file {name!r} is not one of {STEP_FILES}")
        if self._root_fd is None:
            return None
        if not (self.root / f"step_{step}").is_dir():
            self._create(f"step_{step}", dir_only=True)
        data = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
        self._create(f"step_{step}/{name}", data)
        return self.root / f"step_{step}" / name

    def write_file(self, name: str, data: bytes | str) -> Path | None:
        """Write a file at the top of ``DIR`` (``episode.json``); its name must be a plain safe file name."""
        if self._root_fd is None:
            return None
        if "/" in name or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*", name):
            raise ValueError(f"{name!r} is not a plain file name")
        self._create(name, data.encode("utf-8", errors="replace") if isinstance(data, str) else data)
        return self.root / name

    def _create(self, rel: str, data: bytes = b"", *, dir_only: bool = False) -> None:
        """Create ``rel`` (a new file, or a folder when ``dir_only``) under DIR without following any link."""
        parts = rel.split("/")
        fds: list[int] = []
        parent = self._root_fd
        try:
            for i, part in enumerate(parts[:-1] if not dir_only else parts):
                last = dir_only and i == len(parts) - 1
                try:
                    os.mkdir(part, 0o755, dir_fd=parent)
                except FileExistsError:
                    if last:  # a step folder is always new: an existing one was planted
                        raise WorkspaceError(f"{rel!r} already exists in {str(self.root)!r}") from None
                fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
                fds.append(fd)
                parent = fd
            if dir_only:
                return
            fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=parent)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
        except WorkspaceError:
            raise
        except OSError as exc:
            raise WorkspaceError(
                f"cannot write {rel!r} under {str(self.root)!r} without following a link or overwriting a file "
                f"({exc.strerror}); was the episode folder changed while the episode ran?"
            ) from exc
        finally:
            for fd in fds:
                os.close(fd)

    def close(self) -> None:
        """Release the episode folder's descriptor (the files stay)."""
        if self._root_fd is not None:
            os.close(self._root_fd)
            self._root_fd = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def inline_site(files: Mapping[str, str], entry: str = ENTRY) -> str | None:
    """The entry page as one self-contained document: the site's own stylesheets and scripts inlined.

    For scorers that take a single HTML document (the visual reward renders one). Only ``<link rel=stylesheet>``
    and ``<script src>`` naming a file of the site are inlined; CDN URLs stay (the renderer serves them), and what a
    script fetches at run time (``data.json``) is not available to such a scorer.

    Returns:
        The document, or None when the site has no ``entry``.
    """
    html = files.get(entry)
    if html is None:
        return None

    def local(attrs: str) -> str | None:
        found = _SRC.search(attrs)
        if not found:
            return None
        url = next(g for g in found.groups()[1:] if g is not None)
        path = url.split("#")[0].split("?")[0].removeprefix("./").lstrip("/")
        return path if path in files else None

    def link(match: re.Match) -> str:
        tag = match.group()
        path = local(tag)
        if path is None or "stylesheet" not in tag.lower():
            return tag
        return "<style>" + files[path].replace("</style", "<\\/style") + "</style>"

    def script(match: re.Match) -> str:
        path = local(match.group(1))
        if path is None:
            return match.group()
        attrs = _SRC.sub("", match.group(1)).rstrip()
        return f"<script{attrs}>" + files[path].replace("</script", "<\\/script") + "</script>"

    return _SCRIPTS.sub(script, _LINKS.sub(link, html))
