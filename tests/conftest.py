"""The real browser the HTML tests (replays, reports, the marking report) drive: Debian's Chromium, through Playwright.

Without Chromium or the ``playwright`` package the browser tests are skipped,
unless ``REFEREE_REQUIRE_BROWSER`` is set (CI sets it): then they fail, so a
missing browser can never pass for a tested page.
"""
from __future__ import annotations

import compileall
import os
import signal
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
REQUIRE_BROWSER = "REFEREE_REQUIRE_BROWSER"

# Tests send Ctrl-C (SIGINT) to the commands they start.  A shell starts a
# background job (`python -m pytest &`, nohup) with SIGINT ignored, and every
# process inherits that, so Ctrl-C would do nothing and those tests would fail
# for how the suite was started.  A handler here is reset to the default in
# the commands the tests start (an ignored signal would stay ignored).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Agents inherit only a few of the referee's environment variables
# (referee/hosting/environment.py).  The test agents find their marker
# (which also tells the tests which processes a game left behind) and their
# flags in the environment: every referee the tests start passes them on,
# as an operator would with REFEREE_PASS_ENV.
os.environ["REFEREE_PASS_ENV"] = "REFEREE_TEST_PIDS,REFEREE_TEST_FLAG,REFEREE_TOURNAMENT_TEST_MARK"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """The suite on one worker more than the cores, each module's tests on one worker (its shared fixtures —
    servers, tournaments, the browser — start once), unless the command says otherwise (``-n 0``, ``-n 2``,
    ``-p no:xdist``).

    One more worker than cores because the tests mostly wait: with one worker per core the CPU was busy 59 % of
    a clean clone's run (agents' processes, sockets and clocks are waited on); with one more, on 2 cores, the
    same 2,897 tests took 404-405 s instead of 424 s, all passing, twice (2026-11-29, after the Dask
    executor's abandon race was fixed: it had failed one run of three with three workers).

    Asked here rather than in pyproject.toml's ``addopts``: those apply to every pytest run in the clone, and
    a student's own tests (docs/first-agent.md) run under a plain ``pip install -e .``, without pytest-xdist,
    where ``-n`` is an unknown option.  Only the suite's runs load this file before the command line is acted
    on (pytest calls this hook of the conftest files of the paths it was given), and this runs before
    xdist's own hook, which would act on ``-n``.
    """
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if getattr(config.option, "numprocesses", 0) is None and config.option.dist == "no":
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        config.option.numprocesses = cores + 1
        config.option.dist = "loadscope"
        config.option.loadscopereorder = False  # the order of pytest_collection_modifyitems below


#: The modules that take longest, longest first (summed seconds of a run on 2 cores, 2026-11-29).  xdist hands
#: out whole modules in the collection's order, by default the modules with most tests first: a slow module of
#: a few tests (a plain venv, an attack run, a browser) came last and ran alone while the other worker idled.
#: Longest first is the classic cure (LPT scheduling); a module missing here only runs later.
SLOWEST_FIRST = (
    "tournament/test_cli.py",  # 89 s
    "tournament/test_dask_cli.py",  # 77
    "hosting/test_isolation.py",  # 73
    "test_human_web.py",  # 57
    "test_first_agent_doc.py",  # 54
    "hosting/test_sealed.py",  # 39
    "hosting/test_sealed_kernel.py",  # 35
    "hosting/test_unsealed.py",  # 26
    "tournament/test_dask_executor.py",  # 24
    "marking/test_part_b.py",  # 23
    "battleground/test_battleground.py",  # 23
    "render/test_report_html.py",  # 22
    "agents/test_infexion_agents.py",  # 20
    "tournament/test_swiss_runs.py",  # 19
    "battleground/test_under_attack.py",  # 19
    "test_play_cli.py",  # 17
    "battleground/test_client.py",  # 16
    "tournament/test_config.py",  # 15
    "render/test_html_replay.py",  # 14
    "agents/test_infinitron_agents.py",  # 14
    "hosting/test_sealed_channels.py",  # 13
    "hosting/test_cachex_protocols.py",  # 13
    "games/test_conformance.py",  # 12
    "render/test_replay_cli.py",  # 11
    "analysis/test_html.py",  # 10
    "learning/test_learned_agent_doc.py",  # 8
    "learning/test_openspiel.py",  # 6
    "learning/test_learning_agent.py",  # 5
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the slowest modules first (see :data:`SLOWEST_FIRST`), keeping the order of the tests in a module."""
    if config.getoption("dist", "no") == "no" and not hasattr(config, "workerinput"):
        return
    tests = Path(__file__).resolve().parent
    gone = [name for name in SLOWEST_FIRST if not (tests / name).is_file()]
    if gone:  # a renamed module would silently run last again
        raise pytest.UsageError(f"tests/conftest.py: SLOWEST_FIRST names no such module: {', '.join(gone)}")
    rank = {str(tests / name): index for index, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(str(item.path), len(rank)))  # stable: the rest keep their order


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile the referee, the bundled agents and the tests' own agents once, before any test.

    The suite starts well over a thousand Python processes (agents, sealed or
    not, and the commands).  Where nothing writes ``__pycache__`` — a fresh
    clone, ``PYTHONDONTWRITEBYTECODE`` set, or a sandbox that mounts the code
    read-only — every one of them compiled the same modules from source again,
    about 50 ms a process.  Compiled files are what an installed package has;
    an edited module is still recompiled from source, as Python checks each
    file's size and time.  The controller does it once (xdist workers need not).
    """
    if hasattr(config, "workerinput"):
        return
    root = Path(__file__).resolve().parent.parent
    # tests/: the fixture agents the suite's agent processes import; benchmarks/: the attack run's clients.
    for package in ("referee", "agents", "tests", "benchmarks"):
        compileall.compile_dir(root / package, quiet=1)


def browser_problems() -> list[str]:
    """What is missing for the browser tests (empty: nothing)."""
    problems = []
    if not CHROMIUM.exists():
        problems.append(f"{CHROMIUM} is missing (sudo apt-get install chromium chromium-driver)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        problems.append(f'the playwright package cannot be imported ({exc}; pip install -e ".[dev]")')
    return problems


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium, shared by every browser test of the run."""
    problems = browser_problems()
    if problems:
        message = "no browser for the HTML tests: " + "; ".join(problems)
        if os.environ.get(REQUIRE_BROWSER):
            pytest.fail(f"{message}; {REQUIRE_BROWSER} is set, so this is a failure, not a skip", pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield chromium
        chromium.close()
