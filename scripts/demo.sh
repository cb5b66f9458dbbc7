#!/usr/bin/env bash
# The main job on a bundled model: set up, build, generate Inception V3, compile it into a plan
# with iosc (IOS schedule, stages profiled on this device) and draw its schedule, check the plan
# against onnxruntime, and benchmark it with iosrun, writing a timeline (on the CPU) to open in
# https://ui.perfetto.dev; then build the Python package and classify with the same plan from
# Python.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
build="${IOS_BUILD_DIR:-$root/build}"
models="$build/models"
python3 "$root/scripts/generate_models.py" --out "$models" --models inception_v3

# GPU 0 when there is one (and this build has the CUDA backend), the CPU otherwise.
device=cpu
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  if grep -q "^IOS_CUDA_BACKEND:INTERNAL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
    device=0
  else
    echo "demo: a GPU is present, but this build has no CUDA backend (no nvcc); using the CPU"
  fi
fi
echo "demo: device $device"

# The IOS search profiles each distinct stage on this device; the timing cache makes reruns fast.
"$build/tools/iosc" "$models/inception_v3.onnx" --batch 1 --device "$device" --schedule ios \
  --timing-cache "$models/inception_v3.$device.timings" \
  --stats-json "$models/inception_v3.search.json" \
  --dump-blocks "$models/inception_v3.blocks.json" \
  --schedule-svg "$models/inception_v3.schedule.svg" -o "$models/inception_v3.iosplan"
python3 "$root/scripts/ort_reference.py" "$models/inception_v3.onnx" --out "$models/inception_v3.ref" --batch 1
"$build/tools/iosrun" "$models/inception_v3.iosplan" --check "$models/inception_v3.ref"
trace=()
[[ "$device" == cpu ]] && trace=(--trace "$models/inception_v3.trace.json" --profile)
"$build/tools/iosrun" "$models/inception_v3.iosplan" --bench --duration 3 \
  --export-json "$models/inception_v3.bench.json" "${trace[@]}"
# The same from Python (docs/python.md): the package built against this build, classifying with
# the plan above.
bash "$root/scripts/build_python_package.sh" "$build"
PYTHONPATH="$build/python-package" python3 "$root/examples/python/classify.py" \
  "$models/inception_v3.onnx" --plan "$models/inception_v3.iosplan" --top 5
echo "demo: the schedule is drawn in $models/inception_v3.schedule.svg"
[[ "$device" == cpu ]] && echo "demo: open $models/inception_v3.trace.json in https://ui.perfetto.dev"
true
