"""A web-navigation agent on vcoder's hermetic sites, in WebRL's setting with WebArena's task format.

``sites`` (a shop, an admin, a forum, a repository browser: seeded static files, state in localStorage),
``tasks`` (WebArena's task-config template), ``evaluators`` (string / URL / program_html match on WebArena's rules)
with ``fuzzy`` (the LLM judge and its offline fallback) and ``wordtok`` (NLTK's word tokenizer), ``generate`` (tasks per site with plans), ``observation`` and ``actions``
(WebRL's text observation and action space), ``prompt``, ``episode`` (one episode within a step budget),
``solver`` (scripted solvers), ``records`` (demonstrations, the verdict log, replay items) and ``splits`` (train /
validation / test apart by content: site instance, entities, answers, URLs, intents).
"""

from vcoder.browse.actions import ActionParseError, WebAction, parse_action
from vcoder.browse.episode import WebEpisode, WebPolicy, arun_episode, run_episode
from vcoder.browse.evaluators import Evaluation, evaluate
from vcoder.browse.fuzzy import FuzzyJudge
from vcoder.browse.generate import generate_all, generate_tasks
from vcoder.browse.sites import SITES, site_files
from vcoder.browse.solver import ScriptedSolver
from vcoder.browse.tasks import TaskEval, WebTask, read_tasks, write_tasks

__all__ = [
    "SITES",
    "ActionParseError",
    "Evaluation",
    "FuzzyJudge",
    "ScriptedSolver",
    "TaskEval",
    "WebAction",
    "WebEpisode",
    "WebPolicy",
    "WebTask",
    "arun_episode",
    "evaluate",
    "generate_all",
    "generate_tasks",
    "parse_action",
    "read_tasks",
    "run_episode",
    "site_files",
    "write_tasks",
]
