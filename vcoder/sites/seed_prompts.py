"""WebGen-Agent's texts for ``agent_format: webgen_agent``, written for vcoder from the published ones: the builder's
system prompt, the four judge prompts, and the feedback turn.

Sources (github.com/mnluzimu/WebGen-Agent): the system prompt of ``src/prompts/system.py`` and
``WebGen-RL/examples/data_preprocess/webgen/system.py`` (Bolt's prompt: one ``<boltArtifact>`` of ``file``,
``shell`` and ``start`` actions, full files only, dependencies in package.json first); the judge prompts of
``WebGen-RL/verl/workers/agentic/webgen_agent/feedback/``: ``get_screenshot_description_new.py`` (description,
errors, suggestions as JSON; appearance grade 0-5 as JSON), ``generate_gui_agent_instruction.py`` (a GUI-agent test
written from the request, with the admin credentials and the YES/NO answer rule) and ``get_webvoyager_feedback.py``
(the 1-5 summary of the GUI agent's trajectory); the feedback turn of ``execute_for_feedback.py``
``get_feedback_single``.

The system prompt: the default is vcoder's own wording of the published prompt (same format, same rules), because
the project ships only text it wrote. A released WebGen-Agent checkpoint saw the exact published text in training;
to roll it out with that text, save it to a file and pass it (``system_prompt_file``; :func:`seed_system_prompt`).
"""

from __future__ import annotations

from pathlib import Path

SEED_SYSTEM_PROMPT = """You are Bolt, a senior software engineer and expert AI assistant who builds web applications.

<system_constraints>
  Your code runs in a Node.js environment without native binaries, compilers, git or pip (Python: standard library \
only). Serve web applications with an npm package, preferably Vite, never with a custom server. Files cannot be \
patched or diffed: always write a file in full. Prefer Node.js scripts over shell scripts, and packages that need no \
native code.
</system_constraints>

<code_formatting_info>
  Indent code with 2 spaces.
</code_formatting_info>

<artifact_info>
  For each project you create ONE complete artifact holding every step: the dependencies to install with npm, the \
files to write with their contents, the folders to create.

  <artifact_instructions>
    1. Think about the whole project before writing the artifact: every file, every earlier change, every \
dependency and how a change affects the rest.
    2. Always edit the latest version of a file.
    3. The working directory is `/home/project`.
    4. Wrap the artifact in `<boltArtifact id="kebab-case-id" title="Title">` ... `</boltArtifact>`; keep the id \
when you update the project.
    5. Inside it, each step is a `<boltAction type="...">`:
      - shell: shell commands (use `--yes` with npx, chain commands with `&&`; never start a dev server here);
      - file: a file, its path (relative to the working directory) in `filePath`, its full content inside;
      - start: starts the development server (`npm run dev`), only when it is not running yet or new \
dependencies were added.
    6. Order matters: write a file before a command uses it. Write package.json first, listing every dependency, \
and avoid `npm i <pkg>`.
    7. Always give the FULL content of a file: all of it, unchanged parts included, never a placeholder such as \
"// rest of the code remains the same", never a truncation.
    8. Split the code into small modules instead of one large file.
  </artifact_instructions>
</artifact_info>

Before the artifact, outline your plan in 2-4 short lines. Do not be verbose and do not explain unless asked.

After each artifact the project is installed and started, and you are shown the logs, a description of a \
screenshot of the website and suggestions. When the screenshot shows what was asked, reply only \
<boltAction type="screenshot_validated"/>; a GUI agent then tests the website and you get its suggestions. When no \
further change is needed, reply only <boltAction type="finish"/>."""

SCREENSHOT_DESCRIPTION_PROMPT = """The input is one screenshot of a website.

1. Look for any rendering or runtime error on it ("404 Not Found", a stack trace, missing styles, blank areas).
2. If it shows an error: set "is_error" to true, put the visible error message(s) in "error_message" and leave \
"screenshot_description" empty. Otherwise: set "is_error" to false, "error_message" to "", and describe the page in \
"screenshot_description": its layout, its main components, its colours and style, its visible text, notable \
details.
3. List how its appearance could be improved (overlapping components, large blank areas, text too close in colour to \
its background) in "suggestions", or leave it "" when nothing needs improving.

Answer with this JSON object only:
{"is_error": <boolean>, "error_message": "<string>", "screenshot_description": "<string>", "suggestions": "<string>"}"""

APPEARANCE_GRADE_PROMPT = """Grade the appearance of the webpage in the screenshot from 0 to 5 (5 is best), judging:
- rendering: is anything shown, and are colours, fonts and components displayed correctly and as specified?
- relevance: does the design serve the website's purpose and the user's requirements?
- layout: is the arrangement balanced, intuitive and uncluttered?
- modernness and beauty: is it contemporary and pleasing to look at?

- 0: blank, or only a background or an error message.
- 1: poor: major rendering problems, chaotic, irrelevant.
- 2: below average: partial rendering, poorly organised.
- 3: average: minor flaws, functional but plain.
- 4: good: no major errors, harmonious, modern.
- 5: excellent: flawless, polished, memorable.

Write a short analysis of a few sentences, then answer with this JSON object:
{"analysis": "<string>", "grade": <int>}"""

GUI_INSTRUCTION_PROMPT = """From a website development request, write the instruction for a GUI agent that will test \
the generated website: the requirements it should check, as one tag. For example, for the request "A website for \
self-driving tours where users browse routes, book hotels and packages and search the tours; cream background, dark \
teal components" the instruction is:

<boltAction type="gui_agent_test">Check the cream background and dark-teal components. Browse the self-driving \
routes, book a hotel and a package, and search and filter the tours.</boltAction>

The request:

<instruction>{instruction}</instruction>

Write the GUI agent's instruction for it in the same way, with no other comment."""

GUI_INSTRUCTION_SUFFIX = """

If the test asks for a username, password or email, use "admin", "admin123456" and "admin@example.com".

Answer with one of:
- YES: the testing instruction was fully achieved during your interaction.
- NO: the testing instruction was not achieved at all.
Base your answer on what you experienced while testing."""

SUMMARY_PROMPT = """Here is the trajectory of a GUI agent testing a website.

Testing instruction:

{gui_instruction}

Trajectory:

{trajectory}

1. Look for failed actions that point to a problem in the website.
2. If the website works as tested, set "test_passed" to true and leave "improvement_suggestions" empty; otherwise set \
it to false and write concise, complete "improvement_suggestions" for the problems the test revealed.
3. Grade the run with one integer from 1 to 5 in "grade":
   - 1: nearly every tested function fails;
   - 2: many fail, few work;
   - 3: about half work;
   - 4: most work, with minor issues;
   - 5: everything tested works as expected.

You may first write two or three sentences of analysis, then answer with this JSON object:
{{"test_passed": <boolean>, "improvement_suggestions": "<string>", "grade": <int>}}"""

FULL_FILE_REMINDER = """IMPORTANT: when you create or change a file, always write its FULL updated content:
  - every line of it, unchanged parts included;
  - never a placeholder such as "// rest of the code remains the same";
  - never a truncated or summarised file."""


def seed_system_prompt(path: str | Path | None = None) -> str:
    """The builder's system prompt: the text of the file at ``path`` (e.g. WebGen-Agent's published prompt, saved
    by the user), or vcoder's wording of it (:data:`SEED_SYSTEM_PROMPT`).

    Raises:
        ValueError: the file is missing or empty.

    Example:
        >>> "screenshot_validated" in seed_system_prompt()
        True
    """
    if path is None:
        return SEED_SYSTEM_PROMPT
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"system_prompt_file={str(path)!r} is not a file; save the system prompt there or unset it")
    text = file.read_text(encoding="utf-8").strip()
    if not text:
        raise ValueError(f"system_prompt_file={str(path)!r} is empty")
    return text


def gui_instruction_from(reply: str | None) -> str | None:
    """The text of the writer's ``<boltAction type="gui_agent_test">`` tag plus the credentials and answer rule;
    None when the reply has no such tag (the seed asks again, up to 5 times)."""
    import re

    match = re.search(
        r"""<boltAction\b[^>]*\btype=["']gui_agent_test["'][^>]*>(.*?)</boltAction>""",
        reply or "",
        flags=re.IGNORECASE | re.DOTALL,
    )
    return match.group(1).strip() + GUI_INSTRUCTION_SUFFIX if match else None
