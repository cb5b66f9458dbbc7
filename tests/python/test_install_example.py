"""ios as a library, as a user gets it: `cmake --install` into a fresh prefix gives the headers,
libios.so, the CLIs and a CMake package; examples/classify builds out of tree against it with
find_package(ios CONFIG); its top outputs on SqueezeNet's plan (and on the weight-stripped plan
with --weights) are iosrun --save-outputs' values; the installed headers include nothing but
the standard library and each other; libios.so exports only the public API; docs/api.md's
snippets compile against the install."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from onnx import numpy_helper, TensorProto

from ios_test_util import Tally, ensure_models, parse_args, run


def read_pb(path):
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def check_doc_snippets(tally, source_dir, prefix, tmp):
    """Every C++ snippet of docs/api.md compiles and links against the installed package (the
    device one with the CUDA runtime, when the CUDA toolkit is there)."""
    with open(os.path.join(source_dir, "docs", "api.md")) as f:
        snippets = re.findall(r"```cpp\n(.*?)```", f.read(), re.S)
    tally.check("docs/api.md has its snippets", len(snippets) >= 3, str(len(snippets)))
    project = os.path.join(tmp, "snippets")
    os.makedirs(project)
    lines = ["cmake_minimum_required(VERSION 3.16)", "project(snippets CXX)",
             "set(CMAKE_CXX_STANDARD 17)", "find_package(ios CONFIG REQUIRED)",
             "find_package(CUDAToolkit QUIET)"]
    for i, code in enumerate(snippets):
        with open(os.path.join(project, f"snippet_{i}.cc"), "w") as f:
            f.write(code)
        target = f"add_executable(snippet_{i} snippet_{i}.cc)\n" \
                 f"target_link_libraries(snippet_{i} PRIVATE ios::ios"
        if "cuda_runtime_api.h" in code:
            lines.append(f"if(CUDAToolkit_FOUND)\n{target} CUDA::cudart)\nendif()")
        else:
            lines.append(target + ")")
    with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    build = os.path.join(project, "build")
    configured = run(["cmake", "-S", project, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}"])
    built = run(["cmake", "--build", build, "-j2"]) if configured.returncode == 0 else configured
    tally.check("docs/api.md's snippets compile and link against the install",
                built.returncode == 0, configured.stdout + built.stdout + built.stderr)


def top_lines(stdout):
    return [(int(a), float(b)) for a, b in re.findall(r"^(\d+) (\S+)$", stdout, re.M)]


def main():
    args = parse_args()
    tally = Tally()
    model = ensure_models(args, ["squeezenet"])["squeezenet"]
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "prefix")
        installed = run(["cmake", "--install", args.build_dir, "--prefix", prefix])
        if not tally.check("cmake --install", installed.returncode == 0, installed.stderr):
            tally.finish()
        for path in ("include/ios/ios.h", "include/ios/session.h", "bin/iosc", "bin/iosrun",
                     "lib/cmake/ios/iosConfig.cmake"):
            tally.check(f"installs {path}", os.path.exists(os.path.join(prefix, path)))
        libdir = [d for d in ("lib", "lib64", "lib/x86_64-linux-gnu")
                  if os.path.exists(os.path.join(prefix, d, "libios.so"))]
        tally.check("installs libios.so", bool(libdir))

        # The public headers include only the standard library and each other.
        foreign = []
        for name in os.listdir(os.path.join(prefix, "include", "ios")):
            with open(os.path.join(prefix, "include", "ios", name)) as f:
                for include in re.findall(r'#include\s+[<"]([^>"]+)[>"]', f.read()):
                    if not (include.startswith("ios/") or re.fullmatch(r"[a-z_]+", include)):
                        foreign.append(f"{name}: {include}")
        tally.check("the public headers include nothing from lib/ or third parties",
                    not foreign, str(foreign))
        if libdir:
            symbols = run(["nm", "-D", "--defined-only", "-C",
                           os.path.join(prefix, libdir[0], "libios.so")]).stdout
            exported = [line.split(" ", 2)[2] for line in symbols.splitlines()
                        if " T " in line or " W " in line]
            internal = [s for s in exported if re.match(r"ios::", s) and not re.match(
                r"ios::(Plan|Session|Version|DataTypeName|DataTypeSize|DeviceFingerprintJson)\b", s)]
            tally.check("libios.so exports only the public API",
                        exported and not internal and not any("google::" in s or "dnnl" in s
                                                              for s in exported),
                        str(internal[:10]))

        check_doc_snippets(tally, args.source_dir, prefix, tmp)

        example = os.path.join(tmp, "classify")
        configured = run(["cmake", "-S", os.path.join(args.source_dir, "examples", "classify"),
                          "-B", example, f"-DCMAKE_PREFIX_PATH={prefix}",
                          "-DCMAKE_BUILD_TYPE=Release"])
        built = run(["cmake", "--build", example]) if configured.returncode == 0 else configured
        if not tally.check("examples/classify builds out of tree against the install",
                           built.returncode == 0, configured.stdout + built.stdout + built.stderr):
            tally.finish()
        classify = os.path.join(example, "classify")

        iosc, iosrun = os.path.join(prefix, "bin", "iosc"), os.path.join(prefix, "bin", "iosrun")
        ref = os.path.join(tmp, "ref")
        run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"), model,
             "--out", ref])
        image = read_pb(os.path.join(ref, "input_0.pb"))
        raw = os.path.join(tmp, "input.bin")
        image.astype(np.float32).tofile(raw)
        for label, flags, extra in (("full", [], []),
                                    ("weight-stripped", ["--strip-weights"],
                                     ["--weights", model])):
            plan = os.path.join(tmp, f"{label}.iosplan")
            made = run([iosc, model, "--device", "sim:V100", "-o", plan, "--progress", "off"]
                       + flags)
            if not tally.check(f"{label}: the installed iosc compiles", made.returncode == 0,
                               made.stderr):
                continue
            out = os.path.join(tmp, f"out_{label}")
            ran = run([iosrun, plan, "--device", "cpu", "--force", "--load-inputs", ref,
                       "--save-outputs", out] + extra)
            if not tally.check(f"{label}: the installed iosrun runs", ran.returncode == 0,
                               ran.stderr):
                continue
            expected = read_pb(os.path.join(out, "output_0.pb")).ravel()
            result = run([classify, plan, raw, "--device", "cpu", "--top", "5"] + extra)
            got = top_lines(result.stdout)
            order = np.argsort(-expected, kind="stable")[:5]
            tally.check(f"{label}: classify prints the top 5 that iosrun computes",
                        result.returncode == 0 and len(got) == 5
                        and [i for i, _ in got] == [int(i) for i in order]
                        and all(abs(v - float(expected[i])) <= 1e-6 * max(1, abs(v))
                                for i, v in got),
                        result.stdout + result.stderr + f"\nexpected {order} "
                        f"{expected[order]}")
        wrong = run([classify, os.path.join(tmp, "weight-stripped.iosplan"), raw])
        tally.check("classify reports a stripped plan without its model (exit 2)",
                    wrong.returncode == 2 and "weight-stripped" in wrong.stderr, wrong.stderr)
    tally.finish()


if __name__ == "__main__":
    main()
