"""The published ImageNet CNNs of scripts/models (CNNS: MobileNetV2, MobileNetV3-Large,
EfficientNet-B0, ResNet-50, DenseNet-121, GoogLeNet, ShuffleNetV2 1.0x at 3x224x224, 1000 classes),
end to end. For each: the
parameter count, summed over the model's float initializers, is within 2% of the published one
(the generators fold BatchNorm into the conv before it, one bias per channel where BN has gamma
and beta, so they come out a little under); onnxruntime runs the model on a random input and gives
1000 finite logits with a real spread; iosc compiles it with the IOS search on the analytic V100
model, and iosrun runs that plan on this CPU (--force) and matches onnxruntime (--check, iosrun's
default tolerances)."""
import os
import re
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

from ios_test_util import Tally, ensure_models, parse_args, run

# name: the parameter count its paper (or its reference implementation) gives, BatchNorm's gamma
# and beta included.
PUBLISHED = {
    "mobilenet_v2": 3.50e6,
    "mobilenet_v3_large": 5.48e6,
    "efficientnet_b0": 5.29e6,
    "resnet50": 25.56e6,
    "densenet121": 7.98e6,
    # The paper's network, with a 5x5 conv in the 5x5 branch: its Table 1 sums to about 6.8M
    # counted in units of 1024 (no biases), 7.0M here with biases. The 6.62M often quoted is
    # torchvision's GoogLeNet, whose "5x5" branch has a 3x3 conv (pytorch/vision#906).
    "googlenet": 7.00e6,
    "shufflenet_v2": 2.28e6,
}
PARAM_TOLERANCE = 0.02
CLASSES = 1000
MIN_STD = 1e-3


def parameter_count(path):
    """Elements of the float initializers (the int64 Reshape shapes and Split sizes are not
    parameters; Clip's two shared float bounds count, which is noise at this scale)."""
    model = onnx.load(path)
    return sum(int(np.prod(t.dims)) for t in model.graph.initializer if t.data_type == TensorProto.FLOAT)


def main():
    args = parse_args()
    tally = Tally()
    start = time.perf_counter()
    models = ensure_models(args, list(PUBLISHED))
    print(f"  generated {len(models)} models in {time.perf_counter() - start:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        for name, published in PUBLISHED.items():
            model = models[name]
            count = parameter_count(model)
            deviation = count / published - 1
            print(f"  {name}: {count:,} parameters, published {published / 1e6:.2f}M ({deviation:+.2%})")
            tally.check(f"{name}: parameter count within {PARAM_TOLERANCE:.0%} of the published one",
                        abs(deviation) <= PARAM_TOLERANCE, f"{count:,} vs {published:,.0f}")

            ref = os.path.join(tmp, name + "_ref")
            reference = run([sys.executable, os.path.join(args.source_dir, "scripts", "ort_reference.py"),
                             model, "--out", ref])
            if not tally.check(f"{name}: onnxruntime runs it", reference.returncode == 0, reference.stderr):
                continue
            logits = numpy_helper.to_array(onnx.load_tensor(os.path.join(ref, "output_0.pb")))
            tally.check(f"{name}: onnxruntime gives {CLASSES} finite logits with std > {MIN_STD}",
                        logits.shape == (1, CLASSES) and bool(np.isfinite(logits).all())
                        and float(logits.std()) > MIN_STD,
                        f"shape {logits.shape}, std {float(np.nan_to_num(logits).std()):.3g}")

            plan = os.path.join(tmp, name + ".iosplan")
            compiled = run([args.iosc, model, "--device", "sim:V100", "-o", plan])
            if not tally.check(f"{name}: iosc --device sim:V100", compiled.returncode == 0,
                               compiled.stdout + compiled.stderr):
                continue
            predicted = re.search(r"predicted latency.*", compiled.stdout + compiled.stderr)
            if predicted:
                print("   ", predicted.group(0))
            checked = run([args.iosrun, plan, "--device", "cpu", "--force", "--check", ref])
            errors = re.search(r"'output': abs error max \S+", checked.stdout)
            if errors:
                print("   ", errors.group(0))
            tally.check(f"{name}: iosrun --check matches onnxruntime", checked.returncode == 0,
                        checked.stdout + checked.stderr)
            os.remove(plan)
    tally.finish()


if __name__ == "__main__":
    main()
