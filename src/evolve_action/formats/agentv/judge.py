"""The parameters of agentv's `code_judge`: the command (a string, or an argv list), the folder
it runs in, its own settings (`config`, and any key AgentV passes through), and the files it
names, copied into the workspace at their repository paths so its relative paths keep working."""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path
from typing import Any

from evolve_action.formats.agentv.common import (
    At,
    Src,
    from_main_dir,
    mapping,
    resolve_file,
    root_rel,
)

SCRIPT_EXTENSIONS = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".sh", ".rb", ".pl")
_COMMON_KEYS = {"name", "type", "weight", "required", "config"}
_CODE_KEYS = {"script", "command", "cwd", "target"}


def code_judge(src: Src, at: At, ev: dict[str, Any]) -> dict[str, Any] | None:
    key = "script" if "script" in ev else "command"
    script = ev.get(key)
    out: dict[str, Any] = {}
    if isinstance(script, str) and script.strip():
        out["command"] = script
        try:
            tokens = shlex.split(script)
        except ValueError:
            tokens = []
    elif isinstance(script, list) and script and all(isinstance(a, str) for a in script):
        out["argv"] = list(script)
        tokens = list(script)
    else:
        src.error((*at, key), "code_judge needs `script:`, the command as a list of strings")
        return None
    base = _judge_dir(src, at, ev)
    if base is None:
        return None
    out["cwd"] = root_rel(src, base) if base != src.root else "."
    out["stage"] = _staged(src, (*at, key), tokens, base)
    config = dict(mapping(src, (*at, "config"), ev["config"]) or {}) if "config" in ev else {}
    # Unknown keys are the script's own settings (AgentV passes them through as `config`).
    config.update({k: v for k, v in ev.items() if k not in _COMMON_KEYS | _CODE_KEYS})
    out["config"] = config
    if "target" in ev:
        src.warn((*at, "target"), "ignored: judge scripts cannot call the agent under test here")
    return out


def _judge_dir(src: Src, at: At, ev: dict[str, Any]) -> Path | None:
    if "cwd" not in ev:
        return src.dir.resolve()
    cwd = ev["cwd"]
    if not isinstance(cwd, str):
        src.error((*at, "cwd"), "must be a folder path (a string)")
        return None
    try:
        base = (src.root / cwd.lstrip("/") if cwd.startswith("/") else src.dir / cwd).resolve()
        usable = base.is_relative_to(src.root) and base.is_dir()
    except (OSError, RuntimeError, ValueError):
        usable = False
    if not usable:
        src.error((*at, "cwd"), f"{cwd!r} is not a folder inside the repository")
        return None
    return base


def _staged(src: Src, at: At, tokens: list[str], base: Path) -> list[dict[str, str]]:
    """Files the command names (its script, data it reads), relative to its folder. The
    check copies them into the workspace at their repository paths once the agent is done,
    so the command's relative paths keep working there."""
    stage: list[dict[str, str]] = []
    for token in tokens:
        if token.startswith("-") or "\n" in token or len(token) > 512:
            continue
        candidate = base / token
        try:
            exists = candidate.resolve().is_file()
        except (OSError, ValueError):
            continue
        if not exists and not token.endswith(SCRIPT_EXTENSIONS):
            continue
        path = resolve_file(src, at, token, base=base, parents=False)
        if path is not None:
            entry = {"source": from_main_dir(src, path), "dest": root_rel(src, path)}
            # The bytes enter the case (and so its fingerprint): an edited judge re-runs.
            entry["sha256"] = _sha256(path)
            stage.append(entry)
    return stage


def _sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"
