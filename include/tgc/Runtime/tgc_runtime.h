/*===- tgc_runtime.h - TGC runtime C API ----------------------------------===*\
|*                                                                            *|
|* The C API of TGC's runtime library: the argument descriptor and guard ABI  *|
|* that compiled guard functions are generated against, and the guard         *|
|* dispatch cache. Plain C99, no dependencies; usable from C, C++ and ctypes. *|
|* See docs/runtime.md.                                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TGC_RUNTIME_TGC_RUNTIME_H
#define TGC_RUNTIME_TGC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct layout, enum value or function signature below
 * changes. Compiled guards and loaders compare it with
 * tgc_runtime_abi_version(). */
#define TGC_RUNTIME_ABI_VERSION 1

/*===----------------------------------------------------------------------===*
 * Argument descriptors and guards (the layout compiled guards read)
 *===----------------------------------------------------------------------===*/

typedef enum tgc_dtype {
  TGC_DTYPE_F32 = 0,
  TGC_DTYPE_F16 = 1,
  TGC_DTYPE_BF16 = 2,
  TGC_DTYPE_F64 = 3,
  TGC_DTYPE_I64 = 4,
  TGC_DTYPE_I32 = 5,
  TGC_DTYPE_I8 = 6,
  TGC_DTYPE_I1 = 7,
  /* uint8: compiled code stores it as i8 and computes on it widened (the
   * frontend's choice, docs/python.md); only guards tell it from I8. */
  TGC_DTYPE_U8 = 8
} tgc_dtype;

typedef enum tgc_device_type {
  TGC_DEVICE_CPU = 0,
  TGC_DEVICE_CUDA = 1
} tgc_device_type;

/* One argument of a call to a compiled function. */
typedef struct tgc_arg_desc {
  void *data;             /* offset 0: tensor data; NULL for a scalar */
  const int64_t *sizes;   /* offset 8: `rank` sizes */
  const int64_t *strides; /* offset 16: `rank` strides, in elements */
  int64_t rank;           /* offset 24: tensor rank; -1 for a scalar */
  int64_t scalar;         /* offset 32: value of an integer scalar argument */
  int32_t dtype;          /* offset 40: tgc_dtype */
  int32_t device_type;    /* offset 44: tgc_device_type */
  int32_t device_index;   /* offset 48 */
  int32_t reserved;       /* offset 52: 0 */
} tgc_arg_desc;           /* sizeof 56 */

/* A compiled guard set: returns -1 when every guard passes, else the index
 * of the first guard that failed. Pure: no side effects, may run any number
 * of times per call. */
typedef int32_t (*tgc_guard_fn)(const tgc_arg_desc *args, int32_t num_args);

/* Readable guard metadata, emitted by the compiler next to the guard
 * function. */
typedef struct tgc_guard_value {
  const char *name; /* "s0" */
  int32_t arg;      /* argument index */
  int32_t dim;      /* dimension of `arg`; -1: a scalar argument's value */
} tgc_guard_value;

typedef struct tgc_guard_info {
  const char *text;   /* "s0 >= 10" */
  const char *reason; /* "required by tgc.topk (k = 10 <= size of dim 0) at
                         model.py:12" */
  int32_t num_values; /* values to print when this guard fails */
  const tgc_guard_value *values; /* e.g. {"s0", 0, 0}: s0 is arg 0's dim 0 */
} tgc_guard_info;

typedef struct tgc_guard_set_info {
  const char *function;
  int32_t num_guards;
  const tgc_guard_info *guards;
} tgc_guard_set_info;

/* The layout is fixed: the compiler's guard lowering hard-codes these
 * offsets. C11 and C++ check them; C99 has no static assertions. */
#if defined(__cplusplus)
static_assert(offsetof(tgc_arg_desc, data) == 0, "tgc_arg_desc ABI");
static_assert(offsetof(tgc_arg_desc, sizes) == 8, "tgc_arg_desc ABI");
static_assert(offsetof(tgc_arg_desc, strides) == 16, "tgc_arg_desc ABI");
static_assert(offsetof(tgc_arg_desc, rank) == 24, "tgc_arg_desc ABI");
static_assert(offsetof(tgc_arg_desc, scalar) == 32, "tgc_arg_desc ABI");
static_assert(offsetof(tgc_arg_desc, dtype) == 40, "tgc_arg_desc ABI");
static_assert(offsetof(tgc_arg_desc, device_type) == 44, "tgc_arg_desc ABI");
static_assert(offsetof(tgc_arg_desc, device_index) == 48, "tgc_arg_desc ABI");
static_assert(offsetof(tgc_arg_desc, reserved) == 52, "tgc_arg_desc ABI");
static_assert(sizeof(tgc_arg_desc) == 56, "tgc_arg_desc ABI");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(offsetof(tgc_arg_desc, data) == 0, "tgc_arg_desc ABI");
_Static_assert(offsetof(tgc_arg_desc, sizes) == 8, "tgc_arg_desc ABI");
_Static_assert(offsetof(tgc_arg_desc, strides) == 16, "tgc_arg_desc ABI");
_Static_assert(offsetof(tgc_arg_desc, rank) == 24, "tgc_arg_desc ABI");
_Static_assert(offsetof(tgc_arg_desc, scalar) == 32, "tgc_arg_desc ABI");
_Static_assert(offsetof(tgc_arg_desc, dtype) == 40, "tgc_arg_desc ABI");
_Static_assert(offsetof(tgc_arg_desc, device_type) == 44, "tgc_arg_desc ABI");
_Static_assert(offsetof(tgc_arg_desc, device_index) == 48, "tgc_arg_desc ABI");
_Static_assert(offsetof(tgc_arg_desc, reserved) == 52, "tgc_arg_desc ABI");
_Static_assert(sizeof(tgc_arg_desc) == 56, "tgc_arg_desc ABI");
#endif

/* The value of TGC_RUNTIME_ABI_VERSION the library was built with. */
int32_t tgc_runtime_abi_version(void);

/*===----------------------------------------------------------------------===*
 * Guard dispatch cache
 *===----------------------------------------------------------------------===*/

/* What a miss does once the recompile limit is reached. */
typedef enum tgc_stance {
  TGC_STANCE_ERROR = 0,    /* dispatch fails with a message */
  TGC_STANCE_FALLBACK = 1, /* the caller runs its reference path; logged */
  TGC_STANCE_CONTINUE = 2  /* keep compiling; logged once */
} tgc_stance;

#define TGC_DEFAULT_RECOMPILE_LIMIT 8

typedef enum tgc_dispatch_status {
  TGC_DISPATCH_HIT = 0,      /* a cached specialization's guards passed */
  TGC_DISPATCH_COMPILED = 1, /* a new specialization was compiled */
  TGC_DISPATCH_FALLBACK = 2, /* run the reference path (already logged) */
  TGC_DISPATCH_ERROR = 3     /* see tgc_dispatch_cache_last_error() */
} tgc_dispatch_status;

/* One compiled specialization. The cache does not own anything it points
 * to: `info`, the code behind `guard` and `entry`, and `user_data` must
 * outlive the cache. */
typedef struct tgc_dispatch_entry {
  tgc_guard_fn guard;             /* required */
  const tgc_guard_set_info *info; /* may be NULL: messages then say so */
  void *entry;                    /* entry point, returned on a hit */
  void *user_data;                /* returned on a hit */
} tgc_dispatch_entry;

/* A guard that failed on a miss: specialization `entry` (its id: the order
 * in which specializations were compiled, from 0) failed guard `guard`. */
typedef struct tgc_guard_failure {
  int32_t entry;
  int32_t guard;
} tgc_guard_failure;

typedef struct tgc_dispatch_result {
  int32_t status;   /* tgc_dispatch_status */
  int32_t entry_id; /* HIT, COMPILED: the specialization's id; else -1 */
  void *entry;      /* HIT, COMPILED: its entry point; FALLBACK: what the
                       fallback callback returned (NULL without one) */
  void *user_data;  /* HIT, COMPILED: its user_data; else NULL */
} tgc_dispatch_result;

/* Called on a miss (and on the first call). `failures` lists, most recently
 * used specialization first, the first failed guard of each cached
 * specialization (none on the first call); `reason` is the readable reason
 * ("compiling f (first call)" or "recompiling f: guard 8 failed: ...").
 * Return 0 and fill *out_entry, or non-zero and point *out_error at a
 * message (copied before the callback's caller returns). The cache's lock
 * for misses is held: the callback must not dispatch on the same cache. */
typedef int32_t (*tgc_recompile_fn)(void *user, const char *function,
                                    const tgc_arg_desc *args, int32_t num_args,
                                    const tgc_guard_failure *failures,
                                    int32_t num_failures, const char *reason,
                                    tgc_dispatch_entry *out_entry,
                                    const char **out_error);

/* Called when a miss past the recompile limit falls back (stance FALLBACK);
 * returns the reference entry point reported in the result, or NULL. */
typedef void *(*tgc_fallback_fn)(void *user, const char *function,
                                 const tgc_arg_desc *args, int32_t num_args,
                                 const char *reason);

typedef struct tgc_dispatch_cache tgc_dispatch_cache;

/* Creates a cache for one compiled function. `recompile` is required,
 * `fallback` optional; both get `user`. `recompile_limit` >= 0 (use
 * TGC_DEFAULT_RECOMPILE_LIMIT); `stance` a tgc_stance. Returns NULL on
 * invalid arguments (tgc_dispatch_cache_last_error(NULL) says why). */
tgc_dispatch_cache *
tgc_dispatch_cache_create(const char *function, tgc_recompile_fn recompile,
                          tgc_fallback_fn fallback, void *user,
                          int32_t recompile_limit, int32_t stance);

/* NULL is allowed. No dispatch may be running on the cache. */
void tgc_dispatch_cache_destroy(tgc_dispatch_cache *cache);

/* Picks the specialization for `args`; returns the tgc_dispatch_status also
 * stored in out->status. */
int32_t tgc_dispatch_cache_dispatch(tgc_dispatch_cache *cache,
                                    const tgc_arg_desc *args, int32_t num_args,
                                    tgc_dispatch_result *out);

/* Returns 0, or -1 for an unknown stance. */
int32_t tgc_dispatch_cache_set_stance(tgc_dispatch_cache *cache,
                                      int32_t stance);

typedef struct tgc_dispatch_stats {
  int64_t hits;           /* dispatches answered by a cached specialization */
  int64_t misses;         /* dispatches no cached specialization accepted */
  int64_t compiles;       /* specializations added (first call included) */
  int64_t recompiles;     /* recompile callbacks made with a non-empty cache:
                             the count compared with the limit */
  int64_t compile_errors; /* recompile callbacks that failed */
  int64_t fallbacks;      /* misses answered with TGC_DISPATCH_FALLBACK */
  int64_t errors;         /* dispatches answered with TGC_DISPATCH_ERROR */
  int32_t num_entries;    /* cached specializations */
  int32_t num_recompile_reasons;
} tgc_dispatch_stats;

/* Returns 0, or -1 when an argument is NULL. */
int32_t tgc_dispatch_cache_get_stats(const tgc_dispatch_cache *cache,
                                     tgc_dispatch_stats *out);

/* Hits of the specialization with id `entry_id`; -1 if there is none. */
int64_t tgc_dispatch_cache_entry_hits(const tgc_dispatch_cache *cache,
                                      int32_t entry_id);

/* Copies the reason of recompile `index` (0 = oldest), NUL-terminated and
 * truncated to `size` bytes, into `buffer` (may be NULL when size is 0).
 * Returns the reason's full length without the NUL, like snprintf, or -1
 * when `index` is out of range. */
int64_t tgc_dispatch_cache_recompile_reason(const tgc_dispatch_cache *cache,
                                            int32_t index, char *buffer,
                                            size_t size);

/* The message of the last error this thread got from `cache` (from any
 * runtime call when `cache` is NULL, which includes a failed create); ""
 * when there is none. Valid until this thread's next runtime call. */
const char *tgc_dispatch_cache_last_error(const tgc_dispatch_cache *cache);

/*===----------------------------------------------------------------------===*
 * Logging
 *===----------------------------------------------------------------------===*/

/* Data checks of compiled CPU code. A check that no guard can make before
 * the call (a gather's indices in range, no integer division by zero, a
 * positive-definite cholesky input) calls tgc_report_check_failure when it
 * fails, and the code goes on (every op it guards is defined whatever the
 * data); the caller then takes the failure and fails the call, whose
 * results are not valid. `message` (the op, the condition, the location)
 * is a constant of the compiled code. The first failure of a call is kept,
 * per thread. */
void tgc_report_check_failure(const char *message);

/* The first failure reported on this thread since the last take, or NULL;
 * clears it. Call it after each call of compiled CPU code. */
const char *tgc_take_check_failure(void);

/* Allocations of compiled CPU code. When a buffer's byte count overflows
 * 64-bit integers (`bytes` < 0) or the allocation fails, the code calls
 * tgc_report_alloc_failure, frees what it allocated and returns at once:
 * the call has no results (its result descriptors must not be read).
 * `what` (the buffer's type and location) is a constant of the compiled
 * code. Kept like a check failure: the first one per thread. */
void tgc_report_alloc_failure(int64_t bytes, const char *what);

typedef enum tgc_call_failure {
  TGC_CALL_OK = 0,
  TGC_CALL_CHECK_FAILED = 1, /* results exist but are not valid: free them */
  TGC_CALL_NO_MEMORY = 2,    /* no results: do not read them */
} tgc_call_failure;

/* The first failure reported on this thread since the last take, its kind
 * and its message (NULL when none; valid until the thread's next report);
 * clears it. tgc_take_check_failure is this without the kind. */
tgc_call_failure tgc_take_call_failure(const char **message);

/*===----------------------------------------------------------------------===*
 * CPU shared objects
 *===----------------------------------------------------------------------===*/

/* A shared object of `tgc-translate --tgc-to-shared-object` carries a seal
 * (its size and checksum) after its ELF contents. tgc_shared_object_open
 * checks the seal, then loads exactly the bytes it checked (RTLD_NOW |
 * RTLD_LOCAL); NULL with tgc_shared_object_last_error() set when the file
 * cannot be read, has no seal, is truncated or corrupted, or does not load.
 * Plain dlopen also loads such a file, without the check. */
typedef struct tgc_shared_object tgc_shared_object;
tgc_shared_object *tgc_shared_object_open(const char *path);
/* A symbol of the object (the entry `_mlir_ciface_<f>`, the guard
 * `tgc_guard_<f>`, `tgc_guard_info_<f>`), or NULL. */
void *tgc_shared_object_symbol(tgc_shared_object *object, const char *name);
void tgc_shared_object_close(tgc_shared_object *object);
/* Why the last open or symbol lookup of this thread failed ("" if none). */
const char *tgc_shared_object_last_error(void);

#define TGC_LOG_RECOMPILES 1u /* each compile and recompile reason */
#define TGC_LOG_GUARDS 2u     /* the guard set of each new specialization */
#define TGC_LOG_ALL 3u

/* Receives each log line, "[tgc] " prefix included, without a newline. */
typedef void (*tgc_log_fn)(void *user, const char *line);

/* Redirects log lines (default: stderr); NULL restores stderr. The
 * callback must not call back into the runtime. */
void tgc_set_log_callback(tgc_log_fn callback, void *user);

/* Enables exactly the categories named in `spec`, the TGC_LOGS syntax
 * ("recompiles,guards", "all", "+all", "" for none). Returns 0, or -1 when a
 * name is unknown (the known ones are still applied; the unknown ones are
 * logged). */
int32_t tgc_set_logs(const char *spec);

/* The enabled categories (TGC_LOG_* bits). */
uint32_t tgc_log_categories(void);

/* Re-reads TGC_LOGS (read once, on first use, otherwise); returns the
 * enabled categories. */
uint32_t tgc_reload_logs_from_env(void);

/* The folder where the CUDA runtime keeps its cuBLASLt algorithm and cuDNN
 * engine choices (a file per device and library version under
 * DIR/gemm-tuning and DIR/cudnn-tuning): a GEMM or convolution shape timed
 * by an earlier process is not timed again. NULL or "" turns
 * it off (the default). See docs/compile-cache.md. */
void tgc_set_gemm_tuning_cache(const char *dir);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TGC_RUNTIME_TGC_RUNTIME_H */
