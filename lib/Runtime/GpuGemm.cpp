//===- GpuGemm.cpp - cuBLASLt GEMM steps of a launch plan ------------------===//
//
// GpuFunction::Impl's GEMM steps: the cuBLASLt descriptors and layouts of a
// GEMM shape, the timed choice of its algorithm, and issuing it on the
// function's stream (docs/gpu-runtime.md).
//
//===----------------------------------------------------------------------===//

#include "TuningCache.h"
#include "GpuFunctionImpl.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

namespace {
/// A GEMM step's description for messages.
std::string gemmWhere(size_t s, const GemmStep &gemm, const GemmArgs &args) {
  return " (step " + num(int64_t(s)) + ", gemm " + dtypeText(gemm.dtype) +
         (gemm.cDtype >= 0 && gemm.cDtype != gemm.dtype
              ? std::string(" -> ") + dtypeText(gemm.cDtype)
              : std::string()) +
         (gemm.tf32 ? " tf32" : "") + " m " + num(args.m) + " n " + num(args.n) + " k " + num(args.k) +
         " batch " + num(args.batch) + ")";
}

/// The device and cuBLASLt version a tuning choice holds for.
std::string tuningDevice(const CublasLt &lt) {
  return deviceName() + "; cuBLASLt " + std::to_string(lt.cublasLtGetVersion());
}

bool gemmTuningEnabled() {
  const char *value = std::getenv("TGC_GEMM_TUNE");
  return !value || std::strcmp(value, "0") != 0;
}
} // namespace

std::vector<int64_t> GpuFunction::Impl::gemmKey(size_t s) const {
  const GemmArgs &args = gemms[s];
  return {int64_t(s),
          args.m,
          args.n,
          args.k,
          args.batch,
          args.strideA,
          args.strideB,
          args.strideC,
          pointerAlignment(args.a),
          pointerAlignment(args.b),
          pointerAlignment(args.c),
          pointerAlignment(args.bias),
          plan.steps[s].gemm.residual >= 0
              ? int64_t(pointerAlignment(args.residual))
              : -1};
}

GemmConfig *GpuFunction::Impl::gemmConfig(size_t s, bool tune,
                                          std::string &error) {
  const GemmStep &gemm = plan.steps[s].gemm;
  const GemmArgs &args = gemms[s];
  // Only built for a message.
  auto where = [&] { return gemmWhere(s, gemm, args); };
  auto ltFail = [&](const char *call, cublasStatus_t status) -> GemmConfig * {
    error = errorMessage(*lt, call, status) + where();
    return nullptr;
  };
  auto cudaType = [](int32_t dtype) {
    return dtype == TGC_DTYPE_F16    ? CUDA_R_16F
           : dtype == TGC_DTYPE_BF16 ? CUDA_R_16BF
           : dtype == TGC_DTYPE_F64  ? CUDA_R_64F
                                     : CUDA_R_32F;
  };
  bool isF64 = gemm.dtype == TGC_DTYPE_F64;
  int dataType = cudaType(gemm.dtype);
  // C, D and the bias.
  int outType = cudaType(gemm.cDtype >= 0 ? gemm.cDtype : gemm.dtype);
  uint32_t alignA = pointerAlignment(args.a), alignB = pointerAlignment(args.b),
           alignD = pointerAlignment(args.c),
           alignC =
               gemm.residual >= 0 ? pointerAlignment(args.residual) : alignD;
  std::vector<int64_t> key = gemmKey(s);
  auto found = gemmConfigs.find(key);
  if (found == gemmConfigs.end()) {
    GemmConfig config;
    // Row-major C[m,n] = A[m,k] B[k,n] is column-major C^T[n,m] =
    // B^T[n,k] A^T[k,m]: cuBLAS's A is our B and its B is our A, each read
    // in place (a row-major matrix is its transpose in column-major).
    auto release = [&] { config.release(*lt); };
    auto configFail = [&](const char *call, cublasStatus_t status) {
      release();
      return ltFail(call, status);
    };
    cublasStatus_t status = lt->cublasLtMatmulDescCreate(
        &config.desc,
        isF64         ? CUBLAS_COMPUTE_64F
        : gemm.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                      : CUBLAS_COMPUTE_32F,
        isF64 ? CUDA_R_64F : CUDA_R_32F);
    if (status != CUBLAS_STATUS_SUCCESS)
      return configFail("cublasLtMatmulDescCreate", status);
    int32_t opA = gemm.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    int32_t opB = gemm.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    // Indexed by GemmStep::Epilogue (the parser checks its range).
    static const uint32_t kLtEpilogues[] = {
        CUBLASLT_EPILOGUE_DEFAULT,   CUBLASLT_EPILOGUE_BIAS,
        CUBLASLT_EPILOGUE_RELU,      CUBLASLT_EPILOGUE_RELU_BIAS,
        CUBLASLT_EPILOGUE_GELU,      CUBLASLT_EPILOGUE_GELU_BIAS};
    uint32_t epilogue = kLtEpilogues[gemm.epilogue];
    bool hasBias = gemm.bias >= 0;
    int32_t biasType = outType;
    if ((status = lt->cublasLtMatmulDescSetAttribute(
             config.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA))) !=
            CUBLAS_STATUS_SUCCESS ||
        (status = lt->cublasLtMatmulDescSetAttribute(
             config.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB))) !=
            CUBLAS_STATUS_SUCCESS ||
        (status = lt->cublasLtMatmulDescSetAttribute(
             config.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
             sizeof(epilogue))) != CUBLAS_STATUS_SUCCESS)
      return configFail("cublasLtMatmulDescSetAttribute", status);
    if (hasBias) {
      const void *bias = reinterpret_cast<const void *>(args.bias);
      if ((status = lt->cublasLtMatmulDescSetAttribute(
               config.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType,
               sizeof(biasType))) != CUBLAS_STATUS_SUCCESS ||
          (status = lt->cublasLtMatmulDescSetAttribute(
               config.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
               sizeof(bias))) != CUBLAS_STATUS_SUCCESS)
        return configFail("cublasLtMatmulDescSetAttribute", status);
    }
    // cuBLAS's A = our B: n x k (stored k x n row-major, or n x k with
    // transB). cuBLAS's B = our A: k x m. D = C: n x m, ld n.
    struct LayoutSpec {
      cublasLtMatrixLayout_t *layout;
      uint64_t rows, cols;
      int64_t ld, stride;
    };
    LayoutSpec specs[] = {
        {&config.layoutA, uint64_t(gemm.transB ? args.k : args.n),
         uint64_t(gemm.transB ? args.n : args.k), gemm.transB ? args.k : args.n,
         args.strideB},
        {&config.layoutB, uint64_t(gemm.transA ? args.m : args.k),
         uint64_t(gemm.transA ? args.k : args.m), gemm.transA ? args.m : args.k,
         args.strideA},
        {&config.layoutC, uint64_t(args.n), uint64_t(args.m), args.n,
         args.strideC},
    };
    int32_t batch = int32_t(args.batch);
    for (LayoutSpec &spec : specs) {
      status = lt->cublasLtMatrixLayoutCreate(
          spec.layout, spec.layout == &config.layoutC ? outType : dataType,
          spec.rows, spec.cols, spec.ld);
      if (status != CUBLAS_STATUS_SUCCESS)
        return configFail("cublasLtMatrixLayoutCreate", status);
      if (batch > 1 &&
          ((status = lt->cublasLtMatrixLayoutSetAttribute(
                *spec.layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                sizeof(batch))) != CUBLAS_STATUS_SUCCESS ||
           (status = lt->cublasLtMatrixLayoutSetAttribute(
                *spec.layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                &spec.stride, sizeof(spec.stride))) != CUBLAS_STATUS_SUCCESS))
        return configFail("cublasLtMatrixLayoutSetAttribute", status);
    }
    cublasLtMatmulPreference_t preference = nullptr;
    status = lt->cublasLtMatmulPreferenceCreate(&preference);
    if (status != CUBLAS_STATUS_SUCCESS)
      return configFail("cublasLtMatmulPreferenceCreate", status);
    uint64_t workspaceBytes = kGemmWorkspaceBytes;
    // cuBLAS's A is our B, its B our A.
    uint32_t alignments[] = {alignB, alignA, alignC, alignD};
    int alignmentAttrs[] = {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    status = lt->cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
        sizeof(workspaceBytes));
    for (int i = 0; i < 4 && status == CUBLAS_STATUS_SUCCESS; ++i)
      status = lt->cublasLtMatmulPreferenceSetAttribute(
          preference, alignmentAttrs[i], &alignments[i], sizeof(uint32_t));
    if (status != CUBLAS_STATUS_SUCCESS) {
      lt->cublasLtMatmulPreferenceDestroy(preference);
      return configFail("cublasLtMatmulPreferenceSetAttribute", status);
    }
    cublasLtMatmulHeuristicResult_t heuristics[kGemmCandidates] = {};
    int algorithms = 0;
    status = lt->cublasLtMatmulAlgoGetHeuristic(
        ltHandle, config.desc, config.layoutA, config.layoutB, config.layoutC,
        config.layoutC, preference, kGemmCandidates, heuristics, &algorithms);
    lt->cublasLtMatmulPreferenceDestroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS)
      return configFail("cublasLtMatmulAlgoGetHeuristic", status);
    if (algorithms < 1) {
      release();
      error = "cublasLtMatmulAlgoGetHeuristic found no algorithm" + where();
      return nullptr;
    }
    config.algo = heuristics[0].algo;
    // The shape's tuned algorithm: cached, or timed now.
    std::vector<int64_t> shape(key.begin() + 1, key.end() - 1);
    for (int64_t field :
         {int64_t(gemm.dtype), int64_t(gemm.cDtype), int64_t(gemm.transA),
          int64_t(gemm.transB), int64_t(gemm.epilogue), int64_t(gemm.tf32)})
      shape.push_back(field);
    // A residual adds its alignment (entries without one keep their key).
    if (gemm.residual >= 0)
      shape.push_back(key.back());
    auto tuned = tunedAlgos.find(shape);
    if (tuned != tunedAlgos.end()) {
      config.algo = tuned->second;
    } else if (tune && algorithms > 1 && gemmTuningEnabled()) {
      // Chosen by an earlier process (TuningCache.h), or timed now.
      std::string device = tuningDevice(*lt);
      int chosen = lookupTuning("gemm", device, shape);
      if (chosen >= 0 && chosen < algorithms &&
          heuristics[chosen].state == CUBLAS_STATUS_SUCCESS) {
        config.algo = heuristics[chosen].algo;
        ++stats.gemmTuningsFromDisk;
      } else {
        if (!tuneGemm(s, config, heuristics, algorithms, chosen, error)) {
          release();
          return nullptr;
        }
        recordTuning("gemm", device, shape, chosen);
      }
      tunedAlgos.emplace(std::move(shape), config.algo);
    }
    found = gemmConfigs.emplace(std::move(key), config).first;
  } else if (gemm.bias >= 0) {
    // The cached descriptor may hold another call's bias pointer.
    const void *bias = reinterpret_cast<const void *>(args.bias);
    cublasStatus_t status = lt->cublasLtMatmulDescSetAttribute(
        found->second.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
        sizeof(bias));
    if (status != CUBLAS_STATUS_SUCCESS)
      return ltFail("cublasLtMatmulDescSetAttribute", status);
  }
  return &found->second;
}

cublasStatus_t GpuFunction::Impl::matmul(size_t s, const GemmConfig &config,
                                         const cublasLtMatmulAlgo_t &algo,
                                         uint64_t c) {
  const GemmArgs &args = gemms[s];
  bool isF64 = plan.steps[s].gemm.dtype == TGC_DTYPE_F64;
  // beta = 1 adds the residual (C's layout) to the product.
  bool residual = plan.steps[s].gemm.residual >= 0;
  float alpha32 = 1.0f, beta32 = residual ? 1.0f : 0.0f;
  double alpha64 = 1.0, beta64 = residual ? 1.0 : 0.0;
  const void *alpha = isF64 ? static_cast<const void *>(&alpha64)
                            : static_cast<const void *>(&alpha32);
  const void *beta = isF64 ? static_cast<const void *>(&beta64)
                           : static_cast<const void *>(&beta32);
  void *d = reinterpret_cast<void *>(c);
  const void *cIn =
      residual ? reinterpret_cast<const void *>(args.residual) : d;
  return lt->cublasLtMatmul(
      ltHandle, config.desc, alpha, reinterpret_cast<const void *>(args.b),
      config.layoutA, reinterpret_cast<const void *>(args.a), config.layoutB,
      beta, cIn, config.layoutC, d, config.layoutC, &algo,
      reinterpret_cast<void *>(workspace), size_t(kGemmWorkspaceBytes), stream);
}

int GpuFunction::Impl::fastestCandidate(int count, int runs,
                                        const std::function<bool(int)> &run,
                                        CUresult &sync) {
  int fastest = -1;
  double best = -1;
  sync = CUDA_SUCCESS;
  for (int i = 0; i < count; ++i) {
    if (!run(i))
      continue;
    if ((sync = cu->cuStreamSynchronize(stream)) != CUDA_SUCCESS)
      break;
    auto start = std::chrono::steady_clock::now();
    bool ok = true;
    for (int r = 0; r < runs && ok; ++r)
      ok = run(i);
    if ((sync = cu->cuStreamSynchronize(stream)) != CUDA_SUCCESS)
      break;
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (ok && (best < 0 || seconds < best)) {
      best = seconds;
      fastest = i;
    }
  }
  return fastest;
}

bool GpuFunction::Impl::tuneGemm(
    size_t s, GemmConfig &config,
    const cublasLtMatmulHeuristicResult_t *candidates, int count, int &chosen,
    std::string &error) {
  chosen = 0;
  const GemmStep &gemm = plan.steps[s].gemm;
  const GemmArgs &args = gemms[s];
  // A scratch output: the step's own may be read by earlier steps of this
  // call that have not run yet.
  int64_t outBytes = dtypeBytes(gemm.cDtype >= 0 ? gemm.cDtype : gemm.dtype);
  uint64_t bytes =
      uint64_t(args.strideC * (args.batch - 1) + args.m * args.n) * outBytes;
  CUdeviceptr scratch = 0;
  CUresult result =
      cu->cuMemAlloc(&scratch, size_t(std::max<uint64_t>(bytes, 256)));
  if (result != CUDA_SUCCESS) {
    fail(error, "cuMemAlloc", result);
    error += " (GEMM tuning scratch of " + num(int64_t(bytes)) + " bytes)" +
             gemmWhere(s, gemm, args);
    return false;
  }
  int fastest = fastestCandidate(
      count, kGemmTimedRuns,
      [&](int i) {
        return candidates[i].state == CUBLAS_STATUS_SUCCESS &&
               candidates[i].workspaceSize <= kGemmWorkspaceBytes &&
               matmul(s, config, candidates[i].algo, scratch) ==
                   CUBLAS_STATUS_SUCCESS;
      },
      result);
  if (fastest >= 0) {
    config.algo = candidates[fastest].algo;
    chosen = fastest;
  }
  cu->cuMemFree(scratch);
  if (result != CUDA_SUCCESS) {
    fail(error, "cuStreamSynchronize", result);
    error += " (timing cuBLASLt algorithms)" + gemmWhere(s, gemm, args);
    return false;
  }
  ++stats.gemmTunings;
  return true;
}

bool GpuFunction::Impl::issueGemm(size_t s, bool capturing,
                                  std::string &error) {
  const GemmStep &gemm = plan.steps[s].gemm;
  const GemmArgs &args = gemms[s];
  if (args.skip)
    return true;
  GemmConfig *found = gemmConfig(s, /*tune=*/!capturing, error);
  if (!found)
    return false;
  auto ltFail = [&](const char *call, cublasStatus_t status) {
    error = errorMessage(*lt, call, status) + gemmWhere(s, gemm, args);
    return false;
  };
  const GemmConfig &config = *found;
  cublasStatus_t status = matmul(s, config, config.algo, args.c);
  if (status != CUBLAS_STATUS_SUCCESS)
    return ltFail("cublasLtMatmul", status);
  if (!capturing)
    ++stats.gemms;
  return true;
}
