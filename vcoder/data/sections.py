"""Building blocks of synthetic pages: themes (palette, font, spacing), a word list and WebSight-like sections.

Every builder is ``(rng, theme, difficulty) -> html`` and draws only from ``rng``, so a page is a pure function
of its seed. Text comes from a small built-in word list; no external URLs, images are CSS-drawn blocks.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

WORDS = (
    "about account action advice amazing app beautiful best build business care city clean cloud coffee "
    "community company contact create creative daily data design digital discover easy energy event expert "
    "explore fast fashion fitness food fresh friendly future garden global green grow happy health home idea "
    "journey kitchen learn life light local market modern music nature network news online open organic "
    "partner people plan power premium product project quality quick real secure service simple smart "
    "solution space sport start story studio style support team tech travel trust urban value vision water "
    "web wellness world"
).split()

# web-safe stacks whose first family is installed by the project's setup (DejaVu / Liberation)
FONTS = (
    "'DejaVu Sans', Arial, sans-serif",
    "'Liberation Sans', Arial, sans-serif",
    "'DejaVu Serif', Georgia, serif",
    "'Liberation Serif', 'Times New Roman', serif",
    "'DejaVu Sans Mono', monospace",
)

# (name, background, surface, text, heading, primary, on_primary, border)
PALETTES = (
    ("light-blue", "#ffffff", "#f3f6fb", "#333333", "#1a2b4c", "#2563eb", "#ffffff", "#d8e0ec"),
    ("warm", "#fffaf3", "#fdeedc", "#4a3b2a", "#7c2d12", "#ea580c", "#ffffff", "#f3d9b8"),
    ("forest", "#f6fbf6", "#e3f1e4", "#23352a", "#14532d", "#16a34a", "#ffffff", "#c6e3c9"),
    ("dark", "#111827", "#1f2937", "#e5e7eb", "#f9fafb", "#f59e0b", "#111827", "#374151"),
    ("purple", "#faf7ff", "#efe7fd", "#3b2f4f", "#4c1d95", "#7c3aed", "#ffffff", "#ddd0f7"),
    ("mono", "#fafafa", "#eeeeee", "#222222", "#000000", "#444444", "#ffffff", "#cccccc"),
    ("ocean", "#f0fbff", "#dff3fa", "#1e3a4a", "#0c4a6e", "#0891b2", "#ffffff", "#bde3ef"),
    ("rose", "#fff7f8", "#fde4e8", "#4a2c33", "#881337", "#e11d48", "#ffffff", "#f7c6cf"),
)


@dataclass(frozen=True)
class Theme:
    """Visual choices shared by every section of one page."""

    name: str
    background: str
    surface: str
    text: str
    heading: str
    primary: str
    on_primary: str
    border: str
    font: str
    pad: int
    gap: int
    radius: int


def make_theme(rng: random.Random, difficulty: int) -> Theme:
    """Draw a theme; difficulty 1 keeps to two palettes and one font so there is less to learn."""
    palettes = PALETTES[:2] if difficulty == 1 else PALETTES
    fonts = FONTS[:1] if difficulty == 1 else FONTS
    name, *colors = rng.choice(palettes)
    return Theme(
        name,
        *colors,
        font=rng.choice(fonts),
        pad=rng.choice([12, 16, 24, 32]),
        gap=rng.choice([8, 12, 16]),
        radius=rng.choice([0, 4, 8]),
    )


def words(rng: random.Random, n: int) -> str:
    """``n`` random words from the built-in list."""
    return " ".join(rng.choice(WORDS) for _ in range(n))


def title(rng: random.Random, n: int = 3) -> str:
    """A Title Case phrase of ``n`` words."""
    return " ".join(w.capitalize() for w in words(rng, n).split())


def sentence(rng: random.Random, n: int = 10) -> str:
    """A capitalised sentence of ``n`` words ending with a full stop."""
    text = words(rng, n)
    return text[0].upper() + text[1:] + "."


def _header(rng: random.Random, t: Theme, difficulty: int) -> str:
    links = "".join(
        f'<a href="#" style="margin-left: {t.gap}px; color: {t.text};">{title(rng, 1)}</a>'
        for _ in range(rng.randint(2, 3 + difficulty))
    )
    return (
        f'<header style="display: flex; justify-content: space-between; align-items: center; '
        f'background: {t.surface}; border-bottom: 1px solid {t.border};">\n'
        f'<h2 style="margin: 0;">{title(rng, 2)}</h2>\n<nav style="padding: 0;">{links}</nav>\n</header>'
    )


def _hero(rng: random.Random, t: Theme, difficulty: int) -> str:
    align = rng.choice(["center", "left"]) if difficulty > 1 else "center"
    return (
        f'<section style="text-align: {align}; padding: {t.pad * 3}px {t.pad * 2}px;">\n'
        f"<h1>{title(rng, rng.randint(3, 5))}</h1>\n<p>{sentence(rng, rng.randint(8, 14))}</p>\n"
        f'<a class="btn" href="#">{title(rng, 2)}</a>\n</section>'
    )


def _cards(rng: random.Random, t: Theme, difficulty: int) -> str:
    cards = "\n".join(
        f'<div class="card"><h3>{title(rng, 2)}</h3><p>{sentence(rng, rng.randint(6, 12))}</p></div>'
        for _ in range(rng.randint(2, 3 if difficulty == 1 else 4))
    )
    return f'<section>\n<h2>{title(rng, 3)}</h2>\n<div class="row">\n{cards}\n</div>\n</section>'


def _text(rng: random.Random, t: Theme, difficulty: int) -> str:
    paragraphs = "\n".join(f"<p>{sentence(rng, rng.randint(12, 24))}</p>" for _ in range(rng.randint(1, difficulty)))
    return f"<section>\n<h2>{title(rng, 3)}</h2>\n{paragraphs}\n</section>"


def _table(rng: random.Random, t: Theme, difficulty: int) -> str:
    n_cols = rng.randint(2, 4)
    cell = f"padding: 6px 10px; border: 1px solid {t.border};"
    head = "".join(f'<th style="{cell} background: {t.surface};">{title(rng, 1)}</th>' for _ in range(n_cols))
    rows = "\n".join(
        "<tr>" + "".join(f'<td style="{cell}">{words(rng, rng.randint(1, 2))}</td>' for _ in range(n_cols)) + "</tr>"
        for _ in range(rng.randint(2, 5))
    )
    return (
        f"<section>\n<h2>{title(rng, 2)}</h2>\n"
        f'<table style="border-collapse: collapse; width: 100%;">\n<tr>{head}</tr>\n{rows}\n</table>\n</section>'
    )


def _form(rng: random.Random, t: Theme, difficulty: int) -> str:
    field_style = (
        f"display: block; width: 100%; padding: 8px; margin: 4px 0 {t.gap}px 0; border: 1px solid {t.border};"
    )
    fields = "\n".join(
        f'<label>{title(rng, 1)}</label><input type="text" placeholder="{words(rng, 2)}" style="{field_style}">'
        for _ in range(rng.randint(2, 4))
    )
    return (
        f'<section style="max-width: 480px;">\n<h2>{title(rng, 2)}</h2>\n<form>\n{fields}\n'
        f'<button class="btn" type="submit" style="border: 0;">{title(rng, 1)}</button>\n</form>\n</section>'
    )


def _features(rng: random.Random, t: Theme, difficulty: int) -> str:
    items = "\n".join(
        f'<div style="display: flex; gap: {t.gap}px;">'
        f'<div style="width: 48px; height: 48px; flex: none; background: {t.primary}; border-radius: {t.radius * 3}px;">'
        f"</div><div><h3>{title(rng, 2)}</h3><p>{sentence(rng, rng.randint(5, 10))}</p></div></div>"
        for _ in range(rng.randint(2, 4))
    )
    return (
        f"<section>\n<h2>{title(rng, 3)}</h2>\n"
        f'<div style="display: grid; grid-template-columns: repeat(2, 1fr); gap: {t.gap * 2}px;">\n{items}\n</div>\n'
        "</section>"
    )


def _pricing(rng: random.Random, t: Theme, difficulty: int) -> str:
    plans = []
    for _ in range(3):
        features = "".join(f"<li>{words(rng, rng.randint(2, 3))}</li>" for _ in range(rng.randint(2, 4)))
        plans.append(
            f'<div class="card"><h3>{title(rng, 1)}</h3>'
            f'<p style="font-size: 28px; color: {t.primary};">${rng.randint(1, 99)}</p>'
            f'<ul style="padding-left: 20px;">{features}</ul><a class="btn" href="#">{title(rng, 1)}</a></div>'
        )
    cells = "\n".join(plans)
    return (
        f"<section>\n<h2>{title(rng, 2)}</h2>\n"
        f'<div style="display: grid; grid-template-columns: 1fr 2fr; gap: {t.gap * 2}px;">\n'
        f"<div><p>{sentence(rng, rng.randint(10, 16))}</p></div>\n"
        f'<div style="display: grid; grid-template-columns: repeat(3, 1fr); gap: {t.gap}px;">\n{cells}\n</div>\n'
        "</div>\n</section>"
    )


def _footer(rng: random.Random, t: Theme, difficulty: int) -> str:
    return (
        f'<footer style="background: {t.surface}; border-top: 1px solid {t.border}; text-align: center;">\n'
        f"<p>&copy; 2024 {title(rng, 2)}. {sentence(rng, 5)}</p>\n</footer>"
    )


SECTION_BUILDERS: dict[str, Callable[[random.Random, Theme, int], str]] = {
    "header": _header,
    "hero": _hero,
    "cards": _cards,
    "text": _text,
    "table": _table,
    "form": _form,
    "features": _features,
    "pricing": _pricing,
    "footer": _footer,
}
