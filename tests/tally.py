"""Pass/fail bookkeeping shared by the Python test scripts: one line per check, then the closing
'N passed, M failed' line ctest's output ends with."""


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, problem=""):
        """Records one check: it passed when problem is empty, else problem says what went wrong."""
        print(("FAIL " if problem else "ok   ") + name + (": " + problem if problem else ""), flush=True)
        if problem:
            self.failed += 1
        else:
            self.passed += 1

    def finish(self):
        """Prints the closing line; returns the exit status."""
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0
