"""Generators of the IOS paper's four benchmark networks, of published ImageNet CNNs, and of
small test models, as ONNX.

Each module exposes NAME, VERSION (bump it whenever the generated graph or its
weights change) and build(seed, **options) -> onnx.ModelProto.  The benchmark
networks follow /work/shared/reference-models/README.md (copied facts, see each
module).  The CNN zoo (CNNS) follows the published architectures at 3x224x224 with
1000 classes (MobileNetV2 and V3-Large, EfficientNet-B0, ResNet-50, DenseNet-121, GoogLeNet,
ShuffleNetV2; BatchNorm folded into the convs; each module's docstring gives the
paper and what it leaves out); tests/python/test_cnn_zoo.py checks their parameter
counts against the published ones and runs them end to end.
"""

from . import (densenet121, detection_fcn, efficientnet_b0, googlenet, inception_v3,
               mobilenet_v2, mobilenet_v3_large, nasnet, randwire, resnet50, shufflenet_v2, squeezenet,
               upsampling_decoder)

# The four benchmark networks: what generate_models.py makes by default.
BENCHMARKS = {
    inception_v3.NAME: inception_v3,
    squeezenet.NAME: squeezenet,
    randwire.NAME: randwire,
    nasnet.NAME: nasnet,
}
MODEL_NAMES = list(BENCHMARKS)

# Published ImageNet CNNs (224x224, 1000 classes), made on request.
CNNS = {
    mobilenet_v2.NAME: mobilenet_v2,
    mobilenet_v3_large.NAME: mobilenet_v3_large,
    efficientnet_b0.NAME: efficientnet_b0,
    resnet50.NAME: resnet50,
    densenet121.NAME: densenet121,
    googlenet.NAME: googlenet,
    shufflenet_v2.NAME: shufflenet_v2,
}

# Test models of the shapes users' exports take (free input size, ...), made on request.
GENERATORS = dict(BENCHMARKS, **CNNS, **{detection_fcn.NAME: detection_fcn,
                                         upsampling_decoder.NAME: upsampling_decoder})
