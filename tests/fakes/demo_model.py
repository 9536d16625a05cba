"""A scripted stand-in model that follows the demo plugin's skills, used to record the demo.

It is not an LLM: it reads the skill it loaded and acts on a few phrases in it, so a change
to a skill changes what it does, as a real agent's behaviour would. The offline demo's
cassettes (`examples/demo-cassettes/`) were recorded by running the real pipeline against
this script on the loopback fake server (`scripts/record_demo.py`); the demo replays them.

As the judge it grades each numbered item with simple rules and offers one suggestion per
case, so the demo shows what the judge's critique of the evals looks like.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tests.fakes.llm_server import Answer, Call, Request, call, calls, text
from tests.fakes.scripts import grading, tool_names, user_text

_CODE_BLOCK = re.compile(r"```\n(.*?)\n\s*```", re.S)
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_NOT_NAMES = {"Please", "Greet", "Write", "Say", "Can", "Prepare", "The", "This", "Start", "Note"}

SUGGESTIONS = {
    "greeting for Ana": "greet-one: the regex checks only the first line; also check the second"
    " line, 'We are glad you are here.'",
    "guest list": "guest-list: nothing checks that Bo was greeted; three files with wrong names"
    " would pass the file count.",
    "--dry-run": "add-entry: no assertion checks that the entry is written in the imperative"
    ' ("Add …"), as the skill asks.',
    "new changelog": "start-changelog: nothing checks that the changelog links to the Keep a"
    " Changelog and Semantic Versioning pages.",
}


def _system(request: Request) -> str:
    system = request.body.get("system", "")
    if isinstance(system, list):
        return " ".join(str(b.get("text", "")) for b in system if isinstance(b, Mapping))
    if system:
        return str(system)
    first = request.messages[0] if request.messages else {}
    return str(first.get("content", "")) if first.get("role") == "system" else ""


def _installed(request: Request) -> list[str]:
    return re.findall(r"^- ([\w-]+):", _system(request), re.M)


def _names(prompt: str, listing: str) -> list[str]:
    if listing:
        lines = [re.sub(r"^\s*\d+\t", "", line).strip() for line in listing.splitlines()]
        return [line for line in lines if line and not line.startswith(("#", "["))]
    return [n for n in _NAME.findall(prompt) if n not in _NOT_NAMES]


def _greeter(request: Request, prompt: str, results: Sequence[str]) -> Answer:
    from_list = "guests.txt" in prompt
    if from_list and request.turn == 1:
        return call("Read", file_path="guests.txt")
    names = _names(prompt, results[1] if from_list and len(results) > 1 else "")
    if request.turn == (2 if from_list else 1):
        block = _CODE_BLOCK.search(results[0])
        template = block.group(1) if block else "Hello, <Name>!"
        template = "\n".join(line.strip() for line in template.splitlines())
        writes = [
            Call("Write", {"file_path": f"greetings/{n.lower()}.txt",
                           "content": template.replace("<Name>", n) + "\n"})
            for n in names
        ]  # fmt: skip
        return calls(*writes)
    noun = "greeting" if len(names) == 1 else "greetings"
    return text(f"I wrote {len(names)} {noun}.")


def _changelog(request: Request, prompt: str, results: Sequence[str]) -> Answer:
    skill = results[0]
    if "no changelog" in prompt.lower():
        if len(results) == 1:
            content = (
                "# Changelog\n\nAll notable changes to this project are documented here. The"
                " format follows Keep a Changelog, and the project uses Semantic Versioning.\n\n"
                "## [Unreleased]\n"
            )
            return call("Write", file_path="CHANGELOG.md", content=content)
        return text("Started CHANGELOG.md with an empty Unreleased section.")
    if len(results) == 1:
        return call("Read", file_path="CHANGELOG.md")
    if len(results) == 2:
        entry = "- Add a `--dry-run` flag to the sync command.\n"
        if "### Added" in skill and "add the heading" in skill.lower():
            new = "## [Unreleased]\n\n### Added\n\n" + entry
        else:
            new = "## [Unreleased]\n\n" + entry
        return call("Edit", file_path="CHANGELOG.md", old_string="## [Unreleased]\n",
                    new_string=new)  # fmt: skip
    return text("Recorded the --dry-run flag in the Unreleased section of CHANGELOG.md.")


def _trigger(request: Request, prompt: str) -> Answer:
    if request.turn > 0:
        return text("Done.")
    lowered = prompt.lower()
    if "changelog" in lowered:
        return call("Skill", skill="changelog")
    if re.search(r"\b(greet|hello|welcome)", lowered):
        return call("Skill", skill="greeter")
    return text("Here is my answer without a skill.")


def _unskilled(request: Request, prompt: str, results: Sequence[str]) -> Answer:
    """The no-skill arm: no skill is listed, so it does the plain thing a model would."""
    lowered = prompt.lower()
    if "changelog" in lowered:
        if "no changelog" in lowered:
            if request.turn == 0:
                content = "# Changelog\n\n## [Unreleased]\n"
                return call("Write", file_path="CHANGELOG.md", content=content)
            return text("Started CHANGELOG.md.")
        if request.turn == 0:
            return call("Read", file_path="CHANGELOG.md")
        if request.turn == 1:
            new = "## [Unreleased]\n\n- Added a --dry-run flag to the sync command.\n"
            return call("Edit", file_path="CHANGELOG.md", old_string="## [Unreleased]\n",
                        new_string=new)  # fmt: skip
        return text("Noted the --dry-run flag in CHANGELOG.md.")
    from_list = "guests.txt" in prompt
    if from_list and request.turn == 0:
        return call("Read", file_path="guests.txt")
    if request.turn == (1 if from_list else 0):
        names = _names(prompt, results[0] if from_list and results else "")
        writes = [
            Call("Write", {"file_path": f"greetings/{n.lower()}.txt", "content": f"Hi {n}.\n"})
            for n in names
        ]
        return calls(*writes)
    return text("Done.")


def agent(request: Request) -> Answer:
    prompt = user_text(request)
    names = tool_names(request)
    if names == ["Skill", "Read"] or set(names) == {"Skill", "Read"}:
        return _trigger(request, prompt)
    installed = _installed(request)
    if not installed:
        return _unskilled(request, prompt, request.tool_results)
    if request.turn == 0:
        return call("Skill", skill=installed[0] if installed else "none")
    results = request.tool_results
    if installed and installed[0] == "greeter":
        return _greeter(request, prompt, results)
    return _changelog(request, prompt, results)


def _verdict(number: int, prompt: str) -> bool:
    item = re.search(rf"^{number}\. (.*)$", prompt, re.M)
    statement = item.group(1).lower() if item else ""
    answer = prompt.split("The agent's final response:", 1)[-1].lower()
    if "one greeting was written" in statement:
        return "1 greeting" in answer
    if "unreleased section" in statement:
        return "unreleased" in answer
    return True


def judge(request: Request) -> Answer:
    prompt = user_text(request)
    answer = grading(request, lambda n, _t: _verdict(n, prompt))
    suggestions = [reason for key, reason in SUGGESTIONS.items() if key in prompt]
    if isinstance(answer.calls[0].arguments, dict):
        args: dict[str, Any] = dict(answer.calls[0].arguments)
        args["eval_feedback"] = {
            "suggestions": [{"reason": s} for s in suggestions],
            "overall": "The evals are sound apart from the suggestions." if suggestions else "",
        }
        return calls(Call("submit_grading", args))
    return answer


def script(request: Request) -> Answer:
    if "submit_grading" in tool_names(request):
        return judge(request)
    return agent(request)


def describe() -> str:
    return json.dumps(sorted(SUGGESTIONS))
