// Helpers shared by the factories of ios's own CUDA kernels: errors that name the node, and
// access to the node's inputs as the kernel context describes them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "ir/dtype.h"
#include "kernels/math/cast_math.h"
#include "kernels/math/index_math.h"
#include "ops/op_params.h"
#include "runtime/cuda/kernels/cuda_kernel.h"
#include "util/status.h"

namespace ios {

// Unsupported: "node 'name' (Op): the CUDA kernel does not support <what>".
Status RefuseOnCuda(const Node& node, const std::string& what);
// InvalidInput: "node 'name' (Op): <why>".
Status InvalidOnCuda(const Node& node, const std::string& why);

// True when the node has input `index` and it is not omitted.
bool CudaInputPresent(const CudaKernelContext& context, size_t index);
// The host value of input `index` when it is a constant, else null.
const Tensor* CudaConstantInput(const CudaKernelContext& context, size_t index);

// The node's inputs for the shared parameter parsers (ops/op_params.h).
NodeInputs CudaNodeInputs(const CudaKernelContext& context);
// A parser's error as the CUDA factories report it: Unsupported (a value known only at run
// time) as RefuseOnCuda, anything else as InvalidOnCuda, naming the node once.
Status ParamsErrorOnCuda(const Node& node, const Status& status);

// Refuses unless input 0 and output 0 exist and both have `dtype`.
Status RequireMainDType(const CudaKernelContext& context, DType dtype);
// For an elementwise op: RequireMainDType, then the element count, which output 0 must share.
StatusOr<int64_t> ElementwiseCount(const CudaKernelContext& context, DType dtype);

// A kernel computing out[i] = in[MapOffset(*map, i)] for the `out` dims, elements of `elem`
// bytes (Slice, Transpose, Expand, Tile); refuses the node when the map could not be `built`
// (too many dimensions). Defined in tensor_cuda.cc.
StatusOr<std::unique_ptr<CudaKernel>> IndexMapGatherKernel(const Node& node, const IndexMap* map,
                                                           bool built, const Dims& out,
                                                           size_t elem);


}  // namespace ios
