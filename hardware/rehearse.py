#!/usr/bin/env python3
"""Rehearse the deployment on a fresh Debian 12 root, as a venue would do it (`./dev rehearse`).

Builds a Debian 12 (bookworm, Raspberry Pi OS's base) root with mmdebstrap, gives it this
machine's apt and pip configuration and CA certificates (so it reaches the same registries), then
runs the documents' steps in it as written: every fenced block marked `<!-- rehearse -->` in
hardware/README.md and README.md, in that order, as one shell session (so `cd` and
`sudo -u plunder -i` carry on as they do for a person). A line tagged `[live]` in its comment
needs the Pi itself (its devices, its running services, a person) and is shown, not run. Then it
checks every unit with `systemd-analyze verify` and starts the console as its unit does, as
`plunder`, until the first screen shows. Needs root (chroot and mounts). The base root and pip's
downloads are kept in /var/cache/plunder-rehearse between runs; `--fresh` builds the root again.
"""
from __future__ import annotations

import argparse
import configparser
import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = ["hardware/README.md", "README.md"]          # the order a venue follows them in
MARK = "<!-- rehearse -->"
LIVE = "[live]"
CACHE = Path("/var/cache/plunder-rehearse")
LOG = Path("/var/tmp/plunder-rehearse.log")          # everything the steps said, the last run's
SUITE = "bookworm"
# What Raspberry Pi OS Lite has before anyone types a command; everything else the documents install.
BASE_PACKAGES = ["sudo", "python3", "ca-certificates", "systemd-sysv", "udev"]
CLONE_SOURCE = "/var/tmp/plunder-companion.git"        # the rehearsal's stand-in for the clone URL
CONSOLE_UNIT = "plunder-companion-tmux.service"
CONSOLE_PANES = ["Balls ─", "Hardware ─", "Journal ─"]   # tui/bingo/console.py's pane titles end so in en and ja+en
PASSED_ON_ENV = re.compile(r"^(PIP_\w+|(?:http|https|ftp|no|all)_proxy)$", re.I)


class RehearsalFailed(Exception):
    pass


# ---- the steps, from the documents

def marked_blocks(text: str) -> list[str]:
    """The fenced code blocks right after a `<!-- rehearse -->` line."""
    return re.findall(rf"^{re.escape(MARK)}\n```[\w-]*\n(.*?)^```", text, re.M | re.S)


def steps(repo: Path = REPO) -> list[str]:
    """The shell lines of the marked blocks, in the documents' order (continuations joined)."""
    lines = []
    for document in DOCUMENTS:
        for block in marked_blocks((repo / document).read_text(encoding="utf-8")):
            for line in block.replace("\\\n", " ").splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    lines.append(line.rstrip())
    return lines


def is_live(line: str) -> bool:
    return "#" in line and LIVE in line[line.index("#"):]


CLONE = "git clone ... "                              # the set-up's clone, its URL left to the reader


def session(lines: list[str], clone_source: str = CLONE_SOURCE) -> str:
    """One shell script for the whole session. Each line is echoed, run, and stops the rehearsal
    when it fails, in whichever shell reads it (`sudo -u plunder -i` reads the lines after it)."""
    out = []
    for line in lines:
        if is_live(line):
            out.append(f"printf '# not here (needs the Pi): %s\\n' {shlex.quote(line)}")
            continue
        line = line.replace(CLONE, f"git clone {clone_source} ", 1)
        said = shlex.quote(line)
        out.append(f"printf '$ %s\\n' {said}\n{{ {line}\n}} || {{ printf 'rehearse: this step failed: %s\\n' "
                   f"{said} >&2; exit 1; }}")
    return "\n".join(out) + "\n"


def rehearsed_session() -> str:
    lines = steps()
    if sum(CLONE in line for line in lines) != 1:
        raise RehearsalFailed(f"the marked steps should clone the repository once, with `{CLONE}FOLDER`")
    return session(lines)


# ---- the root

def apt_sources() -> list[str]:
    """This machine's apt sources (the files apt reads; not those set aside under other names)."""
    return [p for p in ["/etc/apt/sources.list", *sorted(glob.glob("/etc/apt/sources.list.d/*"))]
            if p.endswith((".list", ".sources")) and Path(p).is_file() and Path(p).stat().st_size]


def mirrors() -> list[str]:
    """This machine's sources of Debian 12, to build the root from the same mirrors."""
    return [p for p in apt_sources() if SUITE in Path(p).read_text(errors="replace")] or ["http://deb.debian.org/debian"]


def base_root(fresh: bool) -> Path:
    sources = mirrors()
    command = ["mmdebstrap", "--variant=important", f"--include={','.join(BASE_PACKAGES)}",
               "--aptopt=Acquire::Check-Valid-Until \"false\"", SUITE]
    key = hashlib.sha256("\0".join(command + [Path(p).read_text() if p.startswith("/") else p
                                               for p in sources]).encode()).hexdigest()[:12]
    tarball = CACHE / f"{SUITE}-{key}.tar"
    if tarball.exists() and not fresh:
        say(f"base root: {tarball} (cached; --fresh builds it again)")
        return tarball
    if shutil.which("mmdebstrap") is None:
        say("installing mmdebstrap")
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "install", "-y", "-qq", "mmdebstrap"], env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in CACHE.glob(f"{SUITE}-*.tar"):
        old.unlink()
    started = time.monotonic()
    partial = tarball.with_suffix(".partial.tar")
    run(command + [str(partial), *sources])
    partial.rename(tarball)
    say(f"base root: built in {time.monotonic() - started:.0f} s, kept as {tarball}")
    return tarball


def copy_in(root: Path, path: str, to: str | None = None) -> None:
    source, target = Path(path), root / (to or path).lstrip("/")
    if not source.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copy2(source, target)


def pip_config_files() -> list[tuple[str, str]]:
    """(here, in the root): pip's configuration files and folders, site-wide and root's own."""
    home = Path.home()
    return [(p, p) for p in ["/etc/pip.conf", "/etc/xdg/pip"]] + \
           [(str(home / d), f"/root/{d}") for d in [".config/pip", ".pip"]]


def local_paths_in_pip_config() -> list[str]:
    """Folders the pip configuration names (find-links, file:// indexes): bound into the root."""
    files = [Path(p) for p, _ in pip_config_files()]
    files = [f for p in files for f in (sorted(p.glob("*.conf")) if p.is_dir() else [p]) if f.is_file()]
    texts = [f.read_text(errors="replace") for f in files] + [v for k, v in os.environ.items() if k.startswith("PIP_")]
    found = [Path(p) for p in re.findall(r"(?:file://)?(/[\w./+-]+)", "\n".join(texts))]
    found = [p.parent if p.name == "simple" else p for p in found]     # an index's pages link to ../files
    return sorted({str(p) for p in found if p.is_dir() and not str(p).startswith(("/etc", "/usr"))})


def passed_on_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if PASSED_ON_ENV.match(k)}


def furnish(root: Path) -> None:
    """This machine's registries' configuration, and what Raspberry Pi OS has that Debian lacks."""
    for stale in [root / "etc/apt/sources.list", *(root / "etc/apt/sources.list.d").glob("*")]:
        stale.unlink(missing_ok=True)
    for path in [*apt_sources(), "/etc/apt/apt.conf.d", "/etc/apt/trusted.gpg.d", "/etc/apt/keyrings",
                 "/usr/local/share/ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "/etc/resolv.conf",
                 "/etc/hosts"]:
        copy_in(root, path)
    for keyring in re.findall(r"Signed-By:\s*(/\S+)|signed-by=(/[^\s\]]+)", "\n".join(
            Path(p).read_text(errors="replace") for p in apt_sources())):
        copy_in(root, next(k for k in keyring if k))
    for path, to in pip_config_files():
        copy_in(root, path, to)
    # sudo keeps the registries' settings, and systemctl acts as in any chroot (no systemd runs here)
    kept = sorted([*passed_on_env(), "SYSTEMD_OFFLINE"])
    (root / "etc/sudoers.d/rehearse").write_text(f'Defaults env_keep += "{" ".join(kept)}"\n', encoding="utf-8")
    (root / "etc/sudoers.d/rehearse").chmod(0o440)
    run(["chroot", str(root), "groupadd", "--system", "gpio"])     # Pi OS: the GPIO pins' group


def clone_source(root: Path) -> None:
    """The working tree as it is (uncommitted changes too), as a repository to clone."""
    target = root / CLONE_SOURCE.lstrip("/")
    files = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=REPO, check=True,
                           capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, files):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target / name)
    git = ["git", "-C", str(target), "-c", "user.name=rehearsal", "-c", "user.email=rehearsal@localhost"]
    run(git[:3] + ["init", "-q", "-b", "main"])
    run(git + ["add", "-A"])
    run(git + ["commit", "-q", "-m", "the working tree, rehearsed"])


# ---- running inside it

MOUNTS = """set -e
r=$1; shift
mount -t proc proc "$r/proc"; mount -t sysfs sys "$r/sys"; mount --rbind /dev "$r/dev"
mount -t tmpfs tmpfs "$r/run"; mkdir -p "$r/run/lock"
for d in $BIND; do mkdir -p "$r$d"; mount --bind "$d" "$r$d"; mount -o remount,bind,ro "$r$d"; done
mkdir -p "$PIP_CACHE" "$r/root/.cache/pip"; mount --bind "$PIP_CACHE" "$r/root/.cache/pip"
exec chroot "$r" "$@"
"""


def chroot(root: Path, script: str, timeout: float = 600, show_all: bool = False) -> None:
    """Runs a bash script in the root, in mount and process namespaces of its own: its mounts
    and every process it leaves go when it ends."""
    environment = {"PATH": "/opt/plunder-companion/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   "HOME": "/root", "USER": "root", "LOGNAME": "root", "LANG": "C.UTF-8", "TERM": "xterm-256color",
                   "EDITOR": "true",                     # `$EDITOR event.toml`: the file as it is
                   "SYSTEMD_OFFLINE": "1", **passed_on_env()}
    with tempfile.NamedTemporaryFile("w", suffix=".sh", dir=root / "tmp", delete=False) as file:
        file.write(script)
    command = ["unshare", "--mount", "--pid", "--fork", "--propagation", "private", "sh", "-c", MOUNTS, "mounts",
               str(root), "env", "-i", *(f"{k}={v}" for k, v in environment.items()),
               "bash", "--noprofile", "--norc", "-c",
               # from a pipe, which bash reads a line at a time: a shell a step opens reads the next steps
               f"cd /root && cat /tmp/{Path(file.name).name} | bash --noprofile --norc -s"]
    step_said = []
    bound = {"BIND": " ".join(local_paths_in_pip_config()), "PIP_CACHE": str(CACHE / "pip")}
    with subprocess.Popen(command, env={**os.environ, **bound}, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, errors="replace") as running, \
            LOG.open("a", encoding="utf-8") as log:
        deadline = time.monotonic() + timeout
        for line in running.stdout:              # each step and its verdict; what a step said, if it failed
            log.write(line)
            if line.startswith("rehearse:"):
                print("".join(step_said[-40:]), end="")
            if show_all or line.startswith(("$ ", "# not here", "rehearse:")):
                print(line, end="", flush=True)
                step_said.clear()
            else:
                step_said.append(line)
            if time.monotonic() > deadline:
                running.kill()
                raise RehearsalFailed(f"the steps took longer than {timeout / 60:.0f} minutes (all they said: {LOG})")
    if running.returncode:
        print("".join(step_said[-40:]), end="")
        raise RehearsalFailed(f"a step failed (exit {running.returncode}): its last lines are above, all of them in {LOG}")


def checks(root: Path) -> str:
    """Every unit installed and verified; the console started as its unit starts it."""
    units = sorted(p.name for p in (REPO / "hardware/systemd").glob("*.service"))
    installed = [f"/etc/systemd/system/{u}" for u in units]
    service = unit_service(root / "etc/systemd/system" / CONSOLE_UNIT) if (
        root / "etc/systemd/system" / CONSOLE_UNIT).exists() else None
    lines = ["set -u", "fail() { printf 'rehearse: %s\\n' \"$1\" >&2; exit 1; }",
             f"for u in {' '.join(installed)}; do [ -e \"$u\" ] || fail \"$u is not installed by the steps\"; done",
             f"echo '$ systemd-analyze verify {' '.join(installed)}'",
             f"said=$(systemd-analyze verify --man=no {' '.join(installed)} 2>&1); status=$?",
             "[ -n \"$said\" ] && printf '%s\\n' \"$said\"",
             "{ [ $status -eq 0 ] && ! printf '%s' \"$said\" | grep -q plunder-; } || fail 'systemd-analyze verify: see above'"]
    if service is None:
        return "\n".join(lines + [f"fail '{CONSOLE_UNIT} is not installed'"]) + "\n"
    as_user = ("cd {wd} && env -i HOME=$(getent passwd {user} | cut -d: -f6) USER={user} LANG=C.UTF-8 "
               "PATH=/usr/local/bin:/usr/bin:/bin {env} setpriv --reuid={user} --regid={group} --groups={groups} --"
               ).format(wd=shlex.quote(service["WorkingDirectory"]), user=service["User"], group=service["Group"],
                        groups=",".join([service["Group"], *service["SupplementaryGroups"].split()]),
                        env=" ".join(shlex.quote(a) for a in shlex.split(service.get("Environment", ""))))
    socket = re.search(r"-L (\S+)", service["ExecStart"]).group(1)
    session_name = re.search(r"-s (\S+)", service["ExecStart"]).group(1)
    panes = "*" + "*".join(shlex.quote(pane) for pane in CONSOLE_PANES) + "*"
    capture = f"{as_user} tmux -L {socket} capture-pane -p -t {session_name}"
    for key in ("ExecStartPre", "ExecStart"):
        said = f"$ ({CONSOLE_UNIT} as {service['User']}) {service[key]}"
        lines += [f"echo {shlex.quote(said)}",
                  f"{as_user} sh -c {shlex.quote(service[key])} || fail '{CONSOLE_UNIT}: {key} failed'"]
    lines += ["screen=''",
              "for i in $(seq 120); do screen=$(" + capture + " 2>&1) || break",
              f"  case \"$screen\" in {panes}) break ;; esac; sleep 0.5; done",
              "printf '%s\\n' \"$screen\"",
              f"case \"$screen\" in {panes}) ;; *) fail 'the console did not show its first screen' ;; esac",
              "echo 'rehearse: the console is up, as plunder, in tmux'",
              f"{as_user} sh -c {shlex.quote(service['ExecStop'])}"]
    return "\n".join(lines) + "\n"


def unit_service(path: Path) -> dict:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read_string(path.read_text(encoding="utf-8"))
    return dict(parser["Service"])


# ---- plumbing

def say(text: str) -> None:
    print(f"rehearse: {text}", flush=True)


def run(command: list[str], **kw) -> None:
    done = subprocess.run(command, **kw)
    if done.returncode:
        raise RehearsalFailed(f"{' '.join(command[:3])}… failed (exit {done.returncode})")


def rehearse(fresh: bool, keep: bool) -> float:
    started = time.monotonic()
    script = rehearsed_session()                      # a document that cannot be rehearsed says so first
    tarball = base_root(fresh)
    work = Path(tempfile.mkdtemp(prefix="plunder-rehearse-", dir="/var/tmp"))
    LOG.write_text("", encoding="utf-8")
    root = work / "root"
    try:
        root.mkdir()
        run(["tar", "-C", str(root), "-xf", str(tarball)])
        furnish(root)
        clone_source(root)
        say(f"running the marked steps of {' and '.join(DOCUMENTS)} in {root}")
        chroot(root, script, timeout=45 * 60)
        say("checking the units and starting the console as its unit does")
        chroot(root, checks(root), timeout=5 * 60, show_all=True)
    finally:
        if keep:
            say(f"the root is kept in {root}")
        elif not any(str(work) in line for line in Path("/proc/mounts").read_text().splitlines()):
            subprocess.run(["rm", "-rf", "--one-file-system", str(work)], check=False)
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev rehearse", description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh", action="store_true", help="build the base root again, not from the cache")
    parser.add_argument("--keep", action="store_true", help="keep the root afterwards (its path is printed)")
    parser.add_argument("--print", action="store_true", help="only print the session the documents make")
    args = parser.parse_args(argv)
    try:
        if args.print:
            print(rehearsed_session(), end="")
            return 0
        if os.geteuid() != 0:
            raise RehearsalFailed("needs root (it builds a root with mmdebstrap and runs it with chroot): sudo ./dev rehearse")
        say(f"passed in {rehearse(args.fresh, args.keep):.0f} s")
        return 0
    except RehearsalFailed as failure:
        print(f"rehearse: {failure}", file=sys.stderr)
        return 1
    except subprocess.TimeoutExpired as expired:
        print(f"rehearse: a step took longer than {expired.timeout:.0f} s", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
