"""Start-up loads only what the command uses: each heavy library is imported where it is used.

Every check runs in a fresh interpreter and reads `sys.modules`, so it proves what was
imported, not how long it took (speed is measured in `bench/coldstart.py`).
"""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from evolve_action.execute.providers import transport
from tests.sample_evals import keyword_eval

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("anthropic", "openai", "github", "jinja2", "jsonschema", "json5")

PROBE = """
import sys
import evolve_action.commands.cli, evolve_action.pipeline.plan_and_run, evolve_action.commands.run
import evolve_action.commands.actions_flow, evolve_action.pipeline.job, evolve_action.publish.post
from evolve_action.execute.providers.registry import build_provider
evolve_action.commands.cli.build_parser()
print(sorted(m for m in ("anthropic", "openai", "github") if m in sys.modules))
build_provider("openai", environ={}, api_key="k", base_url="http://127.0.0.1:9/v1").inner.client
print(sorted(m for m in ("anthropic", "openai", "github") if m in sys.modules))
from evolve_action.publish.github_api import github_error, make_client
make_client("t", api_url="http://127.0.0.1:9")
print(github_error().__name__, "github" in sys.modules)
"""

# Runs `evolve-action ARGS` in this interpreter, then prints which of HEAVY and which command
# modules it imported (`main` is given its arguments: as the program it would exit).
COMMAND = """
import json, sys
from evolve_action.commands.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit:
    pass
heavy = json.loads(sys.argv[2])
print(json.dumps({
    "heavy": sorted(m for m in heavy if m in sys.modules),
    "commands": sorted(
        m for m in sys.modules
        if m.startswith("evolve_action.commands.") and m != "evolve_action.commands.cli"
    ),
}))
"""

EVAL = keyword_eval("one case", 1)


def _python(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,  # so that `tests.fakes` imports
    )
    return done.stdout


def _command(*args: str) -> dict[str, list[str]]:
    out = _python(COMMAND, json.dumps(args), json.dumps(HEAVY))
    loaded: dict[str, list[str]] = json.loads(out.splitlines()[-1])
    return loaded


def test_only_the_provider_in_use_imports_its_sdk() -> None:
    assert _python(PROBE).split("\n")[:3] == ["[]", "['openai']", "GithubException True"]


def test_version_imports_no_command_and_no_heavy_library() -> None:
    assert _command("--version") == {"heavy": [], "commands": []}


def test_validate_imports_its_command_alone_and_no_heavy_library(tmp_path: Path) -> None:
    (tmp_path / "bench.eval.yaml").write_text(EVAL, encoding="utf-8")
    loaded = _command("validate", str(tmp_path / "bench.eval.yaml"))
    assert loaded == {"heavy": [], "commands": ["evolve_action.commands.validate"]}


def test_json5_loads_for_a_jsonc_file_beyond_comments_and_trailing_commas_only(
    tmp_path: Path,
) -> None:
    evals = '{"skill_name": "greeter", "evals": [{"id": 1, "prompt": "hi"},]}'
    (tmp_path / "evals.json").write_text(evals.replace(",]", "]"), encoding="utf-8")
    (tmp_path / "evals.jsonc").write_text(f"// a comment\n{evals}", encoding="utf-8")
    (tmp_path / "json5" / "evals.jsonc").parent.mkdir()
    (tmp_path / "json5" / "evals.jsonc").write_text(evals.replace('"id"', "id"), encoding="utf-8")
    assert "json5" not in _command("validate", str(tmp_path / "evals.json"))["heavy"]
    assert "json5" not in _command("validate", str(tmp_path / "evals.jsonc"))["heavy"]
    assert "json5" in _command("validate", str(tmp_path / "json5" / "evals.jsonc"))["heavy"]


RUN = """
import json, os, sys
from tests.fakes.llm_server import FakeLLM, text

def script(request):
    if request.body.get("response_format"):  # the judge
        return text(json.dumps({"reason": "it does", "pass": True, "score": 1.0}))
    return text("Echo: kw0x.")

with FakeLLM(script) as llm:
    os.environ.update(OPENAI_API_KEY="k", OPENAI_BASE_URL=llm.openai_base_url)
    os.environ.pop("ANTHROPIC_API_KEY", None)
    os.environ.pop("GITHUB_ACTIONS", None)
    from evolve_action.commands.cli import main
    root, out = sys.argv[1], sys.argv[2]
    code = main(["run", "--base", "none", "--root", root, "--models", "openai/m",
                 "--judge-model", "openai/m", "--runs", "1", "--results-dir", out, "--quiet"])
heavy = sorted(m for m in json.loads(sys.argv[3]) if m in sys.modules)
print(json.dumps({"code": code, "heavy": heavy}))
"""


def test_a_run_without_tools_or_comment_loads_only_its_sdk(tmp_path: Path) -> None:
    """A chat-only local run renders no comment and validates no tool call; Jinja2 comes in
    only at the end, for the results directory's report.html."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "bench.eval.yaml").write_text(EVAL, encoding="utf-8")
    out = _python(RUN, str(root), str(tmp_path / "out"), json.dumps(HEAVY))
    assert json.loads(out.splitlines()[-1]) == {"code": 0, "heavy": ["jinja2", "openai"]}


PRELOAD = """
import sys
from evolve_action.execute.providers.setup import preload_sdks
from evolve_action.settings.inputs import from_values

settings = from_values({"models": sys.argv[1], "judge-model": sys.argv[2]})
env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
thread = preload_sdks(settings, env, replay=False)
print(thread is not None and thread.daemon)
thread.join()
print(sorted(m for m in ("anthropic", "openai") if m in sys.modules))
print(preload_sdks(settings, env, replay=False))  # already started: nothing more to do
"""


def test_the_sdk_import_starts_early_for_exactly_the_providers_the_job_uses() -> None:
    assert _python(PRELOAD, "openai/m", "openai/m").split() == ["True", "['openai']", "None"]
    both = _python(PRELOAD, "anthropic/m", "openai/m").split("\n")
    assert both[:3] == ["True", "['anthropic', 'openai']", "None"]


SSL = """
import ssl
loads = []
original = ssl.SSLContext.load_verify_locations
def counted(self, *args, **kwargs):
    loads.append(args)
    return original(self, *args, **kwargs)
ssl.SSLContext.load_verify_locations = counted
import os, sys
for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
    os.environ.pop(name, None)
os.environ.update(dict(arg.split("=", 1) for arg in sys.argv[2:]))
from evolve_action.execute.providers.registry import build_provider
def context(provider_id):
    provider = build_provider(provider_id, environ={}, api_key="k", base_url=sys.argv[1])
    return id(provider.inner.client._client._transport._pool._ssl_context)
contexts = {context(p) for p in ("anthropic", "openai", "anthropic", "openai")}
print(len(loads), len(contexts))
"""


FIRST_CALL = """
import asyncio, sys
from evolve_action.execute.providers import transport

async def main():
    waiting = asyncio.create_task(transport.imported("openai"))
    turns = 0
    while not waiting.done():  # the loop keeps turning while the worker imports
        turns += 1
        await asyncio.sleep(0)
    print("openai" in sys.modules, turns > 1)

asyncio.run(main())
"""


def test_a_first_call_imports_its_sdk_off_the_event_loop() -> None:
    """Without a preload, an adapter's first call still imports its SDK in the worker."""
    assert _python(FIRST_CALL).split() == ["True", "True"]


@pytest.mark.parametrize(
    ("base_url", "proxy", "loads"),
    [
        ("https://gateway.example/v1", "", "1"),  # TLS: the bundle, once for every client
        ("http://127.0.0.1:9/v1", "", "0"),  # in the clear: never the bundle
        ("HTTP://127.0.0.1:9/v1", "", "0"),
        ("http://127.0.0.1:9/v1", "HTTP_PROXY=https://proxy.example:3128", "1"),  # TLS to it
        ("http://127.0.0.1:9/v1", "ALL_PROXY=http://proxy.example:3128", "0"),
    ],
)
def test_every_sdk_client_shares_one_ssl_context(base_url: str, proxy: str, loads: str) -> None:
    """The CA bundle is loaded once, not once per client, and not at all for clients of
    plain-HTTP servers; every client shares one context either way."""
    assert _python(SSL, base_url, *[proxy] if proxy else []).split() == [loads, "1"]


def test_a_client_of_a_plain_http_server_trusts_no_certificate() -> None:
    """Its context verifies as strictly as the bundle's and trusts nothing: a TLS connection
    nobody expected fails instead of going unverified."""
    context = transport.context_for("http://127.0.0.1:9/v1")
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.get_ca_certs() == []


GC = """
import gc, sys
from evolve_action.util import startup
from evolve_action.execute.providers.setup import build_providers

build_providers(["openai/m"], keys={}, environ={"OPENAI_API_KEY": "k"}, max_concurrency=1)
print(gc.isenabled(), gc.get_freeze_count() == 0)  # a library caller's collector: untouched
startup.begin()
print(gc.isenabled())
build_providers(["openai/m"], keys={}, environ={"OPENAI_API_KEY": "k"}, max_concurrency=1)
print(gc.isenabled(), gc.get_freeze_count() > 0)  # back on; start-up's heap frozen
"""


def test_the_collector_pauses_for_start_up_and_resumes_for_the_job() -> None:
    assert _python(GC).split() == ["True", "True", "False", "True", "True"]


def test_an_sdk_run_does_not_import_the_cli_harness() -> None:
    # Its proxy, installer and staging cost tens of milliseconds before the first request.
    code = (
        "import sys, evolve_action.pipeline.plan_and_run, evolve_action.pipeline.runner;"
        " print(sorted(m for m in sys.modules if m.startswith('evolve_action.execute.harness')))"
    )
    assert _python(code).strip() == "[]"


BEFORE_FIRST_REQUEST = """
import importlib.util, json, sys
import evolve_action.commands.cli, evolve_action.commands.run, evolve_action.commands.local_flow
import evolve_action.pipeline.plan_and_run, evolve_action.pipeline.runner
import evolve_action.execute.providers.openai, evolve_action.execute.providers.anthropic
from evolve_action.pipeline.first_request import AFTER_FIRST_REQUEST
late = ("evolve_action.publish.post", "evolve_action.formats.agentv.checks.rules",
        "evolve_action.pipeline.report_input", "evolve_action.grade.grading")
before = {
    "loaded": sorted(
        m for m in sys.modules if m in late or m.startswith("evolve_action.publish.")
    ),
    "calls": [f.__name__ for f in AFTER_FIRST_REQUEST],
    "grade_verdict": sorted(
        m for m in sys.modules if m.startswith(("evolve_action.grade", "evolve_action.verdict"))
    ),
    "jinja2": "jinja2" in sys.modules,
}
for step in AFTER_FIRST_REQUEST:
    if step.__name__ != "job_level":
        step()
before["after"] = [m for m in late if m in sys.modules]
before["compiled"] = sys.modules["evolve_action.publish.html.page"].template.cache_info().currsize
print(json.dumps(before))
"""


def test_the_report_stages_load_only_after_the_runs_start() -> None:
    """What a local run imports before its first request holds no grading, report or verdict
    module beyond what plans the runs; those are the SDK thread's to load while the first
    answers are awaited (`AFTER_FIRST_REQUEST`)."""
    seen = json.loads(_python(BEFORE_FIRST_REQUEST).splitlines()[-1])
    assert seen["loaded"] == ["evolve_action.publish.actions_io"]  # RunnerFiles, a dataclass
    # grading the first answer, the sandbox probe (a child process), then the report
    assert seen["calls"] == ["_import_grading", "job_level", "_import_report"]
    assert seen["after"] == [
        "evolve_action.publish.post",
        "evolve_action.formats.agentv.checks.rules",
        "evolve_action.pipeline.report_input",
        "evolve_action.grade.grading",
    ]
    # Nothing of grading or the verdict: `runs: auto`'s planner (`verdict.adaptive`, its
    # evidence and its cells) is imported when an `auto` plan runs (`run_adaptively`).
    assert seen["grade_verdict"] == []
    # The report's template is compiled then too, not after the last answer.
    assert not seen["jinja2"]
    assert seen["compiled"] == 1


LATE = """
import asyncio, sys
from evolve_action.execute.providers import transport
from evolve_action.model.provider import ChatMessage, ChatRequest, TextPart
from evolve_action.execute.providers.registry import build_provider
from evolve_action.execute.providers.setup import preload_sdks
from evolve_action.settings.inputs import from_values
from tests.fakes.llm_server import FakeLLM, text

provider_id = sys.argv[1]
settings = from_values({"models": f"{provider_id}/m", "judge-model": f"{provider_id}/m"})
late = ("evolve_action.verdict.stats", "evolve_action.publish.post", "evolve_action.no_such")


def report() -> None:
    import evolve_action.verdict.stats, evolve_action.publish.post


def broken() -> None:
    import evolve_action.no_such


keys = {f"{provider_id.upper()}_API_KEY": "k"}
thread = preload_sdks(settings, keys, replay=False, then=(broken, report))
asyncio.run(transport.imported(provider_id))
# The SDK is in; the thread keeps the late modules for the wait on the first answer.
print(thread.is_alive(), any(m in sys.modules for m in late))
request = ChatRequest("m", "", (ChatMessage("user", (TextPart("hi"),)),))
with FakeLLM(lambda r: text("hello")) as llm:
    url = getattr(llm, f"{provider_id}_base_url")
    provider = build_provider(provider_id, environ={}, api_key="k", base_url=url)
    print(asyncio.run(provider.complete(request)).text)
thread.join()
print(all(m in sys.modules for m in late[:2]), "evolve_action.no_such" in sys.modules)
"""


@pytest.mark.parametrize("provider_id", ["openai", "anthropic"])
def test_the_sdk_thread_loads_the_late_modules_once_the_first_request_has_left(
    provider_id: str,
) -> None:
    """Not while that request is being built (they would share the GIL with it), but while
    its answer is awaited. A module that fails to import is left for the main thread's own
    import to report."""
    assert _python(LATE, provider_id).split() == ["True", "False", "hello", "True", "False"]


NAMING_THE_PROVIDERS = """
import json, os, sys, tempfile
from evolve_action.execute.providers import courier
PIPELINE = ("evolve_action.pipeline.job", "evolve_action.pipeline.plan_and_run",
            "evolve_action.execute.scheduler", "evolve_action.publish.actions_io",
            "urllib.request")
def prepare(provider_ids, **_):
    print(json.dumps({"named": list(provider_ids),
                      "loaded": [m for m in PIPELINE if m in sys.modules]}))
    sys.stdout.flush()
    os._exit(0)
courier.prepare = prepare
os.environ.update(OPENAI_API_KEY="k", EVOLVE_COURIER="0")
root = tempfile.mkdtemp()
sys.argv = ["evolve-action", "run", "--base", "none", "--root", root, "--models",
            "openai/gpt-5.4", "--judge-model", "openai/gpt-5.4", "--comment", "off"]
from evolve_action.commands.cli import main
main()
"""


def test_the_providers_are_named_before_the_pipeline_is_imported() -> None:
    """The courier imports the SDKs a job names (`courier.prepare`) while the job's process
    imports the rest: naming them is the first thing `run` does once its settings are
    read, not after importing the job (the courier would wait for it, idle)."""
    seen = json.loads(_python(NAMING_THE_PROVIDERS).splitlines()[-1])
    assert seen == {"named": ["openai", "openai"], "loaded": []}


CLIENT_AFTER_PRELOAD = """
import importlib, sys
from evolve_action.model import provider_table
from evolve_action.util import deferred_packages
deferred_packages.defer(provider_table.sdk_type_hubs())
for name in provider_table.carried_modules([sys.argv[1]]):
    importlib.import_module(name)
from evolve_action.execute.providers.registry import build_provider
before = set(sys.modules)
build_provider(sys.argv[1], environ={}, api_key="k", base_url=sys.argv[2]).inner.client
print(sorted(set(sys.modules) - before))
"""


@pytest.mark.parametrize("provider_id", ["openai", "anthropic"])
@pytest.mark.parametrize("base_url", ["http://127.0.0.1:9/v1", "https://gateway.example/v1"])
def test_a_client_built_after_the_preload_imports_nothing_more(
    provider_id: str, base_url: str
) -> None:
    """What the courier (or the preload thread) imports for a provider is all its client
    needs: building it on the first call's path imports nothing (its HTTP transport was
    0.02 s there once the CA bundle, which used to import it, was no longer loaded)."""
    assert _python(CLIENT_AFTER_PRELOAD, provider_id, base_url).split() == ["[]"]
