"""A CPU run does not load cuBLAS (lib/runtime/cuda/cublas_library.h): iosc --device cpu and
iosrun --bench of its plan, watched through the dynamic loader's own log (LD_DEBUG=files), load
oneDNN but never libcublas or libcublasLt, and the binaries do not list cuBLAS as a needed
library. With a GPU, iosc --device 0 does open cuBLAS. Without the CUDA backend in the build
there is nothing to check beyond the CPU run."""
import os
import re
import subprocess
import tempfile

from ios_test_util import Tally, cuda_device_count, parse_args, run

MODEL = os.path.join("testdata", "models", "residual_blocks_opset17.onnx")


def loaded_libraries(cmd):
    """(exit status, basenames of every shared object the loader opened, stderr)."""
    env = dict(os.environ, LD_DEBUG="files")
    result = run(cmd, env=env)
    names = set(os.path.basename(m) for m in
                re.findall(r"file=(\S+) \[\d+\];\s+(?:needed|dynamically loaded) by",
                           result.stderr))
    return result.returncode, names, result.stderr


def is_cublas(name):
    return name.startswith(("libcublas.so", "libcublasLt.so"))


def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)


def main():
    args = parse_args()
    tally = Tally()
    model = os.path.join(args.source_dir, MODEL)
    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "cpu.iosplan")
        rc, libs, err = loaded_libraries([args.iosc, model, "--device", "cpu", "-o", plan])
        tally.check("iosc --device cpu compiles", rc == 0, err[-2000:])
        # The positive control: the log is read right when it shows the CPU backend's library.
        tally.check("iosc: the loader's log shows oneDNN loaded",
                    any(n.startswith("libdnnl.so") for n in libs), sorted(libs))
        tally.check("iosc --device cpu: no cuBLAS loaded", not any(map(is_cublas, libs)),
                    sorted(libs))
        rc, libs, err = loaded_libraries([args.iosrun, plan, "--bench", "--duration", "0.05",
                                          "--warmup-ms", "10"])
        tally.check("iosrun --bench of the CPU plan runs", rc == 0, err[-2000:])
        tally.check("iosrun: the loader's log shows oneDNN loaded",
                    any(n.startswith("libdnnl.so") for n in libs), sorted(libs))
        tally.check("iosrun of a CPU plan: no cuBLAS loaded", not any(map(is_cublas, libs)),
                    sorted(libs))
        for tool in (args.iosc, args.iosrun):
            deps = needed(tool)
            tally.check(f"{os.path.basename(tool)}: readelf lists its needed libraries", deps)
            tally.check(f"{os.path.basename(tool)}: cuBLAS is not a needed library",
                        not any(map(is_cublas, deps)), deps)
        if cuda_device_count() > 0:
            gpu_plan = os.path.join(tmp, "gpu.iosplan")
            rc, libs, err = loaded_libraries([args.iosc, model, "--device", "0", "-o", gpu_plan])
            tally.check("iosc --device 0 compiles", rc == 0, err[-2000:])
            tally.check("iosc --device 0 opens cuBLAS", any(map(is_cublas, libs)), sorted(libs))
    tally.finish()


if __name__ == "__main__":
    main()
