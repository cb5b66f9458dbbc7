"""scripts/gpu_bundle.sh and the runner it packs (scripts/gpu/run_gpu_checks.*).

Without the CUDA backend in the build: gpu_bundle.sh refuses with exit status 2, says why, and
writes nothing. With it: the bundle is written (atomically, under 45 MiB), unpacks to one folder
ios-gpu-bundle/ with the binaries, their libraries, the scripts, the Python GPU tests, their test
data, the runner and BUILD_INFO.txt; it holds no cuDNN, cuBLAS or CUDA runtime; in a clean
environment every binary resolves every library from the bundle's lib/, the CUDA toolkit's
folders or glibc, never from elsewhere on this machine, and ios_cuda_tests opens cuBLAS (which
ios loads on first use, not at start) from the CUDA folders. Then the runner, unpacked away from
the source tree, stops at step 1 with "no GPU" on stderr and exit status 2, and its report.json
says step 1 failed and the rest were skipped. (On a GPU machine a failing nvidia-smi stub stands
in for the real one, so that this test never starts the ten-minute GPU run.)"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from ios_test_util import Tally, parse_args, run

BUNDLE = "ios-gpu-bundle"
MAX_BYTES = 45 * 1024 * 1024
BINARIES = ("iosc", "iosrun", "ios_cuda_tests", "ios_gpu_tests")
GLIBC = ("linux-vdso.so", "ld-linux", "libc.so", "libm.so", "libdl.so", "libpthread.so",
         "librt.so", "libutil.so", "libresolv.so", "libmvec.so")
CUDA_LIBS = ("libcudart.so", "libcublas.so", "libcublasLt.so", "libcudnn.so")


def cuda_backend(build_dir):
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("IOS_CUDA_BACKEND:"):
                    return line.strip().split("=", 1)[1]
    except OSError:
        return "no CMakeCache.txt"
    return "unset"


def ldd(path, env=None):
    """[(soname, resolved path or None when not found)] of `ldd path`."""
    result = subprocess.run(["ldd", path], capture_output=True, text=True, env=env)
    libs = []
    for line in (result.stdout + result.stderr).splitlines():
        m = re.match(r"\s*(\S+) => (.*?)(?: \(0x[0-9a-f]+\))?$", line)
        if m:
            target = m.group(2).strip()
            libs.append((m.group(1), None if target.startswith("not found") else target))
        else:
            m = re.match(r"\s*(\S+) \(0x[0-9a-f]+\)$", line)
            if m:
                libs.append((m.group(1), m.group(1) if m.group(1).startswith("/") else ""))
            elif "not found" in line:
                libs.append((line.strip(), None))
    return libs


def cuda_lib_dirs(build_dir):
    """Where this machine's CUDA runtime, cuBLAS and cuDNN are: as the build's iosc finds them."""
    dirs = []
    for soname, path in ldd(os.path.join(build_dir, "tools", "iosc")):
        if path and soname.startswith(CUDA_LIBS):
            folder = os.path.dirname(os.path.realpath(path))
            if folder not in dirs:
                dirs.append(folder)
            if os.path.dirname(path) not in dirs:
                dirs.append(os.path.dirname(path))
    return dirs


def check_refusal(tally, args, out):
    print(f"the build has no CUDA backend (IOS_CUDA_BACKEND: {cuda_backend(args.build_dir)}): "
          "checking that gpu_bundle.sh refuses")
    env = dict(os.environ, IOS_BUILD_DIR=os.path.abspath(args.build_dir))
    result = run(["bash", os.path.join(args.source_dir, "scripts", "gpu_bundle.sh"), "--out", out],
                 env=env)
    tally.check("no CUDA backend: exit status 2", result.returncode == 2,
                f"got {result.returncode}: {result.stderr}")
    tally.check("no CUDA backend: says so", "CUDA" in result.stderr, result.stderr)
    tally.check("no CUDA backend: no bundle", not os.path.exists(
        os.path.join(out, BUNDLE + ".tar.xz")))


def check_layout(tally, root):
    for name in BINARIES:
        path = os.path.join(root, "bin", name)
        tally.check(f"bin/{name} is there and executable", os.access(path, os.X_OK))
    for rel in ("run_gpu_checks.sh", "run_gpu_checks.py", "BUILD_INFO.txt",
                "scripts/generate_models.py", "scripts/models/__init__.py",
                "scripts/ort_reference.py", "scripts/bench_gpu.py",
                "tests/python/test_iosrun_cuda.py", "tests/python/test_iosc_cuda.py",
                "tests/python/ios_test_util.py", "testdata/models/residual_blocks_opset17.onnx",
                "testdata/randwire/ws-16-4-0.75-2.txt"):
        tally.check(f"holds {rel}", os.path.isfile(os.path.join(root, rel)))
    libs = sorted(os.listdir(os.path.join(root, "lib")))
    for name in ("libdnnl.so.2", "libprotobuf.so.32", "libonnx_proto.so.1"):
        tally.check(f"lib/ holds {name}", any(lib.startswith(name.split(".so")[0] + ".so")
                                              for lib in libs), libs)
    forbidden = [os.path.join(folder, f) for folder, _, files in os.walk(root) for f in files
                 if f.startswith(("libcudnn", "libcublas", "libcudart", "libcuda.so"))]
    tally.check("no cuDNN, cuBLAS or CUDA runtime in the bundle", not forbidden, forbidden)
    with open(os.path.join(root, "BUILD_INFO.txt")) as f:
        info = f.read()
    for key in ("git commit:", "date:", "nvcc:", "CUDA architectures:", "cuDNN:", "cuBLAS:"):
        tally.check(f"BUILD_INFO.txt has {key}", key in info, info)
    tally.check("BUILD_INFO.txt: cuDNN and cuBLAS versions from the headers",
                re.search(r"^cuDNN: \d+\.\d+\.\d+", info, re.M) and
                re.search(r"^cuBLAS: \d+\.\d+\.\d+", info, re.M), info)


def check_libraries(tally, root, cuda_dirs):
    """Every binary resolves every library, each from lib/, the CUDA folders or glibc."""
    lib_dir = os.path.realpath(os.path.join(root, "lib"))
    path = ":".join([os.path.join(root, "lib", "gcc"), os.path.join(root, "lib")] + cuda_dirs)
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": path}
    allowed = [os.path.realpath(d) for d in cuda_dirs]
    for name in BINARIES:
        libs = ldd(os.path.join(root, "bin", name), env=env)
        missing = [soname for soname, where in libs if where is None]
        tally.check(f"{name}: every library resolves (ldd, clean env)", libs and not missing,
                    f"not found: {missing}")
        elsewhere = []
        for soname, where in libs:
            if not where or os.path.basename(soname).startswith(GLIBC):
                continue
            real = os.path.realpath(where)
            if real.startswith(lib_dir + os.sep) or os.path.dirname(real) in allowed:
                continue
            elsewhere.append(f"{soname} => {where}")
        tally.check(f"{name}: libraries from lib/, CUDA or glibc only", not elsewhere,
                    f"from this machine: {elsewhere}")
    cuda = [(s, w) for s, w in ldd(os.path.join(root, "bin", "iosc"), env=env)
            if s.startswith(CUDA_LIBS)]
    tally.check("iosc finds the CUDA runtime and cuDNN outside the bundle",
                len(cuda) >= 2 and all(w and not os.path.realpath(w).startswith(lib_dir)
                                       for _, w in cuda), cuda)
    tally.check("cuBLAS is not a library iosc needs at start (it is opened on first use)",
                not any(s.startswith("libcublas") for s, _ in cuda), cuda)
    result = subprocess.run([os.path.join(root, "bin", "iosc"), "--version"], capture_output=True,
                            text=True, env=env)
    tally.check("bin/iosc starts with that path", result.returncode == 0, result.stderr)
    # ios opens cuBLAS by name (lib/runtime/cuda/cublas_library.h): its tests, run from the
    # bundle with that path, find it in the CUDA folders and resolve every function.
    result = subprocess.run([os.path.join(root, "bin", "ios_cuda_tests"),
                             "--gtest_filter=CublasLibraryTest.*"], capture_output=True,
                            text=True, env=env)
    tally.check("bin/ios_cuda_tests opens cuBLAS from the CUDA folders with that path",
                result.returncode == 0 and "[  PASSED  ] 4 tests" in result.stdout,
                result.stdout[-2000:] + result.stderr[-1000:])


def check_runner(tally, root, tmp):
    outdir = os.path.join(tmp, "gpu-out")
    env = dict(os.environ)
    env["TMPDIR"] = tmp
    if shutil.which("nvidia-smi"):
        stub_dir = os.path.join(tmp, "stub")
        os.makedirs(stub_dir)
        with open(os.path.join(stub_dir, "nvidia-smi"), "w") as f:
            f.write("#!/bin/sh\necho 'NVIDIA-SMI has failed (a stub of test_gpu_bundle.py)'\n"
                    "exit 9\n")
        os.chmod(os.path.join(stub_dir, "nvidia-smi"), 0o755)
        env["PATH"] = stub_dir + os.pathsep + env.get("PATH", "")
        print("nvidia-smi is here: a failing stub stands in for it")
    start = time.time()
    result = run(["bash", os.path.join(root, "run_gpu_checks.sh"), outdir,
                  "--work-dir", os.path.join(tmp, "gpu-work")], env=env, cwd=tmp)
    print(f"runner: exit status {result.returncode} in {time.time() - start:.1f} s")
    tally.check("runner without a GPU: exit status 2", result.returncode == 2,
                f"got {result.returncode}: {result.stdout[-2000:]} {result.stderr}")
    tally.check("runner without a GPU: 'no GPU' on stderr", "no GPU" in result.stderr,
                result.stderr)
    tally.check("runner prints the versions it found",
                "cuDNN:" in result.stdout and "glibc:" in result.stdout, result.stdout[:2000])
    try:
        with open(os.path.join(outdir, "report.json")) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        tally.check("runner writes report.json", False, str(e))
        return
    steps = {step["step"]: step for step in report["steps"]}
    tally.check("report: libraries resolved (step 0 passed)", steps[0]["status"] == "passed",
                steps[0])
    tally.check("report: step 1 failed", steps[1]["status"] == "failed", steps[1])
    tally.check("report: steps 2-4 skipped",
                all(steps[n]["status"] == "skipped" for n in (2, 3, 4)),
                [(n, steps[n]["status"]) for n in (2, 3, 4)])
    tally.check("report: status no-gpu, exit code 2",
                report["status"] == "no-gpu" and report["exit_code"] == 2, report["status"])
    tally.check("report: versions of cuDNN and cuBLAS", "cuDNN" in report["versions"] and
                "cuBLAS" in report["versions"], report["versions"])
    files = sorted(os.listdir(outdir))
    tally.check("OUTDIR: report.md, report.json, log.txt (at most 8 files)",
                {"report.md", "report.json", "log.txt"} <= set(files) and len(files) <= 8, files)


def main():
    args = parse_args()
    tally = Tally()
    args.build_dir = os.path.abspath(args.build_dir)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bundle-out")
        if cuda_backend(args.build_dir) != "ON":
            check_refusal(tally, args, out)
            tally.finish()
        env = dict(os.environ, IOS_BUILD_DIR=args.build_dir)
        start = time.time()
        result = run(["bash", os.path.join(args.source_dir, "scripts", "gpu_bundle.sh"), "--out",
                      out], env=env)
        print(f"gpu_bundle.sh: exit status {result.returncode} in {time.time() - start:.1f} s")
        print(result.stdout[-1500:])
        archive = os.path.join(out, BUNDLE + ".tar.xz")
        if not tally.check("gpu_bundle.sh succeeds", result.returncode == 0 and
                           os.path.isfile(archive), result.stderr[-3000:]):
            tally.finish()
        size = os.path.getsize(archive)
        tally.check(f"bundle under 45 MiB ({size / 2**20:.1f} MiB)", size <= MAX_BYTES)
        tally.check("nothing but the bundle in its folder (written atomically)",
                    os.listdir(out) == [BUNDLE + ".tar.xz"], os.listdir(out))
        tally.check("prints the device call", "run_gpu_checks.sh" in result.stdout and
                    "carry" in result.stdout, result.stdout[-1500:])
        unpacked = os.path.join(tmp, "unpacked")
        os.makedirs(unpacked)
        result = run(["tar", "-xJf", archive, "-C", unpacked])
        tally.check("unpacks with tar -xJf", result.returncode == 0, result.stderr)
        tally.check("one top folder ios-gpu-bundle/", os.listdir(unpacked) == [BUNDLE],
                    os.listdir(unpacked))
        root = os.path.join(unpacked, BUNDLE)
        if not os.path.isdir(root):
            tally.finish()
        check_layout(tally, root)
        cuda_dirs = cuda_lib_dirs(args.build_dir)
        print(f"this machine's CUDA library folders: {cuda_dirs}")
        check_libraries(tally, root, cuda_dirs)
        check_runner(tally, root, tmp)
    tally.finish()


if __name__ == "__main__":
    sys.exit(main())
