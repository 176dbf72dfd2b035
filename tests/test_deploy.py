"""A deployment that works as written: `./dev` on a Pi and in a folder it
cannot write, the systemd units (checked by systemd itself, their commands by the CLI's own
parser), the kiosk browser, the udev rule, and the docs that describe them."""
from __future__ import annotations

import configparser
import ctypes.util
import http.server
import os
import re
import shlex
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from companion.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
HARDWARE = ROOT / "hardware"
UNITS = sorted((HARDWARE / "systemd").glob("*.service"))
INSTALLED = "/opt/plunder-companion"          # where hardware/README.md clones the repository
KIOSK_DESKTOP = HARDWARE / "kiosk" / "plunder-kiosk.desktop"


def bash(script: str, cwd: Path = ROOT, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, **kw)


# ---- ./dev

@pytest.mark.slow
@pytest.mark.skipif(ctypes.util.find_library("zbar") is None, reason="libzbar is not installed here")
def test_a_present_system_library_is_never_taken_for_missing(tmp_path):
    """`ldconfig -p | grep -q` under pipefail failed with 141 at random (grep -q closes the
    pipe early), so a present libzbar looked missing and a non-root user got a sudo prompt."""
    calls = tmp_path / "calls"
    run = bash(f"""source ./dev
        apt-get() {{ echo "apt-get $*" >> {calls}; }}; sudo() {{ "$@"; }}
        missing_system_packages > {tmp_path}/missing
        for i in $(seq 25); do system_packages 2>/dev/null; done""")
    assert run.returncode == 0, run.stderr
    installs = calls.read_text().splitlines() if calls.exists() else []
    assert not any("libzbar0" in line for line in installs)
    if not (tmp_path / "missing").read_text().strip():          # nothing missing: apt is never asked
        assert installs == []


@pytest.mark.parametrize("cores, mem_kb, workers", [(2, 24_683_000, 3), (4, 3_880_000, 2), (2, 4_800_000, 3),
                                                   (4, 1_900_000, 1), (8, 65_000_000, 9), (1, 512_000, 1)])
def test_the_tests_run_one_worker_more_than_the_cores_and_one_per_1_5_gb_at_most(tmp_path, cores, mem_kb, workers):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(f"MemTotal:       {mem_kb} kB\nMemFree:        1000 kB\n")
    run = bash(f"source ./dev; MEMINFO_FILE={meminfo}; nproc() {{ echo {cores}; }}; test_workers")
    assert run.returncode == 0 and run.stdout.strip() == str(workers), run.stderr


def pi_model(tmp_path: Path, text: str) -> Path:
    model = tmp_path / "model"
    model.write_bytes(text.encode() + b"\0")       # as the device tree has it
    return model


@pytest.mark.parametrize("model,arch,installed,wanted", [
    ("Raspberry Pi 5 Model B Rev 1.0", "arm64", "", True),
    ("Raspberry Pi 4 Model B Rev 1.4", "armhf", "", True),
    (None, "arm64", "python3-lgpio", True),          # no device tree (a container on a Pi): the packages say
    (None, "arm64", "", False),                      # some other ARM machine
    (None, "amd64", "python3-picamera2", False),
    ("Generic DT board", "arm64", "", False),
])
def test_a_pi_gets_a_virtualenv_that_sees_picamera2_and_lgpio(tmp_path, model, arch, installed, wanted):
    model_file = pi_model(tmp_path, model) if model else tmp_path / "no-such-model"
    dpkg = (f'dpkg() {{ case "$1" in --print-architecture) echo {arch} ;; '
            f'-s) [ "$2" = "{installed}" ] ;; esac; }}')
    run = bash(f"source ./dev; PI_MODEL_FILE={shlex.quote(str(model_file))}; {dpkg}; venv_options")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == (["--system-site-packages"] if wanted else [])


def copy_of_dev(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "dev", folder / "dev")
    shutil.copy2(ROOT / "pyproject.toml", folder / "pyproject.toml")
    return folder


def test_setup_remakes_a_pi_virtualenv_made_without_the_system_packages(tmp_path):
    here = copy_of_dev(tmp_path / "repo")
    venv = here / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "companion").write_text("#!/bin/sh\n")
    (venv / "bin" / "companion").chmod(0o755)
    (venv / "pyvenv.cfg").write_text("include-system-site-packages = false\n")
    (venv / ".installed").touch()
    os.utime(here / "pyproject.toml", (1, 1))                       # older than .installed: up to date
    stubs = f"""
        source ./dev; PI_MODEL_FILE={shlex.quote(str(pi_model(tmp_path, 'Raspberry Pi 5 Model B Rev 1.0')))}
        system_packages() {{ :; }}
        python3() {{
          echo "python3 $*" >> calls
          printf '#!/bin/sh\\necho "pip $*" >> calls\\n' > .venv/bin/pip; chmod +x .venv/bin/pip
          echo "include-system-site-packages = true" > .venv/pyvenv.cfg
        }}
        setup; setup        # the second finds it current
    """
    run = bash(stubs, cwd=here)
    assert run.returncode == 0, run.stderr
    calls = (here / "calls").read_text().splitlines()
    assert calls[0] == "python3 -m venv --system-site-packages .venv"
    assert [c for c in calls if c.startswith("python3")] == calls[:1]      # made once


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to try ./dev as another user")
def test_setup_in_a_folder_it_cannot_write_says_what_to_do():
    """`sudo git clone … /opt/…` then `./dev setup` as yourself: one line, not a traceback."""
    top = Path(tempfile.mkdtemp(prefix="plunder-root-owned-"))
    try:
        top.chmod(0o755)
        here = copy_of_dev(top / "plunder-companion")
        here.chmod(0o755)
        run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                              "bash", str(here / "dev"), "setup"], cwd="/", capture_output=True, text=True,
                             timeout=60, env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/"})
        assert run.returncode == 1
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and "is not writable" in lines[0] and "sudo ./dev setup" in lines[0], run.stderr
        assert not (here / ".venv").exists()
    finally:
        shutil.rmtree(top)


def test_dev_without_a_command_prints_its_usage_from_any_folder(tmp_path):
    run = subprocess.run([str(ROOT / "dev")], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert run.returncode == 2 and "./dev demo" in run.stdout and "./dev test" in run.stdout


@pytest.mark.parametrize("command, passed", [("companion init --out x.toml", "init --out x.toml"),
                                             ("demo --folder night", "demo --folder night")])
def test_dev_runs_the_companion_in_the_callers_folder(tmp_path, command, passed):
    """`./dev companion init --out x.toml` from another folder writes x.toml there, not in the
    repository (and `--event x.toml` reads it from there)."""
    here = copy_of_dev(tmp_path / "repo")
    (here / ".venv" / "bin").mkdir(parents=True)
    companion = here / ".venv" / "bin" / "companion"
    companion.write_text('#!/bin/sh\necho "$PWD" > "$(dirname "$0")/ran-in"; echo "$@" >> "$(dirname "$0")/ran-in"\n')
    companion.chmod(0o755)
    (here / ".venv" / "pyvenv.cfg").write_text("include-system-site-packages = false\n")
    (here / ".venv" / ".installed").touch()
    os.utime(here / "pyproject.toml", (1, 1))
    caller = tmp_path / "venue"
    caller.mkdir()
    run = bash(f"source {here}/dev; PI_MODEL_FILE=/nonexistent; system_packages() {{ :; }}; "
               f"main {command}", cwd=caller)
    assert run.returncode == 0, run.stderr
    assert (here / ".venv" / "bin" / "ran-in").read_text().splitlines() == [str(caller), passed]


NOISE = "debconf: delaying package configuration, since apt-utils is not installed"


def sourced(here: Path, script: str) -> subprocess.CompletedProcess:
    """`script` after sourcing the dev in `here`, with apt-get and sudo stubbed."""
    return bash(f"""source ./dev; sudo() {{ "$@"; }}
        apt-get() {{ echo "{NOISE}"; echo "apt-get $*" >> calls; case "$*" in *nope) return 100 ;; esac; }}
        {script}""", cwd=here)


def test_installs_say_one_line_and_keep_apt_and_pips_output_in_a_log(tmp_path):
    here = copy_of_dev(tmp_path / "repo")
    run = sourced(here, "apt_install 'system packages' libfoo")
    assert run.returncode == 0 and run.stderr.splitlines() == \
        ["dev: installing system packages: libfoo (apt-get; its output in .dev-install.log)"], run.stderr
    assert NOISE in (here / ".dev-install.log").read_text()
    stubs = """python3() { mkdir -p .venv/bin; printf '#!/bin/sh\\necho "WARNING: Location ignored" >&2\\n' > .venv/bin/pip
                          chmod +x .venv/bin/pip; echo "setuptools: BuildBackendWarning"; }"""
    run = sourced(here, f"{stubs}; install_venv")
    assert run.returncode == 0 and len(run.stderr.splitlines()) == 1 and "installing the companion" in run.stderr, \
        run.stderr
    assert "WARNING: Location ignored" in (here / ".dev-install.log").read_text()


def test_a_failed_install_shows_its_output(tmp_path):
    here = copy_of_dev(tmp_path / "repo")
    run = sourced(here, "system_packages() { apt_install 'system packages' nope || exit 1; }; system_packages")
    assert run.returncode == 1 and NOISE in run.stderr and "dev: could not install nope" in run.stderr


def test_dev_test_installs_what_the_tests_need_and_goes_on_without_it(tmp_path):
    here = copy_of_dev(tmp_path / "repo")
    run = bash("source ./dev; PATH=/nonexistent missing_test_packages", cwd=here)
    assert {"chromium", "tmux", "systemd"} <= set(run.stdout.split()) <= {"chromium", "mosquitto", "tmux", "systemd"}
    (here / ".venv" / "bin").mkdir(parents=True)
    (here / ".venv" / "bin" / "python").write_text("#!/bin/sh\necho \"pytest $*\" >> calls\n")
    (here / ".venv" / "bin" / "python").chmod(0o755)
    run = sourced(here, "setup() { :; }; micropython_wasm() { :; }; missing_test_packages() { echo nope; }; main test -x")
    calls = (here / "calls").read_text().splitlines()
    assert run.returncode == 0 and "apt-get install -y -qq nope" in calls and calls[-1].startswith("pytest -m pytest")
    assert "dev: could not install nope" in run.stderr


def test_a_run_that_skips_tests_says_how_many_and_what_to_install(tmp_path):
    shutil.copy2(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_x.py").write_text(
        "import pytest\n"
        "@pytest.mark.skip(reason='chromium is not installed (apt-get install chromium)')\n"
        "def test_page(): pass\n"
        "@pytest.mark.skip(reason='chromium is not installed (apt-get install chromium)')\n"
        "def test_phone(): pass\n"
        "def test_rule(): pass\n")
    import sys
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    lines = run.stdout.strip().splitlines()
    assert lines[-2] == "2 tests skipped: 2 chromium is not installed (apt-get install chromium)", run.stdout
    assert "1 passed, 2 skipped" in lines[-1]


# ---- the systemd units

def unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser


def companion_commands(path: Path) -> list[list[str]]:
    """The companion command lines a unit runs (directly, inside sh -c, or inside tmux)."""
    commands = []
    for key in ("ExecStartPre", "ExecStart"):
        line = unit(path)["Service"].get(key)
        if not line:
            continue
        words = shlex.split(line)
        if words[:2] == ["/bin/sh", "-c"]:
            words = shlex.split(words[2].split(">")[0])
        for i, word in enumerate(words):
            if word.endswith("/companion"):
                commands.append(words[i:])
                break
    return commands


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_each_unit_passes_systemd_analyze_verify(path, tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (apt package systemd; .ci/run installs it)")
    missing = sorted(p for p in programs_run_by(path) if not p.startswith(INSTALLED + "/") and not os.access(p, os.X_OK))
    if missing:        # verify would only say so: the set-up installs them (test_the_set_up_installs_…)
        pytest.skip(f"{', '.join(missing)} is not installed here (apt-get install {' '.join(Path(m).name for m in missing)})")
    opt = tmp_path / "opt"
    companion = opt / ".venv" / "bin" / "companion"
    companion.parent.mkdir(parents=True)
    companion.write_text("#!/bin/sh\n")
    companion.chmod(0o755)
    copy = tmp_path / path.name
    copy.write_text(path.read_text(encoding="utf-8").replace(INSTALLED, str(opt)), encoding="utf-8")
    run = subprocess.run([analyze, "verify", "--man=no", str(copy)], capture_output=True, text=True, timeout=60)
    complaints = [line for line in (run.stdout + run.stderr).splitlines() if path.name in line]
    assert run.returncode == 0 and complaints == [], run.stdout + run.stderr


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_each_units_companion_command_is_one_the_cli_accepts(path, capsys):
    commands = companion_commands(path)
    assert commands and all(words[0] == f"{INSTALLED}/.venv/bin/companion" for words in commands)
    for words in commands:
        try:
            args = build_parser().parse_args(words[1:])
        except SystemExit:
            pytest.fail(f"{path.name}: {' '.join(words)}: {capsys.readouterr().err.strip()}")
        assert args.event == "/srv/plunder/event.toml"


def test_the_console_units_run_the_console_and_the_display_unit_serves_it():
    kinds = {}
    for path in UNITS:
        args = build_parser().parse_args(companion_commands(path)[-1][1:])
        kinds.setdefault(args.command, []).append(path.name)
        if args.command == "console":
            assert args.scan == "/srv/plunder/scans"
        if args.command == "display":
            assert args.serve and (args.host, args.port) == ("127.0.0.1", 8080)
    assert sorted(kinds) == ["console", "display"] and len(kinds["console"]) == 2


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_each_unit_restarts_but_gives_up_after_a_few_quick_failures(path):
    u = unit(path)
    assert u["Service"]["Restart"] in ("always", "on-failure")
    assert float(u["Service"]["RestartSec"]) >= 1
    assert int(u["Unit"]["StartLimitBurst"]) <= 10 and float(u["Unit"]["StartLimitIntervalSec"]) > 0
    assert u["Service"]["User"] == "plunder"


# ---- the kiosk

def kiosk_command() -> list[str]:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read_string(KIOSK_DESKTOP.read_text(encoding="utf-8"))
    assert entry["Desktop Entry"]["Type"] == "Application"
    return shlex.split(entry["Desktop Entry"]["Exec"])


def test_the_kiosk_opens_the_address_the_display_unit_serves():
    script, url = kiosk_command()
    assert script.startswith(INSTALLED + "/")
    in_repo = ROOT / script[len(INSTALLED) + 1:]
    assert in_repo.is_file() and in_repo.stat().st_mode & stat.S_IXUSR
    display = build_parser().parse_args(companion_commands(HARDWARE / "systemd" / "plunder-display.service")[-1][1:])
    assert re.fullmatch(rf"http://{re.escape(display.host)}:{display.port}/", url)


def test_the_kiosk_waits_for_the_display_then_opens_chromium_full_screen(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    chromium = bin_dir / "chromium"
    chromium.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/opened\n')
    chromium.chmod(0o755)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    kiosk = subprocess.Popen([str(HARDWARE / "kiosk" / "kiosk"), url], env=env, cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        threading.Event().wait(1.5)
        assert not (tmp_path / "opened").exists()                  # no server yet: still waiting
        threading.Thread(target=server.serve_forever, daemon=True).start()
        assert kiosk.wait(30) == 0
    finally:
        kiosk.kill()
        server.shutdown()
    opened = (tmp_path / "opened").read_text().split()
    assert "--kiosk" in opened and opened[-1] == url


def test_the_kiosk_without_chromium_says_so(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "bash").symlink_to(shutil.which("bash"))        # a PATH with bash and no Chromium
    run = subprocess.run([str(HARDWARE / "kiosk" / "kiosk")], env={"PATH": str(tmp_path / "bin")},
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 1 and "Chromium is not installed" in run.stderr


# ---- the udev rule and the docs

def test_the_udev_rule_names_the_cages_pico_as_the_docs_say():
    rules = [line for line in (HARDWARE / "udev" / "99-plunder-cage.rules").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert len(rules) == 1
    pairs = dict(re.findall(r'([A-Z_]+(?:\{\w+\})?)[+=]?=+"([^"]*)"', rules[0]))
    assert (pairs["SUBSYSTEM"], pairs["ATTRS{idVendor}"], pairs["ATTRS{idProduct}"]) == ("tty", "2e8a", "0005")
    assert pairs["SYMLINK"] == "plunder-cage" and pairs["GROUP"] == "dialout"
    assert 'url = "/dev/plunder-cage"' in (HARDWARE / "README.md").read_text()


def readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


DEPLOYMENT_TEXTS = {
    "README.md: Quick start": lambda: readme_section("Quick start"),
    "README.md: Running an event": lambda: readme_section("Running an event"),
    **{f"hardware/{p.relative_to(HARDWARE)}": (lambda p=p: p.read_text(encoding="utf-8"))
       for p in [HARDWARE / "README.md", *UNITS, *sorted((HARDWARE / "kiosk").iterdir()),
                 *sorted((HARDWARE / "udev").iterdir())]},
}


@pytest.mark.parametrize("name", DEPLOYMENT_TEXTS)
def test_the_deployment_texts_point_only_inside_the_repository(name):
    text = DEPLOYMENT_TEXTS[name]()
    assert "../" not in text and "ARCHITECTURE.md" not in text
    base = ROOT if name.startswith("README") else HARDWARE
    for path in re.findall(r"`((?:hardware|examples|kiosk|systemd|udev|firmware)/[\w./-]+)`", text):
        assert (base / path).exists() or (ROOT / path).exists(), f"{name}: {path} is not in the repository"
    for path in re.findall(rf"{INSTALLED}/([\w./-]+)", text):
        if not path.startswith(".venv/"):
            assert (ROOT / path).exists(), f"{name}: {INSTALLED}/{path} is not in the repository"


def documented_commands(text: str) -> list[list[str]]:
    """Each `companion …` in the text, as words (comments dropped), in order: the lines of its
    code blocks and its inline code (`ExecStart=... companion display ...` too)."""
    commands = []
    for block, inline in re.findall(r"```[a-z]*\n(.*?)```|`([^`\n]+)`", text, re.S):
        for line in block.splitlines() if block else [inline]:
            found = re.search(r"(?:^|\s)(companion\s.*)", line)
            words = shlex.split(found.group(1), comments=True) if found else []
            if words and "--help" not in words:
                commands.append(words)
    return commands


@pytest.mark.parametrize("name", ["README.md: Running an event", "hardware/README.md"])
def test_every_documented_command_is_one_the_cli_accepts(name, capsys):
    commands = documented_commands(DEPLOYMENT_TEXTS[name]())
    assert len(commands) >= 3
    for words in commands:
        try:
            build_parser().parse_args(words[1:])
        except SystemExit:
            pytest.fail(f"{name}: {' '.join(words)}: {capsys.readouterr().err.strip()}")


def test_the_night_of_checklist_goes_from_printing_to_the_display():
    checklist = readme_section("Running an event").split("### The night, step by step", 1)[1]
    steps = [" ".join(words[1:3]) for words in documented_commands(checklist)]
    order = ["print cards", "print balls", "calibrate --event", "link watch", "panel test", "start --event"]
    found = [next(i for i, step in enumerate(steps) if step.startswith(s)) for s in order]
    assert found == sorted(found), steps
    assert "plunder-display" in checklist and "plunder-companion" in checklist


def test_the_display_units_command_serves_what_the_kiosk_opens(tmp_path):
    """The display unit's ExecStart as written (only the event file and the port moved into the
    test's room), and the kiosk pointed at it: the projector's page is the audience display."""
    import socket
    import sys
    import urllib.request
    event = tmp_path / "event.toml"
    subprocess.run([sys.executable, "-m", "companion", "init", "--out", str(event), "--players", "3", "--seed", "1"],
                   check=True, capture_output=True, timeout=60)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    words = companion_commands(HARDWARE / "systemd" / "plunder-display.service")[-1]
    words = [str(event) if w == "/srv/plunder/event.toml" else str(port) if w == "8080" else w for w in words[1:]]
    server = subprocess.Popen([sys.executable, "-m", "companion", *words], cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "chromium").write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/opened\n')
    (bin_dir / "chromium").chmod(0o755)
    url = kiosk_command()[1].replace(":8080/", f":{port}/")
    try:
        kiosk = subprocess.run([str(HARDWARE / "kiosk" / "kiosk"), url], capture_output=True, text=True,
                               env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}, timeout=150)
        assert kiosk.returncode == 0, kiosk.stderr
        assert (tmp_path / "opened").read_text().split()[-1] == url
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "<title>強奪ビンゴ · Plunder Bingo</title>" in page       # the event's game, in both languages
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_tmux_console_units_commands_start_the_console_and_check_first(tmp_path):
    """plunder-companion-tmux.service's ExecStartPre, ExecStart and ExecStop as written, with
    the installed paths and the tmux socket moved into the test's room."""
    import sys
    companion = tmp_path / "opt" / ".venv" / "bin" / "companion"
    companion.parent.mkdir(parents=True)
    companion.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m companion "$@"\n')
    companion.chmod(0o755)
    srv = tmp_path / "srv"
    (srv / "scans").mkdir(parents=True)
    socket_name = f"deploy-test-{os.getpid()}"
    service = unit(HARDWARE / "systemd" / "plunder-companion-tmux.service")["Service"]

    def run(key: str) -> subprocess.CompletedProcess:
        line = (service[key].replace(INSTALLED, str(tmp_path / "opt")).replace("/srv/plunder", str(srv))
                .replace("-L plunder", f"-L {socket_name}"))
        return subprocess.run(shlex.split(line), cwd=srv, capture_output=True, text=True, timeout=60)

    check = run("ExecStartPre")                      # no event file yet: one line, and no start
    assert check.returncode != 0 and len(check.stderr.strip().splitlines()) == 1, check.stderr
    subprocess.run([str(companion), "init", "--out", str(srv / "event.toml"), "--players", "3", "--seed", "1"],
                   check=True, capture_output=True, timeout=60)
    subprocess.run([str(companion), "start", "--event", str(srv / "event.toml")], check=True, capture_output=True,
                   timeout=60)
    assert run("ExecStartPre").returncode == 0
    try:
        assert run("ExecStart").returncode == 0
        screen, deadline = "", time.monotonic() + 60
        while "card scanner ● ok" not in screen and time.monotonic() < deadline:
            time.sleep(0.5)
            screen = subprocess.run(["tmux", "-L", socket_name, "capture-pane", "-p", "-t", "console"],
                                    capture_output=True, text=True, timeout=10).stdout
        assert "Hardware" in screen and "card scanner ● ok" in screen, screen
    finally:
        run("ExecStop")
        subprocess.run(["tmux", "-L", socket_name, "kill-server"], capture_output=True, timeout=10)


# ---- the venue's steps as written, rehearsed on a fresh Debian (hardware/rehearse.py, ./dev rehearse)

def rehearsal():
    import importlib.util
    spec = importlib.util.spec_from_file_location("rehearse", HARDWARE / "rehearse.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_venue_puts_the_event_file_in_place_for_the_services_user():
    """`sudo cp event.toml /srv/plunder/` left it root's 0600: everything run as plunder was
    refused. The documented step hands it to plunder before anything runs as plunder."""
    steps = rehearsal().steps()
    placed = [i for i, line in enumerate(steps) if re.search(r"\bevent\.toml\s+/srv/plunder/?(\s|$)", line)]
    assert placed, "no marked step puts event.toml into /srv/plunder"
    words = shlex.split(steps[placed[0]], comments=True)
    assert words[:2] == ["sudo", "install"] and {"-o", "-g"} <= set(words), steps[placed[0]]
    assert words[words.index("-o") + 1] == words[words.index("-g") + 1] == "plunder"
    as_plunder = next(i for i, line in enumerate(steps) if line.startswith("sudo -u plunder"))
    assert placed[0] < as_plunder


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv (root without the right to read others' files)")
def test_the_consoles_pre_start_check_names_the_event_files_owner_and_the_fix(tmp_path):
    """The tmux unit's ExecStartPre as written, run by a user who is not the event file's owner
    (root without CAP_DAC_OVERRIDE: the kernel refuses it as it refused plunder root's file)."""
    import pwd
    import sys
    companion = tmp_path / "opt" / ".venv" / "bin" / "companion"
    companion.parent.mkdir(parents=True)
    companion.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m companion "$@"\n')
    companion.chmod(0o755)
    event = tmp_path / "event.toml"
    subprocess.run([str(companion), "init", "--out", str(event), "--players", "3", "--seed", "1"],
                   check=True, capture_output=True, timeout=60)
    os.chown(event, 65534, 65534)                           # another user's, 0600 as init writes it
    owner = pwd.getpwuid(65534).pw_name
    check = unit(HARDWARE / "systemd" / "plunder-companion-tmux.service")["Service"]["ExecStartPre"]
    words = shlex.split(check.replace(INSTALLED, str(tmp_path / "opt")).replace("/srv/plunder/event.toml", str(event)))
    run = subprocess.run(["setpriv", "--bounding-set=-dac_override,-dac_read_search", *words], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    lines = run.stderr.strip().splitlines()
    assert run.returncode != 0 and len(lines) == 1, run.stderr
    assert str(event) in lines[0] and f"it is {owner}'s (mode 0600)" in lines[0], lines[0]
    assert "runs as root" in lines[0] and f"sudo chown root: {event}" in lines[0], lines[0]


def programs_run_by(path: Path) -> set[str]:
    """The programs a unit's Exec lines start (systemd's -@:+! prefixes dropped)."""
    service = unit(path)["Service"]
    return {shlex.split(line)[0].lstrip("-@:+!") for key, line in service.items() if key.startswith("Exec")}


def test_the_set_up_installs_every_program_the_units_run():
    """tmux was never installed: the tmux console's unit failed `systemd-analyze verify` on a
    fresh Pi. Each program a unit runs comes with the system, the virtualenv, or the set-up."""
    installs = [shlex.split(line, comments=True) for line in rehearsal().steps() if "apt-get install" in line]
    packages = {word for words in installs for word in words[words.index("install") + 1:] if not word.startswith("-")}
    for path in UNITS:
        for program in programs_run_by(path):
            if program.startswith(INSTALLED + "/") or program in ("/bin/sh", "/usr/bin/sh"):
                continue
            assert Path(program).name in packages, f"{path.name} runs {program}: the set-up does not install it"


def run_session(tmp_path: Path, lines: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "--noprofile", "--norc", "-s"], input=rehearsal().session(lines), cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def test_the_rehearsal_runs_the_steps_as_one_session_and_stops_at_the_first_failure(tmp_path):
    """A shell opened by a step (`sudo -u plunder -i`) reads the steps after it, as it does for a
    person; a failure inside it stops the whole rehearsal, naming the step."""
    run = run_session(tmp_path, ["cd / && echo one", "bash   # a shell of its own, like sudo -u plunder -i",
                                 "echo inside $(pwd)", "false   # this fails", "echo never", "exit",
                                 "echo after"])
    assert run.returncode == 1
    assert "one" in run.stdout and "inside /" in run.stdout and "never" not in run.stdout
    assert "after" not in run.stdout
    assert run.stderr.strip().splitlines()[0] == "rehearse: this step failed: false   # this fails"
    run = run_session(tmp_path, ["bash", "cd /tmp", "exit", "echo after in $(pwd)",
                                 "reboot   # [live] needs the Pi"])
    assert run.returncode == 0 and f"after in {tmp_path}" in run.stdout, run.stdout + run.stderr
    assert "# not here (needs the Pi): reboot   # [live] needs the Pi" in run.stdout


def test_the_rehearsal_follows_the_set_up_and_the_venue_steps():
    """What `./dev rehearse` runs comes from the documents' marked blocks: the whole set-up, the
    units, the night's preparation and the venue, in order; only lines tagged [live] are left out."""
    module = rehearsal()
    steps = module.steps()
    order = ["apt-get install", "git clone ... /opt/plunder-companion", "./dev setup", "useradd", "/srv/plunder/scans",
             "systemctl enable", "companion init", "print cards", "event.toml /srv/plunder/", "sudo -u plunder -i",
             "companion start", "systemctl start"]
    found = [next((i for i, line in enumerate(steps) if s in line), None) for s in order]
    assert None not in found and found == sorted(found), dict(zip(order, found))
    live = [line for line in steps if module.is_live(line)]
    for needs_the_pi in ("companion calibrate", "companion link watch", "companion panel test", "udevadm trigger"):
        assert any(needs_the_pi in line for line in live), needs_the_pi
    script = module.rehearsed_session()
    assert all(f"{{ {line}\n" not in script for line in live)
    assert "git clone ... " not in script and f"git clone {module.CLONE_SOURCE} /opt/plunder-companion" in script


def test_dev_rehearse_as_a_user_says_it_needs_root(tmp_path):
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("needs setpriv to run as another user")
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    run = subprocess.run([*prefix, str(ROOT / "dev"), "rehearse"], cwd="/", capture_output=True,
                         text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/"})
    assert run.returncode == 1 and run.stderr.strip().splitlines() == [
        "rehearse: needs root (it builds a root with mmdebstrap and runs it with chroot): sudo ./dev rehearse"]
