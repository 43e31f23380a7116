"""scripts/fuzz.py's global-view programs: run on ranks against their
single-device results, a wrong result is a finding."""
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parents[2]
FUZZ = ROOT / "scripts" / "fuzz.py"
RUNNER = ROOT / "build" / "bin" / "hp-runner"

pytestmark = pytest.mark.skipif(shutil.which("mpirun") is None or not RUNNER.exists(),
                                reason="needs Open MPI and build/bin/hp-runner")


def fuzz(tmp_path, *flags):
    proc = subprocess.run([sys.executable, str(FUZZ), "--mutants", "0", "--seed", "3",
                           "--hp-runner", str(RUNNER), "--out", str(tmp_path), *flags],
                          capture_output=True, text=True, timeout=900)
    return proc.returncode, proc.stdout + proc.stderr


def test_global_programs_match_their_single_device_results(tmp_path):
    rc, out = fuzz(tmp_path, "--global-programs", "2")
    assert rc == 0, out
    assert "2 global-view programs on ranks" in out and "0 findings in hp" in out, out


def test_a_wrong_result_is_a_finding(tmp_path):
    # Every reference is wrong: the comparison on the ranks must see it.
    rc, out = fuzz(tmp_path, "--global-programs", "1", "--break-reference")
    assert rc == 1, out
    assert "1 findings in hp" in out, out
    found = list(tmp_path.glob("global-mismatch-hp-*.mlir"))
    assert len(found) == 1, out
    text = found[0].read_text()
    assert "--break-reference" in text.splitlines()[0]
    # What the ranks printed (the program's text names MISMATCH too).
    assert "MISMATCH result 0" in text.split("/* stdout:", 1)[1]
