"""A site: the files a render serves at its origin, from memory (``files``) and/or a folder (``base_dir``).

Paths are relative to the site root. A URL path is decoded once and split into segments; a ``..`` segment (also
``%2e%2e``, ``%2f``-joined, or with backslashes) names nothing, and a file found in ``base_dir`` must resolve to a
file inside it (symlinks included), so no request can read outside the site.
"""

from __future__ import annotations

import dataclasses
import mimetypes
import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote

PAGE_EXTENSIONS = (".html", ".htm")
HTML_TYPE = "text/html; charset=utf-8"
MIME_TYPES = {
    ".html": HTML_TYPE,
    ".htm": HTML_TYPE,
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".map": "application/json; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".wasm": "application/wasm",
}
# text files whose words may name CSS classes (the CDN stylesheet pruning keeps the rules they use)
TOKEN_EXTENSIONS = (".html", ".htm", ".js", ".mjs")


def site_path(path: str) -> str | None:
    """A URL path (or a ``files`` key) as a path relative to the site root, or None when it leaves the site.

    Examples:
        >>> site_path("/css/app.css"), site_path("./a//b.js"), site_path("/"), site_path("/docs/")
        ('css/app.css', 'a/b.js', 'index.html', 'docs/index.html')
        >>> site_path("/../etc/passwd"), site_path("/%2e%2e/x"), site_path("a%2f..%2f..%2fx"), site_path("a\\\\..\\\\b")
        (None, None, None, None)
    """
    decoded = unquote(path).replace("\\", "/")
    if "\0" in decoded:
        return None
    parts = [p for p in decoded.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    if not parts or decoded.endswith("/"):
        parts.append("index.html")
    return "/".join(parts)


def mime_type(path: str) -> str:
    """The Content-Type for a site file, by extension."""
    ext = os.path.splitext(path)[1].lower()
    return MIME_TYPES.get(ext) or mimetypes.guess_type(path)[0] or "application/octet-stream"


def is_page(path: str) -> bool:
    """Whether a site path names an HTML document."""
    return path.lower().endswith(PAGE_EXTENSIONS)


def normalize_files(files: Mapping | None) -> dict[str, bytes]:
    """``files`` with site-relative keys and bytes values.

    Raises:
        TypeError: ``files`` is not a mapping of str paths to str/bytes contents.
        ValueError: a key is not a path inside the site (``../x``, ``/``).
    """
    if files is None:
        return {}
    if not isinstance(files, Mapping):
        raise TypeError(f"files must be a mapping of site paths to str/bytes contents, got {type(files).__name__}")
    out: dict[str, bytes] = {}
    for key, value in files.items():
        if not isinstance(key, str) or not isinstance(value, (str, bytes)):
            raise TypeError(
                f"files maps site paths (str) to contents (str or bytes); got {key!r}: {type(value).__name__}"
            )
        path = site_path(key)
        if path is None or key.strip() in ("", "/", "."):
            raise ValueError(f"files key {key!r} is not a path inside the site; use paths like 'css/app.css'")
        out[path] = value.encode("utf-8") if isinstance(value, str) else value
    return out


@dataclasses.dataclass(frozen=True)
class Site:
    """The files one render serves: ``files`` first, then ``base_dir``'s.

    Args:
        files: site path -> contents (as ``normalize_files`` returns).
        base_dir: a folder on disk, or None.
    """

    files: Mapping[str, bytes] = dataclasses.field(default_factory=dict)
    base_dir: str | None = None

    def get(self, path: str) -> bytes | None:
        """The contents of a site path (as ``site_path`` returns), or None."""
        found = self.files.get(path)
        if found is None and self.base_dir is not None:
            on_disk = safe_file(self.base_dir, path)
            found = on_disk.read_bytes() if on_disk is not None else None
        return found

    def text(self) -> str:
        """The in-memory pages and scripts, joined (the words the CDN stylesheet pruning keeps rules for)."""
        return "\n".join(
            v.decode("utf-8", errors="replace") for k, v in self.files.items() if k.lower().endswith(TOKEN_EXTENSIONS)
        )


def safe_file(base_dir: str | Path, path: str) -> Path | None:
    """The file under ``base_dir`` named by a site path, or None (missing, or resolving outside ``base_dir``)."""
    base = Path(base_dir).resolve()
    target = (base / path).resolve()
    if target != base and target.is_relative_to(base) and target.is_file():
        return target
    return None
