#!/usr/bin/env bash
# The main job on a bundled model: set up, build, generate Inception V3 and compile it with iosc.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
build="${IOS_BUILD_DIR:-$root/build}"
python3 "$root/scripts/generate_models.py" --out "$build/models" --models inception_v3
"$build/tools/iosc" "$build/models/inception_v3.onnx" --batch 1 \
  --dump-blocks "$build/models/inception_v3.blocks.json"
echo "demo: block structure written to $build/models/inception_v3.blocks.json"
