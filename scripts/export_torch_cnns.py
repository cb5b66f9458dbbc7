#!/usr/bin/env python3
"""Exports torchvision and timm CNNs with both PyTorch ONNX exporters, for
scripts/bench_exporters.py (issue 50: one network, one speed, whatever the exporter).

    export_torch_cnns.py --out DIR [--nets NAME,...] [--opset 20]

Writes DIR/<net>.torchscript.onnx (torch.onnx.export(..., dynamo=False)) and
DIR/<net>.dynamo.onnx (dynamo=True, the exporter's default graph optimisation), both at batch 1
(fixed) and 3x224x224, from the same module in eval mode: random weights from a fixed seed
(neither torchvision's nor timm's pretrained weights are downloaded), BatchNorm running
statistics randomised too so that folding them is not a no-op, auxiliary heads off. Weights are
kept inside each file (external_data=False).

Not a dependency of ios or of its tests: it needs torch, torchvision, timm and onnxscript, and
is run by hand in a scratch environment, e.g.

    python3 -m venv /tmp/torchenv
    /tmp/torchenv/bin/pip install torch torchvision timm onnxscript onnx onnxruntime
    /tmp/torchenv/bin/python scripts/export_torch_cnns.py --out /tmp/exports
"""
import argparse
import os
import sys

import torch

# name -> (library, constructor name, keyword arguments)
NETS = {
    "tv_resnet50": ("torchvision", "resnet50", {}),
    "tv_mobilenet_v2": ("torchvision", "mobilenet_v2", {}),
    "tv_mobilenet_v3_large": ("torchvision", "mobilenet_v3_large", {}),
    "tv_efficientnet_b0": ("torchvision", "efficientnet_b0", {}),
    "tv_densenet121": ("torchvision", "densenet121", {}),
    "tv_googlenet": ("torchvision", "googlenet", {"aux_logits": False, "init_weights": True}),
    "tv_shufflenet_v2_x1_0": ("torchvision", "shufflenet_v2_x1_0", {}),
    "tv_regnet_y_400mf": ("torchvision", "regnet_y_400mf", {}),
    "tv_convnext_tiny": ("torchvision", "convnext_tiny", {}),
    "timm_efficientnet_b0": ("timm", "efficientnet_b0", {}),
    "timm_mobilenetv3_large_100": ("timm", "mobilenetv3_large_100", {}),
    "timm_resnet50d": ("timm", "resnet50d", {}),
    "timm_rexnet_100": ("timm", "rexnet_100", {}),
    "timm_ghostnet_100": ("timm", "ghostnet_100", {}),
}


def build(name, seed):
    library, constructor, kwargs = NETS[name]
    torch.manual_seed(seed)
    if library == "torchvision":
        import torchvision
        model = getattr(torchvision.models, constructor)(weights=None, **kwargs)
    else:
        import timm
        model = timm.create_model(constructor, pretrained=False, **kwargs)
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                channels = module.num_features
                module.running_mean.copy_(0.1 * torch.randn(channels, generator=generator))
                module.running_var.copy_(0.5 + torch.rand(channels, generator=generator))
                if module.affine:
                    module.weight.copy_(0.5 + 0.5 * torch.rand(channels, generator=generator))
                    module.bias.copy_(0.1 * torch.randn(channels, generator=generator))
    return model.eval()


def export(model, path, dynamo, opset):
    tmp = path + ".tmp"
    example = (torch.randn(1, 3, 224, 224),)
    torch.onnx.export(model, example, tmp, dynamo=dynamo, opset_version=opset,
                      input_names=["input"], output_names=["logits"], external_data=False)
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--nets", default=",".join(NETS))
    parser.add_argument("--opset", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(2)
    for name in args.nets.split(","):
        if name not in NETS:
            parser.error(f"unknown net {name!r}; known: {', '.join(NETS)}")
        model = build(name, args.seed)
        for exporter, dynamo in (("torchscript", False), ("dynamo", True)):
            path = os.path.join(args.out, f"{name}.{exporter}.onnx")
            export(model, path, dynamo, args.opset)
            print(path, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
