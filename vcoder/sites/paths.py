"""What a site may hold: safe relative paths of text files, and why a turn is malformed (pure, no disk)."""

from __future__ import annotations

import enum
import re

SITE_EXTENSIONS = (".html", ".htm", ".css", ".js", ".mjs", ".jsx", ".json", ".svg", ".txt", ".md", ".csv", ".xml")
MAX_PATH_CHARS = 200
MAX_PATH_DEPTH = 8
_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
# any tag of the format, well-formed or not: what the scanner stops at

# C0 controls other than tab, newline, form feed and carriage return; DEL; the replacement character; surrogates
_BINARY = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ufffd\ud800-\udfff]")


class Malformed(str, enum.Enum):
    """Why a turn could not be applied."""

    NO_ACTION = "no_action"  # no file, no deletion and no finish
    UNPARSEABLE = "unparseable"  # broken, unclosed or nested tags; a path written twice
    BAD_PATH = "bad_path"  # escapes the site (.., absolute, drive, UNC), or an unsafe name
    UNSUPPORTED_TYPE = "unsupported_type"  # a file type a site may not hold
    TOO_MANY_FILES = "too_many_files"
    TOO_LARGE = "too_large"
    BINARY = "binary"  # content that is not text


class SitePathError(ValueError):
    """A path a site may not hold; ``kind`` says which ``Malformed`` kind it makes a turn."""

    def __init__(self, message: str, kind: Malformed = Malformed.BAD_PATH):
        super().__init__(message)
        self.kind = kind


def check_site_path(path: str, *, extensions: tuple[str, ...] = SITE_EXTENSIONS) -> str:
    """Validate a site-relative path and return its normal form (``./`` prefixes dropped).

    Allowed: folders and a file name made of ASCII letters, digits, ``.``, ``_`` and ``-`` (not starting with a dot
    or dash), joined by ``/``, with an extension among ``extensions`` (``SITE_EXTENSIONS``: a static site's). Refused: ``..``, absolute paths, drive
    letters, UNC and other backslash paths, URLs, control characters, Windows device names, names ending in a dot.

    Raises:
        SitePathError: saying what is wrong with the path.
    """
    if not isinstance(path, str) or not path.strip():
        raise SitePathError(f"empty path {path!r}: give a relative path such as 'index.html' or 'css/site.css'")
    shown = repr(path[:80])
    if _BINARY.search(path) or any(c in path for c in "\t\n\r\f"):
        raise SitePathError(f"path {shown} contains control characters")
    if "\\" in path:
        raise SitePathError(f"path {shown} contains a backslash: use '/' between folders (no C:\\ or \\\\server)")
    if "://" in path or path.startswith("//"):
        raise SitePathError(f"path {shown} is a URL: give a path inside the site such as 'js/app.js'")
    if path.startswith(("/", "~")):
        raise SitePathError(f"path {shown} is absolute: give a path relative to the site root")
    if re.match(r"[A-Za-z]:", path):
        raise SitePathError(f"path {shown} starts with a drive letter: give a path relative to the site root")
    if len(path) > MAX_PATH_CHARS:
        raise SitePathError(f"path {path[:40]!r}... is {len(path)} characters, over {MAX_PATH_CHARS}")
    if path.endswith("/"):
        raise SitePathError(f"path {shown} names a folder: give a file path")
    parts = [p for p in path.split("/") if p != "."]
    for part in parts:
        if part == "..":
            raise SitePathError(f"path {shown} uses '..': paths may not leave the site folder")
        if not part:
            raise SitePathError(f"path {shown} has an empty folder name ('//')")
        if not _SEGMENT.fullmatch(part):
            raise SitePathError(
                f"path {shown}: {part!r} may use only ASCII letters, digits, '.', '_' and '-' "
                "and may not start with '.' or '-'"
            )
        if part.endswith("."):
            raise SitePathError(f"path {shown}: {part!r} ends with a dot")
        if part.split(".")[0].lower() in _RESERVED:
            raise SitePathError(f"path {shown}: {part!r} is a reserved device name on Windows")
    if not parts:
        raise SitePathError(f"path {shown} names no file")
    if len(parts) > MAX_PATH_DEPTH:
        raise SitePathError(f"path {shown} is {len(parts)} folders deep, over {MAX_PATH_DEPTH}")
    if not parts[-1].lower().endswith(extensions):
        raise SitePathError(
            f"path {shown}: a site holds text files of types {', '.join(extensions)}; images and other binary "
            "files are not supported (use inline SVG or CSS instead)",
            Malformed.UNSUPPORTED_TYPE,
        )
    return "/".join(parts)


def binary_problem(path: str, content: str) -> str | None:
    """Why ``content`` is not text a site file may hold (control characters, undecodable bytes), or None."""
    bad = _BINARY.search(content)
    if bad is None:
        return None
    return f"{path}: binary content (character {bad.group()!r} at offset {bad.start()}); files must be text"
