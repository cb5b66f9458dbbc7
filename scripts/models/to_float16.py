#!/usr/bin/env python3
"""Converts a float32 ONNX model to float16, as `model.half()` before torch.onnx.export or
onnxconverter-common's float16 conversion write it:

    to_float16.py MODEL.onnx OUT.onnx

Every float32 initializer, Constant and ConstantOfShape value becomes float16, Casts to float32
cast to float16, and the graph's float32 inputs and outputs are declared float16 (intermediate
value_info is dropped; onnxruntime infers it again). For tests of float16 models; generated at
test time, never committed.
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper


def convert(model):
    graph = model.graph
    for i, init in enumerate(graph.initializer):
        if init.data_type == TensorProto.FLOAT:
            graph.initializer[i].CopyFrom(numpy_helper.from_array(
                numpy_helper.to_array(init).astype(np.float16), init.name))
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == TensorProto.FLOAT:
                attr.t.CopyFrom(numpy_helper.from_array(
                    numpy_helper.to_array(attr.t).astype(np.float16), attr.t.name))
            if node.op_type == "Cast" and attr.name == "to" and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.FLOAT16
    for value in list(graph.input) + list(graph.output):
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.FLOAT16
    del graph.value_info[:]
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("out")
    args = parser.parse_args()
    model = convert(onnx.load(args.model))
    tmp = args.out + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
