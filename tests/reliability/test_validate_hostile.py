"""Hostile files of every format, the config and SKILL.md front matter, through `validate`.

First the four defects of issue 23, one test each: a 5,000-digit integer, a lone surrogate,
the YAML alias bomb, a 10 MB string. Then a generated suite: hostile values (huge numbers,
surrogates and terminal escapes, nesting and value counts past the limits, alias bombs,
recursive aliases, odd tags, big strings) put at a seeded random place in a valid document
of each format (evolve JSON/YAML/JSONC, triggers, skill-evaluator, clauditor, agentv YAML and
JSONL), in `.evolve.{yaml,json,jsonc}` and in a root SKILL.md's front matter.

Everything runs as a user would: the console entry point in a fresh process, text and
`--format json`. It fails on a traceback, on "internal error" or "bug in evolve-action", on a
peak RSS over `PEAK_MB`, on an exit other than 0 or 1, and on output that does not name the
file. The seeds are constants: a failure names its seed and reproduces. Speed is measured in
bench/validate_limits.py, never here.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.validate_limits import alias_bomb, evolve_json, evolve_yaml, make, measure
from tests.reliability.test_validate_fuzz import Seed, check_report, write_batch
from tests.unit.test_fuzz_loaders import SEEDS, get, paths_of, replace, serialize

PEAK_MB = 200
SEED = 20261125
MARK = "@@HOSTILE@@"


def run(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """`evolve-action ARGS` in a fresh process; asserts what every hostile input must hold."""
    done, peak_kb, _ = measure(args, cwd)
    out, err = done.stdout, done.stderr
    assert "Traceback" not in out + err, err[-3000:]
    for phrase in ("internal error", "bug in evolve-action"):
        assert phrase not in (out + err).lower(), (out + err)[-3000:]
    assert done.returncode in (0, 1), (done.returncode, err[-2000:])
    assert 0 < peak_kb < PEAK_MB * 1024, f"peak RSS {peak_kb / 1024:.0f} MB"
    out.encode("utf-8")  # strict: nothing unencodable reached the output
    return done.returncode, out, err


def text_lines_name_files(out: str, root: Path) -> None:
    """Every problem line of the text output starts with a path below `root` (a repeated
    message's count, "… and N more like this: …", names none)."""
    *problems, summary = out.strip().splitlines()
    assert summary.split(",")[0].endswith(("file", "files")), summary
    for line in problems:
        if line.startswith("… and ") and " more like this: " in line:
            continue
        path = line.split(":", 1)[0]
        escaped = "\\u" in path or "\\x" in path  # a name shown with escapes
        assert escaped or (path and (root / path).exists()), line


# --- the four defects ------------------------------------------------------------------------

NINES = "9" * 5000


@pytest.mark.parametrize(
    ("rel", "text", "line"),
    [
        ("skills/s/evals/evals.yaml", evolve_yaml("hi").replace("id: 1", f"id: {NINES}"), 3),
        ("skills/s/evals/evals.json", evolve_json("hi").replace('"id": 1', f'"id": {NINES}'), 1),
        (".evolve.yaml", f"layout: auto\nmax_minutes: {NINES}\n", 2),
        (".evolve.json", f'{{\n  "max_minutes": {NINES}\n}}\n', 2),
    ],
    ids=["eval-yaml", "eval-json", "config-yaml", "config-json"],
)
def test_defect_1__a_5000_digit_integer_is_refused_at_its_line(
    tmp_path: Path, rel: str, text: str, line: int
) -> None:
    make(tmp_path, rel, text)
    target = "." if rel.startswith(".evolve") else rel
    code, out, _ = run(["validate", target], tmp_path)
    assert code == 1
    assert f"{rel}:{line}: " in out and "5,000 digits" in out and "quote it" in out, out
    code, out, _ = run(["validate", "--format", "json", target], tmp_path)
    problems = [p for f in json.loads(out)["files"] for p in f["problems"]]
    problems += json.loads(out)["problems"]
    assert any(p["path"] == rel and p["line"] == line for p in problems), problems


def test_defect_1__a_5000_digit_name_in_front_matter_is_a_warning_at_its_line(
    tmp_path: Path,
) -> None:
    """A root skill's SKILL.md front matter names it; one that does not read names nothing."""
    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "evals.json").write_text(evolve_json("hi").replace('"s"', '"repo"'))
    (root / "SKILL.md").write_text(f"---\nname: {NINES}\ndescription: d\n---\nDo it.\n")
    code, out, _ = run(["validate", "."], root)
    assert code == 0, out
    assert "SKILL.md:2: warning: the front matter does not read (a number of about 5,000" in out
    assert "named after its directory, repo; fix the front matter" in out
    code, out, _ = run(["validate", "--format", "json", "."], root)
    assert json.loads(out)["files"][0]["skill"] == "repo"
    assert json.loads(out)["problems"][0]["line"] == 2


def test_defect_2__a_lone_surrogate_is_replaced_and_nothing_unprintable_is_written(
    tmp_path: Path,
) -> None:
    skill = tmp_path / "skills" / "s"
    make(tmp_path, "skills/s/evals/evals.json", evolve_json("hi").replace('"s"', '"\\ud800"'))
    clauditor = {"skill_name": "\\ud800\\u001b[2J", "assertions": []}
    (skill / "s.eval.json").write_text(json.dumps(clauditor).replace("\\\\", "\\"))
    _, out, _ = run(["validate", "."], tmp_path)
    assert "skills/s/evals/evals.json:1: skill_name: " in out and "\ufffd" in out, out
    assert "skills/s/s.eval.json:1: skill_name: " in out and "\x1b" not in out, out
    assert "\\x1b[2J" in out  # shown as an escape, not sent to the terminal
    _, out, _ = run(["validate", "--format", "json", "."], tmp_path)
    files = {f["path"]: f for f in json.loads(out)["files"]}
    assert set(files) == {"skills/s/evals/evals.json", "skills/s/s.eval.json"}
    assert all(p["path"] in files for f in files.values() for p in f["problems"])


def test_defect_2__an_unprintable_directory_name_is_escaped_in_every_output(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    raw = bytes(root) + b"/skills/bad\xff\x1b[31m"
    (Path(raw.decode("utf-8", "surrogateescape")) / "evals").mkdir(parents=True)
    skill = Path(raw.decode("utf-8", "surrogateescape"))
    (skill / "SKILL.md").write_text("---\nname: x\ndescription: d\n---\nx\n")
    (skill / "evals" / "evals.json").write_text(evolve_json("hi"))
    _, out, _ = run(["validate", "."], root)
    assert "skills/bad\\udcff\\x1b[31m/evals/evals.json:1" in out, out
    _, out, _ = run(["validate", "--format", "json", "."], root)
    assert json.loads(out)["files"][0]["path"] == "skills/bad\\udcff\\x1b[31m/evals/evals.json"


@pytest.mark.parametrize("rel", ["skills/s/evals/evals.yaml", ".evolve.yaml"])
def test_defect_3__the_alias_bomb_is_refused_at_its_line_in_bounded_memory(
    tmp_path: Path, rel: str
) -> None:
    make(tmp_path, rel, alias_bomb())
    target = "." if rel == ".evolve.yaml" else rel
    code, out, _ = run(["validate", target], tmp_path)  # run() holds the memory bound
    assert code == 1
    assert f"{rel}:6: the document has more than 200,000 values" in out, out


@pytest.mark.parametrize(
    ("rel", "text"),
    [
        ("evals.json", evolve_json("x" * 10_000_000)),
        ("evals.jsonc", evolve_json("x" * 10_000_000, "// a comment\n")),
        ("evals.yaml", evolve_yaml("x" * 10_000_000)),
    ],
    ids=["json", "jsonc", "yaml"],
)
def test_defect_4__a_10_mb_string_reads_in_bounded_memory(
    tmp_path: Path, rel: str, text: str
) -> None:
    make(tmp_path, f"skills/s/evals/{rel}", text)
    code, out, _ = run(["validate", f"skills/s/evals/{rel}"], tmp_path)
    assert code == 0 and out.strip().endswith("1 file, 1 case, 0 errors, 0 warnings"), out


# --- the generated suite ---------------------------------------------------------------------


@dataclass(frozen=True)
class Hostile:
    """A value written as raw text: `json` for the JSON family, `yaml` for YAML."""

    name: str
    json: Callable[[random.Random], str]
    yaml: Callable[[random.Random], str]


def _nest(depth: int) -> str:
    return "[" * depth + "]" * depth


def _flow_bomb(rng: random.Random) -> str:
    levels = rng.choice((6, 9))
    parts = ["&a0 [" + ", ".join(["lol"] * 10) + "]"]
    parts += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "[" + ", ".join(parts) + "]"


def _digits(rng: random.Random) -> str:
    return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(5000))


HOSTILES = (
    Hostile("5000 digits", _digits, _digits),
    Hostile("400 digits", lambda r: "-" + "7" * 400, lambda r: "-" + "7" * 400),
    Hostile("hex", lambda r: '"0x' + "f" * 3000 + '"', lambda r: "0x" + "f" * 3000),
    Hostile("out of range", lambda r: "1e999", lambda r: r.choice(("1e999", ".nan", "-.inf"))),
    Hostile("constant", lambda r: r.choice(("NaN", "-Infinity")), lambda r: "!!int abc"),
    Hostile("surrogate", lambda r: '"\\ud800x\\udfff"', lambda r: '"\\ud800"'),
    Hostile("surrogate key", lambda r: '{"\\udc80": 1}', lambda r: '{"\\U0001F600\\e": 1}'),
    Hostile("escapes", lambda r: '"\\u001b[2J\\u0000\\u202e"', lambda r: '"\\e[2J\\0\\u202e"'),
    Hostile("too deep", lambda r: _nest(r.choice((101, 5000))), lambda r: _nest(150)),
    Hostile("deep enough", lambda r: _nest(90), lambda r: _nest(90)),
    Hostile(
        "too many values",
        lambda r: "[" + ",".join(["0"] * 200_001) + "]",
        lambda r: "[" + ",".join(["0"] * 200_001) + "]",
    ),
    Hostile("alias bomb", lambda r: '"&a [*a]"', _flow_bomb),
    Hostile("recursive alias", lambda r: "{}", lambda r: r.choice(("&r [*r]", "*nope"))),
    Hostile("tags", lambda r: "[]", lambda r: r.choice(("!!float x", "!x {a: 1}", "!!binary 1"))),
    Hostile("merge", lambda r: '{"<<": 1}', lambda r: r.choice(("{<<: 1}", "{<<: [1]}"))),
    Hostile("big string", lambda r: '"' + "y" * 3_000_000 + '"', lambda r: "z" * 3_000_000),
)


def hostile_file(seed: Seed, rng: random.Random) -> tuple[str, bytes]:
    """The seed's document with one value, at a seeded random place, replaced by a hostile
    one; the label names both, so a failure says what to look at."""
    hostile = rng.choice(HOSTILES)
    data = json.loads(json.dumps(seed.data))
    at = rng.choice(list(paths_of(data)))
    if isinstance(get(data, at), (dict, list)) and rng.random() < 0.5 and at:
        at = at[:-1]
    data = replace(data, at, MARK)
    text = serialize(data, seed.name).decode()
    syntax = "yaml" if seed.name.endswith(".yaml") else "json"
    raw = getattr(hostile, syntax)(rng)
    for quoted in (f'"{MARK}"', f"'{MARK}'", MARK):
        text = text.replace(quoted, raw)
    return f"{hostile.name} at {list(at)}", text.encode("utf-8", "surrogatepass")


SHARDS = 3
PER_SHARD = 48


@pytest.mark.parametrize("shard", range(SHARDS))
def test_hostile_values_in_every_format(tmp_path: Path, shard: int) -> None:
    rng = random.Random(f"{SEED}:{shard}")
    batch = []
    for index in range(PER_SHARD):
        seed = SEEDS[index % len(SEEDS)]
        label, raw = hostile_file(seed, rng)
        batch.append((seed, label, raw))
    labels = write_batch(tmp_path, batch)
    code, out, err = run(["validate", "--format", "json", *labels], tmp_path)
    check_report(code, out, err, labels)
    code, out, _ = run(["validate", *labels], tmp_path)
    text_lines_name_files(out, tmp_path)


CONFIG_NAMES = (".evolve.yaml", ".evolve.json", ".evolve.jsonc")


def test_hostile_values_in_the_config_and_the_front_matter(tmp_path: Path) -> None:
    rng = random.Random(f"{SEED}:config")
    targets = []
    for index, hostile in enumerate(HOSTILES):
        name = CONFIG_NAMES[index % len(CONFIG_NAMES)]
        syntax = "yaml" if name.endswith(".yaml") else "json"
        raw = getattr(hostile, syntax)(rng)
        config = f"layout: auto\nmodels: {raw}\n" if syntax == "yaml" else f'{{"models": {raw}}}'
        make(tmp_path / f"c{index}", name, config.replace(MARK, raw))
        (tmp_path / f"c{index}" / "skills/s/evals/evals.json").write_text(evolve_json("hi"))
        root = tmp_path / f"f{index}"
        (root / "evals").mkdir(parents=True)
        (root / "evals" / "evals.json").write_text(evolve_json("hi"))
        (root / "SKILL.md").write_text(f"---\nname: {hostile.yaml(rng)}\n---\nDo it.\n")
        targets += [f"c{index}", f"f{index}"]
    _, out, _ = run(["validate", *targets], tmp_path)
    text_lines_name_files(out, tmp_path)
    _, out, _ = run(["validate", "--format", "json", *targets], tmp_path)
    report = json.loads(out)
    for problem in report["problems"]:
        assert problem["path"].split("/")[0] in targets, problem
        if problem["path"].endswith(CONFIG_NAMES) and problem["severity"] == "error":
            assert problem["line"], problem  # a limit says where
    assert len(report["files"]) == len(targets)


def test_hostile_files_are_seeded() -> None:
    first = [hostile_file(SEEDS[i % len(SEEDS)], random.Random(f"{SEED}:{i}")) for i in range(9)]
    again = [hostile_file(SEEDS[i % len(SEEDS)], random.Random(f"{SEED}:{i}")) for i in range(9)]
    assert first == again


def test_hostile_json_inside_strings_and_in_plugin_manifests(tmp_path: Path) -> None:
    """agentv reads an expected output that looks like JSON as JSON; discovery reads
    `.claude-plugin/*.json`. Both go through the same limits as a document."""
    contents = ['{"a":' * 100_000, '{"a": ' + NINES + "}", '{"a": "\\ud800", "b": NaN}']
    rows = [
        {"id": f"c{i}", "input": "hi", "expected_output": [{"role": "assistant", "content": c}]}
        for i, c in enumerate(contents)
    ]
    make(tmp_path, "skills/s/evals/dataset.jsonl", "\n".join(json.dumps(r) for r in rows))
    (tmp_path / "skills/s/evals/EVAL.yaml").write_text("evalcases: dataset.jsonl\n")
    for name, text in (("marketplace.json", "[" * 5000), ("plugin.json", f'{{"name": {NINES}}}')):
        make(tmp_path, f".claude-plugin/{name}", text)
    _, out, _ = run(["validate", "."], tmp_path)
    text_lines_name_files(out, tmp_path)
    _, out, _ = run(["validate", "--format", "json", "."], tmp_path)
    report = json.loads(out)
    assert [f["path"] for f in report["files"]] == ["skills/s/evals/EVAL.yaml"], report
    assert report["files"][0]["cases"] == 3, report


PATHOLOGICAL = {  # about 10 MB each: what a regular expression or a parser could choke on
    "escapes.json": '{"a": "' + "\\n" * 5_000_000 + '"}',
    "never-closed.jsonc": "/*" * 5_000_000,
    "comment-commas.jsonc": ",/*" * 3_000_000,
    "quotes.jsonc": '"\\' * 5_000_000,
    "apostrophes.jsonc": "'" * 10_000_000,
    "spaces.jsonc": "[1," + " " * 10_000_000 + "x",
    "keys.json": "{" + ",".join(f'"k{i}": 0' for i in range(1_000_000)) + "}",
    "opens.json": '{"a": [' * 1_000_000,
    "flow.yaml": "a: " + "[" * 1_000_000,
    "anchors.yaml": "".join(f"k{i}: &a{i} x\n" for i in range(300_000)),
}


def test_pathological_text_reads_in_bounded_memory(tmp_path: Path) -> None:
    targets = []
    for index, (name, text) in enumerate(PATHOLOGICAL.items()):
        ext = name.split(".", 1)[1]
        targets.append(f"p{index}/evals/evals.{ext}")
        make(tmp_path, targets[-1], text)
    code, out, _ = run(["validate", "--as", "evolve", *targets], tmp_path)  # under PEAK_MB
    assert code == 1
    text_lines_name_files(out, tmp_path)
    # `--as evolve` makes every file surely evolve's, so escapes.json (an object with none of
    # evolve's keys) is an error too; the rest refuse to parse.
    assert out.count(": ") >= len(targets) and out.strip().endswith(
        f"{len(targets)} errors, 0 warnings"
    )


def test_a_file_of_empty_cases_reports_a_bounded_number_of_problems(tmp_path: Path) -> None:
    """60,000 problems (three per empty case) would be 100 MB of JSON: 1,000 are shown and the
    rest counted in one last error."""
    make(tmp_path, "skills/s/evals/evals.json", json.dumps({"evals": [{}] * 20_000}))
    code, out, _ = run(["validate", "--format", "json", "skills/s/evals/evals.json"], tmp_path)
    problems = json.loads(out)["files"][0]["problems"]
    assert code == 1 and len(problems) == 1001
    assert problems[-1]["message"].startswith("59,000 more problems (59,000 of them errors)")
