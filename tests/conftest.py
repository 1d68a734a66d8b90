"""Shared pytest fixtures: the real public data in ../shared/data."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from utils.paths import ENV_LOCK_DIR

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"

# Property tests take no timed decisions: Hypothesis's default 200 ms deadline per example,
# and its health check of slow data generation, fail a test on a loaded machine
# ("Unreliable test timings", "too_slow") however correct the code. They also draw the
# same examples on every run (derived from each test, no database of earlier failures in
# the checkout): a suite that passed passes again on a stranger's machine.
settings.register_profile("untimed", deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("untimed")


def shared_file(relative: str) -> Path:
    """Path of a file in ``../shared/data``; skips the test when it is absent."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"real test data not available: {path} (expected ../shared/data "
                    "beside the repository)")
    return path


def assert_snippet_runs(code: str) -> None:
    """Run Python ``code`` in a fresh interpreter at the repository root; it must succeed
    (its asserts are the test's)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.fixture(autouse=True, scope="session")
def private_lock_dir(tmp_path_factory):
    """Lock files of the tests (and of the kernels and scripts they start) go to a
    temporary folder, not to the user's lock folder (``utils.paths.lock_dir``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_LOCK_DIR, str(tmp_path_factory.mktemp("locks")))
        yield


@pytest.fixture
def refused_port() -> int:
    """A port of 127.0.0.1 where a connection is refused, for as long as the test runs.

    The socket is bound but never listens: connecting gets a reset (``connection
    refused``), and no other program can take the port meanwhile. A fixed "dead" port
    (the discard port 9) is refused only where nothing serves it.
    """
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield holder.getsockname()[1]


@pytest.fixture
def shared_data() -> Path:
    """The ``../shared/data`` folder (skips when absent)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real test data folder not available: {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def real_gene_maps(tmp_path_factory) -> Path:
    """``gene_synonym.json`` built once per session from the real NCBI gene_info.

    Returns the path of ``gene_synonym.json``; ``gene_entrez.json`` and
    ``gene_ensembl.json`` sit beside it. Skips when the data is absent.
    """
    from utils.gene_maps import build_gene_synonyms

    gene_info = shared_file("genes/Homo_sapiens.gene_info.gz")
    folder = tmp_path_factory.mktemp("real_gene_maps")
    return build_gene_synonyms(gene_info, folder)["synonyms"]
