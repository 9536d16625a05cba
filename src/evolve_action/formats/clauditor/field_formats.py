"""clauditor's format registry: 20 named value shapes, one regex each.

The same regex serves two readings, as in clauditor: a Layer 2 field value must *fullmatch* it,
and a Layer 1 `has_format` assertion counts its non-overlapping hits anywhere in the output,
so partial hits count there (`-121.88` holds the `latitude` hit `21.88`). No format checks
ranges or meaning (`2026-99-99` is a `date_iso`).

These patterns are ours, not user input, so they run on Python's `re`: its Unicode `\\d` and
`\\s` are what clauditor's checks see. A field `format` that is not a registered name is an
inline regex (the seed's older rule) and goes through RE2 like every user pattern.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from evolve_action.util.regex import RegexError, compile_re2


@dataclass(frozen=True, slots=True)
class FormatDef:
    name: str
    regex: re.Pattern[str]
    example: str  # shown in messages, so an author sees the expected shape


def _fmt(name: str, pattern: str, example: str) -> FormatDef:
    return FormatDef(name, re.compile(pattern), example)


_HOST_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"

FORMATS: Mapping[str, FormatDef] = MappingProxyType(
    {
        f.name: f
        for f in (
            _fmt("phone_us", r"\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}", "(408) 298-5437"),
            _fmt("phone_intl", r"\+\d{1,3}[\s.-]?\d{4,14}", "+44 7911123456"),
            _fmt("email", r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}", "user@example.com"),
            _fmt("url", r"https?://[^\s)\"'>]+", "https://example.com/page"),
            _fmt(
                "domain",
                rf"(?i){_HOST_LABEL}(?:\.{_HOST_LABEL})*\.[a-z]{{2,}}",
                "example.co.uk",
            ),
            _fmt("date_iso", r"\d{4}-\d{2}-\d{2}", "2026-04-10"),
            _fmt("date_us", r"\d{1,2}/\d{1,2}/\d{2,4}", "4/10/2026"),
            _fmt("time_24h", r"\d{1,2}:\d{2}(?::\d{2})?", "14:30"),
            _fmt("time_12h", r"\d{1,2}:\d{2}\s?[AaPp][Mm]", "2:30 PM"),
            _fmt("currency_usd", r"\$[\d,]+(?:\.\d{2})?", "$1,234.56"),
            _fmt("currency_eur", r"€[\d.,]+", "€1.234,56"),
            _fmt("zip_us", r"\d{5}(?:-\d{4})?", "95110-1234"),
            _fmt("zip_uk", r"[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}", "SW1A 1AA"),
            _fmt("percentage", r"\d+(?:\.\d+)?%", "99.9%"),
            _fmt("ipv4", r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}", "192.168.1.1"),
            _fmt(
                "uuid",
                r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
                "550e8400-e29b-41d4-a716-446655440000",
            ),
            _fmt("hex_color", r"#[0-9a-fA-F]{6}", "#FF5733"),
            _fmt("latitude", r"-?\d{1,2}\.\d+", "37.3382"),
            _fmt("longitude", r"-?\d{1,3}\.\d+", "-121.8863"),
            _fmt("star_rating", r"\d(?:\.\d)?\s?(?:stars?|★|⭐)", "4.5 stars"),
        )
    }
)


def names() -> list[str]:
    return sorted(FORMATS)


def count(name: str, text: str) -> int:
    """Non-overlapping hits of a registered format anywhere in `text` (L1 `has_format`)."""
    return sum(1 for _ in FORMATS[name].regex.finditer(text))


def field_matches(fmt: str, value: str) -> bool:
    """Does an extracted field value fullmatch `fmt`, a registered name or an inline regex?

    An inline regex that RE2 rejects never matches; the loader reports it before any run.
    """
    known = FORMATS.get(fmt)
    if known is not None:
        return known.regex.fullmatch(value) is not None
    try:
        return compile_re2(fmt).fullmatch(value) is not None
    except RegexError:
        return False
