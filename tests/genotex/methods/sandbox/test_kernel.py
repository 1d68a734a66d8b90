"""The sandboxed kernel for real: writes, processes, memory, time, secrets.

One kernel serves the whole module (starting one takes about a second); each
test sets up the kernel state it relies on, so the tests run in any order and
on any xdist worker.
"""

from __future__ import annotations

import json
import os

import pytest

from genotex.methods.sandbox.kernel import (SandboxKernel, SandboxSettings, kernel_environment,
                                            plain_output_text)

GIB = 1 << 30


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    base = tmp_path_factory.mktemp("sandbox")
    settings = SandboxSettings(writable_root=base / "tree", scratch=base / "scratch",
                               memory_bytes=2 * GIB, step_timeout=20.0,
                               environment={"GENOTEX_INPUT": str(base / "inputs")})
    os.environ["MY_SERVICE_API_KEY"] = "sk-must-not-leak"
    try:
        with SandboxKernel(settings) as kernel:
            yield kernel, base
    finally:
        del os.environ["MY_SERVICE_API_KEY"]


def test_state_persists_and_cwd_is_the_tree(sandbox):
    kernel, base = sandbox
    assert kernel.execute("import os\nx = 41\nprint(os.getcwd())").text.strip() == str(
        (base / "tree").resolve())
    result = kernel.execute("x + 1")
    assert result.ok and result.text.strip() == "42" and result.execution_count


def test_writes_inside_the_tree_work(sandbox):
    kernel, base = sandbox
    result = kernel.execute("import pandas as pd\n"
                            "pd.DataFrame({'a': [1]}).to_csv('preprocess_probe.csv')\n"
                            "import tempfile\nprint(tempfile.mkstemp()[1])")
    assert result.ok, result.error
    assert (base / "tree" / "preprocess_probe.csv").is_file()
    assert result.text.strip().startswith(str(base / "scratch" / "tmp"))


@pytest.mark.parametrize("code", [
    "open({outside!r}, 'w').write('x')",
    "import pandas as pd; pd.DataFrame({{'a': [1]}}).to_csv({outside!r})",
    "import os; os.rename('preprocess_probe.csv', {outside!r})",
    "import shutil; shutil.copy('preprocess_probe.csv', {outside!r})",
    "import pathlib; pathlib.Path({outside!r}).touch()",
])
def test_writes_outside_the_tree_are_refused(sandbox, code):
    kernel, base = sandbox
    assert kernel.execute("open('preprocess_probe.csv', 'w').write('a')").ok
    outside = str(base / "outside.txt")
    result = kernel.execute(code.format(outside=outside))
    assert result.status == "error" and "SandboxError" in result.error
    assert not os.path.exists(outside)


def test_programs_and_network_are_refused(sandbox):
    kernel, _ = sandbox
    assert "SandboxError" in kernel.execute("import subprocess\n"
                                                "subprocess.run(['true'])").error
    assert "SandboxError" in kernel.execute("import os\nos.system('true')").error
    assert "network" in kernel.execute(
        "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)").error


def test_secrets_are_not_in_the_kernel_environment(sandbox):
    kernel, base = sandbox
    result = kernel.execute("import os\nprint(sorted(os.environ))\n"
                            "print(os.environ['GENOTEX_OUTPUT'], os.environ['GENOTEX_INPUT'])")
    assert "MY_SERVICE_API_KEY" not in result.text and "sk-must-not-leak" not in result.text
    assert str(base / "tree") in result.text and str(base / "inputs") in result.text


def test_the_memory_cap_raises_memory_error_and_the_kernel_lives_on(sandbox):
    kernel, _ = sandbox
    assert kernel.execute("x = 41").ok
    result = kernel.execute("block = bytearray(3 * 1024 ** 3)")
    assert result.status == "error" and "MemoryError" in result.error
    assert kernel.execute("print(x)").text.strip() == "41"


def test_a_step_over_its_timeout_is_interrupted(sandbox):
    kernel, _ = sandbox
    assert kernel.execute("x = 41").ok
    result = kernel.execute("import time\ntime.sleep(60)", timeout=1.0)
    assert result.status == "timeout" and "within 1 s" in result.error
    assert not result.restarted
    assert kernel.execute("print(x)").text.strip() == "41"


def test_a_step_that_ignores_interrupts_gets_a_restarted_kernel(sandbox):
    kernel, _ = sandbox
    assert kernel.execute("x = 41").ok
    code = ("import time\nwhile True:\n    try:\n        time.sleep(10)\n"
            "    except KeyboardInterrupt:\n        pass")
    result = kernel.execute(code, timeout=1.0)
    assert result.status == "timeout" and result.restarted
    assert "NameError" in kernel.execute("print(x)").error        # state is gone
    assert kernel.execute("x = 41").ok


def test_plain_output_text():
    outputs = [{"output_type": "stream", "text": "a\n"},
               {"output_type": "execute_result", "data": {"text/plain": "2"}},
               {"output_type": "error", "traceback": ["\x1b[31mValueError\x1b[0m: bad"]}]
    assert plain_output_text(outputs) == "a\n2\nValueError: bad\n"


def test_kernel_environment_hides_secrets(tmp_path):
    settings = SandboxSettings(tmp_path / "t", tmp_path / "s", hidden_variables=["MYVAR"])
    env = kernel_environment(settings, {"PATH": "/bin", "OPENAI_API_KEY": "k", "MYVAR": "v",
                                        "GITHUB_TOKEN": "t", "DB_PASSWORD": "p"})
    assert "PATH" in env and not {"OPENAI_API_KEY", "MYVAR", "GITHUB_TOKEN",
                                  "DB_PASSWORD"} & set(env)
    assert env["GENOTEX_OUTPUT"] == str(tmp_path / "t")


def test_the_environment_is_built_from_an_allow_list(tmp_path):
    """A key under an innocent name, or inside an allowed variable's value, never passes."""
    settings = SandboxSettings(tmp_path / "t", tmp_path / "s", hidden_values=["s3cr3t-v4lue"],
                               environment={"GENOTEX_INPUT": "/in", "LEAK": "x-s3cr3t-v4lue"})
    env = kernel_environment(settings, {"PATH": "/bin", "LC_ALL": "C", "ZZ_MODEL_AUTH": "k",
                                        "HOME": "/users/s3cr3t-v4lue", "RANDOM_NAME": "v"})
    assert env["PATH"] == "/bin" and env["LC_ALL"] == "C" and env["GENOTEX_INPUT"] == "/in"
    assert not {"ZZ_MODEL_AUTH", "RANDOM_NAME", "HOME", "LEAK"} & set(env)
    assert "s3cr3t" not in json.dumps(env)
    assert "s3cr3t" not in repr(SandboxSettings(tmp_path, tmp_path, hidden_values=["s3cr3t"]))


def test_another_process_environment_cannot_be_read(sandbox):
    kernel, _ = sandbox
    parent = kernel.execute("import os\nprint(open(f'/proc/{os.getppid()}/environ').read())")
    assert parent.status == "error" and "SandboxError" in parent.error
    assert "environ" in parent.error and "sk-must-not-leak" not in parent.text
    assert kernel.execute("print(len(open('/proc/self/environ').read()) > 0)").ok
