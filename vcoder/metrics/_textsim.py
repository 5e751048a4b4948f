"""Bounded-cost text similarity matrices for Design2Code block matching.

The similarity of two block texts is ``difflib.SequenceMatcher(None, pred, ref).ratio()`` (Si et al., 2024). It
costs ~10-30 µs per pair, so a full 500 x 500 matrix would take seconds. This module keeps the published values
where they matter and bounds the cost:

- ratios are cached per (pred, ref) text pair and one ``SequenceMatcher`` per reference text is reused (its index
  of the reference text is built once); ``cydifflib`` (a compiled port of difflib giving identical ratios) is used
  when installed;
- identical texts are scored once (pages repeat nav items, prices, "read more");
- up to ``exact_cells`` distinct pairs (default 20,000, i.e. two 140-block pages) every cell is exact, so typical
  Design2Code pages (50-100 blocks) get exactly the published matrix;
- beyond that, each row and each column keeps its ``top_k`` most promising partners by a character-bigram cosine
  (cheap, sparse) and only those cells are computed exactly; the others are 0. Pairs below 0.5 are dropped from
  Design2Code scores anyway, so this only changes results when a >= 0.5 pair is outside every top-k list.
- ``char_upper_bounds`` gives difflib's ``quick_ratio`` (an upper bound of ``ratio``) for one text against many,
  vectorised, so merge candidates can be pruned without computing any ratio.
"""

from __future__ import annotations

import difflib

import numpy as np

try:  # same algorithm and results as difflib (checked in tests), compiled: ~4x faster
    from cydifflib import SequenceMatcher
except ImportError:  # pragma: no cover - optional speed-up
    SequenceMatcher = difflib.SequenceMatcher

__all__ = ["TextSimilarity"]

_BIGRAM_SPACE = 1 << 20


class TextSimilarity:
    """Cached SequenceMatcher ratios between prediction texts (rows) and reference texts (columns).

    Args:
        exact_cells: largest number of distinct (row, column) text pairs computed exhaustively.
        top_k: partners kept per row and per column beyond that budget.
    """

    def __init__(self, *, exact_cells: int = 20_000, top_k: int = 8):
        if exact_cells < 1 or top_k < 1:
            raise ValueError(f"exact_cells={exact_cells} and top_k={top_k} must both be >= 1")
        self.exact_cells = exact_cells
        self.top_k = top_k
        self._cache: dict[tuple[str, str], float] = {}
        self._matchers: dict[str, SequenceMatcher] = {}
        self._counts_cache: dict[tuple[str, ...], tuple] = {}
        self._bigram_vocab: dict[str, int] = {}
        self._bigram_cache: dict[tuple[str, ...], object] = {}

    def ratio(self, pred: str, ref: str) -> float:
        """``SequenceMatcher(None, pred, ref).ratio()``, cached."""
        key = (pred, ref)
        value = self._cache.get(key)
        if value is None:
            if pred == ref:
                value = 1.0 if pred else 0.0
            else:
                sm = self._matchers.get(ref)
                if sm is None:
                    sm = self._matchers[ref] = SequenceMatcher(None, "", ref)
                sm.set_seq1(pred)
                value = sm.ratio()
            self._cache[key] = value
        return value

    def matrix(self, rows: list[str], cols: list[str]) -> np.ndarray:
        """Similarity matrix (len(rows), len(cols)), float64; exact within budget, top-k beyond (see module doc)."""
        out = np.zeros((len(rows), len(cols)), dtype=np.float64)
        if not rows or not cols:
            return out
        urows, row_idx = np.unique(np.array(rows, dtype=object), return_inverse=True)
        ucols, col_idx = np.unique(np.array(cols, dtype=object), return_inverse=True)
        small = np.zeros((len(urows), len(ucols)), dtype=np.float64)
        if len(urows) * len(ucols) <= self.exact_cells:
            for j, ref in enumerate(ucols):
                for i, pred in enumerate(urows):
                    small[i, j] = self.ratio(pred, ref)
        else:
            for i, j in zip(*np.nonzero(self._candidates(list(urows), list(ucols)))):
                small[i, j] = self.ratio(urows[i], ucols[j])
        out[:] = small[np.ix_(row_idx.ravel(), col_idx.ravel())]
        return out

    def is_exact(self, n_rows: int, n_cols: int) -> bool:
        """Whether a matrix of this many distinct texts is computed exhaustively."""
        return n_rows * n_cols <= self.exact_cells

    def against(self, text: str, others: list[str], *, text_is_pred: bool, exact: bool) -> np.ndarray:
        """Similarities of one new text against every text of the other side (a merged row or column).

        Args:
            text: the new block text.
            others: the other side's texts.
            text_is_pred: True when ``text`` is a prediction text (a row), False for a reference text (a column).
            exact: compute every cell (as ``matrix`` does within budget) rather than the top-k candidates.
        """
        out = np.zeros(len(others), dtype=np.float64)
        if not others:
            return out
        if exact:
            js = range(len(others))
        else:
            js = np.nonzero(self._candidates([text], others, per_column=False)[0])[0]
        for j in js:
            out[j] = self.ratio(text, others[j]) if text_is_pred else self.ratio(others[j], text)
        return out

    def best_bound(self, text: str, others: list[str], *, text_is_pred: bool, max_ratios: int = 24) -> float:
        """An upper bound of the maximum similarity of ``text`` against ``others`` (exact when it converges).

        Visits ``others`` in descending ``quick_ratio`` order computing exact ratios, and stops once no remaining
        bound can beat the best found; after ``max_ratios`` ratios it returns the largest remaining bound.
        """
        bounds = self.char_upper_bounds(text, others)
        best = 0.0
        for n, j in enumerate(np.argsort(-bounds, kind="stable")):
            if bounds[j] <= best:
                break
            if n >= max_ratios:
                return float(bounds[j])
            best = max(best, self.ratio(text, others[j]) if text_is_pred else self.ratio(others[j], text))
        return best

    def char_upper_bounds(self, text: str, others: list[str]) -> np.ndarray:
        """difflib ``quick_ratio`` of ``text`` against each of ``others``: an upper bound of the ratio (symmetric).

        Vectorised over ``others`` (character-count matrix cached per list), so pruning costs microseconds.
        """
        key = tuple(others)
        cached = self._counts_cache.get(key)
        if cached is None:
            vocab: dict[str, int] = {}
            entries = [(k, vocab.setdefault(ch, len(vocab))) for k, o in enumerate(others) for ch in o]
            counts = np.zeros((len(others), max(len(vocab), 1)), dtype=np.int32)
            if entries:
                rows, cols = np.array(entries).T
                np.add.at(counts, (rows, cols), 1)
            lengths = np.array([len(o) for o in others], dtype=np.float64)
            cached = self._counts_cache[key] = (vocab, counts, lengths)
        vocab, counts, lengths = cached
        hist: dict[int, int] = {}
        for ch in text:
            if ch in vocab:
                hist[vocab[ch]] = hist.get(vocab[ch], 0) + 1
        common = np.zeros(len(others), dtype=np.float64)
        if hist:
            idx = np.fromiter(hist.keys(), dtype=np.int64)
            common = np.minimum(counts[:, idx], np.fromiter(hist.values(), dtype=np.int32)).sum(axis=1)
        total = lengths + len(text)
        return np.divide(2.0 * common, total, out=np.zeros(len(others)), where=total > 0)

    def _bigram_vectors(self, texts: list[str]):
        """L2-normalised character-bigram count vectors (sparse), cached per text list: the side that does not
        change is re-used by every merge candidate."""
        from scipy import sparse

        key = tuple(texts)
        hit = self._bigram_cache.get(key)
        if hit is not None:
            return hit
        vocab, rows, cols = self._bigram_vocab, [], []
        for k, text in enumerate(texts):
            padded = f" {text} "
            for p in range(len(padded) - 1):
                rows.append(k)
                # ids only grow, so vectors built at different times share one space (modulo a 2^20 hash space)
                cols.append(vocab.setdefault(padded[p : p + 2], len(vocab)) % _BIGRAM_SPACE)
        x = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(texts), _BIGRAM_SPACE))
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        x = (sparse.diags(1.0 / norms) @ x).tocsr()
        if len(texts) > 1:
            self._bigram_cache[key] = x
        return x

    def _candidates(self, rows: list[str], cols: list[str], *, per_column: bool = True) -> np.ndarray:
        """Boolean mask of cells worth an exact ratio: top-k by bigram cosine per row (and per column), equal texts."""
        proxy = (self._bigram_vectors(rows) @ self._bigram_vectors(cols).T).toarray()
        mask = np.zeros(proxy.shape, dtype=bool)
        k_row, k_col = min(self.top_k, proxy.shape[1]), min(self.top_k, proxy.shape[0])
        idx = np.argpartition(-proxy, k_row - 1, axis=1)[:, :k_row]
        np.put_along_axis(mask, idx, True, axis=1)
        if per_column:
            idx = np.argpartition(-proxy, k_col - 1, axis=0)[:k_col, :]
            np.put_along_axis(mask, idx, True, axis=0)
        mask |= proxy >= 0.999  # identical (or anagram-identical) texts are always scored
        return mask
