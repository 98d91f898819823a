/*===- tgc_native.c - The native call path of tgc.compile -----------------===*\
|*                                                                            *|
|* A CPython extension (stable ABI: one build serves every Python >= 3.10;    *|
|* no link to libtorch or libtgc_capi, so it works with any PyTorch) that     *|
|* runs a call of a compiled function when one of its specializations         *|
|* accepts it: reads the tensor arguments, builds their descriptors, checks   *|
|* the module state and Python values the trace read, runs the compiled       *|
|* guards, then the compiled code on PyTorch's current stream with results    *|
|* allocated by PyTorch, and returns them. Anything else (a miss, an argument *|
|* that is not a contiguous tensor, a specialization with graph breaks)       *|
|* goes to the Python path, `self._call_python(*args, **kwargs)`, which       *|
|* compiles, explains and refreshes the entries. See docs/python.md ("The     *|
|* call path").                                                               *|
|*                                                                            *|
|* The libtgc_capi functions come as addresses from the ctypes bindings      *|
|* (tgc._native_path.setup), so this file needs only Python's headers.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define PY_SSIZE_T_CLEAN
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030A0000
#endif
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "tgc/Runtime/tgc_runtime.h"
#include "tgc_native_guards.h"
#include "tgc_native_phases.h"
#include "tgc_native_pool.h"

typedef void *(*alloc_fn)(void *user, int32_t index, int32_t dtype,
                          int64_t rank, const int64_t *sizes);
typedef int32_t (*check_fn)(const void *compiled, const tgc_arg_desc *args,
                            int32_t num_args);
typedef int32_t (*run_fn)(void *compiled, const tgc_arg_desc *args,
                          int32_t num_args, alloc_fn alloc, void *user);
typedef int32_t (*run_stream_fn)(void *compiled, const tgc_arg_desc *args,
                                 int32_t num_args, alloc_fn alloc, void *user,
                                 void *stream);
typedef const char *(*error_fn)(void);

/* Bumped whenever the entries or setup() change: the package refuses an
 * extension of another version (tgc._native_path.NATIVE_ABI). */
#define TGC_NATIVE_ABI 8

#define MAX_DTYPES 16
#define MAX_RANK 16
#define FEW 8 /* tensors of a call whose buffers live on the stack */

/* Set once by setup(). */
static check_fn check_guards;
static run_fn run_cpu;
static run_stream_fn run_stream, try_run_stream;
static error_fn last_error;
static PyObject *tensor_type;  /* torch.Tensor */
static PyObject *parameter_type; /* torch.nn.Parameter */
static PyObject *torch_empty;  /* torch.empty */
static PyObject *empty_like;   /* torch.empty_like */
static PyObject *raw_stream;   /* device index -> CUstream as an int */
static PyObject *error_type;   /* tgc.TgcError */
static PyObject *grad_enabled; /* torch.is_grad_enabled */
/* Whether torch.autocast is on for any device: its calls take the Python
 * path (tgc._compile: the compiled specializations do not model its casts). */
static PyObject *autocast_enabled;
/* torch.get_default_dtype and torch.float32: calls under another default
 * dtype take the Python path (factories without a dtype depend on it). */
static PyObject *default_dtype, *float32;
static PyObject *dtype_objects[MAX_DTYPES]; /* by tgc_dtype code */
static int enabled = 1;        /* cleared by the force_eager stance etc. */
/* One visible CUDA device: every CUDA tensor is on device 0, and its index
 * is not read per tensor. -1 until the first CUDA tensor (CUDA is then
 * initialized, its device count fixed): torch.cuda.device_count() == 1. */
static int single_cuda_device = -1;
static PyObject *device_count; /* torch.cuda.device_count */

static PyObject *s_data_ptr, *s_shape, *s_dtype, *s_is_cuda, *s_is_cpu,
    *s_get_device, *s_is_contiguous, *s_call_python, *s_hits, *s_check,
    *s_requires_grad, *s_new_empty;

/* What is read of one tensor. */
typedef struct {
  int64_t sizes[MAX_RANK];
  int64_t strides[MAX_RANK];
} shape_buf;

/* Reads `t` into `d` (sizes and dense strides into `buf`). Returns 1, 0
 * when the tensor needs the Python path (not contiguous, a dtype TGC does
 * not take, rank too large), -1 with a Python error. */
static int read_tensor(PyObject *t, tgc_arg_desc *d, shape_buf *buf) {
  PyObject *contiguous = PyObject_CallMethodObjArgs(t, s_is_contiguous, NULL);
  if (!contiguous)
    return -1;
  int dense = contiguous == Py_True;
  Py_DECREF(contiguous);
  if (!dense)
    return 0;
  PyObject *dtype = PyObject_GetAttr(t, s_dtype);
  if (!dtype)
    return -1;
  int code = -1;
  for (int i = 0; i < MAX_DTYPES; ++i)
    if (dtype_objects[i] == dtype) {
      code = i;
      break;
    }
  Py_DECREF(dtype);
  if (code < 0)
    return 0;
  PyObject *shape = PyObject_GetAttr(t, s_shape);
  if (!shape)
    return -1;
  Py_ssize_t rank = PyTuple_Size(shape);
  if (rank < 0 || rank > MAX_RANK) {
    Py_DECREF(shape);
    if (rank < 0)
      return -1;
    return 0;
  }
  for (Py_ssize_t i = 0; i < rank; ++i) {
    buf->sizes[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
  }
  Py_DECREF(shape);
  if (PyErr_Occurred())
    return -1;
  int64_t stride = 1;
  for (Py_ssize_t i = rank - 1; i >= 0; --i) {
    buf->strides[i] = stride;
    stride *= buf->sizes[i] > 0 ? buf->sizes[i] : 1;
  }
  PyObject *ptr = PyObject_CallMethodObjArgs(t, s_data_ptr, NULL);
  if (!ptr)
    return -1;
  d->data = PyLong_AsVoidPtr(ptr);
  Py_DECREF(ptr);
  if (PyErr_Occurred())
    return -1;
  PyObject *cuda = PyObject_GetAttr(t, s_is_cuda);
  if (!cuda)
    return -1;
  int is_cuda = cuda == Py_True;
  Py_DECREF(cuda);
  if (!is_cuda) {
    /* Another device (meta, mps, xpu): the Python path rejects it. */
    PyObject *cpu = PyObject_GetAttr(t, s_is_cpu);
    if (!cpu)
      return -1;
    int is_cpu = cpu == Py_True;
    Py_DECREF(cpu);
    if (!is_cpu)
      return 0;
  }
  d->device_index = 0;
  if (is_cuda && single_cuda_device < 0) {
    PyObject *n = PyObject_CallObject(device_count, NULL);
    if (!n)
      return -1;
    single_cuda_device = PyLong_AsLong(n) == 1;
    Py_DECREF(n);
    if (PyErr_Occurred())
      return -1;
  }
  if (is_cuda && !single_cuda_device) {
    PyObject *index = PyObject_CallMethodObjArgs(t, s_get_device, NULL);
    if (!index)
      return -1;
    d->device_index = (int32_t)PyLong_AsLong(index);
    Py_DECREF(index);
    if (PyErr_Occurred())
      return -1;
    /* The runtime runs on device 0 (docs/gpu-runtime.md). */
    if (d->device_index != 0)
      return 0;
  }
  d->device_type = is_cuda ? TGC_DEVICE_CUDA : TGC_DEVICE_CPU;
  d->sizes = buf->sizes;
  d->strides = buf->strides;
  d->rank = rank;
  d->scalar = 0;
  d->dtype = code;
  d->reserved = 0;
  return 1;
}

/* Whether a call with tensor `t` needs gradients: grad mode is on and `t`
 * requires grad. Such a call takes the Python path (tgc._autograd: compiled
 * forward and backward graphs under autograd). `*grad` caches grad mode for
 * the call (-1: not read yet), so with grad mode off (torch.no_grad,
 * inference_mode) a call reads it once and no tensor's requires_grad.
 * Returns 1, 0, or -1 with a Python error. */
static int needs_grad(PyObject *t, int *grad) {
  if (*grad < 0) {
    PyObject *on = PyObject_CallObject(grad_enabled, NULL);
    if (!on)
      return -1;
    *grad = on == Py_True;
    Py_DECREF(on);
  }
  if (!*grad)
    return 0;
  PyObject *rg = PyObject_GetAttr(t, s_requires_grad);
  if (!rg)
    return -1;
  int wants = rg == Py_True;
  Py_DECREF(rg);
  return wants;
}

/*===----------------------------------------------------------------------===*/
/* Entries                                                                    */
/*===----------------------------------------------------------------------===*/

/* An entry is a tuple made by tgc._native_path.entry():
 *   0 compiled handle (int), 1 the call's pattern (a tuple with, per
 *   positional argument, True for a tensor, None for None), 2 captured tensors
 *   (tuple), 3 links (tuple of (dict, key, object): the captured tensors are
 *   still the module's), 4 dict guards (tuple of (dict, key, value)),
 *   5 other guards (tuple of objects with check() -> None when it holds),
 *   6 outputs (tuple of (kind, index): 0 result, 1 argument; or (2, an
 *   immutable constant such as None, returned as it is)), 7 tree (0 one
 *   value, 1 tuple, 2 list; or a callable finish(results, tensors) that
 *   builds the value in Python: objects such as ModelOutput, sizes, numbers
 *   from results), 8 cuda (bool), 9 the Specialized (hits counted on
 *   it), 10 its number of results, 11 torch.empty's keyword arguments per
 *   tgc_dtype code (a tuple of dicts: dtype and device), 12 pooled results
 *   (None, or a list: tgc_native_pool.h). */
enum {
  E_HANDLE,
  E_NARGS,
  E_CAPTURED,
  E_LINKS,
  E_DICT_GUARDS,
  E_GUARDS,
  E_OUTPUTS,
  E_TREE,
  E_CUDA,
  E_SPEC,
  E_NUM_RESULTS,
  E_ALLOC_KWARGS,
  E_POOL,
  E_SIZE
};

/* 1 when the entry's module state and Python values hold, 0 when not, -1
 * with a Python error (tgc_native_guards.c). */
static int state_holds(PyObject *entry) {
  return tgc_state_holds(PyTuple_GetItem(entry, E_LINKS),
                         PyTuple_GetItem(entry, E_DICT_GUARDS),
                         PyTuple_GetItem(entry, E_GUARDS), s_check);
}

/*===----------------------------------------------------------------------===*/
/* Running                                                                    */
/*===----------------------------------------------------------------------===*/

typedef struct {
  PyObject *results; /* list, one slot per result */
  PyObject *kwargs;  /* torch.empty's keywords per dtype code */
  /* The call's tensors read so far and their descriptors: a result of one
   * of their dtypes is allocated like it (fewer arguments to parse). */
  PyObject *const *tensors;
  const tgc_arg_desc *descs;
  Py_ssize_t ntensors;
  int32_t device_type; /* of the compiled function: templates must match */
  int failed;        /* a Python error is saved in `error` */
  PyObject *error_type, *error_value, *error_trace;
  void *any;         /* a non-null pointer for zero-element results */
  tgc_pool_call pool; /* results sharing one block per dtype */
} alloc_ctx;

static void *alloc_result(void *user, int32_t index, int32_t dtype,
                          int64_t rank, const int64_t *sizes) {
  alloc_ctx *ctx = (alloc_ctx *)user;
  PyGILState_STATE gil = PyGILState_Ensure();
  phase_end(PH_RUNTIME);
  void *ptr = NULL;
  PyObject *shape = NULL, *args = NULL, *t = NULL, *p = NULL;
  PyObject *kwargs = dtype >= 0 && dtype < PyTuple_Size(ctx->kwargs)
                         ? PyTuple_GetItem(ctx->kwargs, dtype)
                         : NULL;
  if (!kwargs || kwargs == Py_None) {
    PyErr_Clear();
    PyErr_Format(PyExc_RuntimeError, "tgc: result of unknown dtype %d",
                 (int)dtype);
    goto done;
  }
  shape = PyTuple_New((Py_ssize_t)rank);
  if (!shape)
    goto done;
  for (int64_t i = 0; i < rank; ++i) {
    PyObject *size = PyLong_FromLongLong(sizes[i]);
    if (!size)
      goto done;
    PyTuple_SetItem(shape, (Py_ssize_t)i, size);
  }
  int pooled = tgc_pool_reserve(&ctx->pool, index, dtype, rank, sizes, shape,
                                torch_empty, kwargs, &ptr);
  if (pooled) { /* its view comes after the run (tgc_pool_views), or -1 */
    ptr = pooled == 1 && !ptr ? ctx->any : ptr; /* (an empty block) */
    goto done;
  }
  /* torch.empty with a dtype and a device parses its keywords: with a
   * template tensor of the result's dtype, empty_like (the same sizes; the
   * template is contiguous, so the result is too) or new_empty (its dtype
   * and device) cost less per call. */
  PyObject *same = NULL, *like = NULL;
  for (Py_ssize_t i = 0; i < ctx->ntensors && !same; ++i) {
    const tgc_arg_desc *d = &ctx->descs[i];
    /* (Only plain tensors and parameters are templates: the call's are,
     * a captured tensor (a module's buffer) may not be, and a subclass's
     * empty_like would run its __torch_function__ and give its type.) */
    PyObject *type = (PyObject *)Py_TYPE(ctx->tensors[i]);
    if (d->dtype != dtype || d->device_type != ctx->device_type ||
        (type != tensor_type && type != parameter_type))
      continue;
    if (!like)
      like = ctx->tensors[i];
    if (d->rank == rank &&
        (rank == 0 || memcmp(d->sizes, sizes, sizeof(int64_t) * rank) == 0))
      same = ctx->tensors[i];
  }
  if (same) {
    t = PyObject_CallFunctionObjArgs(empty_like, same, NULL);
  } else if (like) {
    t = PyObject_CallMethodObjArgs(like, s_new_empty, shape, NULL);
  } else {
    args = PyTuple_Pack(1, shape);
    if (!args)
      goto done;
    t = PyObject_Call(torch_empty, args, kwargs);
  }
  if (!t)
    goto done;
  p = PyObject_CallMethodObjArgs(t, s_data_ptr, NULL);
  if (!p)
    goto done;
  ptr = PyLong_AsVoidPtr(p);
  if (PyErr_Occurred()) {
    ptr = NULL;
    goto done;
  }
  if (!ptr)
    ptr = ctx->any;
  if (PyList_SetItem(ctx->results, index, t) < 0) {
    ptr = NULL;
    t = NULL; /* stolen even on failure */
    goto done;
  }
  t = NULL;
done:
  if (!ptr && !ctx->failed) {
    ctx->failed = 1;
    PyErr_Fetch(&ctx->error_type, &ctx->error_value, &ctx->error_trace);
  }
  Py_XDECREF(shape);
  Py_XDECREF(args);
  Py_XDECREF(t);
  Py_XDECREF(p);
  phase_end(PH_ALLOC);
  PyGILState_Release(gil);
  return ptr;
}

/* Runs `entry` on `descs`; returns its results as the call's value. */
static PyObject *run_entry(PyObject *entry, PyObject *call_args,
                           const Py_ssize_t *tensor_pos, Py_ssize_t ntensors,
                           tgc_arg_desc *descs, PyObject *const *objects,
                           int32_t count, int cuda_index,
                           Py_ssize_t num_results) {
  void *handle = PyLong_AsVoidPtr(PyTuple_GetItem(entry, E_HANDLE));
  int cuda = PyTuple_GetItem(entry, E_CUDA) == Py_True;
  alloc_ctx ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.any = descs;
  ctx.kwargs = PyTuple_GetItem(entry, E_ALLOC_KWARGS);
  ctx.tensors = objects;
  ctx.descs = descs;
  ctx.ntensors = count;
  ctx.device_type = cuda ? TGC_DEVICE_CUDA : TGC_DEVICE_CPU;
  ctx.results = PyList_New(num_results);
  if (!ctx.results)
    return NULL;
  for (Py_ssize_t i = 0; i < num_results; ++i) {
    Py_INCREF(Py_None);
    PyList_SetItem(ctx.results, i, Py_None);
  }
  void *stream = NULL;
  if (cuda) {
    PyObject *index = PyLong_FromLong(cuda_index);
    PyObject *raw =
        index ? PyObject_CallFunctionObjArgs(raw_stream, index, NULL) : NULL;
    Py_XDECREF(index);
    if (!raw) {
      Py_DECREF(ctx.results);
      return NULL;
    }
    stream = PyLong_AsVoidPtr(raw);
    Py_DECREF(raw);
    if (PyErr_Occurred()) {
      Py_DECREF(ctx.results);
      return NULL;
    }
  }
  if (tgc_pool_begin(&ctx.pool, PyTuple_GetItem(entry, E_POOL), num_results)) {
    tgc_pool_end(&ctx.pool, 0);
    Py_DECREF(ctx.results);
    return NULL;
  }
  phase_end(PH_STREAM);
  /* A CUDA run only issues work: it keeps the GIL (no hand-over to take
   * it back for each result's allocation), unless the runtime says it
   * would wait (another thread runs the function and may wait for the GIL
   * in its allocation; the module is not loaded; a GEMM shape to tune; a
   * larger arena; device-side checks): then this one lets the GIL go and
   * runs it again. The CPU computes: its runs let the GIL go. */
  int32_t rc = 1;
  if (cuda)
    rc = try_run_stream(handle, descs, count, alloc_result, &ctx, stream);
  if (rc == 1 && !ctx.failed) {
    PyThreadState *thread = PyEval_SaveThread();
    if (cuda)
      rc = run_stream(handle, descs, count, alloc_result, &ctx, stream);
    else
      rc = run_cpu(handle, descs, count, alloc_result, &ctx);
    PyEval_RestoreThread(thread);
  }
  phase_end(PH_RUNTIME);
  if (!ctx.failed && rc == 0 && tgc_pool_views(&ctx.pool, ctx.results) < 0) {
    ctx.failed = 1;
    PyErr_Fetch(&ctx.error_type, &ctx.error_value, &ctx.error_trace);
  }
  tgc_pool_end(&ctx.pool, !ctx.failed && rc == 0);
  if (ctx.failed) {
    PyErr_Restore(ctx.error_type, ctx.error_value, ctx.error_trace);
    Py_DECREF(ctx.results);
    return NULL;
  }
  if (rc != 0) {
    PyErr_SetString(error_type, last_error());
    Py_DECREF(ctx.results);
    return NULL;
  }
  PyObject *finish = PyTuple_GetItem(entry, E_TREE);
  if (!PyLong_Check(finish)) {
    PyObject *tensors = PyTuple_New(ntensors);
    if (!tensors) {
      Py_DECREF(ctx.results);
      return NULL;
    }
    for (Py_ssize_t i = 0; i < ntensors; ++i) {
      PyObject *t = PyTuple_GetItem(call_args, tensor_pos[i]);
      Py_INCREF(t);
      PyTuple_SetItem(tensors, i, t);
    }
    PyObject *value =
        PyObject_CallFunctionObjArgs(finish, ctx.results, tensors, NULL);
    Py_DECREF(tensors);
    Py_DECREF(ctx.results);
    return value;
  }
  PyObject *outputs = PyTuple_GetItem(entry, E_OUTPUTS);
  Py_ssize_t n = PyTuple_Size(outputs);
  long tree = PyLong_AsLong(finish);
  if ((tree == 0 && n != 1) || tree < 0 || tree > 2) {
    Py_DECREF(ctx.results);
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_RuntimeError, "tgc: malformed native entry");
    return NULL;
  }
  PyObject *value = tree == 2 ? PyList_New(n) : PyTuple_New(n);
  if (!value) {
    Py_DECREF(ctx.results);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *out = PyTuple_GetItem(outputs, i);
    long kind = PyLong_AsLong(PyTuple_GetItem(out, 0));
    PyObject *item = PyTuple_GetItem(out, 1); /* kind 2: a constant */
    if (kind != 2) {
      Py_ssize_t index = PyLong_AsSsize_t(item);
      item = kind == 0 ? PyList_GetItem(ctx.results, index)
                       : PyTuple_GetItem(call_args, tensor_pos[index]);
    }
    if (!item) {
      Py_DECREF(value);
      Py_DECREF(ctx.results);
      return NULL;
    }
    Py_INCREF(item);
    if (tree == 2)
      PyList_SetItem(value, i, item);
    else
      PyTuple_SetItem(value, i, item);
  }
  Py_DECREF(ctx.results);
  if (tree == 0) {
    PyObject *only = PyTuple_GetItem(value, 0);
    Py_XINCREF(only);
    Py_DECREF(value);
    return only;
  }
  return value;
}

/*===----------------------------------------------------------------------===*/
/* The Dispatcher type                                                        */
/*===----------------------------------------------------------------------===*/

typedef struct {
  PyObject_HEAD
  PyObject *entries; /* list of entry tuples, most recently used first */
  long long native_calls;
} Dispatcher;

static PyObject *python_path(PyObject *self, PyObject *args,
                             PyObject *kwargs) {
  PyObject *method = PyObject_GetAttr(self, s_call_python);
  if (!method)
    return NULL;
  PyObject *result = PyObject_Call(method, args, kwargs);
  Py_DECREF(method);
  return result;
}

/* NULL with no error set: the Python path takes the call. */
static PyObject *native_call(Dispatcher *self, PyObject *args) {
  /* Python code runs below (guards, tensor attributes), and another thread
   * may then replace `self->entries`: this call keeps its own snapshot, a
   * tuple of the entries alive until it returns. */
  PyObject *entries = PySequence_Tuple(self->entries);
  if (!entries)
    return NULL;
  Py_ssize_t nentries = PyTuple_Size(entries);
  Py_ssize_t nargs = PyTuple_Size(args);
  if (nentries <= 0 || nargs < 0) {
    Py_DECREF(entries);
    return NULL;
  }
  Py_ssize_t most = nargs;
  for (Py_ssize_t e = 0; e < nentries; ++e) {
    Py_ssize_t total =
        nargs + PyTuple_Size(PyTuple_GetItem(PyTuple_GetItem(entries, e),
                                             E_CAPTURED));
    if (total > most)
      most = total;
  }
  size_t slots = (size_t)(most ? most : 1);
  /* Calls of a few tensors (most) use the stack. */
  tgc_arg_desc few_descs[FEW];
  shape_buf few_shapes[FEW];
  Py_ssize_t few_pos[FEW];
  PyObject *few_objects[FEW];
  int heap = slots > FEW;
  tgc_arg_desc *descs =
      heap ? PyMem_Malloc(sizeof(tgc_arg_desc) * slots) : few_descs;
  shape_buf *shapes =
      heap ? PyMem_Malloc(sizeof(shape_buf) * slots) : few_shapes;
  Py_ssize_t *tensor_pos =
      heap ? PyMem_Malloc(sizeof(Py_ssize_t) * slots) : few_pos;
  PyObject **objects =
      heap ? PyMem_Malloc(sizeof(PyObject *) * slots) : few_objects;
  PyObject *result = NULL;
  if (!descs || !shapes || !tensor_pos || !objects) {
    PyErr_NoMemory();
    goto done;
  }
  /* Under torch.autocast, or another default dtype than float32, the
   * Python path decides (no specialization here was traced with autocast's
   * casts; all were traced under float32). */
  {
    PyObject *on = PyObject_CallObject(autocast_enabled, NULL);
    if (!on)
      goto done;
    int autocast = on == Py_True;
    Py_DECREF(on);
    if (autocast)
      goto done;
    PyObject *dtype = PyObject_CallObject(default_dtype, NULL);
    if (!dtype)
      goto done;
    int other = dtype != float32;
    Py_DECREF(dtype);
    if (other)
      goto done;
  }
  phase_end(PH_ENTER);
  /* The call's tensors, in order; None is the only other argument here. */
  Py_ssize_t ntensors = 0;
  int cuda_index = -1, any_cpu = 0, grad = -1;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    PyObject *t = PyTuple_GetItem(args, i);
    if (t == Py_None)
      continue;
    /* Plain tensors and parameters only: a subclass's call is Python's
     * (tgc._compile.flatten refuses it: eager runs its __torch_function__
     * and returns its type). */
    PyObject *type = (PyObject *)Py_TYPE(t);
    if (type != tensor_type && type != parameter_type)
      goto done;
    int ok = read_tensor(t, &descs[ntensors], &shapes[ntensors]);
    if (ok <= 0)
      goto done;
    if (needs_grad(t, &grad) != 0)
      goto done;
    if (descs[ntensors].device_type == TGC_DEVICE_CUDA) {
      if (cuda_index >= 0 && cuda_index != descs[ntensors].device_index)
        goto done;
      cuda_index = descs[ntensors].device_index;
    } else {
      any_cpu = 1;
    }
    objects[ntensors] = t;
    tensor_pos[ntensors++] = i;
  }
  phase_end(PH_ARGS);
  for (Py_ssize_t e = 0; e < nentries; ++e) {
    PyObject *entry = PyTuple_GetItem(entries, e);
    PyObject *pattern = PyTuple_GetItem(entry, E_NARGS);
    if (PyTuple_Size(pattern) != nargs)
      continue;
    int fits = 1;
    for (Py_ssize_t i = 0; i < nargs && fits; ++i)
      fits = (PyTuple_GetItem(pattern, i) == Py_None) ==
             (PyTuple_GetItem(args, i) == Py_None);
    if (!fits)
      continue;
    int cuda = PyTuple_GetItem(entry, E_CUDA) == Py_True;
    /* The Python path moves 0-d CPU tensors to the device: not here. */
    if (cuda ? any_cpu : cuda_index >= 0)
      continue;
    int holds = state_holds(entry);
    if (holds < 0)
      goto done;
    phase_end(PH_STATE);
    if (!holds)
      continue;
    PyObject *captured = PyTuple_GetItem(entry, E_CAPTURED);
    Py_ssize_t ncaptured = PyTuple_Size(captured);
    int usable = 1, index = cuda_index;
    for (Py_ssize_t c = 0; c < ncaptured && usable; ++c) {
      PyObject *t = PyTuple_GetItem(captured, c);
      int ok = read_tensor(t, &descs[ntensors + c], &shapes[ntensors + c]);
      if (ok < 0)
        goto done;
      objects[ntensors + c] = t;
      /* A parameter that requires grad: the whole call needs gradients. */
      if (ok == 1 && needs_grad(t, &grad) != 0)
        goto done;
      usable = ok == 1;
      if (usable && cuda && index < 0)
        index = descs[ntensors + c].device_index;
    }
    if (!usable)
      continue;
    int32_t count = (int32_t)(ntensors + ncaptured);
    void *handle = PyLong_AsVoidPtr(PyTuple_GetItem(entry, E_HANDLE));
    phase_end(PH_CAPTURED);
    int32_t failed_guard = check_guards(handle, descs, count);
    phase_end(PH_GUARDS);
    if (failed_guard != -1)
      continue;
    PyObject *spec = PyTuple_GetItem(entry, E_SPEC);
    Py_ssize_t num_results =
        PyLong_AsSsize_t(PyTuple_GetItem(entry, E_NUM_RESULTS));
    result = run_entry(entry, args, tensor_pos, ntensors, descs, objects, count,
                       index < 0 ? 0 : index, num_results);
    if (!result)
      goto done;
    ++self->native_calls;
    PyObject *hits = PyObject_GetAttr(spec, s_hits);
    PyObject *one = PyLong_FromLong(1);
    PyObject *more = hits && one ? PyNumber_Add(hits, one) : NULL;
    if (more)
      PyObject_SetAttr(spec, s_hits, more);
    Py_XDECREF(hits);
    Py_XDECREF(one);
    Py_XDECREF(more);
    PyErr_Clear(); /* a count is not worth failing the call */
    /* Most recently used first (the list may have changed meanwhile). */
    Py_ssize_t at = -1, n = self->entries ? PyList_Size(self->entries) : 0;
    for (Py_ssize_t k = 0; k < n && at < 0; ++k)
      if (PyList_GetItem(self->entries, k) == entry)
        at = k;
    if (at > 0) {
      Py_INCREF(entry);
      if (PySequence_DelItem(self->entries, at) == 0)
        PyList_Insert(self->entries, 0, entry);
      Py_DECREF(entry);
    }
    PyErr_Clear();
    goto done;
  }
done:
  Py_DECREF(entries);
  if (heap) {
    PyMem_Free(descs);
    PyMem_Free(shapes);
    PyMem_Free(tensor_pos);
    PyMem_Free(objects);
  }
  if (result)
    phase_commit();
  return result;
}

static PyObject *Dispatcher_call(PyObject *obj, PyObject *args,
                                 PyObject *kwargs) {
  Dispatcher *self = (Dispatcher *)obj;
  if (enabled && self->entries && (!kwargs || PyDict_Size(kwargs) == 0)) {
    phase_begin();
    PyObject *result = native_call(self, args);
    if (result || PyErr_Occurred())
      return result;
  }
  return python_path(obj, args, kwargs);
}

static PyObject *Dispatcher_new(PyTypeObject *type, PyObject *args,
                                PyObject *kwargs) {
  (void)args;
  (void)kwargs;
  allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
  Dispatcher *self = (Dispatcher *)alloc(type, 0);
  if (!self)
    return NULL;
  self->entries = PyList_New(0);
  if (!self->entries) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

static int Dispatcher_traverse(PyObject *obj, visitproc visit, void *arg) {
  Dispatcher *self = (Dispatcher *)obj;
  Py_VISIT(self->entries);
  Py_VISIT((PyObject *)Py_TYPE(obj));
  return 0;
}

static int Dispatcher_clear(PyObject *obj) {
  Dispatcher *self = (Dispatcher *)obj;
  Py_CLEAR(self->entries);
  return 0;
}

static void Dispatcher_dealloc(PyObject *obj) {
  PyTypeObject *type = Py_TYPE(obj);
  PyObject_GC_UnTrack(obj);
  Dispatcher_clear(obj);
  freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
  tp_free(obj);
  Py_DECREF(type);
}

static PyObject *Dispatcher_set_entries(PyObject *obj, PyObject *entries) {
  Dispatcher *self = (Dispatcher *)obj;
  PyObject *list = PySequence_List(entries);
  if (!list)
    return NULL;
  Py_ssize_t n = PyList_Size(list);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *entry = PyList_GetItem(list, i);
    if (!PyTuple_Check(entry) || PyTuple_Size(entry) != E_SIZE) {
      Py_DECREF(list);
      PyErr_SetString(PyExc_ValueError, "tgc: malformed native entry");
      return NULL;
    }
  }
  TGC_XSETREF(self->entries, list);
  Py_RETURN_NONE;
}

static PyObject *Dispatcher_native_calls(PyObject *obj, PyObject *unused) {
  (void)unused;
  return PyLong_FromLongLong(((Dispatcher *)obj)->native_calls);
}

static PyMethodDef Dispatcher_methods[] = {
    {"_set_native_entries", Dispatcher_set_entries, METH_O,
     "Replaces the specializations the native path tries."},
    {"_native_calls", Dispatcher_native_calls, METH_NOARGS,
     "Calls served by the native path."},
    {NULL, NULL, 0, NULL}};

static char dispatcher_doc[] =
    "Base of tgc.CompiledFunction: the native call path.";

static PyType_Slot Dispatcher_slots[] = {
    {Py_tp_new, Dispatcher_new},
    {Py_tp_call, Dispatcher_call},
    {Py_tp_dealloc, Dispatcher_dealloc},
    {Py_tp_traverse, Dispatcher_traverse},
    {Py_tp_clear, Dispatcher_clear},
    {Py_tp_methods, Dispatcher_methods},
    {Py_tp_doc, (void *)dispatcher_doc},
    {0, NULL}};

static PyType_Spec Dispatcher_spec = {
    "tgc._tgc_native.Dispatcher", sizeof(Dispatcher), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    Dispatcher_slots};

/*===----------------------------------------------------------------------===*/
/* Module                                                                     */
/*===----------------------------------------------------------------------===*/

/* setup(check, run, run_on_stream, try_run_on_stream, last_error,
 *       torch.Tensor, torch.empty, torch.empty_like, raw_stream, TgcError,
 *       dtypes, is_grad_enabled, autocast_enabled, get_default_dtype,
 *       float32, torch.nn.Parameter, torch.cuda.device_count)
 * with the C functions as addresses and `dtypes` a sequence of torch dtypes
 * by tgc_dtype code. */
static PyObject *setup(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *check, *run, *stream, *try_stream, *error, *tensor, *empty, *like,
      *raw, *exc, *dtypes, *grad, *autocast, *dflt, *f32, *param, *count;
  if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOO", &check, &run, &stream,
                        &try_stream, &error, &tensor, &empty, &like, &raw, &exc,
                        &dtypes, &grad, &autocast, &dflt, &f32, &param, &count))
    return NULL;
  Py_INCREF(param);
  TGC_XSETREF(parameter_type, param);
  Py_INCREF(count);
  TGC_XSETREF(device_count, count);
  single_cuda_device = -1;
  check_guards = (check_fn)PyLong_AsVoidPtr(check);
  run_cpu = (run_fn)PyLong_AsVoidPtr(run);
  run_stream = (run_stream_fn)PyLong_AsVoidPtr(stream);
  try_run_stream = (run_stream_fn)PyLong_AsVoidPtr(try_stream);
  last_error = (error_fn)PyLong_AsVoidPtr(error);
  if (PyErr_Occurred())
    return NULL;
  if (!check_guards || !run_cpu || !run_stream || !try_run_stream ||
      !last_error) {
    PyErr_SetString(PyExc_ValueError, "tgc: a null libtgc_capi function");
    return NULL;
  }
  PyObject *seq = PySequence_Tuple(dtypes);
  if (!seq)
    return NULL;
  Py_ssize_t n = PyTuple_Size(seq);
  if (n > MAX_DTYPES) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "tgc: too many dtypes");
    return NULL;
  }
  for (Py_ssize_t i = 0; i < MAX_DTYPES; ++i) {
    PyObject *d = i < n ? PyTuple_GetItem(seq, i) : NULL;
    if (d == Py_None)
      d = NULL;
    Py_XINCREF(d);
    TGC_XSETREF(dtype_objects[i], d);
  }
  Py_DECREF(seq);
  Py_INCREF(tensor);
  TGC_XSETREF(tensor_type, tensor);
  Py_INCREF(empty);
  TGC_XSETREF(torch_empty, empty);
  Py_INCREF(like);
  TGC_XSETREF(empty_like, like);
  Py_INCREF(raw);
  TGC_XSETREF(raw_stream, raw);
  Py_INCREF(exc);
  TGC_XSETREF(error_type, exc);
  Py_INCREF(grad);
  TGC_XSETREF(grad_enabled, grad);
  Py_INCREF(autocast);
  TGC_XSETREF(autocast_enabled, autocast);
  Py_INCREF(dflt);
  TGC_XSETREF(default_dtype, dflt);
  Py_INCREF(f32);
  TGC_XSETREF(float32, f32);
  Py_RETURN_NONE;
}

static PyObject *set_enabled(PyObject *module, PyObject *on) {
  (void)module;
  int value = PyObject_IsTrue(on);
  if (value < 0)
    return NULL;
  enabled = value;
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"setup", setup, METH_VARARGS, "Binds libtgc_capi and torch."},
    {"set_enabled", set_enabled, METH_O,
     "Turns the native path on or off for every compiled function."},
    {"set_profiling", tgc_native_set_profiling, METH_O,
     "Turns the phase profile of natively served calls on or off."},
    {"take_phases", tgc_native_take_phases, METH_NOARGS,
     "The phase profile since the last read (nanoseconds), then resets it."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_tgc_native",
    "The native call path of tgc.compile (lib/Python/tgc_native.c).", -1,
    module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__tgc_native(void) {
  PyObject *module = PyModule_Create(&module_def);
  if (!module)
    return NULL;
#define INTERN(var, text)                                                      \
  if (!(var = PyUnicode_InternFromString(text))) {                             \
    Py_DECREF(module);                                                         \
    return NULL;                                                               \
  }
  INTERN(s_data_ptr, "data_ptr");
  INTERN(s_shape, "shape");
  INTERN(s_dtype, "dtype");
  INTERN(s_is_cuda, "is_cuda");
  INTERN(s_is_cpu, "is_cpu");
  INTERN(s_get_device, "get_device");
  INTERN(s_is_contiguous, "is_contiguous");
  INTERN(s_call_python, "_call_python");
  INTERN(s_hits, "hits");
  INTERN(s_check, "check");
  INTERN(s_requires_grad, "requires_grad");
  INTERN(s_new_empty, "new_empty");
#undef INTERN
  if (PyModule_AddIntConstant(module, "ABI", TGC_NATIVE_ABI) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  PyObject *type = PyType_FromSpec(&Dispatcher_spec);
  if (!type || PyModule_AddObject(module, "Dispatcher", type) < 0) {
    Py_XDECREF(type);
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
