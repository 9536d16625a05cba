"""`validate` shows a message repeated in many cases a few times, then "… and N more like
this", so one different problem is not lost among the repeats; `--errors-only` drops warnings
and notices from what is printed (the summary still counts them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evolve_action.commands.cli import main

MANY = 40


def _repo(tmp_path: Path, many: int = MANY) -> Path:
    cases = [{"id": i, "prompt": 3, "expectations": ["ok"]} for i in range(many)]
    cases.append({"id": "odd", "prompt": "hi", "expectations": [7]})
    doc = {"skill_name": "greeter", "evals": cases}
    (tmp_path / ".evolve.yaml").write_text("flavour: x\n", encoding="utf-8")  # a warning
    path = tmp_path / "evals" / "greeter" / "evals.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return tmp_path


def _validate(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *flags: str
) -> tuple[int, list[str]]:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.chdir(root)
    code = main(["validate", *flags, "."])
    return code, capsys.readouterr().out.splitlines()


def test_a_repeated_message_is_shown_three_times_then_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, lines = _validate(_repo(tmp_path), capsys, monkeypatch)
    assert code == 1
    repeated = [ln for ln in lines if ".prompt: must be a string" in ln and ln.startswith("evals/")]
    assert len(repeated) == 3
    assert f"… and {MANY - 3} more like this: evals[*].prompt: must be a string, not a number" in (
        lines
    )
    assert any("expectations[0]" in ln for ln in lines)  # the one different error is kept
    assert len(lines) < 20  # from more than 2 × MANY lines


def test_all_prints_every_repeat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, lines = _validate(_repo(tmp_path), capsys, monkeypatch, "--all")
    assert sum(".prompt: must be a string" in ln for ln in lines) >= MANY
    assert not any("more like this" in ln for ln in lines)


def test_errors_only_leaves_out_warnings_but_counts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path)
    _, every = _validate(root, capsys, monkeypatch)
    assert any("warning:" in ln for ln in every[:-1])  # the config's unknown key
    code, lines = _validate(root, capsys, monkeypatch, "--errors-only")
    assert code == 1
    assert not any("warning:" in ln for ln in lines[:-1])
    assert lines[-1] == every[-1]  # the summary still counts the warnings


def test_errors_only_in_json_keeps_only_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path)
    monkeypatch.chdir(root)
    main(["validate", "--format", "json", "--errors-only", "."])
    doc = json.loads(capsys.readouterr().out)
    problems = [p for f in doc["files"] for p in f["problems"]]
    assert problems and {p["severity"] for p in problems} == {"error"}
    assert len(problems) >= MANY  # JSON is for machines: no grouping
    assert doc["summary"]["warnings"] == 1 and doc["problems"] == []


def test_messages_that_differ_only_in_what_they_quote_are_one_kind() -> None:
    from evolve_action.model.evals import Origin, Problem
    from evolve_action.publish.repeats import Shown, pattern

    tail = "does not exist next to the eval file; add it or fix the path"
    missing = [
        Problem(Origin(f"tests/t{i}/eval.yaml", 14, f"stimuli[{i}].environment.files[0].src"),
                f"'./fixtures/f{i}.cs' {tail}")
        for i in range(596)
    ]  # fmt: skip
    other = Problem(Origin("tests/x/eval.yaml", 3, "name"), "must be a string, not a number")
    shown, more = Shown().pick([*missing[:300], other, *missing[300:]])
    assert shown == [*missing[:3], other]
    ((count, example),) = more
    assert count == 593
    assert pattern(example) == (
        "stimuli[*].environment.files[*].src: '…' does not exist next to the eval file;"
        " add it or fix the path"
    )


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = _repo(tmp_path, 3000)  # about 300 KB of output: more than a pipe holds
    reader = "import sys; sys.stdin.readline()"  # reads one line, then closes the pipe
    script = f"{sys.executable} -m evolve_action validate --all . | {sys.executable} -c '{reader}'"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", script], cwd=root, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 1  # validate's own: the file has errors
