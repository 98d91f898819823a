/*===- tgc_native_guards.h - Module state and Python values of an entry ---===*\
|*                                                                            *|
|* See tgc_native_guards.c.                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TGC_NATIVE_GUARDS_H
#define TGC_NATIVE_GUARDS_H

#include "tgc_native_phases.h" /* Python.h under the stable ABI */

/* 1 when an entry's state holds, 0 when not, -1 with a Python error.
 * `links`: (dict, key, object) tuples, each entry the same object;
 * `dict_guards`: (dict, key, value) tuples (tgc._state.same's equality, or
 * the Python path decides) and (dict, size) tuples; `guards`: objects whose
 * method `check` returns None when they hold. */
int tgc_state_holds(PyObject *links, PyObject *dict_guards, PyObject *guards,
                    PyObject *check);

#endif
