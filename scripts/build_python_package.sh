#!/usr/bin/env bash
# Builds the Python package `ios` (python/, pyproject.toml) against an existing ios build, so that
# only its nanobind extension compiles, and installs it into BUILD/python-package (put that on
# PYTHONPATH). The tests' fixture (ctest python_package.build) and scripts/demo.sh run it; a user
# installs the package with `pip install .` instead, which also builds the library.
#
#   build_python_package.sh [BUILD]    (default ./build, or $IOS_BUILD_DIR)
#
# $PYTHON names the interpreter to build for (default python3), the one the tests run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-${IOS_BUILD_DIR:-$root/build}}" && pwd)"
werror="$(sed -n 's/^IOS_WERROR:BOOL=//p' "$build/CMakeCache.txt")"
"${PYTHON:-python3}" -m pip install --quiet --no-build-isolation --no-deps --upgrade \
  --root-user-action=ignore --target "$build/python-package" \
  -Ccmake.define.ios_DIR="$build" -Ccmake.define.IOS_WERROR="${werror:-OFF}" \
  -Cbuild-dir="$build/python-package-build" "$root"
