"""ios as a library, as a user gets it: `cmake --install` into a fresh prefix gives the headers,
libios.so, the CLIs and a CMake package; examples/classify builds out of tree against it with
find_package(ios CONFIG); its top outputs on SqueezeNet's plan (and on the weight-stripped plan
with --weights) are iosrun --save-outputs' values; the installed headers include nothing but
the standard library and each other; libios.so exports only the public API; docs/api.md's
snippets compile against the install."""
import os
import re
from types import SimpleNamespace

import numpy as np
import pytest
from onnx import numpy_helper, TensorProto

from ios_tools.cli import check_run, ort_reference, run


def read_pb(path):
    tensor = TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


@pytest.fixture(scope="module")
def prefix(build_dir, tmp_path_factory):
    """A fresh prefix that `cmake --install` filled."""
    path = str(tmp_path_factory.mktemp("install") / "prefix")
    check_run(["cmake", "--install", build_dir, "--prefix", path], "cmake --install")
    return path


@pytest.mark.parametrize("path", ["include/ios/ios.h", "include/ios/session.h", "bin/iosc",
                                  "bin/iosrun", "lib/cmake/ios/iosConfig.cmake"])
def test_installs(prefix, path):
    assert os.path.exists(os.path.join(prefix, path))


@pytest.fixture(scope="module")
def libios(prefix):
    found = [os.path.join(prefix, d, "libios.so") for d in ("lib", "lib64", "lib/x86_64-linux-gnu")
             if os.path.exists(os.path.join(prefix, d, "libios.so"))]
    assert found, "no libios.so installed"
    return found[0]


def test_installs_libios_so(libios):
    assert os.path.isfile(libios)


def test_the_public_headers_include_nothing_from_lib_or_third_parties(prefix):
    foreign = []
    for name in os.listdir(os.path.join(prefix, "include", "ios")):
        with open(os.path.join(prefix, "include", "ios", name)) as f:
            for include in re.findall(r'#include\s+[<"]([^>"]+)[>"]', f.read()):
                if not (include.startswith("ios/") or re.fullmatch(r"[a-z_]+", include)):
                    foreign.append(f"{name}: {include}")
    assert not foreign


def test_libios_so_exports_only_the_public_api(libios):
    symbols = run(["nm", "-D", "--defined-only", "-C", libios]).stdout
    exported = [line.split(" ", 2)[2] for line in symbols.splitlines()
                if " T " in line or " W " in line]
    internal = [s for s in exported if re.match(r"ios::", s) and not re.match(
        r"ios::(Plan|Session|Version|DataTypeName|DataTypeSize|DeviceFingerprintJson)\b", s)]
    assert exported and not internal, internal[:10]
    assert not any("google::" in s or "dnnl" in s for s in exported)


@pytest.fixture(scope="module")
def snippets(source_dir):
    with open(os.path.join(source_dir, "docs", "api.md")) as f:
        return re.findall(r"```cpp\n(.*?)```", f.read(), re.S)


def test_docs_api_md_has_its_snippets(snippets):
    assert len(snippets) >= 3, len(snippets)


def test_docs_api_md_snippets_compile_and_link_against_the_install(snippets, prefix, tmp_path):
    """Every C++ snippet of docs/api.md (the device one with the CUDA runtime, when the CUDA
    toolkit is there)."""
    project = tmp_path / "snippets"
    project.mkdir()
    lines = ["cmake_minimum_required(VERSION 3.16)", "project(snippets CXX)",
             "set(CMAKE_CXX_STANDARD 17)", "find_package(ios CONFIG REQUIRED)",
             "find_package(CUDAToolkit QUIET)"]
    for i, code in enumerate(snippets):
        (project / f"snippet_{i}.cc").write_text(code)
        target = f"add_executable(snippet_{i} snippet_{i}.cc)\n" \
                 f"target_link_libraries(snippet_{i} PRIVATE ios::ios"
        if "cuda_runtime_api.h" in code:
            lines.append(f"if(CUDAToolkit_FOUND)\n{target} CUDA::cudart)\nendif()")
        else:
            lines.append(target + ")")
    (project / "CMakeLists.txt").write_text("\n".join(lines) + "\n")
    build = project / "build"
    configured = run(["cmake", "-S", project, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}"])
    built = run(["cmake", "--build", build, "-j2"]) if configured.returncode == 0 else configured
    assert built.returncode == 0, configured.stdout + built.stdout + built.stderr


def top_lines(stdout):
    return [(int(a), float(b)) for a, b in re.findall(r"^(\d+) (\S+)$", stdout, re.M)]


@pytest.fixture(scope="module")
def classify(prefix, source_dir, tmp_path_factory):
    """examples/classify, built out of tree against the install."""
    example = tmp_path_factory.mktemp("classify")
    check_run(["cmake", "-S", os.path.join(source_dir, "examples", "classify"), "-B", example,
               f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"],
              "cmake (examples/classify)")
    check_run(["cmake", "--build", example], "cmake --build (examples/classify)")
    return str(example / "classify")


@pytest.fixture(scope="module")
def squeezenet(models, tmp_path_factory):
    """SqueezeNet, onnxruntime's reference for it, and its input as raw float32."""
    model = models(["squeezenet"])["squeezenet"]
    tmp = tmp_path_factory.mktemp("squeezenet")
    ref = ort_reference(model, tmp / "ref")
    raw = str(tmp / "input.bin")
    read_pb(os.path.join(ref, "input_0.pb")).astype(np.float32).tofile(raw)
    return SimpleNamespace(model=model, ref=ref, raw=raw, tmp=tmp)


@pytest.mark.parametrize("label", ["full", "weight-stripped"])
def test_classify_prints_the_top_5_that_iosrun_computes(label, prefix, classify, squeezenet):
    """With the installed iosc's plan (the weight-stripped one with --weights), classify's top
    outputs are iosrun --save-outputs' values."""
    flags, extra = ([], []) if label == "full" else (["--strip-weights"],
                                                     ["--weights", squeezenet.model])
    iosc, iosrun = os.path.join(prefix, "bin", "iosc"), os.path.join(prefix, "bin", "iosrun")
    plan = str(squeezenet.tmp / f"{label}.iosplan")
    check_run([iosc, squeezenet.model, "--device", "sim:V100", "-o", plan, "--progress", "off"]
              + flags, "the installed iosc")
    out = squeezenet.tmp / f"out_{label}"
    check_run([iosrun, plan, "--device", "cpu", "--force", "--load-inputs", squeezenet.ref,
               "--save-outputs", out] + extra, "the installed iosrun")
    expected = read_pb(os.path.join(out, "output_0.pb")).ravel()
    result = run([classify, plan, squeezenet.raw, "--device", "cpu", "--top", "5"] + extra)
    got = top_lines(result.stdout)
    order = np.argsort(-expected, kind="stable")[:5]
    assert result.returncode == 0 and len(got) == 5 \
        and [i for i, _ in got] == [int(i) for i in order] \
        and all(abs(v - float(expected[i])) <= 1e-6 * max(1, abs(v)) for i, v in got), \
        result.stdout + result.stderr + f"\nexpected {order} {expected[order]}"


def test_classify_reports_a_stripped_plan_without_its_model(prefix, classify, squeezenet):
    plan = str(squeezenet.tmp / "stripped.iosplan")
    check_run([os.path.join(prefix, "bin", "iosc"), squeezenet.model, "--device", "sim:V100",
               "-o", plan, "--progress", "off", "--strip-weights"], "the installed iosc")
    wrong = run([classify, plan, squeezenet.raw])
    assert wrong.returncode == 2 and "weight-stripped" in wrong.stderr, wrong.stderr
