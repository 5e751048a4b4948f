"""vcoder.metrics: pure metrics (arrays, HTML strings, layout records in; floats in [0, 1] out).

No browser, no torch, no trainer: importing this package is cheap and safe everywhere.
"""

from vcoder.metrics.extract import FORMAT_STYLES, extract_html, format_score

__all__ = ["FORMAT_STYLES", "extract_html", "format_score"]
