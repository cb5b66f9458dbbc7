// The reference kernel table, filled explicitly by one function per op category (one file
// each). reference_kernels.cc calls them all; nothing registers itself statically.
#pragma once

#include <map>
#include <string>

#include "kernels/reference/reference_kernels.h"

namespace ios {

using ReferenceKernelTable = std::map<std::string, ReferenceKernel>;

void AddConvReferenceKernels(ReferenceKernelTable& table);           // conv_ref.cc
void AddNormalizationReferenceKernels(ReferenceKernelTable& table);  // normalization_ref.cc
void AddActivationReferenceKernels(ReferenceKernelTable& table);     // activation_ref.cc
void AddElementwiseReferenceKernels(ReferenceKernelTable& table);    // elementwise_ref.cc
void AddPoolReferenceKernels(ReferenceKernelTable& table);           // pool_ref.cc
void AddTensorReferenceKernels(ReferenceKernelTable& table);         // tensor_ref.cc
void AddDepthSpaceReferenceKernels(ReferenceKernelTable& table);     // depth_space_ref.cc
void AddMatmulReferenceKernels(ReferenceKernelTable& table);         // matmul_ref.cc
void AddMiscReferenceKernels(ReferenceKernelTable& table);           // misc_ref.cc
void AddReductionReferenceKernels(ReferenceKernelTable& table);      // reduction_ref.cc
void AddResizeReferenceKernels(ReferenceKernelTable& table);         // resize_ref.cc
void AddScatterReferenceKernels(ReferenceKernelTable& table);        // scatter_ref.cc

}  // namespace ios
