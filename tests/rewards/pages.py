"""Controlled reference pages and damage ladders for the reward-quality tests.

A page is a list of absolutely positioned text blocks on a white body, so each kind of damage can be applied in
measured steps: text edits, colour shifts, removed blocks, moved blocks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

WORDS = (
    "alpha beta gamma delta orbit pixel canvas button header footer garden river stone cloud "
    "market travel coffee summer winter signal engine planet garden window silver copper"
).split()


@dataclass(frozen=True)
class Block:
    text: str
    color: tuple[int, int, int]
    background: tuple[int, int, int]
    x: int
    y: int
    w: int
    h: int
    tag: str = "p"
    size: int = 18


def make_page(seed: int, n_blocks: int = 8) -> list[Block]:
    rng = random.Random(seed)
    blocks = []
    for i in range(n_blocks):
        col, row = i % 2, i // 2
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 7))).capitalize()
        color = (rng.randint(0, 120), rng.randint(0, 120), rng.randint(0, 160))
        bg = (rng.randint(200, 255), rng.randint(200, 255), rng.randint(200, 255))
        tag = "h2" if i == 0 else rng.choice(["p", "div", "li", "button"])
        blocks.append(Block(text, color, bg, 40 + col * 600, 40 + row * 150, 520, 110, tag, 28 if i == 0 else 18))
    return blocks


def to_html(blocks: list[Block]) -> str:
    def rgb(c):
        return f"rgb({c[0]},{c[1]},{c[2]})"

    items = []
    for b in blocks:
        style = (
            f"position:absolute;left:{b.x}px;top:{b.y}px;width:{b.w}px;height:{b.h}px;margin:0;"
            f"color:{rgb(b.color)};background:{rgb(b.background)};font-size:{b.size}px;font-family:DejaVu Sans"
        )
        inner = f'<{b.tag} style="{style}">{b.text}</{b.tag}>'
        items.append(f"<ul style='margin:0;padding:0;list-style:none'>{inner}</ul>" if b.tag == "li" else inner)
    body = "\n".join(items)
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>page</title></head>"
        f"<body style='margin:0;background:#fff;width:1280px;height:700px;position:relative'>\n{body}\n</body></html>"
    )


def damage_text(blocks, level: int, seed: int = 0):
    """Replace a growing share of each block's characters (level 0..4 -> 0%, 20%, ... 80%)."""
    rng = random.Random(seed)
    out = []
    for b in blocks:
        chars = list(b.text)
        idx = [i for i, ch in enumerate(chars) if ch != " "]
        for i in rng.sample(idx, int(len(idx) * level * 0.2)):
            chars[i] = rng.choice("xqzjk")
        out.append(replace(b, text="".join(chars)))
    return out


def damage_color(blocks, level: int, seed: int = 0):
    """Shift every text colour towards a far colour by level x 20%."""
    out = []
    for b in blocks:
        target = (255 - b.color[0], 230, 30)
        t = level * 0.2
        c = tuple(int(round(a + (tg - a) * t)) for a, tg in zip(b.color, target))
        out.append(replace(b, color=c))
    return out


def damage_remove(blocks, level: int, seed: int = 0):
    """Remove 2 x level blocks (keeps at least one)."""
    rng = random.Random(seed)
    keep = sorted(rng.sample(range(len(blocks)), max(1, len(blocks) - 2 * level)))
    return [blocks[i] for i in keep]


def damage_move(blocks, level: int, seed: int = 0):
    """Move every block by level x (45 px, 20 px), towards the page centre horizontally (stays on the page)."""
    out = []
    for i, b in enumerate(blocks):
        sign = 1 if i % 2 == 0 else -1
        out.append(replace(b, x=max(0, b.x + sign * 45 * level), y=b.y + 20 * level))
    return out


LADDERS = {"text": damage_text, "color": damage_color, "remove": damage_remove, "move": damage_move}
