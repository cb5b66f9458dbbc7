#!/usr/bin/env bash
# Packs a CUDA build of ios into one archive that runs every GPU check on a GPU machine that
# has the CUDA runtime, cuDNN and cuBLAS but none of ios's other dependencies:
#
#   scripts/gpu_bundle.sh [--out DIR]        (build: $IOS_BUILD_DIR or ./build)
#
# writes DIR/ios-gpu-bundle.tar.xz (default DIR: gpu-bundle/ in the repository, git-ignored),
# which unpacks to ios-gpu-bundle/:
#   bin/       iosc, iosrun, ios_cuda_tests, ios_gpu_tests (stripped copies)
#   lib/       every shared library they need except the CUDA toolkit's (cudart, cuBLAS, cuDNN,
#              which the GPU machine provides) and glibc's; lib/gcc/ holds libstdc++ and
#              libgcc_s, which the runner leaves out when this machine's glibc is too old for them
#   scripts/   generate_models.py (+ models/), ort_reference.py, bench_gpu.py
#   tests/python/  the Python GPU tests; testdata/: the files the GPU tests read
#   run_gpu_checks.sh, run_gpu_checks.py, BUILD_INFO.txt
# and prints the device call that runs it (docs/gpu-performance.md). Exit status: 2 when the build
# has no CUDA binaries, 1 on any other failure (a library that does not resolve here, a bundle
# over 45 MiB, cuDNN or cuBLAS in the bundle).
# XZ_OPT picks the compression. The default, "-T2 --lzma2=preset=1,dict=32MiB", is the fast
# preset with a window larger than one binary: the four binaries share most of their code, and a
# 32 MiB window finds it across files. Measured on a 118 MB bundle (2 cores): 14.9 MB in 7 s; -9:
# 13.4 MB in 60 s; -6 -T2: 17.8 MB in 35 s; -1 -T2: 20.3 MB in 4 s. Unpacking takes about 1 s.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${IOS_BUILD_DIR:-$root/build}"
out_dir="$root/gpu-bundle"
max_bytes=$((45 * 1024 * 1024))
name=ios-gpu-bundle

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out_dir="${2:?--out needs a folder}"; shift 2 ;;
    --out=*) out_dir="${1#--out=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu_bundle: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "gpu_bundle: $*" >&2; exit 1; }
no_cuda() { echo "gpu_bundle: $*" >&2; exit 2; }

start=$(date +%s.%N)
[ -d "$build_dir" ] || no_cuda "no build folder $build_dir (set IOS_BUILD_DIR or run scripts/build.sh)"
build_dir="$(cd "$build_dir" && pwd)"
cache="$build_dir/CMakeCache.txt"
[ -f "$cache" ] || no_cuda "no CMakeCache.txt in $build_dir: build ios first (scripts/build.sh)"
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -1; }
backend="$(cache_value IOS_CUDA_BACKEND)"
[ "$backend" = ON ] || no_cuda "the build in $build_dir has no CUDA backend (IOS_CUDA_BACKEND" \
  "is '${backend:-unset}' in CMakeCache.txt): build with nvcc available (-DIOS_ENABLE_CUDA=ON)"
binaries=(tools/iosc tools/iosrun tests/cuda/ios_cuda_tests tests/cuda/ios_gpu_tests)
for bin in "${binaries[@]}"; do
  [ -x "$build_dir/$bin" ] || no_cuda "$build_dir/$bin is missing: build ios with the CUDA" \
    "backend and its tests first (scripts/build.sh)"
done

stage="$(mktemp -d "${TMPDIR:-/tmp}/ios-gpu-bundle.XXXXXX")"
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
archive="$out_dir/$name.tar.xz"
tmp_archive="$out_dir/.$name.tar.xz.tmp.$$"
trap 'rm -rf "$stage"; rm -f "$tmp_archive"' EXIT
b="$stage/$name"
mkdir -p "$b/bin" "$b/lib/gcc" "$b/scripts" "$b/tests/python" "$b/testdata"

# Keeps a stripped copy of an ELF file when that is smaller; never touches the original.
copy_stripped() {  # copy_stripped SOURCE DEST
  cp -L "$1" "$2"
  if strip --strip-unneeded -o "$2.stripped" "$2" 2>/dev/null &&
     [ "$(stat -c %s "$2.stripped")" -lt "$(stat -c %s "$2")" ]; then
    mv -f "$2.stripped" "$2"
  else
    rm -f "$2.stripped"
  fi
}

# --- bin/ -----------------------------------------------------------------------------------
for bin in "${binaries[@]}"; do
  copy_stripped "$build_dir/$bin" "$b/bin/$(basename "$bin")"
  chmod 755 "$b/bin/$(basename "$bin")"
done

# --- lib/: the closure of their libraries under ldd, without CUDA's and glibc's --------------
is_glibc() {
  case "$1" in
    linux-vdso.so*|linux-gate.so*|ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*| \
    librt.so.*|libutil.so.*|libresolv.so.*|libmvec.so.*|libanl.so.*|libnsl.so.*|libnss_*| \
    libBrokenLocale.so.*|libthread_db.so.*|libc_malloc_debug.so.*|libmemusage.so|libpcprofile.so)
      return 0 ;;
  esac
  return 1
}
is_cuda() {
  case "$1" in
    libcuda.so*|libcudart.so*|libcublas*|libcudnn*|libnvrtc*|libnvJitLink*|libcufft*|libcurand*| \
    libcusolver*|libcusparse*|libnvidia-*|libcupti*|libnccl*|libnvToolsExt*|libnvblas*|libnvperf*)
      return 0 ;;
  esac
  return 1
}
declare -A seen=()
queue=()
for bin in "${binaries[@]}"; do queue+=("$build_dir/$bin"); done
bundled_libs=()
while [ ${#queue[@]} -gt 0 ]; do
  file="${queue[0]}"
  queue=("${queue[@]:1}")
  ldd_out="$(ldd "$file" 2>&1)" || fail "ldd $file failed: $ldd_out"
  while read -r soname arrow path _; do
    [ -n "$soname" ] || continue
    [ "$arrow" = "=>" ] || { path=""; }
    [ -z "${seen[$soname]:-}" ] || continue
    seen[$soname]=1
    if is_glibc "${soname##*/}" || is_cuda "${soname##*/}"; then continue; fi
    [ "$path" != "not" ] || fail "$soname, which $(basename "$file") needs, is not found here"
    [ -n "$path" ] && [ -e "$path" ] || fail "cannot locate $soname (ldd of $file)"
    case "$(readlink -f "$path")" in
      /usr/local/cuda*|*/nvidia/*) echo "gpu_bundle: leaving out $soname ($path): part of the" \
                                        "CUDA toolkit" >&2; continue ;;
    esac
    case "$soname" in
      libstdc++.so.*|libgcc_s.so.*) dest="$b/lib/gcc/$soname" ;;
      *) dest="$b/lib/$soname" ;;
    esac
    copy_stripped "$path" "$dest"
    chmod 644 "$dest"
    bundled_libs+=("$soname")
    queue+=("$path")
  done <<<"$ldd_out"
done
found="$(cd "$b" && find . \( -name 'libcudnn*' -o -name 'libcublas*' -o -name 'libcudart*' \
  -o -name 'libcuda.so*' \) -print)"
[ -z "$found" ] || fail "the bundle must not hold the CUDA toolkit's libraries, but has: $found"

# --- scripts, tests and test data -----------------------------------------------------------
cp "$root/scripts/generate_models.py" "$root/scripts/ort_reference.py" "$root/scripts/bench_gpu.py" \
   "$b/scripts/"
mkdir -p "$b/scripts/models"
cp "$root"/scripts/models/*.py "$b/scripts/models/"
# Anything else of scripts/ that the bundled scripts import.
python3 - "$root/scripts" "$b/scripts" <<'EOF'
import ast, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
changed = True
while changed:
    changed = False
    for folder, _, files in os.walk(dst):
        for f in files:
            if not f.endswith(".py"):
                continue
            tree = ast.parse(open(os.path.join(folder, f)).read())
            names = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module.split(".")[0])
            for n in names:
                if os.path.isfile(os.path.join(src, n + ".py")) and \
                        not os.path.exists(os.path.join(dst, n + ".py")):
                    shutil.copy(os.path.join(src, n + ".py"), dst)
                    print(f"gpu_bundle: also bundling scripts/{n}.py (imported by {f})")
                    changed = True
                elif os.path.isdir(os.path.join(src, n)) and \
                        not os.path.exists(os.path.join(dst, n)):
                    shutil.copytree(os.path.join(src, n), os.path.join(dst, n),
                                    ignore=shutil.ignore_patterns("__pycache__"))
                    print(f"gpu_bundle: also bundling scripts/{n}/ (imported by {f})")
                    changed = True
EOF
cp "$root/tests/python/ios_test_util.py" "$root/tests/python/test_iosrun_cuda.py" \
   "$root/tests/python/test_iosc_cuda.py" "$b/tests/python/"
# testdata: the model the Python GPU tests and the probe read, the RandWire graphs that
# generate_models.py reads, and whatever testdata/ path the CUDA tests name.
testdata=(testdata/models/residual_blocks_opset17.onnx testdata/randwire)
while IFS= read -r path; do
  path="${path%/}"
  [ -e "$root/$path" ] && testdata+=("$path") ||
    echo "gpu_bundle: warning: the CUDA tests name $path, which does not exist" >&2
done < <(grep -rhoE 'testdata/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$root/tests/cuda" | sort -u)
for path in "${testdata[@]}"; do
  mkdir -p "$b/$(dirname "$path")"
  cp -R "$root/$path" "$b/$(dirname "$path")/"
done
cp "$root/scripts/gpu/run_gpu_checks.sh" "$root/scripts/gpu/run_gpu_checks.py" "$b/"
chmod 755 "$b/run_gpu_checks.sh" "$b/run_gpu_checks.py"
find "$b" -name __pycache__ -prune -exec rm -rf {} +

# --- BUILD_INFO.txt -------------------------------------------------------------------------
header_define() {  # header_define FILE NAME
  sed -nE "s/^#define $2[[:space:]]+([0-9]+).*/\1/p" "$1" 2>/dev/null | head -1
}
first_existing() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return; }; done; echo ""; }
nvcc="$(cache_value IOS_NVCC)"
[ -n "$nvcc" ] || nvcc="$(cache_value CMAKE_CUDA_COMPILER)"
[ -n "$nvcc" ] || nvcc="$(sed -nE 's/^set\(CMAKE_CUDA_COMPILER "([^"]+)"\)/\1/p' \
  "$build_dir"/CMakeFiles/*/CMakeCUDACompiler.cmake 2>/dev/null | head -1)"
[ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
nvcc_version="$("$nvcc" --version 2>/dev/null | grep -E 'release' | head -1 || true)"
cuda_include="$(dirname "$(dirname "$nvcc")")/include"
cudnn_h="$(first_existing "$(cache_value IOS_CUDNN_INCLUDE_DIR)/cudnn_version.h" \
  "$cuda_include/cudnn_version.h" /usr/include/cudnn_version.h \
  /usr/include/x86_64-linux-gnu/cudnn_version.h)"
cublas_h="$(first_existing "$cuda_include/cublas_api.h" /usr/local/cuda/include/cublas_api.h)"
archs="$(cache_value CMAKE_CUDA_ARCHITECTURES)"
if [ -n "$archs" ]; then
  archs="$archs (CMakeCache)"
else
  codes="$(grep -rhoE --include=build.ninja --include=flags.make \
    'generate-code=arch=compute_[0-9a-z]+,code=\[[^]]*\]' "$build_dir" 2>/dev/null |
    sed -E 's/.*code=\[([^]]*)\]/\1/' | tr ',' '\n' | sort -V -u | paste -sd ' ' - || true)"
  archs="${codes:-unknown} (nvcc -gencode code= of the build; CMAKE_CUDA_ARCHITECTURES is not cached)"
fi
max_version() {  # max_version PREFIX FILES...: the newest PREFIX_x.y symbol version they need
  local prefix="$1"; shift
  [ $# -gt 0 ] || { echo none; return; }
  if command -v objdump >/dev/null; then
    objdump -T "$@" 2>/dev/null | grep -oE "\b${prefix}_[0-9.]+[0-9]" | sort -V -u | tail -1
  else
    echo "unknown (no objdump)"
  fi
}
shopt -s nullglob
main_files=("$b"/bin/* "$b"/lib/*.so*)
gcc_files=("$b"/lib/gcc/*)
shopt -u nullglob
commit="$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
dirty="$( (git -C "$root" status --porcelain 2>/dev/null || true) | wc -l)"
{
  echo "ios GPU bundle"
  if [ "$commit" = unknown ]; then
    echo "git commit: unknown (not a git checkout)"
  else
    echo "git commit: $commit ($([ "$dirty" -eq 0 ] && echo clean ||
      echo "dirty: $dirty changed or untracked files"))"
  fi
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "built on: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(ldd --version | head -1), $(uname -m)"
  echo "build dir: $build_dir (CMAKE_BUILD_TYPE=$(cache_value CMAKE_BUILD_TYPE), generator $(cache_value CMAKE_GENERATOR))"
  echo "C++ compiler: $("$(cache_value CMAKE_CXX_COMPILER)" --version 2>/dev/null | head -1)"
  echo "nvcc: ${nvcc_version:-unknown} ($nvcc)"
  echo "CUDA architectures: $archs"
  if [ -n "$cudnn_h" ]; then
    echo "cuDNN: $(header_define "$cudnn_h" CUDNN_MAJOR).$(header_define "$cudnn_h" CUDNN_MINOR).$(header_define "$cudnn_h" CUDNN_PATCHLEVEL) ($cudnn_h)"
  else
    echo "cuDNN: unknown (no cudnn_version.h found)"
  fi
  if [ -n "$cublas_h" ]; then
    echo "cuBLAS: $(header_define "$cublas_h" CUBLAS_VER_MAJOR).$(header_define "$cublas_h" CUBLAS_VER_MINOR).$(header_define "$cublas_h" CUBLAS_VER_PATCH).$(header_define "$cublas_h" CUBLAS_VER_BUILD) ($cublas_h)"
  else
    echo "cuBLAS: unknown (no cublas_api.h found)"
  fi
  echo "needs glibc: $(max_version GLIBC "${main_files[@]}") for bin/ and lib/, $(max_version GLIBC "${gcc_files[@]}") for lib/gcc/"
  echo "needs libstdc++: $(max_version GLIBCXX "${main_files[@]}"), $(max_version CXXABI "${main_files[@]}") (when lib/gcc/ is left out)"
  echo "binaries: $(cd "$b/bin" && for f in *; do printf '%s (%s bytes) ' "$f" "$(stat -c %s "$f")"; done)"
  echo "libraries: $(cd "$b/lib" && find . -type f | sed 's|^\./||' | sort | while read -r f; do printf '%s (%s bytes) ' "$f" "$(stat -c %s "$f")"; done)"
} >"$b/BUILD_INFO.txt"

# --- the archive ----------------------------------------------------------------------------
pack_start=$(date +%s.%N)
xz_opt="${XZ_OPT:--T2 --lzma2=preset=1,dict=32MiB}"
XZ_OPT="$xz_opt" tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner \
  -cJf "$tmp_archive" "$name"
pack_end=$(date +%s.%N)
size=$(stat -c %s "$tmp_archive")
uncompressed=$(du -sb "$b" | cut -f1)
if [ "$size" -gt "$max_bytes" ]; then
  fail "the bundle is $((size / 1024 / 1024)) MiB, over the limit of $((max_bytes / 1024 / 1024)) MiB (the device tool" \
    "carries 64 MiB in all); nothing written"
fi
mv -f "$tmp_archive" "$archive"
end=$(date +%s.%N)

echo "bundled libraries: ${bundled_libs[*]}"
grep -E '^(git commit|nvcc|CUDA architectures|cuDNN|cuBLAS|needs glibc):' "$b/BUILD_INFO.txt"
awk -v s="$size" -v u="$uncompressed" -v t="$(echo "$pack_end $pack_start" | awk '{print $1-$2}')" \
    -v all="$(echo "$end $start" | awk '{print $1-$2}')" -v x="$xz_opt" 'BEGIN {
  printf "bundle: %.1f MiB (%.1f MiB unpacked; xz %s took %.1f s, %.1f s in all)\n",
         s / 1048576, u / 1048576, x, t, all }'
echo "wrote $archive"
rel="${archive#"$root"/}"
if [ "$rel" = "$archive" ]; then
  echo "(the device tool carries folders of the repository only: put the bundle in gpu-bundle/," \
    "the default of --out, to run it as below)"
  rel="gpu-bundle/$name.tar.xz"
fi
cat <<EOF

To run every GPU check on the device machine (the run tool; the command runs in the repository
root there, and \$OUT comes back):
  carry: ["${rel%/*}"]   timeout_s: 600
  command: rm -rf /tmp/$name && tar -xJf $rel -C /tmp && bash /tmp/$name/run_gpu_checks.sh "\$OUT"
Options go after "\$OUT" (run_gpu_checks.sh --help): e.g. --models inception_v3 --batches 1,32,
--skip-tests, --rounds 5, --budget-s 540.
EOF
