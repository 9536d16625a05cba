"""HEAD requests for clauditor's `urls_reachable`, behind an SSRF guard.

The URLs come from model output, which the PR controls, so a request may only go to a host
whose every address is global: loopback, private, link-local (cloud metadata), reserved and
unresolvable hosts are refused without connecting. The connection then goes to the address
that was vetted (with the name kept for `Host` and TLS), so a second DNS answer cannot point
it elsewhere. Redirects are followed by hand, at most five, each target vetted again.
"""

from __future__ import annotations

import asyncio
import http.client
import ipaddress
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

TIMEOUT_S = 5.0
MAX_REDIRECTS = 5
MAX_URLS = 20  # clauditor checks the first 20 distinct URLs

Resolver = Callable[[str, int], list[str]]
Head = Callable[[str, str], tuple[int, str]]  # (url, vetted address) -> (status, Location)


@dataclass(frozen=True, slots=True)
class Probe:
    url: str
    reachable: bool
    detail: str  # "200", "blocked: ...", "error: ..."


def resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def vet(url: str, resolver: Resolver = resolve) -> tuple[str, str]:
    """(address to connect to, "") for a safe URL, else ("", why it is refused)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "", "blocked: only http(s) URLs with a host are checked"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        addresses = resolver(parts.hostname, port)
    except (OSError, ValueError, UnicodeError):
        return "", f"blocked: {parts.hostname} does not resolve"
    if not addresses:
        return "", f"blocked: {parts.hostname} does not resolve"
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if not all(a.is_global for a in (ip, *_embedded(ip))):
            return "", f"blocked: {parts.hostname} resolves to non-public address {ip}"
    return addresses[0], ""


_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address carries (mapped, 6to4, NAT64), each vetted as well."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    out = [a for a in (ip.ipv4_mapped, ip.sixtofour) if a is not None]
    if ip in _NAT64:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return out


class _PinnedHTTPS(http.client.HTTPSConnection):
    """Connects to a vetted address while verifying the certificate of the URL's host."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)


def _head(url: str, address: str) -> tuple[int, str]:
    parts = urlsplit(url)
    host = parts.hostname or ""
    conn: http.client.HTTPConnection
    if parts.scheme == "https":
        conn = _PinnedHTTPS(host, parts.port or 443, address, TIMEOUT_S)
    else:
        conn = http.client.HTTPConnection(address, parts.port or 80, timeout=TIMEOUT_S)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    try:
        conn.request("HEAD", target, headers={"Host": parts.netloc, "User-Agent": "evolve"})
        response = conn.getresponse()
        return response.status, response.getheader("Location") or ""
    finally:
        conn.close()


def probe(url: str, resolver: Resolver = resolve, head: Head = _head) -> Probe:
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        address, refusal = vet(current, resolver)
        if refusal:
            return Probe(url, False, refusal)
        try:
            status, location = head(current, address)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            return Probe(url, False, f"error: {type(exc).__name__}: {exc}")
        if 300 <= status < 400 and location:
            current = urljoin(current, location)
            continue
        return Probe(url, 200 <= status < 300, str(status))
    return Probe(url, False, f"error: more than {MAX_REDIRECTS} redirects")


async def probe_all(urls: list[str], resolver: Resolver = resolve) -> list[Probe]:
    """Probe distinct URLs in order (the first `MAX_URLS`), concurrently, off the event loop."""
    distinct = list(dict.fromkeys(urls))[:MAX_URLS]
    return list(await asyncio.gather(*(asyncio.to_thread(probe, u, resolver) for u in distinct)))
