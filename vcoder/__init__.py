"""vcoder: train vision-language models to write HTML/CSS from screenshots with rendering-based RL rewards.

Subpackages (imports flow downward only; docs/architecture.md has the full table): ``cli`` → ``pipelines`` →
``orm`` → ``eval`` / ``rewards`` → ``sites`` → ``gui`` → ``chat`` / ``rendering`` / ``metrics``, with ``verdicts``,
``data`` and ``models`` beside them. ``import vcoder`` itself stays light; import the subpackage you need.
"""

__version__ = "0.1.0"
