"""Record and replay for `harness: cli`: the proxy's exchanges with the provider, as sent.

The CLIs' requests carry session ids, device ids, timestamps and the machine's OS version,
so their bytes differ on every run and cannot be the key (as the SDK path's canonical
request is, `providers/replay.py`). A CLI exchange is keyed by what determines it instead:
the run's identity (the CLI and its version, the model, the case, the skill's files, the
repetition; see `CliHarness`) and the request's position in that run, per endpoint and model.
The same run replayed gets the same answers in the same order; a changed eval or skill is a
different run and misses, with a message saying to record again.

Answers are stored verbatim (status, content type, body, streams included), in the same
file format as the SDK cassettes, one file per provider: `cli-<provider>.json`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evolve_action.execute.providers.replay import Cassette, load_cassette, save_cassette


@dataclass(frozen=True, slots=True)
class Recorded:
    status: int
    content_type: str
    body: bytes


def exchange_key(identity: str, method: str, path: str, model: str, ordinal: int) -> str:
    bare = path.split("?", 1)[0]
    text = json.dumps([identity, method, bare, model, ordinal], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class CliCassettes:
    """Every provider's exchanges of one job; thread-safe (the proxy's handlers share it)."""

    by_provider: dict[str, Cassette] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _served: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def path(directory: Path, provider: str) -> Path:
        return directory / f"cli-{provider}.json"

    @classmethod
    def load(cls, directory: Path, providers: list[str]) -> CliCassettes:
        out = cls()
        for provider in providers:
            out.by_provider[provider] = load_cassette(cls.path(directory, provider))
        return out

    def save(self, directory: Path) -> list[Path]:
        written = []
        with self._lock:
            for provider, cassette in sorted(self.by_provider.items()):
                path = self.path(directory, provider)
                save_cassette(path, cassette)
                written.append(path)
        return written

    def add(self, provider: str, key: str, about: dict[str, Any], answer: Recorded) -> None:
        with self._lock:
            cassette = self.by_provider.setdefault(provider, Cassette({}))
            entry = cassette.exchanges.setdefault(key, {"request": about, "responses": []})
            entry["responses"].append(
                {
                    "status": answer.status,
                    "content_type": answer.content_type,
                    "body": answer.body.decode("utf-8", errors="replace"),
                }
            )

    def get(self, provider: str, key: str) -> Recorded | None:
        with self._lock:
            cassette = self.by_provider.get(provider)
            entry = cassette.exchanges.get(key) if cassette else None
            if not entry or not entry["responses"]:
                return None
            n = self._served.get(key, 0)
            self._served[key] = n + 1
            data = entry["responses"][n % len(entry["responses"])]
        return Recorded(
            int(data["status"]),
            str(data["content_type"]),
            str(data["body"]).encode("utf-8"),
        )
