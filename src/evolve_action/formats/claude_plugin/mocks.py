"""`claude plugin eval`'s mocked MCP servers, as `McpServer`s our mock server answers.

A suite's mocks are `evals/mocks/<server>/<tool>.md`, a case's own `<case>/mocks/<server>/<tool>.md`
(a tool both define is the case's). The file's body is the tool's answer; `{{input.<field>}}`
in it quotes the call's argument (our mock server fills it in at each call), and
`{{file:<path>}}` a fixture's text (read here, from the case's folder, within the
repository). Its front matter's `error: true` makes the answer a tool error. The `expect:`
block, their guard on a call's input, is not checked here: warned, naming the case, and the
call is answered. A server with no mock file never starts.
"""

from __future__ import annotations

import re
from pathlib import Path

from evolve_action.formats.base import LoadContext, Problems
from evolve_action.formats.documents import DocumentError, read
from evolve_action.formats.placement import inside
from evolve_action.model.mcp import McpMockTool, McpServer

MOCKS = "mocks"
MAX_TOOLS = 200  # mock files read per case; a bound, not their rule
MAX_QUOTED = 256 * 1024  # bytes of a fixture one answer quotes
_FILE = re.compile(r"\{\{\s*file:([^}]+?)\s*\}\}")


def mock_servers(
    folder: Path, ctx: LoadContext, problems: Problems, case: str
) -> tuple[McpServer, ...]:
    """The servers the suite's and the case's `mocks/` folders declare, for case `case`."""
    root = ctx.root.resolve()
    tools: dict[str, dict[str, McpMockTool]] = {}
    sources: dict[str, str] = {}
    read_so_far = 0
    for base in (_suite_dir(folder, root), folder.resolve()):
        mocks = base / MOCKS if base is not None else None
        if mocks is None or not mocks.is_dir() or not inside(mocks, root):
            continue
        for server in sorted(p for p in mocks.iterdir() if p.is_dir() and not p.is_symlink()):
            for path in sorted(server.glob("*.md")):
                read_so_far += 1
                if read_so_far > MAX_TOOLS:
                    problems.warn((), f"case {case!r}: only the first {MAX_TOOLS} mock files "
                                  "are read")  # fmt: skip
                    return _servers(tools, sources)
                tool = _tool(path, folder, root, problems, case)
                if tool is not None:
                    tools.setdefault(server.name, {})[tool.name] = tool
                    sources[server.name] = path.relative_to(root).as_posix()
    return _servers(tools, sources)


def _servers(
    tools: dict[str, dict[str, McpMockTool]], sources: dict[str, str]
) -> tuple[McpServer, ...]:
    return tuple(
        McpServer(name, mock=tuple(by_name.values()), source=sources[name])
        for name, by_name in tools.items()
    )


def _suite_dir(folder: Path, root: Path) -> Path | None:
    """The `evals` folder the case sits in (cases may be grouped in plain folders)."""
    here = folder.resolve()
    while inside(here, root) and here != root:
        if here.name == "evals":
            return here
        here = here.parent
    return None


def _tool(
    path: Path, folder: Path, root: Path, problems: Problems, case: str
) -> McpMockTool | None:
    rel = path.relative_to(root).as_posix()
    if path.is_symlink() or not inside(path.resolve(), root):
        problems.warn((), f"case {case!r}: the mock {rel} points outside the repository; unread")
        return None
    try:
        doc = read(path, rel)
    except DocumentError as exc:
        problems.warn((), f"case {case!r}: the mock {rel} cannot be read: {exc}")
        return None
    data = doc.data if isinstance(doc.data, dict) else {}
    front = data.get("front_matter")
    front = front if isinstance(front, dict) else {}
    if "expect" in front:
        problems.warn((), f"case {case!r}: the input guard `expect` of the mock {rel} is not "
                      "checked here; every call is answered")  # fmt: skip
    body = str(data.get("body", "")).strip()
    answer = _FILE.sub(lambda m: _fixture(m.group(1), folder, root, problems, case, rel), body)
    return McpMockTool(path.stem, answer, is_error=front.get("error") is True)


def _fixture(name: str, folder: Path, root: Path, problems: Problems, case: str, rel: str) -> str:
    target = (folder / name).resolve()
    if not inside(target, root) or not target.is_file():
        problems.warn((), f"case {case!r}: the mock {rel} quotes {name!r}, which is not a file "
                      "of the case's folder; it is left as written")  # fmt: skip
        return f"{{{{file:{name}}}}}"
    with target.open("rb") as handle:  # bounded, whatever the file's size
        raw = handle.read(MAX_QUOTED + 1)
    if len(raw) > MAX_QUOTED:
        problems.warn((), f"case {case!r}: the mock {rel} quotes {name!r}, over "
                      f"{MAX_QUOTED:,} bytes; its start is quoted")  # fmt: skip
    return raw[:MAX_QUOTED].decode("utf-8", errors="replace")
