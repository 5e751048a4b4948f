"""Verdict records and their log: what a grader decided about a site, one JSON line each (WebRL's outcomes).

Low in the package map: the rewards, the site grader, the evaluators and the ORM read or write it, and it imports
nothing of vcoder. ``records``: the records and their validation; ``log``: appending to and reading the file;
``writing``: the records graders build and append (best effort: a disk error is a warning).
"""

from vcoder.verdicts.log import VerdictLog, iter_verdicts, read_verdicts
from vcoder.verdicts.records import CaseVerdict, VerdictLogError, VerdictRecord, case_verdict, site_hash

__all__ = [
    "CaseVerdict",
    "VerdictLog",
    "VerdictLogError",
    "VerdictRecord",
    "case_verdict",
    "iter_verdicts",
    "read_verdicts",
    "site_hash",
]
