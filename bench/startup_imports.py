"""Benchmark: what a run imports before its first provider request, and what the imports cost.

An N=1 run (the one AgentV case of `bench/coldstart.py`: a regex and one judge statement,
two calls) against the loopback fake LLM (`tests/fakes/llm_server.py`, 0.2 s latency), in a
fresh process of the install's own interpreter. The process is started as `python -c
WRAPPER`, where WRAPPER installs an import hook and then calls the CLI's `main` as the console
script would: when `httpx` (or `httpx2`, which the SDKs build on in some releases) is
imported by whichever SDK, the hook wraps `Client.send` and `AsyncClient.send`, and it wraps
`courier.send` (the first calls may be handed to the courier process,
`execute/providers/courier.py`), so the first request the process sends or hands over writes
out the names in `sys.modules` at that moment, before it goes on. Nothing in the package is
changed to measure it, and the wrapper imports nothing that the run would not (the
`importlib` machinery only).

Per round, for the install (and `--baseline`, another install, in the same rounds):
- a plain run: the time from process start to the first request reaching the fake, and the
  modules loaded then (ours, third-party by distribution, the standard library's count);
- the same run under `python -X importtime`: the import time before the first request (the
  wrapper marks the moment on stderr) and in all, and the 20 imports with the largest
  cumulative time before the first request.

    .venv/bin/python -m bench.startup_imports [--repeat 3] [--bin PATH] [--baseline PATH]
                                              [--modules] [--repo agentv|evolve]

`--repo evolve` runs a plain evolve-format skill instead (one case, the same two calls); its
module list is what `tests/integration/test_startup_imports.py` checks, without timing.

Prints a table (and with `--modules` the full lists), then one JSON line with every figure
and the lists.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.coldstart import EVAL, LATENCY_S, Fake, child_env, run_argv
from tests.fakes.llm_server import FakeLLM

MARK = "-- startup_imports: first request --"

# Runs in the measured interpreter as `python -c WRAPPER OUT ARGS...`. A meta-path finder
# waits for `httpx._client` or `httpx2._client` (the SDKs' HTTP client, by release), lets
# the normal loader run it, then wraps both send methods, and wraps `courier.send` (a call
# handed to the courier process has left as well); only `importlib`'s own machinery is
# imported before `main`.
WRAPPER = r"""
import sys, time
from importlib.machinery import PathFinder

OUT = sys.argv[1]
MARK = "@MARK@"
COURIER = "evolve_action.execute.providers.courier"
state = {"done": False}

def snapshot():
    if state["done"]:
        return
    state["done"] = True
    names = sorted(sys.modules)
    sys.stderr.write(MARK + "\n")
    sys.stderr.flush()
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(repr({"at": time.time(), "modules": names}))

def wrap(module):
    for cls in (module.Client, module.AsyncClient):
        send = cls.send
        if cls is module.Client:
            def sync_send(self, *a, _send=send, **k):
                snapshot()
                return _send(self, *a, **k)
            cls.send = sync_send
        else:
            async def async_send(self, *a, _send=send, **k):
                snapshot()
                return await _send(self, *a, **k)
            cls.send = async_send

def wrap_courier(module):
    send = module.send
    async def courier_send(*a, _send=send, **k):
        snapshot()
        return await _send(*a, **k)
    module.send = courier_send

WRAPS = {"httpx._client": wrap, "httpx2._client": wrap, COURIER: wrap_courier}

class Hook:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in WRAPS:
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run = loader.exec_module
        def exec_module(module):
            run(module)
            WRAPS[name](module)
        loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Hook)
sys.argv = ["evolve-action", *sys.argv[2:]]
from evolve_action.commands.cli import main
sys.exit(main())
""".replace("@MARK@", MARK)

# A plain evolve-format repository: one skill, one case with a regex and one judge statement
# (the same two calls as `EVAL`), and nothing of any other format.
EVOLVE_SKILL = """---
name: echo
description: Echoes the keyword it is given.
---
Reply with the keyword.
"""
EVOLVE_EVALS = {
    "skill_name": "echo",
    "evals": [
        {
            "id": "case-0",
            "prompt": "Reply in one sentence about the keyword. Keyword: kw0x",
            "expected_output": "The reply mentions kw0x",
            "expectations": ["The reply mentions kw0x"],
            "assertions": [{"type": "regex", "pattern": "\\bkw0x\\b"}],
        }
    ],
}


def write_repo(root: Path, kind: str) -> None:
    """The measured repository: `agentv` (the peers kit's one case) or `evolve`."""
    if kind == "agentv":
        (root / "bench.eval.yaml").write_text(EVAL, encoding="utf-8")
        return
    skill = root / "skills" / "echo"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(EVOLVE_SKILL, encoding="utf-8")
    (skill / "evals" / "evals.json").write_text(json.dumps(EVOLVE_EVALS), encoding="utf-8")


def fake_env(base_url: str) -> dict[str, str]:
    """The child's environment: ours without provider or GitHub settings, on the fake."""
    env = {
        k: v
        for k, v in child_env().items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))
    }
    env.update(OPENAI_API_KEY="sk-fake", OPENAI_BASE_URL=base_url, NO_PROXY="127.0.0.1")
    return env


def modules_at_first_request(
    python: str, root: Path, scratch: Path, env: dict[str, str]
) -> list[str]:
    """One N=1 run of `root` by this interpreter's install: the modules loaded when its first
    provider request was sent (raises when the run failed or sent none)."""
    out = scratch / "modules.txt"
    out.unlink(missing_ok=True)
    args = run_argv("evolve-action", root, scratch / "out", "openai/m", "openai/m")[1:]
    done = subprocess.run(
        [python, "-c", WRAPPER, str(out), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    shutil.rmtree(scratch / "out", ignore_errors=True)
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"the run exited {done.returncode}: {done.stderr[-2000:]}")
    names: list[str] = ast.literal_eval(out.read_text(encoding="utf-8"))["modules"]
    return names


IMPORTTIME = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")


def classify(names: list[str]) -> dict[str, Any]:
    """Ours (every module), third-party (module count per top-level package) and the
    standard library (a count: the interpreter's own start-up loads many of them)."""
    ours = [n for n in names if n == "evolve_action" or n.startswith("evolve_action.")]
    third: dict[str, int] = {}
    stdlib = 0
    for name in names:
        top = name.split(".")[0]
        if top == "evolve_action":
            continue
        if top in sys.stdlib_module_names or top in sys.builtin_module_names or top == "__main__":
            stdlib += 1
        else:
            third[top] = third.get(top, 0) + 1
    return {"ours": ours, "third_party": dict(sorted(third.items())), "stdlib_count": stdlib}


def parse_importtime(stderr: str) -> dict[str, Any]:
    """Self and cumulative microseconds, before the mark and in all; the top 20 imports by
    cumulative time before it (a package's figure includes what it imported)."""
    before: list[tuple[int, int, int, str]] = []
    total_self = 0
    seen_mark = False
    for line in stderr.splitlines():
        if line.strip() == MARK:
            seen_mark = True
            continue
        match = IMPORTTIME.match(line)
        if not match:
            continue
        own, cumulative, indent, name = match.groups()
        total_self += int(own)
        if not seen_mark:
            before.append((int(own), int(cumulative), len(indent), name))
    top = sorted(before, key=lambda row: -row[1])[:20]
    by_package: dict[str, int] = {}
    for own, _, _, name in before:
        top_level = name.split(".")[0]
        by_package[top_level] = by_package.get(top_level, 0) + own
    packages = sorted(by_package.items(), key=lambda item: -item[1])[:12]
    return {
        "self_ms_by_package": {name: round(us / 1000, 1) for name, us in packages},
        "before_first_request_ms": round(sum(row[0] for row in before) / 1000, 1),
        "all_ms": round(total_self / 1000, 1),
        "imports_before": len(before),
        "top20": [
            {"module": name, "cumulative_ms": round(cum / 1000, 1), "self_ms": round(own / 1000, 1)}
            for own, cum, _, name in top
        ],
        "marked": seen_mark,
    }


@dataclass
class Install:
    """One install (its console script's directory has the interpreter), measured per round."""

    label: str
    binary: str
    startups: list[float] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)
    snapshots: list[list[str]] = field(default_factory=list)
    importtimes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def python(self) -> str:
        return str(Path(self.binary).with_name("python"))

    def once(
        self,
        root: Path,
        scratch: Path,
        env: dict[str, str],
        fake: Fake,
        *,
        record: bool,
        importtime: bool,
    ) -> None:
        out = scratch / "modules.txt"
        out.unlink(missing_ok=True)
        args = run_argv("evolve-action", root, scratch / "out", "openai/m", "openai/m")[1:]
        argv = [self.python, *(["-X", "importtime"] if importtime else []), "-c", WRAPPER]
        fake.arrivals.clear()
        started_at = time.time()
        done = subprocess.run(
            [*argv, str(out), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        wall = time.time() - started_at
        shutil.rmtree(scratch / "out", ignore_errors=True)
        if done.returncode != 0:
            raise SystemExit(f"{self.label}: exited {done.returncode}: {done.stderr[-2000:]}")
        if not out.is_file() or len(fake.arrivals) != 2:
            raise SystemExit(f"{self.label}: no first request seen ({len(fake.arrivals)} arrived)")
        if not record:
            return
        if importtime:
            self.importtimes.append(parse_importtime(done.stderr))
            return
        snap = ast.literal_eval(out.read_text(encoding="utf-8"))
        self.snapshots.append(snap["modules"])
        self.startups.append(fake.arrivals[0] - started_at)
        self.walls.append(wall)

    def summary(self) -> dict[str, Any]:
        names = self.snapshots[0]
        stable = all(s == names for s in self.snapshots)
        common = set(names).intersection(*map(set, self.snapshots))
        out: dict[str, Any] = {
            "startup_s": round(statistics.median(self.startups), 3),
            "startup_s_all": [round(s, 3) for s in self.startups],
            "wall_s": round(statistics.median(self.walls), 3),
            "modules_total": len(names),
            "same_list_every_round": stable,
            "varying": sorted(set().union(*map(set, self.snapshots)) - common),
            **classify(sorted(common)),
        }
        it = self.importtimes
        out["importtime"] = {
            "before_first_request_ms": statistics.median(i["before_first_request_ms"] for i in it),
            "all_ms": statistics.median(i["all_ms"] for i in it),
            "imports_before": it[0]["imports_before"],
            "top20": it[len(it) // 2]["top20"],
            "self_ms_by_package": it[len(it) // 2]["self_ms_by_package"],
            "marked": all(i["marked"] for i in it),
        }
        return out


def measure(installs: list[Install], repeat: int, repo: str = "agentv") -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="startup-imports-"))
    fake = Fake()
    try:
        root = scratch / "repo"
        root.mkdir()
        write_repo(root, repo)
        with FakeLLM(fake, latency=LATENCY_S) as llm:
            env = fake_env(llm.openai_base_url)
            # A first round unmeasured: the page cache, and .pyc files for an editable checkout.
            for round_ in range(-1, repeat):
                for install in installs:
                    for importtime in (False, True):
                        install.once(
                            root, scratch, env, fake, record=round_ >= 0, importtime=importtime
                        )
        return {install.label: install.summary() for install in installs}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def table(results: dict[str, Any]) -> str:
    labels = list(results)
    lines = [
        "| before the first request (medians) | " + " | ".join(labels) + " |",
        "|---|" + "--:|" * len(labels),
    ]

    def row(title: str, get: Any) -> None:
        lines.append(f"| {title} | " + " | ".join(str(get(results[k])) for k in labels) + " |")

    row("process start → first request s", lambda r: r["startup_s"])
    row("N=1 run wall s", lambda r: r["wall_s"])
    row("modules in sys.modules", lambda r: r["modules_total"])
    row("↳ evolve_action modules", lambda r: len(r["ours"]))
    row("↳ third-party modules", lambda r: sum(r["third_party"].values()))
    row("↳ standard library modules", lambda r: r["stdlib_count"])
    row(
        "import time before first request ms (-X importtime)",
        lambda r: r["importtime"]["before_first_request_ms"],
    )
    row("import time, whole run ms", lambda r: r["importtime"]["all_ms"])
    for label in labels:
        r = results[label]
        lines += [
            "",
            f"{label}: third-party packages (modules) before the first request: "
            + ", ".join(f"{k} {v}" for k, v in r["third_party"].items()),
        ]
        lines.append(
            f"{label}: import self-time by package before the first request, ms: "
            + ", ".join(f"{k} {v}" for k, v in r["importtime"]["self_ms_by_package"].items())
        )
        if r["varying"]:
            lines.append(f"{label}: not in every round: {', '.join(r['varying'])}")
        lines += [
            "",
            f"| {label}: top 20 by cumulative import time | cum ms | self ms |",
            "|---|--:|--:|",
        ]
        lines += [
            f"| {t['module']} | {t['cumulative_ms']} | {t['self_ms']} |"
            for t in r["importtime"]["top20"]
        ]
    if len(labels) == 2:
        a, b = (set(results[k]["ours"]) for k in labels)
        lines += [
            "",
            f"ours only in {labels[0]}: {', '.join(sorted(a - b)) or '—'}",
            f"ours only in {labels[1]}: {', '.join(sorted(b - a)) or '—'}",
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3, help="measured rounds")
    parser.add_argument("--bin", default=str(Path(sys.executable).with_name("evolve-action")))
    parser.add_argument("--baseline", help="another evolve-action install, in the same rounds")
    parser.add_argument("--modules", action="store_true", help="print our modules' list too")
    parser.add_argument(
        "--repo",
        choices=("agentv", "evolve"),
        default="agentv",
        help="the measured repository: the peers kit's AgentV case, or a plain evolve skill",
    )
    args = parser.parse_args()
    installs = [Install("this", args.bin)]
    if args.baseline:
        installs.append(Install("baseline", args.baseline))
    load_before = os.getloadavg()
    results = measure(installs, args.repeat, args.repo)
    load_after = os.getloadavg()
    print(table(results))
    if args.modules:
        for label, r in results.items():
            print(f"\n{label}: evolve_action modules before the first request ({len(r['ours'])}):")
            print("\n".join(f"  {name}" for name in r["ours"]))
    loads = {
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in load_after],
    }
    head = {"bench": "startup_imports", "repo": args.repo, "latency_s": LATENCY_S, **loads}
    print(json.dumps({**head, **results}))


if __name__ == "__main__":
    main()
