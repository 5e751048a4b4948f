"""vcoder's settings as environments: one core per setting, driven by TRL's ``environment_factory`` and OpenEnv.

- ``refine``: screenshot-to-HTML refinement (render an attempt, see it, write again; vcoder's reward mix).
- ``site``: site building (write files, build, grade with ``SiteGrader``; the episode's reward).
- ``browse``: web browsing (WebRL's observation and actions on the hermetic sites; the task's evaluators).

Each core is a thin push-style face on the existing code (``bridge`` turns vcoder's policy-driven episodes into
``reset``/``step``); ``trl`` holds the ``environment_factory`` adapters, ``openenv_server`` the OpenEnv server.
"""

from vcoder.envs.bridge import Bridge, EpisodeAbandoned, Turn
from vcoder.envs.browse import BrowseCore, BrowseStep
from vcoder.envs.refine import RefineCore, RefineSettings, RefineStep
from vcoder.envs.site import SiteCore, SiteStep

SETTINGS = ("refine", "site", "browse")

__all__ = [
    "SETTINGS",
    "Bridge",
    "BrowseCore",
    "BrowseStep",
    "EpisodeAbandoned",
    "RefineCore",
    "RefineSettings",
    "RefineStep",
    "SiteCore",
    "SiteStep",
    "Turn",
]
