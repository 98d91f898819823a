/*===- tgc_native_pool.c - Results that share one allocation -------------===*\
|*                                                                            *|
|* See tgc_native_pool.h.                                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tgc_native_pool.h"

#include <string.h>

/* Bytes each pooled result starts on (PyTorch's CUDA allocator aligns its
 * blocks to 512; kernels vectorize on 16-byte alignment). */
#define POOL_ALIGN 512

static PyObject *s_as_strided;

static int flag(tgc_pool_call *pc, Py_ssize_t index) {
  return pc->flags && index < PyTuple_Size(pc->flags) &&
         PyTuple_GetItem(pc->flags, index) == Py_True;
}

int tgc_pool_begin(tgc_pool_call *pc, PyObject *slot, Py_ssize_t nresults) {
  memset(pc, 0, sizeof(*pc));
  if (!slot || slot == Py_None || !PyList_Check(slot) || PyList_Size(slot) != 3)
    return 0;
  if (!s_as_strided &&
      !(s_as_strided = PyUnicode_InternFromString("as_strided")))
    return -1;
  pc->slot = slot;
  pc->flags = PyList_GetItem(slot, 0);
  pc->nresults = nresults;
  PyObject *layout = PyList_GetItem(slot, 1);
  if (layout && layout != Py_None) {
    Py_INCREF(layout);
    pc->layout = layout;
    pc->nblocks = PyTuple_Size(PyTuple_GetItem(layout, 1));
    pc->blocks = PyMem_Calloc((size_t)(pc->nblocks ? pc->nblocks : 1),
                              sizeof(PyObject *));
    pc->bases = PyMem_Calloc((size_t)(pc->nblocks ? pc->nblocks : 1),
                             sizeof(uintptr_t));
    size_t n = (size_t)(nresults ? nresults : 1);
    pc->pending = PyMem_Calloc(n, sizeof(PyObject *));
    pc->pending_block = PyMem_Calloc(n, sizeof(Py_ssize_t));
    pc->pending_offset = PyMem_Calloc(n, sizeof(int64_t));
    if (!pc->blocks || !pc->bases || !pc->pending || !pc->pending_block ||
        !pc->pending_offset) {
      PyErr_NoMemory();
      return -1;
    }
    return 0;
  }
  pc->dtypes = PyMem_Calloc((size_t)(nresults ? nresults : 1), sizeof(int32_t));
  pc->numels = PyMem_Calloc((size_t)(nresults ? nresults : 1), sizeof(int64_t));
  if (!pc->dtypes || !pc->numels) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < nresults; ++i)
    pc->dtypes[i] = -1;
  return 0;
}

static int64_t count(int64_t rank, const int64_t *sizes) {
  int64_t n = 1;
  for (int64_t i = 0; i < rank; ++i)
    n *= sizes[i];
  return n;
}

int tgc_pool_reserve(tgc_pool_call *pc, int32_t index, int32_t dtype,
                     int64_t rank, const int64_t *sizes, PyObject *shape,
                     PyObject *empty, PyObject *kwargs, void **ptr) {
  if (!pc->slot || pc->mismatch || !flag(pc, index))
    return 0;
  int64_t numel = count(rank, sizes);
  if (!pc->layout) { /* learning: the caller allocates */
    if (index < pc->nresults) {
      pc->dtypes[index] = dtype;
      pc->numels[index] = numel;
    }
    return 0;
  }
  if (index < 0 || index >= pc->nresults)
    return 0;
  PyObject *where = PyTuple_GetItem(PyTuple_GetItem(pc->layout, 0), index);
  if (!where || where == Py_None) {
    PyErr_Clear();
    return 0;
  }
  Py_ssize_t block = PyLong_AsSsize_t(PyTuple_GetItem(where, 0));
  long long offset = PyLong_AsLongLong(PyTuple_GetItem(where, 1));
  long long expected = PyLong_AsLongLong(PyTuple_GetItem(where, 2));
  PyObject *blocks = PyTuple_GetItem(pc->layout, 1);
  PyObject *spec = PyTuple_GetItem(blocks, block);
  long itemsize =
      PyLong_AsLong(PyTuple_GetItem(PyList_GetItem(pc->slot, 2), dtype));
  if (PyErr_Occurred() || !spec)
    return -1;
  if (expected != numel || PyLong_AsLong(PyTuple_GetItem(spec, 0)) != dtype ||
      itemsize <= 0) {
    pc->mismatch = 1; /* other sizes than learnt: this call allocates alone */
    return 0;
  }
  if (!pc->blocks[block]) {
    PyObject *total =
        PyLong_FromLongLong(PyLong_AsLongLong(PyTuple_GetItem(spec, 1)));
    PyObject *size = total ? PyTuple_Pack(1, total) : NULL;
    PyObject *args = size ? PyTuple_Pack(1, size) : NULL;
    pc->blocks[block] = args ? PyObject_Call(empty, args, kwargs) : NULL;
    Py_XDECREF(total);
    Py_XDECREF(size);
    Py_XDECREF(args);
    if (!pc->blocks[block])
      return -1;
    PyObject *p = PyObject_CallMethod(pc->blocks[block], "data_ptr", NULL);
    if (!p)
      return -1;
    pc->bases[block] = (uintptr_t)PyLong_AsVoidPtr(p);
    Py_DECREF(p);
    if (PyErr_Occurred())
      return -1;
  }
  Py_INCREF(shape);
  TGC_XSETREF(pc->pending[index], shape); /* (a second try of the call) */
  pc->pending_block[index] = block;
  pc->pending_offset[index] = offset;
  *ptr = (void *)(pc->bases[block] + (uintptr_t)offset * (uintptr_t)itemsize);
  return 1;
}

int tgc_pool_views(tgc_pool_call *pc, PyObject *results) {
  if (!pc->pending)
    return 0;
  for (Py_ssize_t i = 0; i < pc->nresults; ++i) {
    PyObject *shape = pc->pending[i];
    if (!shape)
      continue;
    Py_ssize_t rank = PyTuple_Size(shape);
    PyObject *strides = PyTuple_New(rank);
    if (!strides)
      return -1;
    int64_t step = 1;
    for (Py_ssize_t d = rank - 1; d >= 0; --d) {
      PyObject *s = PyLong_FromLongLong(step);
      if (!s) {
        Py_DECREF(strides);
        return -1;
      }
      PyTuple_SetItem(strides, d, s);
      long long size = PyLong_AsLongLong(PyTuple_GetItem(shape, d));
      step *= size > 1 ? size : 1;
    }
    PyObject *start = PyLong_FromLongLong(pc->pending_offset[i]);
    PyObject *view = start ? PyObject_CallMethodObjArgs(
                                 pc->blocks[pc->pending_block[i]], s_as_strided,
                                 shape, strides, start, NULL)
                           : NULL;
    Py_DECREF(strides);
    Py_XDECREF(start);
    if (!view || PyList_SetItem(results, i, view) < 0) /* steals */
      return -1;
  }
  return 0;
}

/* The layout of the results learnt in this call: ((per result), (per
 * block)), one block per dtype code in first-use order. */
static PyObject *learnt_layout(tgc_pool_call *pc, PyObject *itemsizes) {
  PyObject *per = PyTuple_New(pc->nresults);
  PyObject *blocks = PyList_New(0);
  int32_t codes[64];
  int64_t totals[64];
  Py_ssize_t nblocks = 0;
  if (!per || !blocks)
    goto fail;
  for (Py_ssize_t i = 0; i < pc->nresults; ++i) {
    int32_t dtype = pc->dtypes[i];
    PyObject *item = Py_None;
    Py_INCREF(Py_None);
    if (dtype >= 0 && dtype < PyTuple_Size(itemsizes)) {
      long itemsize = PyLong_AsLong(PyTuple_GetItem(itemsizes, dtype));
      if (itemsize <= 0 || itemsize > POOL_ALIGN) {
        PyErr_Clear();
        PyTuple_SetItem(per, i, item);
        continue;
      }
      Py_ssize_t b = 0;
      while (b < nblocks && codes[b] != dtype)
        ++b;
      if (b == nblocks) {
        if (nblocks == 64) {
          PyTuple_SetItem(per, i, item);
          continue;
        }
        codes[nblocks] = dtype;
        totals[nblocks++] = 0;
      }
      int64_t align = POOL_ALIGN / itemsize;
      int64_t offset = (totals[b] + align - 1) / align * align;
      totals[b] = offset + pc->numels[i];
      Py_DECREF(item);
      item = Py_BuildValue("(nLL)", b, (long long)offset,
                           (long long)pc->numels[i]);
      if (!item)
        goto fail;
    }
    PyTuple_SetItem(per, i, item);
  }
  for (Py_ssize_t b = 0; b < nblocks; ++b) {
    PyObject *spec = Py_BuildValue("(iL)", (int)codes[b], (long long)totals[b]);
    if (!spec || PyList_Append(blocks, spec) < 0) {
      Py_XDECREF(spec);
      goto fail;
    }
    Py_DECREF(spec);
  }
  PyObject *block_tuple = PyList_AsTuple(blocks);
  Py_DECREF(blocks);
  if (!block_tuple) {
    Py_DECREF(per);
    return NULL;
  }
  PyObject *layout = PyTuple_Pack(2, per, block_tuple);
  Py_DECREF(per);
  Py_DECREF(block_tuple);
  return layout;
fail:
  Py_XDECREF(per);
  Py_XDECREF(blocks);
  return NULL;
}

void tgc_pool_end(tgc_pool_call *pc, int ok) {
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  /* Another thread may have stored a layout while this call learnt. */
  if (pc->slot && !pc->layout && ok && PyList_GetItem(pc->slot, 1) == Py_None) {
    PyObject *layout = learnt_layout(pc, PyList_GetItem(pc->slot, 2));
    if (layout)
      PyList_SetItem(pc->slot, 1, layout); /* steals */
  }
  if (pc->slot && pc->mismatch && PyList_GetItem(pc->slot, 1) == pc->layout) {
    Py_INCREF(Py_None);
    PyList_SetItem(pc->slot, 1, Py_None); /* other sizes: learn again */
  }
  PyErr_Clear();
  PyErr_Restore(type, value, trace);
  Py_XDECREF(pc->layout);
  for (Py_ssize_t b = 0; b < pc->nblocks; ++b)
    Py_XDECREF(pc->blocks[b]);
  if (pc->pending)
    for (Py_ssize_t i = 0; i < pc->nresults; ++i)
      Py_XDECREF(pc->pending[i]);
  PyMem_Free(pc->blocks);
  PyMem_Free(pc->bases);
  PyMem_Free(pc->pending);
  PyMem_Free(pc->pending_block);
  PyMem_Free(pc->pending_offset);
  PyMem_Free(pc->dtypes);
  PyMem_Free(pc->numels);
  memset(pc, 0, sizeof(*pc));
}
