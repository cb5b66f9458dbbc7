"""Running a pytest module as tests/CMakeLists.txt runs every test script, `python3 test_x.py
--iosc ... --iosrun ... --build-dir ... --source-dir ...`: main() hands those arguments to the
module's tests through the environment, and cli_args() reads them (ios_test_util.parse_args)."""
import json
import os
import sys

import pytest

from ios_test_util import parse_args

ARGV_VARIABLE = "IOS_TEST_ARGV"


def cli_args(add_arguments=None):
    """The script's arguments: those main() passed on, or else this process's own."""
    passed = os.environ.get(ARGV_VARIABLE)
    argv = json.loads(passed) if passed else sys.argv[1:]
    saved = sys.argv
    sys.argv = [saved[0]] + argv
    try:
        return parse_args(add_arguments)
    finally:
        sys.argv = saved


def main(test_file):
    """Runs the module's tests with this script's arguments; exits with pytest's status."""
    os.environ[ARGV_VARIABLE] = json.dumps(sys.argv[1:])
    sys.exit(pytest.main([test_file, "-v", "-p", "no:cacheprovider",
                          "--rootdir", os.path.dirname(os.path.abspath(test_file))]))
