"""Generators of the IOS paper's four benchmark networks as ONNX models.

Each module exposes NAME, VERSION (bump it whenever the generated graph or its
weights change) and build(seed, **options) -> onnx.ModelProto.  The networks
follow /work/shared/reference-models/README.md (copied facts, see each module).
"""

from . import inception_v3, nasnet, randwire, squeezenet

GENERATORS = {
    inception_v3.NAME: inception_v3,
    squeezenet.NAME: squeezenet,
    randwire.NAME: randwire,
    nasnet.NAME: nasnet,
}

MODEL_NAMES = list(GENERATORS)
