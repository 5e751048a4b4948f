"""vcoder: train vision-language models to write HTML/CSS from screenshots with rendering-based RL rewards.

Subpackages (imports flow downward only): ``pipelines`` → ``eval`` → ``rewards`` → ``agents`` → ``metrics`` /
``rendering`` → ``data`` / ``models``. ``import vcoder`` itself stays light; import the subpackage you need.
"""

__version__ = "0.1.0"
