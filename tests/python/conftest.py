"""Fixtures of the CLI tests: the CLIs and folders tests/CMakeLists.txt passes (a hand run
defaults to the build folder `build` of this checkout), and the benchmark networks. A hand run
that names paths passes them as --iosc=PATH (or with -c tests/python/pytest.ini): pytest takes a
separate path argument for a place to look for its configuration."""
import os
import types

import pytest

from ios_tools.cli import generate_models

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_addoption(parser):
    group = parser.getgroup("ios", "ios's CLI tests")
    group.addoption("--build-dir", default=os.path.join(SOURCE_DIR, "build"),
                    help="the ios build folder (default: SOURCE/build)")
    group.addoption("--source-dir", default=SOURCE_DIR, help="the ios checkout (default: this one)")
    group.addoption("--iosc", help="the iosc binary (default: BUILD/tools/iosc)")
    group.addoption("--iosrun", help="the iosrun binary (default: BUILD/tools/iosrun)")
    # Set by tests/CMakeLists.txt in a sanitizer build (IOS_SANITIZE), where the CLIs run several
    # times slower: a test may then check memory safety on a smaller matrix.
    group.addoption("--sanitized", action="store_true", help="the CLIs are a sanitizer build's")
    group.addoption("--seeds", help="test_random_cnns.py: the seeds FIRST:LAST, inclusive "
                    "(default: its fixed ones)")


@pytest.fixture(scope="session")
def build_dir(request):
    return os.path.abspath(request.config.getoption("--build-dir"))


@pytest.fixture(scope="session")
def source_dir(request):
    return os.path.abspath(request.config.getoption("--source-dir"))


@pytest.fixture(scope="session")
def iosc(request, build_dir):
    return request.config.getoption("--iosc") or os.path.join(build_dir, "tools", "iosc")


@pytest.fixture(scope="session")
def iosrun(request, build_dir):
    return request.config.getoption("--iosrun") or os.path.join(build_dir, "tools", "iosrun")


@pytest.fixture(scope="session")
def sanitized(request):
    return request.config.getoption("--sanitized")


@pytest.fixture(scope="session")
def args(iosc, iosrun, build_dir, source_dir, sanitized):
    """The CLIs and folders as one namespace, as ios_test_util's helpers take them."""
    return types.SimpleNamespace(iosc=os.path.abspath(iosc), iosrun=os.path.abspath(iosrun),
                                 build_dir=build_dir, source_dir=source_dir, sanitized=sanitized)


@pytest.fixture(scope="session")
def models(build_dir):
    """names -> {name: path}: generates the benchmark networks into BUILD/models (the generator
    skips those up to date)."""
    return lambda names: generate_models(os.path.join(build_dir, "models"), names)


@pytest.fixture(scope="session")
def residual_model(source_dir):
    """The small committed model most tests compile."""
    return os.path.join(source_dir, "testdata", "models", "residual_blocks_opset17.onnx")
