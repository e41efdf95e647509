"""Pass/fail bookkeeping shared by the Python test scripts: one line per check, then the closing
'N passed, M failed' line ctest's output ends with."""


def stderr_excerpt(stderr, limit=300):
    """What a failed command printed, shortened to `limit` characters, except a sanitizer's report,
    kept whole (its stack is what tells where the fault was)."""
    text = (stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr or "").strip()
    return text if "Sanitizer" in text else text[:limit]


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
