#include "iosc/iosc_runner.h"

#include <cstdio>

#include <spdlog/spdlog.h>

#include "onnx/onnx_exporter.h"
#include "onnx/onnx_importer.h"
#include "passes/canonicalize.h"
#include "sched/block_report.h"
#include "sched/blocks.h"
#include "util/file_util.h"

namespace ios {

Status RunIosc(const IoscOptions& options) {
  ImportOptions import_options;
  import_options.batch = options.batch;
  IOS_ASSIGN_OR_RETURN(Graph graph, ImportOnnxFile(options.model_path, import_options));
  spdlog::info("imported {}: {} nodes, opset {}", options.model_path, graph.nodes.size(),
               graph.opset);

  CanonicalizeStats stats;
  IOS_RETURN_IF_ERROR(Canonicalize(graph, CanonicalizeOptions{}, &stats));
  std::printf("model %s (opset %lld), batch %lld\n", options.model_path.c_str(),
              static_cast<long long>(graph.opset), static_cast<long long>(options.batch));
  std::printf("canonicalised: %d -> %d nodes (%d constants folded, %d identities removed, "
              "%d BatchNorms folded, %d activations fused)\n",
              stats.nodes_before, stats.nodes_after, stats.constants_folded,
              stats.identities_removed, stats.batchnorms_folded, stats.activations_fused);
  if (!options.emit_onnx_path.empty()) {
    IOS_RETURN_IF_ERROR(ExportOnnxFile(graph, options.emit_onnx_path));
    spdlog::info("wrote the canonicalised graph to {}", options.emit_onnx_path);
  }

  BlockOptions block_options;
  block_options.part_limit = options.part_limit;
  IOS_ASSIGN_OR_RETURN(BlockStructure blocks, PartitionIntoBlocks(graph, block_options));
  std::fputs(FormatBlockSummary(blocks).c_str(), stdout);
  if (!options.dump_blocks_path.empty()) {
    IOS_ASSIGN_OR_RETURN(std::string json,
                         BlocksToJson(graph, blocks, options.model_path, options.batch,
                                      options.part_limit));
    IOS_RETURN_IF_ERROR(WriteFileAtomically(options.dump_blocks_path, json));
    spdlog::info("wrote the block structure to {}", options.dump_blocks_path);
  }
  return Status::Ok();
}

}  // namespace ios
