/*===- tgc_native_phases.c - The native call path's phase profile ---------===*\
|*                                                                            *|
|* See tgc_native_phases.h.                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tgc_native_phases.h"

#include <string.h>
#include <time.h>

int tgc_native_profiling;

static const char *phase_names[PH_COUNT] = {"enter",    "args",   "state",
                                            "captured", "guards", "stream",
                                            "runtime",  "alloc",  "finish"};
static long long phase_total[PH_COUNT], phase_calls;
static long long phase_now[PH_COUNT]; /* the call in flight */
static long long phase_mark;

static long long clock_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void tgc_native_phase_end(int phase) {
  long long t = clock_ns();
  phase_now[phase] += t - phase_mark;
  phase_mark = t;
}

void tgc_native_phase_begin(void) {
  memset(phase_now, 0, sizeof(phase_now));
  phase_mark = clock_ns();
}

void tgc_native_phase_commit(void) {
  tgc_native_phase_end(PH_FINISH);
  for (int i = 0; i < PH_COUNT; ++i)
    phase_total[i] += phase_now[i];
  ++phase_calls;
}

PyObject *tgc_native_set_profiling(PyObject *module, PyObject *on) {
  (void)module;
  int value = PyObject_IsTrue(on);
  if (value < 0)
    return NULL;
  tgc_native_profiling = value;
  Py_RETURN_NONE;
}

/* {phase: nanoseconds in total, ..., "calls": natively served calls} since
 * the last read; resets the counts. */
PyObject *tgc_native_take_phases(PyObject *module, PyObject *unused) {
  (void)module;
  (void)unused;
  PyObject *out = PyDict_New();
  if (!out)
    return NULL;
  for (int i = 0; i <= PH_COUNT; ++i) {
    PyObject *value =
        PyLong_FromLongLong(i < PH_COUNT ? phase_total[i] : phase_calls);
    if (!value ||
        PyDict_SetItemString(out, i < PH_COUNT ? phase_names[i] : "calls",
                             value) < 0) {
      Py_XDECREF(value);
      Py_DECREF(out);
      return NULL;
    }
    Py_DECREF(value);
  }
  memset(phase_total, 0, sizeof(phase_total));
  phase_calls = 0;
  return out;
}
