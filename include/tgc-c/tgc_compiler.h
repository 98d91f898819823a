/*===- tgc_compiler.h - TGC compiler C API --------------------------------===*\
|*                                                                            *|
|* The C API of libtgc_capi: compile a function written in the `tgc`          *|
|* dialect (MLIR text) for the CPU or a CUDA GPU, check a call's arguments    *|
|* against its guards, and run it on caller-owned memory. The library also    *|
|* exports the runtime C API (tgc_runtime.h: argument descriptors, the guard  *|
|* dispatch cache, logging). Plain C99; Python uses it through ctypes, so one *|
|* build serves every Python version. See docs/python.md.                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TGC_C_TGC_COMPILER_H
#define TGC_C_TGC_COMPILER_H

#include "tgc/Runtime/tgc_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a function below changes its signature or meaning. */
#define TGC_CAPI_VERSION 6

int32_t tgc_capi_version(void);

/* The message of the last failed call on this thread ("" when none). Valid
 * until the thread's next call into the library. */
const char *tgc_last_error(void);

/* Whether a CUDA device can be used; when not, copies why into `why`
 * (NUL-terminated, truncated to `size`). Returns 1 or 0. */
int32_t tgc_cuda_available(char *why, size_t size);

/* One compiled specialization of one function. */
typedef struct tgc_compiled tgc_compiled;

/* Compiles function `entry` (NULL or "": the module's only public function
 * with a body) of `module_text`. `options` is a space-separated list of
 * key=value (NULL or "" for the defaults): device=cpu|cuda        target (cpu)
 *   policy=dynamic|static|auto   what `?` sizes become (dynamic)
 *   zero-one=0|1           specialize sizes 0 and 1 (1)
 *   duck=0|1               equal example sizes share a symbol (1)
 *   fuse=0|1               fusion groups (1)
 *   decompose=0|1          tgc-decompose: pointwise convs as matmuls, global
 *                          pools as reductions (1)
 *   example=ARG:D0xD1x...  the example shape of argument ARG (repeatable)
 *   keep-code=0|1          keep the generated code for tgc_compiled_code (0)
 *   openmp=0|1, approximate-math=0|1, opt-level=0..3   CPU code generation
 *   vector-math=0|1        CPU: loops of expf, tanhf, erff, ... call glibc's
 *                          vector math library, libmvec (1)
 *   vector-width=0|128|256|512  CPU: the vector width, in bits, LLVM's
 *                          vectorizers prefer; 0: the host's widest (512
 *                          with AVX-512) (0)
 *   direct-convolutions=0|1  CPU: ungrouped stride-1 convolutions as window
 *                          contractions, not im2col and a product (1)
 *   shared-libs=A:B:...    libraries the CPU JIT resolves symbols from
 *                          (default: libomp and MLIR's C runner utils where
 *                          the build found them)
 *   chip=sm_90, ptx-only=0|1, vectorize=0|1, cuda-graphs=0|1   CUDA
 *   device-asserts=0|1     CUDA: device-side checks as asserting kernels,
 *                          never waited for; a failed one leaves CUDA
 *                          unusable in the process (0; docs/gpu-runtime.md)
 *   exact-division=0|1     IEEE float divisions, not one reciprocal and
 *                          products per shared divisor (CUDA: a kernel's
 *                          divisions by one f32 value; CPU: a softmax's
 *                          row by its sum) (0)
 *   block-size=N, max-blocks=N, row-block-size=N, long-row-block-size=N,
 *   row-registers=0|1, gemm-epilogues=0|1, dedup-kernels=0|1
 *                          CUDA kernel shapes, as tgc-run's --gpu-* options
 *                          (defaults: tgc-gpu-form-kernels' options)
 *   tf32-matmuls=0|1, tf32-convolutions=0|1
 *                          CUDA: f32 matmul / bmm / linear, or convolution,
 *                          GEMMs may round their inputs to TF32, as PyTorch's
 *                          torch.backends.cuda.matmul.allow_tf32 and
 *                          torch.backends.cudnn.allow_tf32 allow (0, 0)
 *   cache-dir=PATH         the compile cache's folder: a compile whose key
 *                          (module text, entry, the options that change
 *                          code, TGC's build, the target) has an entry
 *                          there loads it instead of compiling; a new
 *                          compile is stored (docs/compile-cache.md).
 *                          Default: no cache.
 *   cache-max-mb=N         the cache's size bound (4096); least recently
 *                          used entries go first
 * Returns NULL on failure; tgc_last_error() then holds the diagnostics,
 * each with its location. */
tgc_compiled *tgc_compile(const char *module_text, const char *entry,
                          const char *options);

/* NULL is allowed. */
void tgc_compiled_destroy(tgc_compiled *compiled);

/* The compile cache's view of a handle: "status" ("off"; "hit": loaded
 * from the cache; "miss": compiled and stored; "miss, not stored"), "key"
 * (hex SHA-256), "path" (the entry's file) and "warning" (one line when an
 * entry was rejected as corrupted, truncated or of another key, or could
 * not be written; "" otherwise). "" for an unknown `what`. */
const char *tgc_compiled_cache(const tgc_compiled *compiled, const char *what);

int32_t tgc_compiled_device(const tgc_compiled *compiled); /* tgc_device_type */
int32_t tgc_compiled_num_args(const tgc_compiled *compiled);
int32_t tgc_compiled_num_results(const tgc_compiled *compiled);
double tgc_compiled_compile_ms(const tgc_compiled *compiled);
/* Fused loop nests (CPU) or kernel launches plus GEMM calls (CUDA). */
int64_t tgc_compiled_kernels(const tgc_compiled *compiled);
/* Where the compile's time went: "parse=0.41;frontend=3.20;..." (phase=ms,
 * in order; tgc/Compiler/CompileReport.h lists the phases). */
const char *tgc_compiled_phases(const tgc_compiled *compiled);

/* The guard set: readable text ("s0 >= 10") and reason of guard `index`;
 * NULL when out of range. */
int32_t tgc_compiled_num_guards(const tgc_compiled *compiled);
const char *tgc_compiled_guard_text(const tgc_compiled *compiled,
                                    int32_t index);
const char *tgc_compiled_guard_reason(const tgc_compiled *compiled,
                                      int32_t index);

/* Runs the guards on a call's arguments: -1 when all pass, else the index
 * of the first that fails; -2 for a wrong argument count. Never reads
 * outside the descriptors. */
int32_t tgc_compiled_check_guards(const tgc_compiled *compiled,
                                  const tgc_arg_desc *args, int32_t num_args);

/* Copies "guard 3 failed: s0 >= 10 (reason): s0 = 7" for guard `guard` and
 * these arguments into `buffer` like snprintf; returns the full length. */
int64_t tgc_compiled_describe_failure(const tgc_compiled *compiled,
                                      int32_t guard, const tgc_arg_desc *args,
                                      int32_t num_args, char *buffer,
                                      size_t size);

/* Bytes of the intermediate arena for these arguments (CPU), or of the
 * last run (CUDA); -1 when unknown. */
int64_t tgc_compiled_arena_bytes(const tgc_compiled *compiled,
                                 const tgc_arg_desc *args, int32_t num_args);

/* Generated code kept with keep-code=1: "loops" (CPU: the module after
 * tgc-cpu-pipeline, without the guard function), "guards" (CPU: the guard
 * function, LLVM dialect), "plan" (CUDA: the launch plan), "ptx" (CUDA,
 * with ptx-only=1), "kernels" (each kernel's source lines, a line per
 * kernel: "kernel K: scope@file:line|..."; CUDA always, CPU with
 * keep-code), "arena" (the arena's buffers for the example shapes, a line
 * each: "offset bytes first last", op positions; CUDA always, CPU with
 * keep-code), "steps" (CUDA: each launch-plan step for the example shapes,
 * a line each, tab-separated: "KIND NAME STRATEGY SHAPE BYTES FLOPS": a
 * kernel's strategy and grid, the bytes it reads and writes, a GEMM's
 * floating-point operations; tgc/Runtime/PlanSteps.h), "tf32" (CUDA: the
 * flags the source's f32 products are governed by, whatever their values:
 * "matmuls", "convolutions", both space-separated, or ""). "" when there
 * is none. */
const char *tgc_compiled_code(const tgc_compiled *compiled, const char *what);

/* Returns the memory for result `index` (dense row-major, on the compiled
 * function's device), or NULL to fail the run. On the CPU it may be called
 * while the compiled code runs (which then writes the result in place),
 * in any order of `index`, each index once; results the code did not ask
 * for are allocated after it and copied in. */
typedef void *(*tgc_result_alloc_fn)(void *user, int32_t index, int32_t dtype,
                                     int64_t rank, const int64_t *sizes);

/* Runs the compiled function on dense row-major arguments whose data
 * pointers are on its device (the caller ran the guards first: the code
 * assumes them). Out arguments are written in place; each result is
 * copied into the memory `alloc` returns for it. CUDA runs are synchronous
 * with respect to the host. Returns 0, or -1 with tgc_last_error(). */
int32_t tgc_compiled_run(tgc_compiled *compiled, const tgc_arg_desc *args,
                         int32_t num_args, tgc_result_alloc_fn alloc,
                         void *user);

/* As tgc_compiled_run, but on CUDA the call neither copies nor waits:
 * each result's memory comes from `alloc` before any work is issued and the
 * kernels write it directly; the work is issued on `stream` (a CUstream;
 * NULL is CUDA's legacy default stream, PyTorch's default stream), so the
 * arguments are read and the results written in that stream's order, and
 * the call returns once the work is issued. A plan with device-side data
 * checks (an index out of range) still waits, to report them. A call on
 * another stream than the previous call's is ordered after it (calls share
 * the function's scratch memory). Errors the device raises later surface
 * at the stream's next synchronization, as PyTorch's own do. On the CPU,
 * the same as tgc_compiled_run. Returns 0, or -1 with tgc_last_error(). */
int32_t tgc_compiled_run_on_stream(tgc_compiled *compiled,
                                   const tgc_arg_desc *args, int32_t num_args,
                                   tgc_result_alloc_fn alloc, void *user,
                                   void *stream);

/* As tgc_compiled_run_on_stream, but returns 1 at once, having done
 * nothing, when another thread is running `compiled`: a caller that holds
 * a lock its `alloc` also needs (Python's GIL) tries this first and waits
 * for the function only after letting the lock go. */
int32_t tgc_compiled_try_run_on_stream(tgc_compiled *compiled,
                                       const tgc_arg_desc *args,
                                       int32_t num_args,
                                       tgc_result_alloc_fn alloc, void *user,
                                       void *stream);

/* Times a call on `args` (as for tgc_compiled_run; the caller ran the
 * guards). CUDA: after one untimed run, each launch-plan step alone and
 * then the whole plan, `repeat` times each, back to back between CUDA
 * events, on the function's own stream (it waits). The CPU: the whole
 * call, `repeat` times after one untimed run. The runs write results into
 * scratch memory and repeat in-place updates of out arguments: pass copies
 * of arguments whose values matter. Returns text valid until this thread's
 * next profile, a line per item, tab-separated fields:
 *   step KIND NAME STRATEGY SHAPE BYTES FLOPS MS   (CUDA, per step; MS is
 *       milliseconds per run of the step alone, -1 when not timed: a
 *       skipped step or a device-side check; the rest as "steps" above)
 *   call MS                                        (per run of the call)
 *   device NAME PEAK_GBPS                          (CUDA: the device and
 *       its memory's theoretical bandwidth, 0 when unknown)
 * or NULL with tgc_last_error(). */
const char *tgc_compiled_profile(tgc_compiled *compiled,
                                 const tgc_arg_desc *args, int32_t num_args,
                                 int32_t repeat);

/* CUDA runs: kernel launches, cuBLASLt calls, graph captures and replays,
 * patched graph nodes, replays of a graph patched to new sizes, GEMM shapes
 * whose algorithm was timed and those whose choice came from the tuning
 * cache (tgc_set_gemm_tuning_cache), cuDNN convolutions, and convolution
 * shapes whose engine was timed and those whose choice came from the tuning
 * cache, and calls that waited on the host for their device-side checks
 * (none with the option device-asserts=1), so far; zeros on the CPU. `out`
 * holds 12 values. */
void tgc_compiled_gpu_stats(const tgc_compiled *compiled, int64_t *out);

/* Runs `entry` of the tgc module `module_text` (NULL or "": its only
 * public function) on the reference interpreter (docs/reference-interpreter.md),
 * the oracle tgc-run checks compiled code against: `args` are dense
 * row-major tensors in host memory; out arguments are written in place; each
 * result is copied into the host memory `alloc` returns. Returns 0, or -1
 * with tgc_last_error() (an op the interpreter rejects: an index out of
 * range, a matrix that is not positive definite, a size mismatch, ...). */
int32_t tgc_reference_run(const char *module_text, const char *entry,
                          const tgc_arg_desc *args, int32_t num_args,
                          tgc_result_alloc_fn alloc, void *user);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TGC_C_TGC_COMPILER_H */
