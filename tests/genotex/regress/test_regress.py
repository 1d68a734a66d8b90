"""regress.py end to end on generated preprocess trees (SPEC 5.7)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.regress_fixtures import small_benchmark

from genotex.cli import regress
from genotex.regress.runner import RunSettings, analyse_group, run_problems, stored_fingerprint
from utils.problems import Problem, enumerate_problems, load_task_info

from tests.conftest import REPO_ROOT as _ROOT
REPO = _ROOT


def _run(tree, regress_dir=None, *extra):
    args = ["--output-dir", str(tree["preprocess"].parent), "--task-info",
            str(tree["task_info"]), "--no-progress", *extra]
    if regress_dir is not None:
        args += ["--regress-dir", str(regress_dir)]
    return regress.main(args)


def _tree_bytes(folder: Path):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.json"))}


@pytest.fixture
def tree(tmp_path):
    return small_benchmark(tmp_path / "bench")


def test_all_problems_written_with_spec_format(tree, capsys):
    assert _run(tree) == 0
    out = capsys.readouterr().out
    assert "8 problems" in out and "6 done" in out and "2 skipped" in out
    assert "Psoriasis|Gender: no usable cohort with Gender" in out
    folder = tree["regress"]
    assert out.rstrip().splitlines()[-1] == f"results in {folder.resolve()}"
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.json"))
    assert names == ["Asthma/significant_genes_condition_Age.json",
                     "Asthma/significant_genes_condition_Gender.json",
                     "Asthma/significant_genes_condition_None.json",
                     "Asthma/significant_genes_condition_Obesity.json",
                     "Obesity/significant_genes_condition_None.json",
                     "Psoriasis/significant_genes_condition_None.json"]
    doc = json.loads((folder / "Asthma/significant_genes_condition_Age.json").read_text())
    genes = doc["significant_genes"]
    assert list(genes) == ["Variable", "Coefficient", "Absolute Coefficient"]
    assert len(set(map(len, genes.values()))) == 1
    assert genes["Absolute Coefficient"] == sorted(genes["Absolute Coefficient"], reverse=True)
    assert {"G0000", "G0001", "G0002"} <= set(genes["Variable"][:5])  # planted genes
    assert "Age" not in genes["Variable"]
    assert set(doc["cv_performance"]["prediction"]) == {"accuracy", "precision", "recall", "f1"}
    assert set(doc["cv_performance"]["selection"]) == {"precision", "recall", "f1", "jaccard"}
    assert doc["analysis"]["cohorts"] == ["GSE1001"] and doc["analysis"]["model"] == "Lasso"
    assert doc["analysis"]["covariates"]["names"] == ["Age"]
    obesity = json.loads((folder / "Obesity/significant_genes_condition_None.json").read_text())
    assert set(obesity["cv_performance"]["prediction"]) == {"normalized_mse", "r2"}
    two_step = json.loads((folder / "Asthma/significant_genes_condition_Obesity.json").read_text())
    assert two_step["analysis"]["regressors"] == ["G0010", "G0011", "G0012"]
    assert not set(two_step["significant_genes"]["Variable"]) & {"G0010", "G0011", "G0012"}
    assert two_step["analysis"]["n_genes"] == 117


def test_problems_and_paths_reach_the_workers_as_objects(tree):
    """No ``Trait|Condition`` text or ``str`` path round trip between runner and workers."""
    import pickle

    settings = RunSettings(str(tree["preprocess"]), tree["regress"], tree["task_info"])
    assert all(isinstance(path, Path) for path in
               (settings.preprocess_root, settings.regress_root, settings.task_info_path))
    problems = [Problem("Asthma", "Obesity"), Problem("Psoriasis", "Gender")]
    outcomes = analyse_group(problems, pickle.loads(pickle.dumps(settings)),
                             {problem: None for problem in problems})
    assert [o.problem for o in outcomes] == problems
    assert [o.status for o in outcomes] == ["done", "skipped"]
    assert pickle.loads(pickle.dumps(outcomes[1])).problem == problems[1]


def test_same_inputs_give_identical_bytes_for_any_jobs(tree, tmp_path):
    assert _run(tree, tmp_path / "one") == 0
    assert _run(tree, tmp_path / "again") == 0
    assert _run(tree, tmp_path / "two", "-j", "2") == 0
    one = _tree_bytes(tmp_path / "one")
    assert len(one) == 6
    assert one == _tree_bytes(tmp_path / "again") == _tree_bytes(tmp_path / "two")


def test_up_to_date_problems_are_skipped_until_inputs_change(tree, capsys):
    assert _run(tree) == 0
    capsys.readouterr()
    assert _run(tree) == 0
    assert "0 done, 6 up-to-date" in capsys.readouterr().out
    obesity = tree["preprocess"] / "Obesity" / "GSE2001.csv"
    lines = obesity.read_text().splitlines()
    lines[1] = lines[1].rsplit(",", 1)[0] + ",123.0"  # one gene value changes
    obesity.write_text("\n".join(lines) + "\n")
    assert _run(tree) == 0
    out = capsys.readouterr().out
    # the Obesity table feeds Obesity|None and the two-step Asthma|Obesity
    assert "2 done, 4 up-to-date" in out
    assert _run(tree, None, "--force") == 0
    assert "6 done, 0 up-to-date" in capsys.readouterr().out


def test_corrupt_cohort_fails_alone_with_clear_reason(tree, capsys):
    assert _run(tree) == 0
    capsys.readouterr()
    bad = tree["preprocess"] / "Psoriasis" / "GSE3001.csv"
    bad.write_text("sample,Psoriasis,G0000\nS1,1,not-a-number\nS2,0,1.5\n")
    assert _run(tree) == 1
    out = capsys.readouterr().out
    assert "0 done, 5 up-to-date, 2 skipped, 1 failed" in out
    assert f"Psoriasis|None: InputFileError: {bad}: non-numeric values" in out
    # the earlier result of the failed problem is kept and listed, never deleted silently
    stale = tree["regress"] / "Psoriasis/significant_genes_condition_None.json"
    assert stale.exists()
    assert "kept 1 earlier result(s)" in out and f"Psoriasis|None: {stale}" in out
    assert (tree["regress"] / "Asthma/significant_genes_condition_None.json").exists()
    # deleted only when asked
    assert _run(tree, None, "--remove-stale") == 1
    out = capsys.readouterr().out
    assert not stale.exists() and "removed 1 stale result(s) (--remove-stale)" in out
    assert (tree["regress"] / "Asthma/significant_genes_condition_None.json").exists()


def test_a_mistyped_or_empty_tree_is_an_error_and_deletes_nothing(tree, tmp_path, capsys):
    assert _run(tree) == 0
    before = _tree_bytes(tree["regress"])
    capsys.readouterr()
    base = ["--task-info", str(tree["task_info"]), "--no-progress",
            "--regress-dir", str(tree["regress"])]
    typo = tree["preprocess"].parent / "preprocesss"
    assert regress.main(base + ["--preprocess-dir", str(typo)]) == 2
    err = capsys.readouterr().err
    assert f"{typo}: preprocess tree not found" in err
    assert regress.main(base + ["--output-dir", str(tmp_path / "elsewhere")]) == 2
    assert "elsewhere/preprocess: preprocess tree not found" in capsys.readouterr().err
    empty = tmp_path / "empty_preprocess"
    empty.mkdir()
    assert regress.main(base + ["--preprocess-dir", str(empty)]) == 2
    assert "no <Trait>/cohort_info.json for any of the 3 traits" in capsys.readouterr().err
    for flag in ("--remove-stale", "--force"):
        assert regress.main(base + ["--preprocess-dir", str(typo), flag]) == 2
    assert _tree_bytes(tree["regress"]) == before


def test_a_corrupt_cohort_info_fails_its_problems_naming_the_file(tree, capsys):
    assert _run(tree) == 0
    capsys.readouterr()
    info = tree["preprocess"] / "Obesity" / "cohort_info.json"
    info.write_text('{"GSE2001": {"is_usable": tru')
    assert _run(tree) == 1
    out = capsys.readouterr().out
    # Obesity|None and the two-step Asthma|Obesity read it
    assert f"Obesity|None: InputFileError: {info}" in out
    assert f"Asthma|Obesity: InputFileError: {info}" in out
    assert "no usable cohort" not in out.split("failed:")[-1]


def test_an_invalid_cohort_record_fails_its_problems_naming_file_and_cohort(tree, capsys):
    info = tree["preprocess"] / "Obesity" / "cohort_info.json"
    records = json.loads(info.read_text())
    cohort = sorted(records)[0]
    records[cohort]["sample_size"] = "40"
    info.write_text(json.dumps(records))
    assert _run(tree) == 1
    out = capsys.readouterr().out
    assert (f"Obesity|None: InputFileError: {info}: record of {cohort!r}: 'sample_size' must "
            "be a non-negative integer or null") in out


def test_stored_fingerprint_reads_only_this_engines_results(tree):
    assert _run(tree) == 0
    path = tree["regress"] / "Obesity" / "significant_genes_condition_None.json"
    document = json.loads(path.read_text())
    assert stored_fingerprint(path) == document["analysis"]["fingerprint"]
    document["analysis"]["engine"] = "other-engine/1"
    path.write_text(json.dumps(document))
    assert stored_fingerprint(path) is None
    path.write_text("{broken")
    assert stored_fingerprint(path) is None


def test_an_unreadable_table_fails_a_two_step_problem_instead_of_switching_pair(tree, capsys):
    assert _run(tree) == 0
    capsys.readouterr()
    table = tree["preprocess"] / "Obesity" / "GSE2001.csv"
    table.write_bytes(b"")
    assert _run(tree) == 1
    out = capsys.readouterr().out
    assert f"Asthma|Obesity: InputFileError: {table}: empty CSV file" in out


def test_problem_and_trait_filters(tree, capsys):
    assert _run(tree, None, "--problems", "Asthma|Age", "Obesity|None") == 0
    assert "2 problems" in capsys.readouterr().out
    assert _run(tree, None, "--traits", "Psoriasis") == 0
    assert "2 problems" in capsys.readouterr().out
    capsys.readouterr()
    assert _run(tree, None, "--traits", "Nope") == 2
    assert "not in the task info: Nope" in capsys.readouterr().err


def test_unknown_names_get_the_closest_known_one(tree, capsys):
    assert _run(tree, None, "--traits", "asthmaa", "--problems", "Obesity|Nonne",
                "Asthma|Agee") == 2
    err = capsys.readouterr().err
    assert ("not in the task info: asthmaa (did you mean Asthma?), Obesity|Nonne (did you "
            "mean Obesity|None?), Asthma|Agee (did you mean Asthma|Age?)") in err
    assert _run(tree, None, "--model", "lass") == 2
    assert "--model lass: not a registered model (did you mean lasso?)" in capsys.readouterr().err


def test_help_states_the_union_and_every_registered_model():
    from tools.statistics.inputs import AUTO
    from tools.statistics.models import get_model, model_names

    built_in = tuple(name for name in model_names()  # a test may have registered its own
                     if type(get_model(name)).__module__.startswith("tools.statistics.models."))
    assert built_in == regress.BUILT_IN_MODELS
    assert regress.build_parser().parse_args([]).model == regress.AUTO_MODEL == AUTO
    text = " ".join(regress.build_parser().format_help().split())
    assert "--traits and --problems combine as a union" in text
    assert "built in: lasso, lmm" in text


def test_missing_task_info_is_a_clear_error(tmp_path, capsys):
    assert regress.main(["--task-info", str(tmp_path / "nothing.json"), "--no-progress"]) == 2
    assert "nothing.json: file not found" in capsys.readouterr().err


def test_help_lists_every_flag():
    text = subprocess.run([sys.executable, str(REPO / "regress.py"), "--help"],
                          capture_output=True, text=True, check=True).stdout
    for flag in ("--traits", "--problems", "--jobs", "--scheduler", "--force",
                 "--preprocess-dir", "--regress-dir", "--output-dir", "--task-info"):
        assert flag in text


@pytest.mark.slow
def test_unreachable_scheduler_is_a_clear_error(tree, capsys, refused_port):
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{refused_port}"
    assert _run(tree, None, "--scheduler", address) == 2
    assert f"cannot reach the Dask scheduler at {address}" in capsys.readouterr().err


@pytest.mark.slow
def test_dask_local_cluster_matches_serial(tree, tmp_path):
    from tests.dask_clusters import local_cluster

    task_info = load_task_info(tree["task_info"])
    problems = enumerate_problems(task_info)
    serial = RunSettings(tree["preprocess"], tmp_path / "serial", tree["task_info"])
    run_problems(problems, serial, jobs=1, progress=False)
    with local_cluster(2) as cluster:
        dask = RunSettings(tree["preprocess"], tmp_path / "dask", tree["task_info"])
        summary = run_problems(problems, dask, scheduler=cluster.scheduler_address,
                               progress=False)
    assert summary.counts()["done"] == 6
    assert _tree_bytes(tmp_path / "serial") == _tree_bytes(tmp_path / "dask")


def test_verbosity_flags_and_no_progress_bar_off_a_terminal(tree):
    """-v: one INFO line per problem; -vv: DEBUG decisions; stderr is a pipe: no bar."""
    base = [sys.executable, str(REPO / "regress.py"), "--output-dir",
            str(tree["preprocess"].parent), "--task-info", str(tree["task_info"]), "--force"]
    quiet = subprocess.run(base, capture_output=True, text=True, cwd=REPO)
    assert quiet.returncode == 0 and quiet.stderr == ""  # no bar, no log without -v
    info = subprocess.run(base + ["-v"], capture_output=True, text=True, cwd=REPO)
    assert "INFO genotex.regress.runner: Asthma|Age: done in" in info.stderr
    assert "DEBUG" not in info.stderr and "\r" not in info.stderr
    debug = subprocess.run(base + ["-vv", "-j", "2"], capture_output=True, text=True, cwd=REPO)
    # DEBUG lines come from the worker processes too
    assert "DEBUG tools.statistics.engine: Asthma|Age: cohorts GSE1001" in debug.stderr
    assert "-> Lasso" in debug.stderr


#: CPU seconds a worker may spend after its parent is killed. A worker that notices
#: at once spends at most the watcher's poll interval (0.5 s of wall time, less CPU);
#: one left computing for nobody spends what remains of its ~20 CPU-second group.
CPU_AFTER_KILL = 5.0


def _on_two_cores() -> None:
    """Run the command on two of this process's cores at most (Linux), so that each of
    its two workers computes with one thread (:func:`threads_per_problem`) on any
    machine. Before, a worker of a 64-core runner ran a problem with 32 threads, and the
    half second it takes to see its parent gone could cost more than
    ``CPU_AFTER_KILL`` CPU seconds although it stopped in time."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])


def _lines_in_background(stream) -> tuple:
    """Collect a text stream's lines in a thread; ``(lines, condition)`` to wait on."""
    import threading

    lines: list = []
    changed = threading.Condition()

    def read() -> None:
        for line in stream:
            with changed:
                lines.append(line)
                changed.notify_all()
        with changed:
            lines.append(None)  # end of stream: every writer has exited
            changed.notify_all()

    threading.Thread(target=read, daemon=True).start()
    return lines, changed


@pytest.mark.slow
def test_workers_exit_when_regress_is_killed(tmp_path):
    """kill -9 of ``regress.py -j 2`` leaves no worker computing for nobody.

    Nothing here depends on the machine's speed or load: the test waits (with deadlines
    of minutes) until both long trait groups have started computing, as the workers'
    own ``-vv`` lines show, kills the parent, then follows the workers' CPU time. The
    criterion is the CPU seconds a worker spends after the kill, which load does not
    inflate: a worker that watches its parent spends a fraction of a second, one left
    computing would spend the rest of its group (``CPU_AFTER_KILL``).
    """
    import signal
    import time

    psutil = pytest.importorskip("psutil")
    from tests.regress_fixtures import write_benchmark

    tree = write_benchmark(tmp_path / "big")  # each Big<k> group: ~20 CPU seconds
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "regress.py"), "-j", "2", "-vv", "--no-progress",
         "--output-dir", str(tree["preprocess"].parent), "--task-info", str(tree["task_info"])],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=_on_two_cores)
    lines, changed = _lines_in_background(proc.stderr)

    def started(trait: str) -> bool:
        return any(line and f"tools.statistics.engine: {trait}|" in line for line in lines)

    try:
        with changed:
            assert changed.wait_for(lambda: (started("Big0") and started("Big1"))
                                    or None in lines, timeout=600), \
                "the two long groups did not start within 10 minutes"
        assert None not in lines, "".join(line for line in lines if line)[-3000:]
        workers = [c for c in psutil.Process(proc.pid).children(recursive=True)
                   if "spawn_main" in " ".join(c.cmdline())]
        assert len(workers) == 2, f"expected 2 worker processes, found {workers}"
        cpu_at_kill = {w.pid: sum(w.cpu_times()[:2]) for w in workers}
    except BaseException:
        proc.kill()
        raise
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    alive = list(workers)
    deadline = time.monotonic() + 600  # a safety net only; the test ends long before
    while alive and time.monotonic() < deadline:
        _, alive = psutil.wait_procs(alive, timeout=0.5)
        for worker in list(alive):
            try:
                if worker.status() == psutil.STATUS_ZOMBIE:  # exited, not yet reaped
                    alive.remove(worker)
                    continue
                spent = sum(worker.cpu_times()[:2]) - cpu_at_kill[worker.pid]
            except psutil.NoSuchProcess:
                alive.remove(worker)
                continue
            if spent > CPU_AFTER_KILL:
                for other in alive:
                    other.kill()
                pytest.fail(f"worker {worker.pid} computed {spent:.1f} CPU seconds after "
                            "its parent was killed")
    assert not alive, f"workers still alive 10 minutes after the parent was killed: {alive}"
    with changed:
        assert changed.wait_for(lambda: None in lines, timeout=60)  # their stderr closed


# --------------------------------------------------------------------------- bad trees (issue 12)

def _rewrite_csv(path: Path, edit) -> None:
    lines = path.read_text().splitlines()
    path.write_text("\n".join(edit(lines)) + "\n")


def _set_column(lines, name, values):
    """Replace column ``name`` of a CSV's data rows by ``values`` (one per row)."""
    header = lines[0].split(",")
    at = header.index(name)
    rows = []
    for line, value in zip(lines[1:], values):
        cells = line.split(",")
        cells[at] = value
        rows.append(",".join(cells))
    return [lines[0]] + rows


def _duplicated_gene(lines):
    header = lines[0].split(",")
    header[header.index("G0005")] = "G0004"  # pandas would read it as G0004.1
    return [",".join(header)] + lines[1:]


def _duplicated_sample(lines):
    first = lines[1].split(",", 1)[0]
    third = lines[3].split(",", 1)
    return lines[:3] + [first + "," + third[1]] + lines[4:]


def _stray_two(lines):
    values = [line.split(",")[1] for line in lines[1:]]
    values[7] = "2.0"
    return _set_column(lines, "Psoriasis", values)


BAD_PSORIASIS_TABLES = {
    "duplicated gene column": (_duplicated_gene, "column 'G0004' occurs twice"),
    "duplicated sample id": (_duplicated_sample, "sample id 'SPso0000' occurs twice"),
    "constant trait": (lambda lines: _set_column(lines, "Psoriasis", ["1.0"] * 45),
                       "trait column 'Psoriasis' is constant (1 in all 45 samples"),
    "stray value in a binary trait": (_stray_two, "trait column 'Psoriasis' is coded 0/1 "
                                      "except 1 sample(s) with value 2"),
}


@pytest.mark.parametrize("case", sorted(BAD_PSORIASIS_TABLES))
def test_a_bad_linked_table_fails_its_problem_alone_naming_the_file(tree, capsys, case):
    edit, reason = BAD_PSORIASIS_TABLES[case]
    table = tree["preprocess"] / "Psoriasis" / "GSE3001.csv"
    _rewrite_csv(table, edit)
    assert _run(tree) == 1
    out = capsys.readouterr().out
    assert "5 done, 0 up-to-date, 2 skipped, 1 failed" in out
    assert f"Psoriasis|None: InputFileError: {table}: {reason}" in out
    assert not (tree["regress"] / "Psoriasis/significant_genes_condition_None.json").exists()


@pytest.mark.parametrize("at_line_end", [False, True])
def test_a_table_cut_to_half_its_bytes_fails(tree, capsys, at_line_end):
    """Cut in the middle of a row: that row is refused (its field count); cut at a line
    end: the rows are whole, and the sample size of cohort_info.json tells."""
    table = tree["preprocess"] / "Psoriasis" / "GSE3001.csv"
    data = table.read_bytes()
    cut = data[: len(data) // 2]
    if at_line_end:
        cut = cut[: cut.rindex(b"\n") + 1]
    table.write_bytes(cut)
    assert _run(tree) == 1
    out = capsys.readouterr().out
    info = tree["preprocess"] / "Psoriasis" / "cohort_info.json"
    assert "5 done, 0 up-to-date, 2 skipped, 1 failed" in out
    if at_line_end:  # the header and 22 whole rows
        assert (f"Psoriasis|None: InputFileError: {table}: 22 samples, but {info} records "
                "sample_size 45 for GSE3001") in out
    else:            # the 23rd row (line 24) is cut: never read with missing values
        assert re.search(rf"Psoriasis\|None: InputFileError: {re.escape(str(table))}:24: row "
                         r"has \d+ fields, the header has 122", out)


def test_a_covariate_without_values_is_blamed_by_name(tree, capsys):
    table = tree["preprocess"] / "Asthma" / "GSE1001.csv"
    _rewrite_csv(table, lambda lines: _set_column(lines, "Age", [""] * 60))
    assert _run(tree) == 1
    out = capsys.readouterr().out
    assert "5 done, 0 up-to-date, 2 skipped, 1 failed" in out
    assert (f"Asthma|Age: InputFileError: {table}: column 'Age' has a value for only 0 of "
            "the 60 samples with a trait value") in out
    assert "trait values" not in out


def test_an_unreadable_trait_table_fails_a_two_step_problem_instead_of_switching_pair(
        tree, capsys):
    # GSE1001 (60 samples) pairs first with Obesity; GSE1002 would pair next
    table = tree["preprocess"] / "Asthma" / "GSE1001.csv"
    table.write_bytes(b"")
    assert _run(tree) == 1
    out = capsys.readouterr().out
    assert f"Asthma|Obesity: InputFileError: {table}: empty CSV file" in out
    assert not (tree["regress"] / "Asthma/significant_genes_condition_Obesity.json").exists()


def test_an_unwritable_regress_folder_is_one_line_naming_it(tree, tmp_path, capsys):
    blocking = tmp_path / "results_file"
    blocking.write_text("not a folder")
    assert _run(tree, blocking) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"error: {blocking}" in err and "is a file, not a folder" in err
    assert blocking.read_text() == "not a folder"
