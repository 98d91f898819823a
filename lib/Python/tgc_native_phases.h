/*===- tgc_native_phases.h - The native call path's phase profile ---------===*\
|*                                                                            *|
|* Where a natively served call's host time goes, for `python_bench.py        *|
|* --call-path --phases` (tgc._native_path.phase_profile): off unless asked   *|
|* for (one branch per phase mark then). Phases of calls that end on the      *|
|* Python path are dropped. One thread at a time: the clock is global.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TGC_NATIVE_PHASES_H
#define TGC_NATIVE_PHASES_H

/* (The stable ABI, as tgc_native.c; included before Python.h there too.) */
#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030A0000
#endif
#include <Python.h>

#define TGC_HIDDEN __attribute__((visibility("hidden")))

/* Py_XSETREF is not in the limited API before 3.12. */
#define TGC_XSETREF(dst, src)                                                  \
  do {                                                                         \
    PyObject *old_ = (PyObject *)(dst);                                        \
    (dst) = (src);                                                             \
    Py_XDECREF(old_);                                                          \
  } while (0)

enum {
  PH_ENTER,    /* entry snapshot, autocast and default dtype */
  PH_ARGS,     /* reading the call's tensors */
  PH_STATE,    /* module state and Python values */
  PH_CAPTURED, /* reading the captured tensors (parameters, buffers) */
  PH_GUARDS,   /* the compiled guards */
  PH_STREAM,   /* PyTorch's current stream */
  PH_RUNTIME,  /* the runtime: plan evaluation, launches or graph replay */
  PH_ALLOC,    /* results allocated by PyTorch */
  PH_FINISH,   /* the returned value, hit count, entry order */
  PH_COUNT
};

TGC_HIDDEN extern int tgc_native_profiling;
TGC_HIDDEN void tgc_native_phase_end(int phase);
TGC_HIDDEN void tgc_native_phase_begin(void);
TGC_HIDDEN void tgc_native_phase_commit(void);

/* Ends the phase in flight as `phase` and starts the next. */
static inline void phase_end(int phase) {
  if (tgc_native_profiling)
    tgc_native_phase_end(phase);
}

/* A call starts. */
static inline void phase_begin(void) {
  if (tgc_native_profiling)
    tgc_native_phase_begin();
}

/* The call was served natively: its phases count (the last as finish). */
static inline void phase_commit(void) {
  if (tgc_native_profiling)
    tgc_native_phase_commit();
}

/* set_profiling(on) and take_phases() of the module. */
TGC_HIDDEN PyObject *tgc_native_set_profiling(PyObject *module, PyObject *on);
TGC_HIDDEN PyObject *tgc_native_take_phases(PyObject *module, PyObject *unused);

#endif
