"""Same results whatever the process environment: the main commands write the same bytes
under another hash seed, locale, time zone, umask, thread count, HOME and TMPDIR.

Complements ``test_portability.py`` (another CPU kernel) and ``test_two_clones.py``
(another checkout). Each command runs in a subprocess twice: once in this process's
environment and once in a hostile one that changes every setting at once
(``PYTHONHASHSEED`` reorders set and dict iteration over strings; a Turkish or German
locale changes case mapping and the decimal mark for code that consults the locale; a
time zone 14 hours east or 3.5 hours west of UTC moves local dates; umask 077, one or
two BLAS threads, HOME missing or unwritable, TMPDIR with spaces and non-ASCII letters),
and in a legacy one whose file names are not UTF-8 (a Latin-9 locale where installed,
else ASCII: ``LC_ALL=C`` with UTF-8 mode off), where the trait ``Sjögrens_Syndrome``
used to go missing (the commands now restart in UTF-8 mode: ``utils.runtime``).

* ``regress.py --force`` writes exactly the committed ``output/regress`` bytes.
* ``run_agent.py --method rules`` writes the same prediction tree.
* ``eval.py --report`` writes the same JSON, CSV and HTML reports (they hold no time
  stamp nor host name; the reference path is the only field that depends on where the
  command runs, and it is the same here).
"""

from __future__ import annotations

import contextlib
import locale
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import pytest

from tests.conftest import REPO_ROOT
from tests.genotex.demo.test_demo import assert_same_tree, clean_environment

pytestmark = pytest.mark.slow

Setting = Tuple[Dict[str, str], Tuple[str, ...], int]
SETTINGS = ("east", "west", "legacy")


def first_locale(*names: str, default: str = "C.UTF-8") -> str:
    """The first of ``names`` this machine has installed, else ``default``."""
    previous = locale.setlocale(locale.LC_ALL)
    try:
        for name in names:
            with contextlib.suppress(locale.Error):
                locale.setlocale(locale.LC_ALL, name)
                return name
    finally:
        locale.setlocale(locale.LC_ALL, previous)
    return default


def hostile_settings(scratch: Path) -> Dict[str, Setting]:
    """Name -> (variables set, variables removed, umask) of the environments tried."""
    tmpdir = scratch / "tmp dir ü"
    tmpdir.mkdir()
    # HOME is a file: nothing can be created under it (root ignores a read-only mode)
    home_file = scratch / "home is a file"
    home_file.write_text("")
    east = {"PYTHONHASHSEED": "12345", "TZ": "Pacific/Kiritimati",
            "LC_ALL": first_locale("tr_TR.UTF-8", "tr_TR.utf8"),
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "TMPDIR": str(tmpdir)}
    west = {"PYTHONHASHSEED": "1", "TZ": "America/St_Johns",
            "LC_ALL": first_locale("de_DE.UTF-8", "de_DE.utf8"),
            "OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2", "HOME": str(home_file)}
    # file names not in UTF-8: a Latin locale, else ASCII (C with UTF-8 mode turned off)
    legacy = {"PYTHONHASHSEED": "0", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
              "LC_ALL": first_locale("tr_TR.ISO-8859-9", "tr_TR.iso88599", default="C")}
    return {"east": (east, ("HOME",), 0o077), "west": (west, (), 0o002),
            "legacy": (legacy, (), 0o022)}


def environment(setting: Optional[Setting]) -> Tuple[Dict[str, str], Optional[int]]:
    env = clean_environment()
    if setting is None:
        return env, None
    variables, removed, umask = setting
    for name in removed:
        env.pop(name, None)
    env.update(variables)
    env["LANG"] = variables.get("LC_ALL", env.get("LANG", ""))
    return env, umask


def run(args: List[str], setting: Optional[Setting]) -> str:
    env, umask = environment(setting)
    done = subprocess.run([sys.executable, *args], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=600,
                          preexec_fn=None if umask is None else (lambda: os.umask(umask)))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> Dict[str, Setting]:
    return hostile_settings(tmp_path_factory.mktemp("environment"))


@pytest.fixture(scope="module")
def default_run(tmp_path_factory) -> Path:
    """The rules method's run folder in this process's environment."""
    folder = tmp_path_factory.mktemp("default run") / "run"
    run(["run_agent.py", "--method", "rules", "--run-dir", str(folder), "--no-progress"], None)
    return folder


def files(folder: Path) -> Iterator[Path]:
    return (p.relative_to(folder) for p in sorted(folder.rglob("*")) if p.is_file())


@pytest.mark.parametrize("name", SETTINGS)
def test_regress_bytes_do_not_depend_on_the_environment(name, settings, tmp_path):
    out = tmp_path / "regress"
    stdout = run(["regress.py", "--force", "--no-progress", "--regress-dir", str(out)],
                 settings[name])
    assert "37 done" in stdout, stdout
    assert_same_tree(out, REPO_ROOT / "output" / "regress")


@pytest.mark.parametrize("name", SETTINGS)
def test_rules_prediction_does_not_depend_on_the_environment(name, settings, default_run,
                                                             tmp_path):
    folder = tmp_path / "run"
    run(["run_agent.py", "--method", "rules", "--run-dir", str(folder), "--no-progress"],
        settings[name])
    assert_same_tree(folder / "prediction", default_run / "prediction")
    if name == "east":  # umask 077: the results stay private to their owner
        assert {(folder / "prediction" / p).stat().st_mode & 0o777
                for p in files(folder / "prediction")} == {0o600}


def test_eval_reports_do_not_depend_on_the_environment(settings, default_run, tmp_path):
    reports = {}
    for name in (None, *SETTINGS):
        stem = tmp_path / f"{name}"
        run(["eval.py", "-p", str(default_run / "prediction"), "--report",
             f"{stem}.json", "--html", f"{stem}.html", "--no-progress"],
            None if name is None else settings[name])
        reports[name] = {p.name.split(".", 1)[1]: p.read_bytes()
                         for p in tmp_path.glob(f"{name}.*")}
    assert set(reports[None]) >= {"json", "html", "analysis.csv", "preprocessing.csv"}
    for name in SETTINGS:
        assert reports[name] == reports[None], name
