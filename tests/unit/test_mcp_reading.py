"""MCP server declarations read by each format into `McpServer`s, what is warned (naming the
case) and what is an error; a server's answers in the run fingerprint; resolution into the
launch a harness gets; our mock server's answers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evolve_action.execute.mcp import mock
from evolve_action.execute.mcp.resolve import SPEC_DIR, McpStartError, launches
from evolve_action.execute.sandbox.confine import Confinement, SandboxMode
from evolve_action.formats import load_all
from evolve_action.model.evals import Case, Format, LoadResult, Origin, Severity
from evolve_action.model.mcp import McpMockTool, McpServer, loopback_problem
from evolve_action.plan.fingerprints import plain

SKILL = "---\nname: weather\ndescription: Forecasts.\n---\nCall the forecast tool.\n"


def load(root: Path, files: dict[str, str]) -> LoadResult:
    for rel, body in {"skills/weather/SKILL.md": SKILL, **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    results = [r for r in load_all(root) if r.format is not None]
    assert len(results) == 1, results
    return results[0]


def evolve(root: Path, doc: dict[str, object]) -> LoadResult:
    return load(root, {".claude-plugin/plugin.json": '{"name": "acme"}',
                       "evals/weather/evals.json": json.dumps(doc)})  # fmt: skip


def warnings(result: LoadResult) -> list[str]:
    return [p.message for p in result.problems if p.severity is Severity.WARNING]


def test_evolve_reads_file_and_case_servers_and_the_case_wins_a_shared_name(
    tmp_path: Path,
) -> None:
    doc = {
        "mcp_servers": {
            "weather": {"mock": {"forecast": "Sunny"}},
            "repo": {"command": "python3", "args": ["tools/server.py", 8], "env": {"MODE": "x"}},
        },
        "evals": [
            {"id": 1, "prompt": "Paris?", "expectations": ["says sunny"]},
            {
                "id": 2,
                "prompt": "Rome?",
                "expectations": ["says rain"],
                "mcp_servers": {
                    "weather": {
                        "mock": [
                            {
                                "name": "forecast",
                                "answer": "Rain",
                                "description": "d",
                                "is_error": False,
                            }
                        ]
                    },
                    "local": {"type": "http", "url": "http://127.0.0.1:8123/mcp"},
                },
            },
        ],
    }
    result = evolve(tmp_path, doc)
    assert result.ok and result.format is Format.EVOLVE, result.problems
    assert result.suite is not None
    first, second = result.suite.cases
    weather, repo = first.mcp_servers
    assert weather.mock == (McpMockTool("forecast", "Sunny"),)
    assert repo.command == ("python3", "tools/server.py", "8") and repo.env == (("MODE", "x"),)
    assert repo.source.startswith("evals/weather/evals.json:")
    assert [s.name for s in second.mcp_servers] == ["repo", "weather", "local"]
    assert second.mcp_servers[1].mock == (McpMockTool("forecast", "Rain", "d"),)
    assert second.mcp_servers[2].url == "http://127.0.0.1:8123/mcp"


@pytest.mark.parametrize(
    ("server", "why"),
    [
        ({"url": "https://api.example.com/mcp"}, "is not on the loopback"),
        ({"command": "gh-mcp", "env": {"GITHUB_TOKEN": "t"}}, "looks like a credential"),
        ({"command": "x", "env": {"REGION": "${AWS_REGION}"}}, "from the host's environment"),
        ({"url": "http://localhost:1/mcp", "headers": {"Authorization": "t"}}, "headers"),
        ({"type": "websocket", "command": "x"}, "is not one a run starts"),
    ],
)
def test_a_server_a_run_cannot_start_is_warned_naming_the_case_and_left_out(
    tmp_path: Path, server: dict[str, object], why: str
) -> None:
    doc = {"evals": [{"id": "c7", "prompt": "p", "expectations": ["e"],
                      "mcp_servers": {"svc": server}}]}  # fmt: skip
    result = evolve(tmp_path, doc)
    assert result.ok and result.suite is not None, result.problems
    assert result.suite.cases[0].mcp_servers == ()
    (said,) = [w for w in warnings(result) if "MCP server" in w]
    assert said.startswith("case c7: MCP server 'svc' is not started:") and why in said


@pytest.mark.parametrize(
    "servers",
    [
        {"svc": "python3 server.py"},
        {"svc": {"args": ["x"]}},
        {"svc": {"command": "x", "args": "--flag"}},
        {"svc": {"mock": {"t": 3}}},
        {"svc": {"mock": {}}},
        [{"command": "x"}],
    ],
)
def test_a_malformed_declaration_is_an_error(tmp_path: Path, servers: object) -> None:
    doc = {"evals": [{"id": 1, "prompt": "p", "expectations": ["e"], "mcp_servers": servers}]}
    result = evolve(tmp_path, doc)
    assert not result.ok
    assert any("mcp_servers" in (p.origin.pointer or "") for p in result.problems)


def test_vally_environment_servers_root_then_stimulus(tmp_path: Path) -> None:
    spec = """\
environment:
  skills: [../../skills/weather]
  mcpServers:
    weather: {type: stdio, command: node, args: [server.js]}
stimuli:
  - name: paris
    prompt: Paris?
    graders: [{type: completed}]
    environment:
      mcpServers:
        tickets: {type: http, url: "https://tickets.example.com/mcp"}
        cal: {mock: {today: "Monday"}}
"""
    result = load(tmp_path, {"evals/weather/eval.yaml": spec})
    assert result.ok and result.format is Format.VALLY, result.problems
    assert result.suite is not None
    (case,) = result.suite.cases
    assert [(s.name, s.command) for s in case.mcp_servers] == [
        ("weather", ("node", "server.js")),
        ("cal", ()),
    ]
    assert any(w.startswith("stimulus 'paris': MCP server 'tickets'") for w in warnings(result))
    assert not any("not started here" in w for w in warnings(result))


def test_caliper_mcp_goes_to_every_task(tmp_path: Path) -> None:
    spec = """\
skills: [skills/weather]
mcp:
  weather: {mock: {forecast: Sunny}}
tasks:
  - {name: a, prompt: Paris?, expect: says sunny}
  - {name: b, prompt: Rome?, expect: says sunny}
"""
    result = load(tmp_path, {"weather.eval.yaml": spec})
    assert result.ok and result.format is Format.CALIPER, result.problems
    assert result.suite is not None
    assert all(c.mcp_servers[0].mock[0].answer == "Sunny" for c in result.suite.cases)


def test_waza_config_mcp_servers_go_to_every_task(tmp_path: Path) -> None:
    files = {
        "weather/SKILL.md": SKILL,
        "weather/eval.yaml": (
            "name: w\nskill: weather\n"
            "config: {mcp_servers: {weather: {command: npx, args: [-y, wx-mcp@1.2.3]}}}\n"
            "tasks: [tasks/*.yaml]\n"
        ),
        "weather/tasks/t.yaml": (
            "id: t1\ninputs: {prompt: 'Paris?'}\nexpected: {output_contains: [sun]}\n"
        ),
    }
    for rel, body in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(body)
    (result,) = [r for r in load_all(tmp_path) if r.format is Format.WAZA]
    assert result.ok and result.suite is not None, result.problems
    (case,) = result.suite.cases
    assert case.mcp_servers[0].command == ("npx", "-y", "wx-mcp@1.2.3")
    assert not any("mcp_servers" in w for w in warnings(result))


def _case(servers: tuple[McpServer, ...]) -> Case:
    return Case(id="c", prompt="p", origin=Origin("f", 1), mcp_servers=servers)


def test_the_fingerprint_follows_a_mock_answer_not_where_it_was_written() -> None:
    sunny = McpServer("w", mock=(McpMockTool("forecast", "Sunny"),), source="a.json:3")
    moved = McpServer("w", mock=(McpMockTool("forecast", "Sunny"),), source="a.json:9")
    rainy = McpServer("w", mock=(McpMockTool("forecast", "Rain"),), source="a.json:3")
    assert plain(_case((sunny,))) == plain(_case((moved,)))
    assert plain(_case((sunny,))) != plain(_case((rainy,)))
    assert "mcp_servers" not in plain(_case(()))  # a case without servers keeps its cache


async def test_a_mock_resolves_to_our_server_with_its_answers_in_the_workspace(
    tmp_path: Path,
) -> None:
    conf = Confinement(tmp_path, mode=SandboxMode.NONE)
    server = McpServer("weather", mock=(McpMockTool("forecast", "Sunny"),), env=(("A", "1"),))
    (launch,) = await launches((server,), conf)
    assert launch.argv[1:4] == ("-I", "-S", "-c") and launch.notes == ("mock",)
    assert launch.argv[4] == Path(mock.__file__).read_text()
    spec_path = Path(launch.argv[5])
    assert spec_path.parent == tmp_path.resolve() / SPEC_DIR
    assert json.loads(spec_path.read_text())["tools"][0]["answer"] == "Sunny"
    assert launch.env == (("A", "1"),)


@pytest.mark.parametrize(
    ("server", "why"),
    [
        (McpServer("s", url="http://10.0.0.5/mcp"), "not on the loopback"),
        (McpServer("s", command=("x",), env=(("API_KEY", "k"),)), "looks like a credential"),
    ],
)
async def test_resolution_refuses_what_must_never_start(
    tmp_path: Path, server: McpServer, why: str
) -> None:
    conf = Confinement(tmp_path, mode=SandboxMode.NONE)
    with pytest.raises(McpStartError, match=why):
        await launches((server,), conf)


def test_loopback_urls() -> None:
    assert loopback_problem("http://127.0.0.1:9/mcp") is None
    assert loopback_problem("http://[::1]:9/mcp") is None
    assert loopback_problem("http://localhost/mcp") is None
    assert loopback_problem("http://127.0.0.1.example.com/mcp") is not None
    assert loopback_problem("file:///etc/passwd") is not None


def test_the_mock_server_answers_the_protocol() -> None:
    spec = {"name": "w", "tools": [{"name": "forecast", "answer": "Sunny", "is_error": False}]}
    init = mock.answer(spec, "initialize", {"protocolVersion": "2024-11-05"})
    assert init["result"]["protocolVersion"] == "2024-11-05"
    listed = mock.answer(spec, "tools/list", {})["result"]["tools"]
    assert [t["name"] for t in listed] == ["forecast"]
    called = mock.answer(spec, "tools/call", {"name": "forecast", "arguments": {"x": 1}})
    assert called["result"] == {"content": [{"type": "text", "text": "Sunny"}], "isError": False}
    assert mock.answer(spec, "tools/call", {"name": "nope"})["error"]["code"] == -32602
    assert mock.answer(spec, "resources/list", {})["error"]["code"] == -32601


def test_a_run_without_mcp_never_imports_the_sdk() -> None:
    """The `mcp` SDK (and pydantic) costs ~0.4 s to import: only a case with servers pays."""
    code = (
        "import sys\n"
        "import evolve_action.pipeline.runner, evolve_action.execute.harness.run\n"
        "import evolve_action.execute.mcp.servers\n"
        "print(sorted(m for m in ('mcp', 'pydantic') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_claude_plugin_eval_mocks_suite_wide_and_per_case(tmp_path: Path) -> None:
    example = Path(__file__).parents[2] / "examples/formats/claude-plugin"
    root = tmp_path / "plugin"
    shutil.copytree(example, root)
    case = root / "evals/adds-entry"
    files = {
        root / "evals/mocks/weather/forecast.md": "Sunny in {{input.city}}\n",
        root / "evals/mocks/weather/alerts.md": "---\nerror: true\n---\nservice down\n",
        case / "mocks/weather/forecast.md": "---\nexpect: {city: string}\n---\n{{file:data.txt}}",
        case / "data.txt": "Rain all day",
        root / "evals/mocks/empty/README.txt": "no mock file: this server never starts",
    }
    for path, body in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    (result,) = [r for r in load_all(root) if r.format is Format.CLAUDE_PLUGIN]
    assert result.ok and result.suite is not None, result.problems
    (weather,) = result.suite.cases[0].mcp_servers
    assert weather.name == "weather" and weather.source.startswith("evals/")
    tools = {t.name: t for t in weather.mock}
    assert tools["forecast"].answer == "Rain all day"  # the case's own wins
    assert tools["alerts"] == McpMockTool("alerts", "service down", is_error=True)
    said = warnings(result)
    assert any(w.startswith("case 'adds-entry': the input guard `expect`") for w in said), said


def test_the_mock_server_fills_in_the_call_input() -> None:
    assert mock.filled("Sunny in {{input.city}}", {"city": "Paris"}) == "Sunny in Paris"
    assert mock.filled("{{ input.a.b }}|{{input.n}}|{{input.x}}", {"a": {"b": [1]}, "n": 2}) == (
        "[1]|2|"
    )
