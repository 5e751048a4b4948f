"""VisionCoder's demo script (``vcoder/demo/inference.py``: one screenshot -> HTML), over vcoder's commands."""
