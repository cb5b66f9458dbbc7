#!/usr/bin/env bash
# Runs ios's GPU checks from the unpacked GPU bundle (made by scripts/gpu_bundle.sh):
#
#   bash ios-gpu-bundle/run_gpu_checks.sh OUTDIR [options of run_gpu_checks.py, see --help]
#
# This script only finds the libraries. ios's binaries need the bundle's lib/ and the CUDA
# runtime, cuBLAS and cuDNN of this machine (the CUDA toolkit's folders, then the NVIDIA Python
# wheels'). It prints the versions it finds, checks with ldd that bin/iosc resolves every library,
# and hands the library path to run_gpu_checks.py in IOS_GPU_LD_LIBRARY_PATH, which uses it for
# ios's binaries only: LD_LIBRARY_PATH itself is left alone, so that python3 never loads the
# bundle's (older) libstdc++. When a library is missing it says which, and run_gpu_checks.py
# writes the report and exits with status 2.
set -uo pipefail
IOS_GPU_START_EPOCH="$(date +%s.%N)"
export IOS_GPU_START_EPOCH
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

case "${1:-}" in
  -h|--help) exec python3 "$here/run_gpu_checks.py" --help ;;
  ""|-*) echo "usage: bash $0 OUTDIR [options of run_gpu_checks.py]" >&2; exit 2 ;;
esac
[ -d "$here/bin" ] && [ -d "$here/lib" ] || {
  echo "run_gpu_checks: $here holds no bin/ and lib/: run it from the bundle that" \
    "scripts/gpu_bundle.sh makes (ios-gpu-bundle/run_gpu_checks.sh)" >&2; exit 2; }
mkdir -p "$1" || { echo "run_gpu_checks: cannot create $1" >&2; exit 2; }

env_file="$(mktemp "${TMPDIR:-/tmp}/ios-gpu-env.XXXXXX")"
fact() {  # fact KEY VALUE: print it, and keep it for the report
  printf '%s: %s\n' "$1" "$2"
  printf '%s: %s\n' "$1" "$2" >>"$env_file"
}

# --- where the CUDA libraries are -----------------------------------------------------------
cuda_lib_patterns=('libcudart.so.1*' 'libcublas.so.1*' 'libcublasLt.so.1*' 'libcudnn.so.9*' \
                   'libcudnn_*.so.9*' 'libnvrtc.so.1*')
# The CUDA major version ios was built for (libcudart.so.13: 13). Folders of another one
# (/usr/local/cuda-12.8/lib64, nvidia/cu12/lib) are left out: their cuDNN would not fit.
cuda_major="$(ldd "$here/bin/iosc" 2>/dev/null | grep -oE 'libcudart\.so\.[0-9]+' | head -1 |
  sed 's/.*\.//')"
toolkit_re='/cuda-([0-9]+)(\.[0-9]+)*(/|$)'
wheel_re='/cu([0-9]+)(/|$)'
other_cuda() {
  [ -n "$cuda_major" ] || return 1
  if [[ "$1" =~ $toolkit_re ]] && [ "${BASH_REMATCH[1]}" != "$cuda_major" ]; then return 0; fi
  if [[ "$1" =~ $wheel_re ]] && [ "${BASH_REMATCH[1]}" != "$cuda_major" ]; then return 0; fi
  return 1
}
holds_cuda_libs() {
  local pattern
  for pattern in "${cuda_lib_patterns[@]}"; do
    compgen -G "$1/$pattern" >/dev/null && return 0
  done
  return 1
}
cuda_dirs=()
add_dir() {
  local dir existing
  [ -d "$1" ] || return 0
  dir="$(cd "$1" && pwd -P)" || return 0
  holds_cuda_libs "$dir" || return 0
  if other_cuda "$dir"; then
    echo "run_gpu_checks: leaving out $dir (not CUDA $cuda_major)"
    return 0
  fi
  for existing in "${cuda_dirs[@]+"${cuda_dirs[@]}"}"; do
    [ "$existing" = "$dir" ] && return 0
  done
  cuda_dirs+=("$dir")
}
roots=()
[ -n "${CUDA_HOME:-}" ] && roots+=("$CUDA_HOME")
[ -n "${CUDA_PATH:-}" ] && roots+=("$CUDA_PATH")
roots+=(/usr/local/cuda)
while IFS= read -r dir; do roots+=("$dir"); done < <(ls -d /usr/local/cuda-* 2>/dev/null | sort -rV)
for root in "${roots[@]}"; do
  for sub in lib64 lib targets/x86_64-linux/lib; do add_dir "$root/$sub"; done
done
# The NVIDIA wheels (nvidia/cudnn/lib, nvidia/cublas/lib, nvidia/cu13/lib, ...): search, since
# their layout changes between CUDA versions.
wheel_roots="$(python3 - <<'EOF' 2>/dev/null
import os, site
roots = []
try:
    import nvidia
    roots += list(nvidia.__path__)
except Exception:
    pass
try:
    for d in site.getsitepackages() + [site.getusersitepackages()]:
        roots.append(os.path.join(d, "nvidia"))
except Exception:
    pass
for r in dict.fromkeys(roots):
    if os.path.isdir(r):
        print(r)
EOF
)"
while IFS= read -r root; do
  [ -n "$root" ] || continue
  while IFS= read -r dir; do add_dir "$dir"; done < <(
    find -L "$root" -maxdepth 4 -type f \( -name 'libcudart.so.1*' -o -name 'libcublas.so.1*' \
      -o -name 'libcublasLt.so.1*' -o -name 'libcudnn*.so.9*' -o -name 'libnvrtc.so.1*' \) \
      -printf '%h\n' 2>/dev/null | sort -u)
done <<<"$wheel_roots"

cuda_path="$(IFS=:; echo "${cuda_dirs[*]+"${cuda_dirs[*]}"}")"
fact "CUDA library folders searched" "${cuda_path:-none found}"

# --- the path for ios's binaries: the bundle's libraries first ------------------------------
# lib/gcc holds the build machine's libstdc++ and libgcc_s. They need that machine's glibc
# (BUILD_INFO.txt); on an older glibc this machine's own libstdc++ serves instead, if new enough.
original="${LD_LIBRARY_PATH:-}"
join() { local IFS=:; echo "$*"; }
path_with_gcc="$(join "$here/lib/gcc" "$here/lib" ${cuda_path:+"$cuda_path"} ${original:+"$original"})"
path_without_gcc="$(join "$here/lib" ${cuda_path:+"$cuda_path"} ${original:+"$original"})"
problems() {  # problems PATH: ldd's complaints about every binary of the bundle under PATH
  local bin
  for bin in "$here"/bin/*; do
    LD_LIBRARY_PATH="$1" ldd "$bin" 2>&1 | grep -E 'not found|No such file|not a dynamic' |
      sed -E "s|^[[:space:]]*|$(basename "$bin"): |"
  done
}
lib_error=""
ios_path="$path_with_gcc"
libstdcxx="the bundle's (lib/gcc)"
if ! command -v ldd >/dev/null; then
  echo "run_gpu_checks: no ldd on this machine; not checking the libraries with it" >&2
else
  missing="$(problems "$path_with_gcc")"
  if [ -n "$missing" ]; then
    missing_without="$(problems "$path_without_gcc")"
    if [ -z "$missing_without" ]; then
      ios_path="$path_without_gcc"
      libstdcxx="this machine's (the bundle's needs a newer glibc: $(echo "$missing" | head -1))"
    else
      lib_error="missing libraries for ios's binaries (ldd):
$missing"
    fi
  fi
fi
if [ -z "$lib_error" ]; then
  if ! out="$(LD_LIBRARY_PATH="$ios_path" "$here/bin/iosc" --version 2>&1)"; then
    lib_error="bin/iosc does not start: $out"
  fi
fi
fact "libstdc++ for ios" "$libstdcxx"

# --- versions -------------------------------------------------------------------------------
version_of() {  # version_of RESOLVED_PATH DIST_INFO_PREFIX
  local real base v dir i md
  real="$(readlink -f "$1")"
  base="$(basename "$real")"
  v="$(echo "$base" | sed -nE 's/^lib[A-Za-z_]+\.so\.([0-9]+\.[0-9]+[0-9.]*)$/\1/p')"
  if [ -n "$v" ]; then echo "$v (file $real)"; return; fi
  dir="$(dirname "$real")"
  for i in 1 2 3 4 5; do
    for md in "$dir"/"$2"*.dist-info "$dir"/dist-info/"$2"*.dist-info; do
      [ -d "$md" ] || continue
      v="$(sed -n 's/^Version: //p' "$md/METADATA" 2>/dev/null | head -1)"
      [ -n "$v" ] || v="$(basename "$md" .dist-info | sed 's/^[^-]*-//')"
      echo "$v (wheel $(basename "$md"); file $real)"
      return
    done
    dir="$(dirname "$dir")"
  done
  echo "unknown (file $real)"
}
resolved() {  # resolved SONAME_PREFIX: where ldd finds it for bin/iosc under the ios path
  LD_LIBRARY_PATH="$ios_path" ldd "$here/bin/iosc" 2>/dev/null |
    awk -v p="$1" 'index($1, p) == 1 && $3 ~ /^\// {print $3; exit}'
}
if command -v nvidia-smi >/dev/null; then
  fact "driver (nvidia-smi)" "$(nvidia-smi --query-gpu=name,driver_version,compute_cap \
    --format=csv,noheader 2>&1 | paste -sd ';' -) $(nvidia-smi 2>/dev/null |
    grep -o 'CUDA Version: [0-9.]*' | head -1)"
else
  fact "driver (nvidia-smi)" "nvidia-smi not found"
fi
cudart="$(resolved libcudart.so)"
IFS=: read -r -a path_dirs <<<"$ios_path"
# loadable FILE: where the loader finds FILE for dlopen by name from ios: the first folder of the
# ios path that holds it, else the loader's cache, else beside the CUDA runtime (where
# cublas_library.cc looks last).
loadable() {
  local dir
  for dir in "${path_dirs[@]}"; do
    if [ -e "$dir/$1" ]; then echo "$dir/$1"; return; fi
  done
  dir="$(ldconfig -p 2>/dev/null | awk -v f="$1" '$1 == f {print $NF; exit}')"
  if [ -n "$dir" ]; then echo "$dir"; return; fi
  if [ -n "$cudart" ] && [ -e "$(dirname "$cudart")/$1" ]; then echo "$(dirname "$cudart")/$1"; fi
}
for lib in "CUDA runtime:libcudart.so:nvidia_cuda_runtime" "cuBLAS:libcublas.so:nvidia_cublas" \
           "cuBLASLt:libcublasLt.so:nvidia_cublas" "cuDNN:libcudnn.so:nvidia_cudnn"; do
  IFS=: read -r label soname prefix <<<"$lib"
  file="$(resolved "$soname")"
  # ios opens cuBLAS by name when a GPU session starts (lib/runtime/cuda/cublas_library.h), so
  # ldd does not list it: look for it on the path the binaries get, as the loader will.
  [ -z "$file" ] && [ -n "$cuda_major" ] && file="$(loadable "$soname.$cuda_major")"
  if [ -n "$file" ]; then fact "$label" "$(version_of "$file" "$prefix")"
  else fact "$label" "not found"; fi
done
if [ -z "$lib_error" ] && [ -n "$cuda_major" ] && [ -z "$(loadable "libcublas.so.$cuda_major")" ]
then
  lib_error="libcublas.so.$cuda_major is not in the library folders, the loader's cache"
  lib_error+=" or beside the CUDA runtime; GPU sessions need it"
fi
# libcudnn dlopens its sub-libraries (libcudnn_graph, _ops, _cnn, _engines_*) by name.
cudnn_graph=""
for dir in "${path_dirs[@]}"; do
  if [ -e "$dir/libcudnn_graph.so.9" ]; then cudnn_graph="$dir"; break; fi
done
fact "cuDNN sub-libraries" "${cudnn_graph:-libcudnn_graph.so.9 not found: cuDNN will fail when first used}"
fact "glibc" "$(ldd --version 2>&1 | head -1)"
fact "python3" "$(python3 --version 2>&1) ($(command -v python3))"
fact "bundle built against" "$(grep -E '^(cuDNN|cuBLAS|nvcc|git commit)' "$here/BUILD_INFO.txt" 2>/dev/null | paste -sd ';' -)"

if [ -n "$lib_error" ]; then
  echo "run_gpu_checks: $lib_error" >&2
  echo "run_gpu_checks: library path tried: $ios_path" >&2
else
  echo "library path for ios's binaries: $ios_path"
fi

export IOS_GPU_LD_LIBRARY_PATH="$ios_path"
export IOS_GPU_CUDA_LIB_DIRS="$cuda_path"
export IOS_GPU_CUDART="${cudart:-}"
export IOS_GPU_ENV_FILE="$env_file"
export IOS_GPU_LIB_ERROR="$lib_error"
exec python3 "$here/run_gpu_checks.py" "$@"
