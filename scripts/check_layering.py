#!/usr/bin/env python3
"""Checks every #include of lib/ and include/ios against ios's layering (docs/architecture.md).

    check_layering.py [--root DIR]

The layers, bottom to top, are the folders of lib/ in pipeline order. A file may include its own
layer, any layer below it, and the generated protobuf messages its layer owns; nothing above.
The public headers (include/ios) include only each other and the standard library. Known
faults that still break the order are listed below with the reason each stays; the check fails
on any other violation, and on a listed fault that no longer occurs (so that the list shrinks
as they are mended). Exit status 0 when clean, 1 otherwise.
"""
import argparse
import os
import re
import sys

# Bottom to top. A layer is a folder of lib/ (its subfolders belong to it unless listed;
# each backend's kernels/ is its backend's); a tuple holds layers of one level, which may not
# include each other.
LAYERS = [
    "ios",                # include/ios: the public API's types (Status is the library's own)
    "util",
    "kernels/math",       # header-only element math, shared by host and device code
    "ir",
    "ops",
    "kernels/reference",
    "onnx",
    "passes",
    "sched",
    "cost",
    "plan",
    "runtime",
    ("runtime/cpu", "runtime/cuda"),  # the backends, side by side: neither includes the other
    "profile",            # what compiling measures on the device: the stage timing rules
    ("profile/cpu", "profile/cuda"),  # each backend's profilers
    "compile",
    "session",            # a plan opened on a device: the API's and iosrun's
    "api",
]
# The lowest layer that may include each generated message.
PROTOS = {
    "blocks.pb.h": "sched",
    "timing_cache.pb.h": "cost",
    "iosplan.pb.h": "plan",
    "search_stats.pb.h": "compile",
    "bench_report.pb.h": "runtime",
}
# (including file, included header): why the fault stays for now.
# None today; a fault that must wait for its fix is listed here with its reason.
KNOWN_FAULTS = {}


def layer_of(path):
    """The layer of a header as included ("ops/op_params.h") or of a file under lib/."""
    folder = os.path.dirname(path)
    for backend in ("runtime/cpu", "runtime/cuda"):  # kernels/ belongs to its backend
        if folder.startswith(backend):
            return backend
    best = None
    for layer in [x for level in LAYERS for x in (level if isinstance(level, tuple) else (level,))]:
        if folder == layer or folder.startswith(layer + "/"):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    args = parser.parse_args()
    rank = {}
    for i, level in enumerate(LAYERS):
        for layer in (level if isinstance(level, tuple) else (level,)):
            rank[layer] = i
    violations, seen_faults, files = [], set(), 0
    sources = []
    for base in ("lib", "include"):
        for folder, _, names in os.walk(os.path.join(args.root, base)):
            for name in sorted(names):
                if name.endswith((".h", ".cc", ".cu", ".cuh")):
                    sources.append(os.path.join(folder, name))
    for path in sorted(sources):
        files += 1
        rel = os.path.relpath(path, args.root)
        inside = os.path.relpath(path, os.path.join(args.root, "lib" if rel.startswith("lib/")
                                                    else "include"))
        own = layer_of(inside)
        if own is None:
            violations.append(f"{rel}: in no layer of the table")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line_no, included in [(text.count("\n", 0, m.start()) + 1, m.group(1))
                                  for m in re.finditer(r'^#include\s+"([^"]+)"', text, re.M)]:
            if own == "ios":
                if not included.startswith("ios/"):
                    violations.append(f"{rel}:{line_no}: the public header includes "
                                      f"'{included}'")
                continue
            if included.endswith(".pb.h"):
                lowest = PROTOS.get(included)
                allowed = lowest is not None and rank[own] >= rank[lowest]
            else:
                target = layer_of(included)
                if target is None:
                    violations.append(f"{rel}:{line_no}: '{included}' is in no layer")
                    continue
                allowed = target == own or rank[target] < rank[own]
            if allowed:
                continue
            if (rel, included) in KNOWN_FAULTS:
                seen_faults.add((rel, included))
                continue
            violations.append(f"{rel}:{line_no}: layer '{own}' includes '{included}', "
                              "which is above it")
        # The public headers: nothing but the standard library besides each other.
        if own == "ios":
            for m in re.finditer(r"^#include\s+<([^>]+)>", text, re.M):
                if not re.fullmatch(r"[a-z_]+", m.group(1)):
                    violations.append(f"{rel}: the public header includes <{m.group(1)}>")
    stale = sorted(set(KNOWN_FAULTS) - seen_faults)
    for rel, included in stale:
        violations.append(f"{rel} no longer includes '{included}': remove it from KNOWN_FAULTS")
    print(f"checked {files} files against {len(rank)} layers; "
          f"{len(seen_faults)} known fault(s) remain:")
    for (rel, included), why in sorted(KNOWN_FAULTS.items()):
        if (rel, included) in seen_faults:
            print(f"  {rel} -> {included}: {why}")
    for violation in violations:
        print(f"VIOLATION {violation}")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
