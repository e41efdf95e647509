"""Running a command from a test script: its output, or an assertion that names the command."""
import subprocess


def run_command(*args, ok=True):
    """Runs args; asserts that it succeeded (ok) or failed (not ok); returns stdout + stderr."""
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    assert (p.returncode == 0) == ok, " ".join(map(str, args)) + "\n" + p.stdout + p.stderr
    return p.stdout + p.stderr
