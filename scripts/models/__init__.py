"""Generators of the IOS paper's four benchmark networks, and of small test models, as ONNX.

Each module exposes NAME, VERSION (bump it whenever the generated graph or its
weights change) and build(seed, **options) -> onnx.ModelProto.  The networks
follow /work/shared/reference-models/README.md (copied facts, see each module).
"""

from . import detection_fcn, inception_v3, nasnet, randwire, squeezenet

# The four benchmark networks: what generate_models.py makes by default.
BENCHMARKS = {
    inception_v3.NAME: inception_v3,
    squeezenet.NAME: squeezenet,
    randwire.NAME: randwire,
    nasnet.NAME: nasnet,
}
MODEL_NAMES = list(BENCHMARKS)

# Test models of the shapes users' exports take (free input size, ...), made on request.
GENERATORS = dict(BENCHMARKS, **{detection_fcn.NAME: detection_fcn})
