#!/usr/bin/env python3
"""Classify an image with an ios plan: compile the ONNX model once (the IOS search measures its
stages on this CPU), keep the plan, and run it.

    python3 classify.py MODEL.onnx [--plan MODEL.iosplan] [--image IMAGE.npy] [--top 5]
                        [--json FILE]

IMAGE.npy holds the model's input as float32 (e.g. 1x3x224x224, normalised); without it a
random image is classified. With --plan, an existing plan is run, and a new one is saved there.
--json writes the top classes as [{"class": i, "score": s}, ...].
"""
import argparse
import json
import os

import numpy as np

import ios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--plan", help="where the plan is kept (compiled when it is missing)")
    parser.add_argument("--image", help="the input as a .npy file (default: random)")
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--json", help="write the top classes here as JSON")
    args = parser.parse_args()

    if args.plan and os.path.exists(args.plan):
        session = ios.Session(args.plan)
    else:
        plan = ios.compile(args.model, batch=1, device="cpu")
        print(f"compiled: predicted {plan.predicted_latency_ms:.2f} ms per image")
        if args.plan:
            plan.save(args.plan)
        session = ios.Session(plan)

    image_info = session.inputs[0]
    if args.image:
        image = np.load(args.image).astype(image_info.dtype, copy=False)
    else:
        image = np.random.default_rng(0).standard_normal(image_info.shape).astype(
            image_info.dtype)
    scores = session.run({image_info.name: image})[session.outputs[0].name].reshape(-1)
    top = np.argsort(-scores, kind="stable")[:args.top]
    for index in top:
        print(f"{int(index)} {float(scores[index]):.6g}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"class": int(i), "score": float(scores[i])} for i in top], f)


if __name__ == "__main__":
    main()
