"""Build the action's image and start it the way GitHub starts a container action (issue 12).

    sudo .venv/bin/python -m scripts.image_check [--variant unusable|unusable-cli|usable|control]...

GitHub runs the image as root, PID 1, with Docker's default capabilities and seccomp profile
(which refuses the user namespaces bubblewrap needs), `/github/{workspace,file_commands,home,
workflow}` mounted, and the host's Docker socket at /var/run/docker.sock. This check does the
same with podman, on the loopback fakes of the providers and of GitHub (`--network host`),
and a pull request whose skill tries to read the keys through the Docker API, append to the
runner's file commands and write into the checkout (`scripts/image_scenario.py`):

- `unusable`: a Docker-like seccomp profile, so bubblewrap cannot start; commands must run
  as unprivileged users, and the comment must say so;
- `usable`: no seccomp filter and an unmasked /proc, so bubblewrap works; commands run in
  its namespaces, which must hide the socket and /github;
- `unusable-cli`, `usable-cli`: as `unusable` and `usable`, with `harness: cli` on one
  Anthropic and one OpenAI model: the real Claude Code and Codex (the pinned ones `./dev
  test` installs into .cache/clis) mounted read-only into the cache directory in the
  checkout, where `actions/cache` would restore them, so under /github, which the user level
  closes and bubblewrap masks. Every run must go through a copy of them the job staged, none
  may end as an error, and both CLIs' shells must run the attack (and fail at it);
- `control`: the same script run as root in the same container, unconfined; every attack
  must succeed, or the check would prove nothing.

In each confined variant the run must still post its comment and check. It needs root,
podman (with runc where crun cannot run containers here) and the base image
(python:3.11-slim-bookworm) in podman's storage or pullable, or else mmdebstrap to build a
stand-in for it from Debian's packages: `apt-get install podman runc mmdebstrap`. Without
them it says why and exits 0: tests/e2e/test_image.py turns that into a skip. Exit 1 lists
what failed.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from evolve_action.execute.harness.install import clis as cli_specs
from evolve_action.execute.harness.install import installed
from scripts.image_scenario import (
    PAYLOAD,
    Scenario,
    attack_script,
    cli_verdict,
    reset,
    run_quietly,
    scenario,
    verdict,
)

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("control", "unusable", "usable")
# Not in the default set: they need the CLIs (`cli_skip`).
CLI_VARIANTS = ("unusable-cli", "usable-cli")
CLIS = ROOT / ".cache" / "clis"
BUILD_TIMEOUT_S = 1800
RUN_TIMEOUT_S = 600
_LOCK = Path("/var/tmp/evolve-image-check.lock")
# Docker's default profile lets a process without CAP_SYS_ADMIN create no namespace: these
# are the rules of it that matter to bubblewrap (CLONE_NEWUSER is 0x10000000).
SECCOMP = {
    "defaultAction": "SCMP_ACT_ALLOW",
    "syscalls": [
        {"names": ["unshare", "setns"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
        {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
        {
            "names": ["clone"],
            "action": "SCMP_ACT_ERRNO",
            "errnoRet": 1,
            "args": [
                {
                    "index": 0,
                    "value": 0x10000000,
                    "valueTwo": 0x10000000,
                    "op": "SCMP_CMP_MASKED_EQ",
                }
            ],
        },
    ],
}
DOCKER_EXTRA_CAPS = "AUDIT_WRITE,MKNOD,NET_RAW"  # in Docker's default set, not podman's


def base_image() -> str:
    """The Dockerfile's FROM, as podman stores an image pulled from Docker Hub."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    name = re.search(r"^FROM\s+(\S+)", text, re.M)
    assert name is not None, "the Dockerfile has no FROM"
    image = name.group(1)
    return image if "/" in image else f"docker.io/library/{image}"


def _podman(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_quietly(["podman", *args], timeout)


def why_skip() -> str | None:
    """Why this machine cannot run the check, or None. A machine whose podman cannot start
    even a container of its own `true` is no place to judge our image: that skips. Once a
    trivial container starts, a failure to start our image is ours, and fails."""
    if os.geteuid() != 0:
        return "the image check needs root (container mounts owned by other users)"
    if shutil.which("podman") is None:
        return "podman is not installed (apt-get install podman runc mmdebstrap)"
    options = container_options()
    if isinstance(options, str):
        return options
    has_base = _podman("image", "exists", base_image()).returncode == 0
    if has_base or shutil.which("mmdebstrap") is not None:
        return None
    if _podman("pull", "-q", base_image(), timeout=600).returncode == 0:
        return None
    return f"{base_image()} cannot be pulled and mmdebstrap (for a stand-in) is not installed"


def cli_skip(clis: Path = CLIS) -> str | None:
    """Why the `unusable-cli` variant cannot run here (beyond `why_skip`), or None."""
    missing = [s.name for s in cli_specs().values() if installed(s, clis) is None]
    if missing:
        return (
            f"the pinned agent CLIs ({', '.join(missing)}) are not installed in {clis}: "
            "`./dev test` installs them with npm, and npm is missing or the install failed"
        )
    return None


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """One builder at a time on this machine (several clones may run their tests at once)."""
    with _LOCK.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def ensure_base() -> None:
    """The base image, or a stand-in for it built from Debian's packages: Python 3.11 and
    pip, linked into /usr/local/bin like the official image, pip free to install there."""
    image = base_image()
    if _podman("image", "exists", image).returncode == 0:
        return
    with tempfile.TemporaryDirectory(prefix="evolve-base-") as tmp:
        tarball = Path(tmp) / "base.tar"
        hook = (
            'ln -sf /usr/bin/python3.11 "$1/usr/local/bin/python"; '
            'ln -sf /usr/bin/python3.11 "$1/usr/local/bin/python3"; '
            'rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED'
        )
        argv = [
            "mmdebstrap", "--variant=minbase",
            "--include=python3.11,python3.11-venv,python3-pip,ca-certificates",
            f"--customize-hook={hook}", "bookworm", str(tarball), "http://deb.debian.org/debian",
        ]  # fmt: skip
        done = run_quietly(argv, BUILD_TIMEOUT_S)
        if done.returncode != 0:
            raise RuntimeError(f"mmdebstrap failed: {done.stderr[-2000:]}")
        done = _podman("import", "-q", str(tarball), image, timeout=BUILD_TIMEOUT_S)
        if done.returncode != 0:
            raise RuntimeError(f"podman import failed: {done.stderr[-2000:]}")


def _build_volumes(tmp: Path) -> list[str]:
    """The host's CA bundle, for networks that inspect TLS (pip would not trust them)."""
    bundle = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE") or ""
    if not bundle or not Path(bundle).is_file():
        return []
    conf = tmp / "pip.conf"
    conf.write_text("[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n")
    return [
        "-v", f"{bundle}:/etc/ssl/certs/ca-certificates.crt:ro", "-v", f"{conf}:/etc/pip.conf:ro",
    ]  # fmt: skip


def build_image() -> str:
    tag = "localhost/evolve-image-check:" + hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    with _locked():
        ensure_base()
        with tempfile.TemporaryDirectory(prefix="evolve-build-") as tmp:
            argv = [
                "build", "--isolation", "chroot", "--network", "host", "--pull=never",
                *_build_volumes(Path(tmp)), "-t", tag, "-f", str(ROOT / "Dockerfile"), str(ROOT),
            ]  # fmt: skip
            done = _podman(*argv, timeout=BUILD_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"podman build failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return tag


_OPTION_SETS = (
    [],
    ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"],
    ["--runtime", "runc", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"],
)


@functools.cache
def container_options() -> list[str] | str:
    """What `podman run` needs on this machine to start a trivial container (the host's
    `true` and the libraries it loads, in a scratch root: no image, nothing of ours), or why
    none starts. Some VMs refuse crun's cgroup handling or podman's open-files limit; the
    first combination that works wins."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="evolve-trivial-root-") as tmp:
        root = _trivial_root(Path(tmp))
        for options in _OPTION_SETS:
            if "runc" in options and shutil.which("runc") is None:
                continue
            argv = ["run", *options, "--rm", "--network", "none", "--rootfs", str(root), "/true"]
            done = _podman(*argv)
            if done.returncode == 0:
                return list(options)
            failures.append((done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1])
    tried = "; ".join(dict.fromkeys(failures))
    return f"podman cannot start even a trivial container on this machine ({tried})"


def _trivial_root(tmp: Path) -> Path:
    """A root filesystem holding `/true` and the shared libraries it needs (from `ldd`)."""
    program = Path(shutil.which("true") or "/bin/true").resolve()
    root = tmp / "root"
    (root / "true").parent.mkdir(parents=True)
    shutil.copy2(program, root / "true")
    listed = run_quietly(["ldd", str(program)], 30).stdout
    for library in re.findall(r"(/\S+\.so[.\d]*)", listed):
        target = root / library.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(Path(library).resolve(), target)
    return root


def run_options(image: str) -> list[str]:
    """The options that start a trivial container here, once they start our image too: if
    they do not, our image is what failed, and the check says so."""
    options = container_options()
    if isinstance(options, str):
        raise RuntimeError(options)
    probe = ["run", *options, "--rm", "--network", "none", "--entrypoint", "true", image]
    done = _podman(*probe)
    if done.returncode != 0:
        raise RuntimeError(
            f"podman starts a trivial container here, but not our image: {done.stderr[-2000:]}"
        )
    return options


def _security(variant: str, tmp: Path) -> list[str]:
    if variant == "usable":
        return ["--security-opt", "seccomp=unconfined", "--security-opt", "unmask=ALL"]
    profile = tmp / "seccomp.json"
    profile.write_text(json.dumps(SECCOMP))
    return ["--security-opt", f"seccomp={profile}", "--cap-add", DOCKER_EXTRA_CAPS]


def _run(sc: Scenario, image: str, options: list[str], extra: list[str], clis: Path | None) -> str:
    env = [arg for name, value in sc.env.items() for arg in ("-e", f"{name}={value}")]
    argv = [
        "run", "--rm", "--network", "host", "--workdir", "/github/workspace",
        *options, *sc.mounts.volumes(clis), *env, *extra,
    ]  # fmt: skip
    done = _podman(*argv, timeout=RUN_TIMEOUT_S)
    return f"exit {done.returncode}\n{done.stdout[-4000:]}{done.stderr[-4000:]}"


def check_variant(
    variant: str, image: str, options: list[str], work: Path, clis: Path = CLIS
) -> list[str]:
    reset(work)
    level, _, harness = variant.partition("-")  # `unusable-cli`: as `unusable`, harness cli
    cli = harness == "cli"
    with (
        tempfile.TemporaryDirectory(prefix="evolve-seccomp-") as tmp,
        scenario(work, "cli" if cli else "sdk") as sc,
    ):
        security = _security(level, Path(tmp))
        if level == "control":
            attack = ["--entrypoint", "/bin/sh", image, "-c", attack_script()]
            log = _run(sc, image, options, [*security, *attack], None)
            problems = []
            if not sc.docker.requests:
                problems.append("control: root did not reach the Docker API")
            if PAYLOAD not in (sc.mounts.file_commands / "set_env_1").read_text():
                problems.append("control: root could not append to the file commands")
            if not (sc.mounts.workspace / "PWNED.txt").exists():
                problems.append("control: root could not write into the checkout")
            return [f"{p}\n{log}" for p in problems]
        started = time.monotonic()
        log = _run(sc, image, options, [*security, image, "run"], clis if cli else None)
        elapsed = time.monotonic() - started
        words = (
            "namespaces (bubblewrap)"
            if level == "usable"
            else "unprivileged user, no namespaces: the network is not isolated"
        )
        problems = verdict(sc, confinement=words, pid1_checked=level == "unusable")
        if cli:
            problems += cli_verdict(sc)
        if not log.startswith(("exit 0", "exit 1")):
            problems.append("the run did not finish with 0 or 1")
        print(f"{variant}: {elapsed:.1f} s, {log.splitlines()[0]}", file=sys.stderr)
        return [f"{variant}: {p}" for p in problems] + ([log] if problems else [])


def check(variants: tuple[str, ...] = VARIANTS, clis: Path = CLIS) -> list[str]:
    """Build, then run each variant; the problems found (empty: all held)."""
    image = build_image()
    options = run_options(image)
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="evolve-image-check-") as tmp:
        for variant in variants:
            problems += check_variant(variant, image, options, Path(tmp) / variant, clis)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    choices = (*VARIANTS, *CLI_VARIANTS)
    parser.add_argument("--variant", action="append", choices=choices, help="default: all")
    parser.add_argument("--clis", type=Path, default=CLIS, help="the pinned CLIs' install")
    args = parser.parse_args(argv)
    reason = why_skip()
    if reason is not None:
        print(f"image check skipped: {reason}")
        return 0
    variants = tuple(args.variant or choices)
    if set(variants) & set(CLI_VARIANTS) and cli_skip(args.clis) is not None:
        print(f"{', '.join(CLI_VARIANTS)} skipped: {cli_skip(args.clis)}")
        variants = tuple(v for v in variants if v not in CLI_VARIANTS)
    problems = check(variants, args.clis)
    for problem in problems:
        print(problem, file=sys.stderr)
    print("image check: " + ("FAILED" if problems else "the attacks failed; the runs completed"))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
