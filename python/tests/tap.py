"""Runs the package's tests (python/tests/test_*.py, plain unittest, so
pytest runs them too) and prints TAP for Automake's driver: one line per
test, skips with their reasons, failures with their tracebacks.

    python3 python/tests/tap.py [test_module ...]
"""
import os
import sys
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0

    def _line(self, ok, test, note=""):
        self.n += 1
        print("%s %d - %s%s" % ("ok" if ok else "not ok", self.n, test.id(), note), flush=True)

    def _diagnose(self, err, test):
        for line in self._exc_info_to_string(err, test).rstrip().splitlines():
            print("#   " + line)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(False, test)
        self._diagnose(err, test)

    def addError(self, test, err):
        super().addError(test, err)
        self._line(False, test)
        self._diagnose(err, test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(True, test, " # SKIP " + reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line(True, test, " # TODO expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line(False, test, " # unexpected success")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:  # passing subtests are part of their test's line
            self._line(False, subtest)
            self._diagnose(err, test)


def main(names):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    loader = unittest.defaultTestLoader
    if names:
        suite = unittest.TestSuite(loader.loadTestsFromName(n) for n in names)
    else:
        suite = loader.discover(here, pattern="test_*.py", top_level_dir=here)
    result = TapResult()
    suite.run(result)
    print("1..%d" % result.n)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
