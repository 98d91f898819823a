//===- GpuGraphs.cpp - CUDA graphs of a launch plan
//------------------------===//
//
// GpuFunction::Impl's CUDA graphs: capture of a call's steps, matching the
// captured kernel nodes to plan steps, patching a graph for a call whose
// pointers and sizes changed, and replay (docs/gpu-runtime.md). A graph
// holds the steps from `graphFirst` on: the device-side checks of the
// inputs before them run outside it, so that a replay need not be waited
// for.
//
//===----------------------------------------------------------------------===//

#include "GpuFunctionImpl.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

void GpuFunction::Impl::matchCapturedNodes(Graph &graph) {
  size_t count = 0;
  if (cu->cuGraphGetNodes(graph.graph, nullptr, &count) != CUDA_SUCCESS ||
      count == 0)
    return;
  std::vector<CUgraphNode> nodes(count);
  if (cu->cuGraphGetNodes(graph.graph, nodes.data(), &count) != CUDA_SUCCESS)
    return;
  nodes.resize(count);
  std::vector<bool> matched(plan.steps.size(), false);
  for (CUgraphNode node : nodes) {
    int type = -1;
    if (cu->cuGraphNodeGetType(node, &type) != CUDA_SUCCESS ||
        type != CU_GRAPH_NODE_TYPE_KERNEL)
      continue;
    KernelNodeParams params = {};
    if (cu->cuGraphKernelNodeGetParams(node, &params) != CUDA_SUCCESS)
      continue;
    // The first launch step not matched yet with the same kernel and the
    // same parameter values (cuBLASLt's kernels match none of ours).
    for (size_t s = graphFirst; s < plan.steps.size(); ++s) {
      if (matched[s] || plan.steps[s].kind != PlanStep::Launch ||
          launches[s].skip ||
          functions[plan.steps[s].launch.kernel] != params.func)
        continue;
      const std::vector<uint64_t> &values = launches[s].values;
      bool same = true;
      if (params.kernelParams) {
        for (size_t i = 0; i < values.size() && same; ++i) {
          uint64_t captured = 0;
          std::memcpy(&captured, params.kernelParams[i], sizeof(captured));
          same = captured == values[i];
        }
      }
      if (!same)
        continue;
      matched[s] = true;
      graph.steps[s].node = node;
      break;
    }
  }
}

/// Records what step `s` is in this call into `record` (its node kept).
static void recordStep(const PlanStep &step, const LaunchArgs &launch,
                       const std::vector<uint64_t> &pointers,
                       StepRecord &record) {
  if (step.kind != PlanStep::Launch) {
    record.values = pointers;
    return;
  }
  record.values = launch.values;
  std::copy(launch.grid, launch.grid + 3, record.grid);
  record.shared = launch.shared;
  record.skipped = launch.skip;
}

bool GpuFunction::Impl::configureShared(size_t s, std::string &error) {
  int32_t kernel = plan.steps[s].launch.kernel;
  if (int64_t(launches[s].shared) <= sharedConfigured[kernel])
    return true;
  CUresult result = cu->cuFuncSetAttribute(
      functions[kernel], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      int(launches[s].shared));
  if (result != CUDA_SUCCESS)
    return fail(error, "cuFuncSetAttribute", result);
  sharedConfigured[kernel] = launches[s].shared;
  return true;
}

bool GpuFunction::Impl::capture(Graph &graph, std::string &error) {
  graph.key = values;
  graph.steps.assign(plan.steps.size(), StepRecord());
  for (size_t s = graphFirst; s < plan.steps.size(); ++s)
    recordStep(plan.steps[s], launches[s], pointers[s], graph.steps[s]);
  bool onlyLaunches = std::all_of(
      plan.steps.begin() + graphFirst, plan.steps.end(),
      [](const PlanStep &step) { return step.kind == PlanStep::Launch; });
  CUresult result;
  if (onlyLaunches) {
    // Built node by node: the node handles come for free.
    result = cu->cuGraphCreate(&graph.graph, 0);
    if (result != CUDA_SUCCESS)
      return fail(error, "cuGraphCreate", result);
    CUgraphNode previous = nullptr;
    for (size_t s = graphFirst; s < plan.steps.size(); ++s) {
      if (launches[s].skip)
        continue;
      // Shared-memory limits are function attributes, set outside graphs.
      int32_t kernel = plan.steps[s].launch.kernel;
      if (!configureShared(s, error))
        return false;
      std::vector<void *> storage;
      KernelNodeParams params = nodeParams(s, storage);
      CUgraphNode node = nullptr;
      result = cu->cuGraphAddKernelNode(&node, graph.graph,
                                        previous ? &previous : nullptr,
                                        previous ? 1 : 0, &params);
      if (result != CUDA_SUCCESS) {
        fail(error, "cuGraphAddKernelNode", result);
        error += " (step " + num(int64_t(s)) + ", kernel " +
                 plan.kernels[kernel] + ")";
        return false;
      }
      graph.steps[s].node = node;
      previous = node;
    }
  } else {
    // Captured on the function's own stream (the caller's may be the
    // legacy default stream, which cannot be captured); nothing runs
    // during a capture, the graph is launched on the call's stream.
    CUstream callStream = stream;
    stream = ownStream;
    result = cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (result != CUDA_SUCCESS) {
      stream = callStream;
      return fail(error, "cuStreamBeginCapture", result);
    }
    bool issued = true;
    for (size_t s = graphFirst; s < plan.steps.size() && issued; ++s)
      issued = issue(s, /*capturing=*/true, error);
    result = cu->cuStreamEndCapture(stream, &graph.graph);
    stream = callStream;
    if (!issued)
      return false;
    if (result != CUDA_SUCCESS)
      return fail(error, "cuStreamEndCapture", result);
    matchCapturedNodes(graph);
  }
  result = cu->cuGraphInstantiate(&graph.exec, graph.graph, 0);
  if (result != CUDA_SUCCESS) {
    graph.exec = nullptr;
    return fail(error, "cuGraphInstantiate", result);
  }
  ++stats.graphCaptures;
  return true;
}

bool GpuFunction::Impl::patchable(const Graph &graph) const {
  for (size_t s = graphFirst; s < plan.steps.size(); ++s) {
    const StepRecord &record = graph.steps[s];
    if (plan.steps[s].kind != PlanStep::Launch) {
      if (pointers[s] != record.values)
        return false;
      continue;
    }
    // A launch skipped in one and not the other has a node in only one.
    if (launches[s].skip != record.skipped)
      return false;
    if (!launches[s].skip && !record.node &&
        (launches[s].values != record.values ||
         !std::equal(record.grid, record.grid + 3, launches[s].grid) ||
         launches[s].shared != record.shared))
      return false;
  }
  return true;
}

bool GpuFunction::Impl::runGraph(std::string &error) {
  // A graph of these very sizes, else one that patching kernel nodes makes
  // fit (sizes are kernel arguments and grids are node parameters, so one
  // graph serves every size set whose GEMMs, copies and skipped launches
  // are the same), else a new capture.
  auto found =
      std::find_if(graphs.begin(), graphs.end(),
                   [&](const Graph &graph) { return graph.key == values; });
  if (found != graphs.end() && !patchable(*found)) {
    // Same sizes, but a GEMM's, copy's or memset's pointers changed (its
    // result is the caller's memory, a new block): another graph of these
    // sizes may have them, else a new one is captured beside this one
    // (results that alternate between a few blocks keep a graph each).
    found = graphs.end();
  }
  if (found == graphs.end()) {
    // The most recently used graph that patching makes fit.
    auto fit = std::find_if(graphs.rbegin(), graphs.rend(),
                            [&](const Graph &graph) { return patchable(graph); });
    found = fit == graphs.rend() ? graphs.end() : std::prev(fit.base());
  }
  if (found != graphs.end()) {
    for (size_t s = graphFirst; s < plan.steps.size(); ++s) {
      StepRecord &record = found->steps[s];
      const LaunchArgs &launch = launches[s];
      if (plan.steps[s].kind != PlanStep::Launch || launch.skip ||
          (launch.values == record.values && launch.shared == record.shared &&
           std::equal(record.grid, record.grid + 3, launch.grid)))
        continue;
      if (!configureShared(s, error))
        return false;
      std::vector<void *> storage;
      KernelNodeParams params = nodeParams(s, storage);
      CUresult result =
          cu->cuGraphExecKernelNodeSetParams(found->exec, record.node, &params);
      if (result != CUDA_SUCCESS) {
        fail(error, "cuGraphExecKernelNodeSetParams", result);
        error += " (step " + num(int64_t(s)) + ")";
        return false;
      }
      recordStep(plan.steps[s], launch, pointers[s], record);
      ++stats.patchedNodes;
    }
    if (found->key != values) {
      found->key = values;
      ++stats.graphResizes;
    }
    // Most recently used last.
    std::rotate(found, found + 1, graphs.end());
    found = graphs.end() - 1;
  }
  if (found == graphs.end()) {
    if (graphs.size() >= kMaxGraphs) {
      destroyGraph(graphs.front());
      graphs.erase(graphs.begin());
    }
    // GEMM algorithms are timed before the capture (no synchronization
    // may happen during one).
    // So are cuDNN's choices (the workspace may grow).
    for (size_t s = graphFirst; s < plan.steps.size(); ++s) {
      if (plan.steps[s].kind == PlanStep::Gemm && !gemms[s].skip &&
          !gemmConfig(s, /*tune=*/true, error))
        return false;
      if (plan.steps[s].kind == PlanStep::Conv && !convs[s].skip &&
          !convs[s].zero && !convConfig(s, /*capturing=*/false, error))
        return false;
    }
    Graph graph;
    std::string captureError;
    if (!capture(graph, captureError)) {
      destroyGraph(graph);
      // Run the steps on the stream instead, and say why.
      stats.graphFallback = "graph capture failed: " + captureError;
      for (size_t s = graphFirst; s < plan.steps.size(); ++s)
        if (!issue(s, /*capturing=*/false, error))
          return false;
      return true;
    }
    graphs.push_back(std::move(graph));
    found = graphs.end() - 1;
  }
  CUresult result = cu->cuGraphLaunch(found->exec, stream);
  if (result != CUDA_SUCCESS)
    return fail(error, "cuGraphLaunch", result);
  ++stats.graphReplays;
  return true;
}
