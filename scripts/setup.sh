#!/usr/bin/env bash
# Installs everything ios needs on a fresh Debian 12 machine: the build tools and libraries from
# Debian's packages, and the Python packages that the scripts and tests use. Idempotent: a
# second run only checks.
set -euo pipefail

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libcli11-dev libspdlog-dev libfmt-dev libgtest-dev libssl-dev
  # oneDNN; its CMake config needs OpenCL, which Debian only recommends (Debian builds it with the
  # OpenCL GPU runtime), so the OpenCL headers and loader are named explicitly.
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers
  python3 python3-pip
  # The sanitizer and fuzzing job (scripts/sanitize.sh): clang with its sanitizer and libFuzzer
  # runtimes, and clang's OpenMP runtime.
  clang libclang-rt-dev libomp-dev
  # Graphviz draws the schedule pictures (iosc and iosrun --schedule-svg).
  graphviz
)

missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! python3 "$here/check_python_deps.py" >/dev/null 2>&1; then
  echo "setup: installing Python packages from scripts/requirements.txt"
  # Debian's own python3 refuses a plain pip install (PEP 668); fall back to the override there.
  python3 -m pip install -q -r "$here/requirements.txt" ||
    python3 -m pip install -q --break-system-packages -r "$here/requirements.txt"
fi
python3 "$here/check_python_deps.py"

if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: no CUDA toolkit found; the CUDA backend will not be built (CPU only)"
fi
echo "setup: done"
