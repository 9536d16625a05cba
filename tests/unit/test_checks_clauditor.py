"""clauditor's ten L1 checks, the 20 registered formats, output files and the URL guard."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from evolve_action.formats.clauditor import field_formats
from evolve_action.formats.clauditor.params import TYPES
from evolve_action.formats.clauditor.urls import probe, vet
from evolve_action.grade.checks import CheckContext, kinds, run_check
from evolve_action.model.evals import Case, Check, Format, Origin, Skill, Suite
from evolve_action.model.outcomes import ItemResult, Transcript
from tests.fakes.commands import no_commands

ORIGIN = Origin("skills/demo/SKILL.eval.json", 1)


async def grade(
    kind: str,
    output: str = "",
    *,
    workspace: Path | None = None,
    output_files: tuple[str, ...] = (),
    network: bool = False,
    **params: Any,
) -> ItemResult:
    typed = TYPES[kind](**params)
    check = Check(id="a1", kind=f"clauditor.{kind}", text=kind, origin=ORIGIN, params=typed)
    case = Case(id="demo", prompt="/demo", origin=ORIGIN, items=(check,), output_files=output_files)
    suite = Suite(Format.CLAUDITOR, Path("/x"), "x", Skill("demo", None), (case,))
    ctx = CheckContext(
        suite=suite,
        case=case,
        workspace=workspace or Path("/nonexistent"),
        transcript=Transcript(final_text=output),
        run_command=no_commands,
        timeout_s=10,
        network=network,
    )
    return await run_check(check, ctx)


def test_kinds__all_ten_types_are_registered() -> None:
    ours = {k for k in kinds() if k.startswith("clauditor.")}
    assert ours == {
        f"clauditor.{t}"
        for t in (
            "contains not_contains regex min_count min_length max_length"
            " has_urls has_entries urls_reachable has_format"
        ).split()
    }


@pytest.mark.parametrize(
    ("kind", "output", "params", "passed"),
    [
        ("contains", "## Venues\n", {"needle": "Venues"}, True),
        ("contains", "## venues\n", {"needle": "Venues"}, False),  # case-sensitive
        ("not_contains", "all good", {"needle": "Error"}, True),
        ("not_contains", "an Error here", {"needle": "Error"}, False),
        ("regex", "see **1. Park", {"pattern": r"\*\*\d+\."}, True),
        ("regex", "see 1. Park", {"pattern": r"\*\*\d+\."}, False),
        ("regex", "intro\n- item", {"pattern": "^- "}, False),  # no MULTILINE by default
        ("regex", "intro\n- item", {"pattern": "(?m)^- "}, True),
        ("regex", "RESULTS", {"pattern": "(?i)results"}, True),
        ("min_count", "- a\n- b\n- c", {"pattern": "(?m)^- ", "count": 3}, True),
        ("min_count", "- a\n- b\n- c", {"pattern": "^- ", "count": 2}, False),
        ("min_count", "aaa", {"pattern": "aa", "count": 2}, False),  # non-overlapping
        ("min_length", "x" * 500, {"length": 500}, True),
        ("min_length", "x" * 499, {"length": 500}, False),
        ("max_length", "x" * 5, {"length": 5}, True),
        ("max_length", "x" * 6, {"length": 5}, False),
        ("has_urls", "a http://a.io and http://a.io", {"count": 2}, True),  # duplicates count
        ("has_urls", "only https://a.io", {"count": 2}, False),
        ("has_urls", "no links here", {"count": 1}, False),
        ("has_entries", "**1. Park** **2. Zoo**", {"count": 2}, True),
        ("has_entries", "1. Park\n2. Zoo\n**3.**", {"count": 1}, False),
        ("has_format", "(408) 298-5437, 408.298.5437", {"format": "phone_us", "count": 2}, True),
        ("has_format", "call (408) 298-5437", {"format": "phone_us", "count": 2}, False),
        ("has_format", "at -121.88", {"format": "latitude", "count": 1}, True),  # partial hit
    ],
)  # fmt: skip
async def test_check__passes_and_fails_as_clauditor(
    kind: str, output: str, params: dict[str, Any], passed: bool
) -> None:
    result = await grade(kind, output, **params)
    assert result.passed is passed, result.evidence
    assert result.item_id == "a1" and result.kind == f"clauditor.{kind}"
    assert result.evidence.endswith("(in the final answer)")


async def test_check__evidence_names_what_was_found() -> None:
    result = await grade("has_urls", "a https://x.io) b", count=1)
    assert result.evidence.startswith("1 URLs found, at least 1 wanted: 'https://x.io'")
    result = await grade("not_contains", "xx Error: boom", needle="Error")
    assert "found at character 3: 'Error: boom'" in result.evidence


URL_STOPS = "see https://a.io/x) \"https://b.io/y\" <https://c.io/z> 'https://d.io'"


async def test_has_urls__urls_stop_at_brackets_and_quotes() -> None:
    result = await grade("has_urls", URL_STOPS, count=4)
    assert result.passed is True
    assert "'https://a.io/x', 'https://b.io/y', 'https://c.io/z'" in result.evidence


# --- the 20 formats --------------------------------------------------------------------------

FORMATS = {
    "phone_us": ("(408) 298-5437", "+1 408 298 5437"),
    "phone_intl": ("+44 7911123456", "+44 7911 123456"),
    "email": ("user@example.com", "user@localhost"),
    "url": ("https://example.com/a?b=1", "ftp://example.com"),
    "domain": ("sub.example.co.uk", "localhost"),
    "date_iso": ("2026-04-10", "2026-4-10"),
    "date_us": ("4/10/2026", "2026/04/10"),
    "time_24h": ("14:30:00", "1430"),
    "time_12h": ("2:30 PM", "2 PM"),
    "currency_usd": ("$1,234.56", "$1.5"),
    "currency_eur": ("€1.234,56", "1.234 €"),
    "zip_us": ("95110-1234", "9511"),
    "zip_uk": ("SW1A 1AA", "sw1a 1aa"),
    "percentage": ("99.9%", "95 %"),
    "ipv4": ("192.168.1.1", "192.168.1"),
    "uuid": ("550e8400-e29b-41d4-a716-446655440000", "550e8400-e29b-41d4-a716"),
    "hex_color": ("#FF5733", "#fff"),
    "latitude": ("37.3382", "37"),
    "longitude": ("-121.8863", "121"),
    "star_rating": ("4.5 stars", "4.5/5"),
}


def test_formats__the_registry_has_the_twenty_names() -> None:
    assert field_formats.names() == sorted(FORMATS)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_formats__fullmatch_accepts_valid_and_rejects_invalid(name: str) -> None:
    valid, invalid = FORMATS[name]
    assert field_formats.field_matches(name, valid)
    assert not field_formats.field_matches(name, invalid)


@pytest.mark.parametrize("name", sorted(FORMATS))
async def test_has_format__counts_hits_in_running_text(name: str) -> None:
    valid, _ = FORMATS[name]
    found = await grade("has_format", f"Here: {valid} .", format=name, count=1)
    assert found.passed is True, found.evidence
    missing = await grade("has_format", "nothing of that shape", format=name, count=1)
    assert missing.passed is False


def test_formats__inline_field_regex_is_a_fullmatch_on_re2() -> None:
    assert field_formats.field_matches(r"\d{5}", "95014")
    assert not field_formats.field_matches(r"\d{5}", "95014-1")
    assert not field_formats.field_matches("(?=x)", "x")  # RE2 rejects: never matches


# --- output files ----------------------------------------------------------------------------


async def test_output_files__first_match_is_the_output(tmp_path: Path) -> None:
    (tmp_path / "research").mkdir()
    (tmp_path / "research/b.md").write_text("beta")
    (tmp_path / "research/a.md").write_text("alpha Venues")
    result = await grade(
        "contains",
        "chat text without it",
        workspace=tmp_path,
        output_files=("research/*.md",),
        needle="Venues",
    )
    assert result.passed is True
    assert result.evidence.endswith("(in research/a.md)")


async def test_output_files__later_pattern_used_when_the_first_matches_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "out.json").write_text('{"ok": true}')
    result = await grade(
        "contains", "", workspace=tmp_path, output_files=("*.md", "*.json"), needle="ok"
    )
    assert result.passed is True and "out.json" in result.evidence


async def test_output_files__missing_output_fails_with_clear_evidence(tmp_path: Path) -> None:
    result = await grade(
        "not_contains", "Venues", workspace=tmp_path, output_files=("research/*.md",), needle="x"
    )
    assert result.passed is False
    assert result.evidence == "no output file: nothing in the workspace matches 'research/*.md'"


async def test_output_files__symlink_out_of_the_workspace_is_not_read(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret.md").write_text("Venues")
    os.symlink(tmp_path / "secret.md", workspace / "out.md")
    result = await grade("contains", "", workspace=workspace, output_files=("*.md",), needle="V")
    assert result.passed is False and "no output file" in result.evidence


# --- urls_reachable --------------------------------------------------------------------------


async def test_urls_reachable__skipped_when_network_is_off() -> None:
    result = await grade("urls_reachable", "https://example.com", count=1)
    assert result.passed is None
    assert result.evidence == "skipped: network is off for checks"


async def test_urls_reachable__no_urls_with_network_on() -> None:
    assert (await grade("urls_reachable", "none", network=True, count=1)).passed is False
    assert (await grade("urls_reachable", "none", network=True, count=0)).passed is True


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/admin",
        "http://localhost:8080/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://0.0.0.0/",
    ],
)
def test_vet__refuses_non_public_addresses(url: str) -> None:
    address, refusal = vet(url)
    assert address == "" and refusal.startswith("blocked:")
    checked = probe(url)
    assert not checked.reachable and checked.detail == refusal


def test_vet__refuses_other_schemes_and_unresolvable_hosts() -> None:
    def unresolvable(host: str, port: int) -> list[str]:
        raise OSError("no such host")

    assert vet("ftp://example.com/")[1].startswith("blocked: only http(s)")
    assert vet("https://nowhere.invalid/", unresolvable)[1] == (
        "blocked: nowhere.invalid does not resolve"
    )


def test_vet__a_host_with_any_private_address_is_refused() -> None:
    def mixed(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.1.2.3"]

    def public(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    assert "non-public address 10.1.2.3" in vet("https://example.com/", mixed)[1]
    for tunnel in ("64:ff9b::7f00:1", "2002:7f00:1::", "::ffff:10.0.0.1"):  # IPv4 inside IPv6
        assert vet("https://example.com/", lambda h, p, a=tunnel: [a])[1].startswith("blocked")
    assert vet("https://example.com/", public) == ("93.184.216.34", "")


async def test_urls_reachable__private_urls_fail_without_connecting() -> None:
    output = "see http://127.0.0.1/a and http://127.0.0.1/a and http://10.0.0.7/"
    result = await grade("urls_reachable", output, network=True, count=1)
    assert result.passed is False
    assert "0 reachable of 2 distinct URLs checked" in result.evidence
    assert "http://10.0.0.7/ → blocked" in result.evidence


def public(host: str, port: int) -> list[str]:
    return {"10.in.example": ["10.0.0.9"]}.get(host, ["93.184.216.34"])


def scripted_head(answers: dict[str, tuple[int, str]]) -> Any:
    def head(url: str, address: str) -> tuple[int, str]:
        assert address == "93.184.216.34"  # only vetted addresses are ever connected to
        return answers[url]

    return head


def test_probe__statuses_and_redirects_without_a_network() -> None:
    head = scripted_head(
        {
            "https://a.io/": (200, ""),
            "https://b.io/": (404, ""),
            "https://c.io/": (301, "/moved"),
            "https://c.io/moved": (204, ""),
            "https://d.io/": (302, "http://10.in.example/admin"),
            "https://e.io/": (302, "https://e.io/"),
        }
    )
    assert probe("https://a.io/", public, head).reachable
    assert probe("https://b.io/", public, head).detail == "404"
    assert probe("https://c.io/", public, head).reachable
    hop = probe("https://d.io/", public, head)
    assert not hop.reachable and "non-public address 10.0.0.9" in hop.detail
    loop = probe("https://e.io/", public, head)
    assert not loop.reachable and loop.detail == "error: more than 5 redirects"
