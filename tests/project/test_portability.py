"""Same results on every machine (issue 9): the demo's ``regress.py`` output does not
depend on the BLAS kernel or the SIMD path a CPU selects.

OpenBLAS (a ``DYNAMIC_ARCH`` build, as NumPy's wheels ship) picks its kernels
for the CPU at start-up; ``OPENBLAS_CORETYPE`` forces another. NumPy's own
SIMD loops are switched off with ``NPY_DISABLE_CPU_FEATURES``. Each kernel a
user's x86-64 CPU could select runs the demo's ``regress.py`` in a subprocess;
every run must write exactly the committed ``output/regress`` bytes.

Which names the installed OpenBLAS accepts is read from the library itself:
the core name it reports (``openblas_get_corename``, via threadpoolctl) after
the name is forced. Names that resolve to the same kernel run once. A kernel
this CPU cannot execute (its instructions missing: the subprocess dies with
SIGILL) is skipped with that reason.
"""

from __future__ import annotations

import json
import platform
import signal
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Dict, Optional

import pytest

from tests.conftest import REPO_ROOT
from tests.genotex.demo.test_demo import assert_same_tree, clean_environment

# The x86-64 kernels named by issue 9 (oldest first).
CORETYPES = ("Prescott", "Nehalem", "Sandybridge", "Haswell", "SkylakeX", "Cooperlake", "Zen")
# NumPy 2.x dispatch targets above the x86-64-v2 baseline.
NUMPY_SIMD_ABOVE_V2 = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"
NUMPY_SIMD_ABOVE_V3 = "X86_V4 AVX512_ICL AVX512_SPR"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                       reason="OPENBLAS_CORETYPE names x86-64 kernels"),
]

PROBE = ("import json, threadpoolctl, numpy\n"
         "info = [i for i in threadpoolctl.threadpool_info() if i['internal_api'] == 'openblas']\n"
         "print(json.dumps(info[0]['architecture'] if info else None))\n")


def environment(coretype: Optional[str], disabled_simd: str = "") -> Dict[str, str]:
    env = clean_environment()
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    if disabled_simd:
        env["NPY_DISABLE_CPU_FEATURES"] = disabled_simd
    return env


@lru_cache(maxsize=None)
def kernel_of(coretype: Optional[str]) -> Optional[str]:
    """The kernel OpenBLAS reports when ``coretype`` is forced (None: not OpenBLAS)."""
    done = subprocess.run([sys.executable, "-c", PROBE], env=environment(coretype),
                          capture_output=True, text=True, timeout=120)
    if done.returncode == -signal.SIGILL:
        pytest.skip(f"this CPU cannot execute the {coretype} kernel (SIGILL)")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_demo_regress(out: Path, env: Dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "regress.py", "--force", "--no-progress", "--regress-dir", str(out)],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode == -signal.SIGILL:
        pytest.skip("this CPU cannot execute the forced kernel (SIGILL)")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "37 done" in done.stdout, done.stdout


def test_the_installed_blas_is_openblas_with_selectable_kernels():
    kernels = {name: kernel_of(name) for name in CORETYPES}
    if kernel_of(None) is None:
        pytest.skip("NumPy is not linked against OpenBLAS here; kernels cannot be forced")
    # a DYNAMIC_ARCH build resolves these names to at least three distinct kernels
    assert len(set(kernels.values())) >= 3, kernels


@pytest.mark.parametrize("coretype", CORETYPES)
def test_regress_bytes_do_not_depend_on_the_openblas_kernel(coretype, tmp_path):
    kernel = kernel_of(coretype)
    if kernel is None:
        pytest.skip("NumPy is not linked against OpenBLAS here")
    first = min((name for name in CORETYPES if kernel_of(name) == kernel), key=CORETYPES.index)
    if first != coretype:
        pytest.skip(f"{coretype} resolves to the {kernel} kernel, already run as {first}")
    out = tmp_path / "regress"
    run_demo_regress(out, environment(coretype))
    assert_same_tree(out, REPO_ROOT / "output" / "regress")


@pytest.mark.parametrize("coretype, disabled", [("Nehalem", NUMPY_SIMD_ABOVE_V2),
                                                ("Haswell", NUMPY_SIMD_ABOVE_V3)],
                         ids=["x86-64-v2 machine", "x86-64-v3 machine"])
def test_regress_bytes_do_not_depend_on_numpy_simd(coretype, disabled, tmp_path):
    """An older CPU: OpenBLAS's kernel and NumPy's SIMD loops both without AVX-512."""
    out = tmp_path / "regress"
    run_demo_regress(out, environment(coretype, disabled))
    assert_same_tree(out, REPO_ROOT / "output" / "regress")


def test_forcing_a_kernel_changes_the_arithmetic():
    """The test above is not vacuous: two kernels disagree in the last bits of a product."""
    code = ("import numpy as np\n"
            "a = np.random.default_rng(0).standard_normal((257, 1031))\n"
            "print(repr(float((a @ a.T).sum())), repr(float(np.linalg.eigvalsh(a @ a.T)[-1])))\n")
    outputs = set()
    for coretype in ("Prescott", "SkylakeX", "Haswell", "Sandybridge"):
        if kernel_of(coretype) is None:
            pytest.skip("NumPy is not linked against OpenBLAS here")
        done = subprocess.run([sys.executable, "-c", code], env=environment(coretype),
                              capture_output=True, text=True, timeout=120)
        if done.returncode == 0:
            outputs.add(done.stdout)
    if len(outputs) < 2:
        pytest.skip("the kernels this CPU can run agree bit for bit on this product")
    assert len(outputs) >= 2
