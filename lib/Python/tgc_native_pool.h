/*===- tgc_native_pool.h - Results that share one allocation -------------===*\
|*                                                                            *|
|* A training forward returns, after its outputs, the tensors its backward   *|
|* reads (docs/training.md "Where the saved tensors live"): about 200 for    *|
|* GPT-2 small, each from PyTorch's allocator (a Python call of about 8 us  *|
|* each, before the call's first kernel). A native entry may mark such      *|
|* results as pooled: the first call allocates them one by one and learns   *|
|* their layout; later calls allocate one block per dtype and return each   *|
|* pooled result as a contiguous view of its block (as_strided), at an      *|
|* offset aligned to 512 bytes; the views are made once the run has issued  *|
|* its work (the runtime only needs addresses), so that they no longer      *|
|* delay the first kernel. The blocks are freed when the last view is       *|
|* (after the backward). Results the caller also gets as outputs are     *|
|* never pooled (a kept output would keep the whole block).                 *|
|*                                                                            *|
|* The entry's slot is None, or a list [flags, layout, itemsizes]: flags a  *|
|* tuple of bools per result (pooled or not), layout None until the first   *|
|* call and then (per result: None or (block, offset, numel); per block:     *|
|* (dtype code, numel)), itemsizes a tuple of bytes per dtype code.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TGC_NATIVE_POOL_H
#define TGC_NATIVE_POOL_H

#include "tgc_native_phases.h" /* Python.h under the stable ABI */

#include <stdint.h>

typedef struct {
  PyObject *slot;   /* the entry's list, or NULL: nothing pooled */
  PyObject *flags;  /* borrowed from slot */
  PyObject *layout; /* a reference (another thread may replace the slot's
                       while this call runs); NULL while learning */
  int mismatch;     /* a pooled result's size differed from the layout's:
                       the rest of the call allocates alone, and the next
                       call learns again */
  Py_ssize_t nresults;
  /* Learning: each pooled result's dtype code and element count. */
  int32_t *dtypes;
  int64_t *numels;
  /* Using a layout: this call's blocks (new references, lazily made) and
   * their data pointers. */
  PyObject **blocks;
  uintptr_t *bases;
  Py_ssize_t nblocks;
  /* Pooled results reserved in this call, whose views are made after the
   * run has issued its work (tgc_pool_views): per result, its shape (a new
   * reference, or NULL), block and element offset. */
  PyObject **pending;
  Py_ssize_t *pending_block;
  int64_t *pending_offset;
} tgc_pool_call;

/* Starts a call of an entry whose pool slot is `slot` (Py_None: none).
 * Returns 0, or -1 with a Python error set. */
TGC_HIDDEN int tgc_pool_begin(tgc_pool_call *pc, PyObject *slot,
                              Py_ssize_t nresults);

/* A result of the call: 1 when it is pooled, `*ptr` its address in this
 * call's block (its view is made by tgc_pool_views, after the run: the
 * ~200 views, a Python call each, no longer delay the call's first
 * kernel); 0 with no error set when the caller allocates it (not pooled,
 * no layout yet, another size than learnt); -1 with an error set.
 * `shape` is the sizes as a tuple; `empty` and `kwargs` make a block
 * (torch.empty and its dtype and device keywords). */
TGC_HIDDEN int tgc_pool_reserve(tgc_pool_call *pc, int32_t index, int32_t dtype,
                                int64_t rank, const int64_t *sizes,
                                PyObject *shape, PyObject *empty,
                                PyObject *kwargs, void **ptr);

/* The views of the results reserved in this call, stored at their index of
 * the list `results`. Returns 0, or -1 with a Python error set. */
TGC_HIDDEN int tgc_pool_views(tgc_pool_call *pc, PyObject *results);

/* Ends the call: after a successful first call, stores the layout learnt
 * unless another thread stored one first (errors there are dropped: the
 * next call learns again); after a size mismatch, forgets the layout.
 * Releases the blocks (the views keep them alive). */
TGC_HIDDEN void tgc_pool_end(tgc_pool_call *pc, int ok);

#endif
