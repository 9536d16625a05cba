"""The launch facts of Copilot CLI, Gemini CLI and OpenCode: where each is installed, its
command line, its environment (a placeholder key, never a real one, and nothing that names
a credential besides it), its skills folder and its home files. The real CLIs run with
these in tests/integration/test_cli_<agent>_fake.py.
"""

from __future__ import annotations

import json

import pytest

from evolve_action.execute.harness import install
from evolve_action.execute.harness.copilot import launch as copilot_launch
from evolve_action.execute.harness.gemini import launch as gemini_launch
from evolve_action.execute.harness.opencode import launch as opencode_launch
from evolve_action.execute.sandbox.env import is_secret_name

TOKEN = "evolve-dummy-abc"


def test_each_agent_stages_skills_where_it_looks_for_them() -> None:
    assert copilot_launch.SKILLS_DIR == ".github/skills"
    assert gemini_launch.SKILLS_DIR == ".gemini/skills"
    assert opencode_launch.SKILLS_DIR == ".opencode/skills"


def test_the_pinned_versions_are_the_ones_in_the_lock() -> None:
    packages = install.lock_packages()
    for launch in (copilot_launch, gemini_launch):
        assert packages[f"node_modules/{launch.PACKAGE}"]["version"] == launch.VERSION
    # OpenCode is pinned by its platform package: only the linux-x64 build is in the lock.
    entry, _ = opencode_launch.native("linux", "x64", "glibc")
    assert packages[entry]["version"] == opencode_launch.VERSION


@pytest.mark.parametrize(
    ("platform", "entry"),
    [
        (("linux", "x64", "glibc"), "node_modules/@github/copilot-linux-x64"),
        (("linux", "arm64", "musl"), "node_modules/@github/copilot-linuxmusl-arm64"),
        (("darwin", "arm64", ""), "node_modules/@github/copilot-darwin-arm64"),
    ],
)
def test_copilot_runs_its_platform_package_binary(
    platform: tuple[str, str, str], entry: str
) -> None:
    assert copilot_launch.native(*platform) == (entry, "copilot")
    if platform[:2] in (("linux", "x64"), ("darwin", "arm64")):
        assert entry in install.lock_packages()


def test_opencode_and_gemini_entries() -> None:
    assert opencode_launch.native("linux", "x64", "glibc") == (
        "node_modules/opencode-linux-x64",
        "bin/opencode",
    )
    assert opencode_launch.native("linux", "arm64", "musl")[0].endswith("linux-arm64-musl")
    assert opencode_launch.native("win32", "x64", "")[0].endswith("opencode-windows-x64")
    assert gemini_launch.entry() == ("node_modules/@google/gemini-cli", "bundle/gemini.js")


def test_the_command_lines_take_the_prompt_on_stdin() -> None:
    assert copilot_launch.command("/c/copilot") == [
        "/c/copilot", "--output-format", "json", "--allow-all", "--disable-builtin-mcps",
    ]  # fmt: skip
    assert gemini_launch.command("node", "/g/gemini.js", model="gemini-2.5-flash") == [
        "node", "/g/gemini.js", "--output-format", "stream-json", "--approval-mode", "yolo",
        "-m", "gemini-2.5-flash",
    ]  # fmt: skip
    argv = opencode_launch.command("/o/opencode", provider="openai", model="gpt-5.4")
    assert argv[:4] == ["/o/opencode", "run", "--format", "json"]
    assert argv[-2:] == ["-m", "openai/gpt-5.4"]
    assert "--auto" in argv and argv[argv.index("--title") + 1] == "evolve"


def test_copilot_environment_points_at_the_api_base_with_the_placeholder() -> None:
    env = copilot_launch.environment(
        "anthropic", "http://127.0.0.1:9/anthropic", TOKEN, model="claude-sonnet-4-6"
    )
    assert env == {
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/anthropic",
        "COPILOT_PROVIDER_API_KEY": TOKEN,
        "COPILOT_MODEL": "claude-sonnet-4-6",
    }
    cached = copilot_launch.environment("openai", "b", TOKEN, model="m", package_cache="/p")
    assert cached["COPILOT_PKG_CACHE_HOME"] == "/p"
    with pytest.raises(ValueError, match="anthropic, openai or copilot models, not 'gemini'"):
        copilot_launch.environment("gemini", "b", TOKEN, model="m")


def test_gemini_environment_and_its_settings_file() -> None:
    env = gemini_launch.environment("http://127.0.0.1:9/gemini", TOKEN)
    assert env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:9/gemini"
    assert env["GEMINI_API_KEY"] == TOKEN and env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    files = gemini_launch.home_files()
    settings = json.loads(files[".gemini/settings.json"])
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["privacy"]["usageStatisticsEnabled"] is False
    assert list(files) == [".gemini/settings.json"]


@pytest.mark.parametrize(
    ("output", "ok"), [("v20.20.2\n", True), ("v22.1.0", True), ("v18.19.0", False), ("", False)]
)
def test_gemini_needs_node_20(output: str, ok: bool) -> None:
    assert gemini_launch.node_version_ok(output) is ok


@pytest.mark.parametrize(
    ("provider", "base", "expected"),
    [
        ("anthropic", "http://127.0.0.1:9/anthropic", "http://127.0.0.1:9/anthropic/v1"),
        ("openai", "http://127.0.0.1:9/openai", "http://127.0.0.1:9/openai"),
    ],
)
def test_opencode_configuration_names_one_provider(provider: str, base: str, expected: str) -> None:
    env = opencode_launch.environment(provider, base, TOKEN, npm_registry="http://127.0.0.1:9/")
    config = json.loads(env["OPENCODE_CONFIG_CONTENT"])
    assert config["provider"] == {provider: {"options": {"baseURL": expected, "apiKey": TOKEN}}}
    assert env["OPENCODE_PURE"] == "1" and env["npm_config_registry"] == "http://127.0.0.1:9/"
    assert opencode_launch.home_files() == {}
    with pytest.raises(ValueError, match="not 'gemini'"):
        opencode_launch.command("o", provider="gemini", model="m")


def test_no_variable_but_the_placeholder_carries_a_credential() -> None:
    envs = [
        copilot_launch.environment("openai", "u", TOKEN, model="m", package_cache="/p"),
        gemini_launch.environment("u", TOKEN),
        opencode_launch.environment("anthropic", "u", TOKEN),
    ]
    for env in envs:
        holding = [k for k, v in env.items() if TOKEN in v]
        assert len(holding) == 1, holding
        named = [k for k in env if any(w in k for w in ("KEY", "TOKEN", "SECRET"))]
        assert named in ([], holding), named


def test_the_fixed_variables_pass_the_confinement_and_the_key_goes_through_the_relay() -> None:
    # The confinement refuses secret-looking names in a command's environment: the fixed
    # variables must not look so, and the key's variable is given to the relay instead.
    for launch in (copilot_launch, gemini_launch, opencode_launch):
        assert not [name for name in launch.ENV if is_secret_name(name)], launch.NAME
    assert is_secret_name("COPILOT_PROVIDER_API_KEY") and is_secret_name("GEMINI_API_KEY")
    assert list(opencode_launch.endpoint("openai", "u", TOKEN)) == ["OPENCODE_CONFIG_CONTENT"]


def test_copilot_signed_in_to_github_holds_a_placeholder_token_and_goes_online() -> None:
    env = copilot_launch.endpoint(
        "copilot", "http://p/copilot", "evolve-dummy-9", model="m", github="http://p/github"
    )
    # Shaped as an Actions token (the CLI refuses other shapes); the proxy strips the prefix.
    assert env["COPILOT_GITHUB_TOKEN"] == "ghs_evolve-dummy-9"
    assert env["COPILOT_API_URL"] == "http://p/copilot" and env["COPILOT_OFFLINE"] == "false"
    assert env["GH_HOST"] == env["COPILOT_DEBUG_GITHUB_API_URL"] == "http://p/github"
    assert "COPILOT_PROVIDER_API_KEY" not in env
