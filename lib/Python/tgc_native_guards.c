/*===- tgc_native_guards.c - Module state and Python values of an entry ---===*\
|*                                                                            *|
|* The checks of an entry's state before a natively served call: the links   *|
|* that find its parameters and buffers, the dictionary guards (Python        *|
|* values, objects by identity, module containers by size) and the guards    *|
|* only Python can check (tgc._native_path.entry, tgc._state).               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tgc_native_guards.h"

#include <string.h>

/* Whether `now` is the guarded `value`, as tgc._state.same decides; 0 also
 * where this cannot tell (the Python path decides then). */
static int same_value(PyObject *now, PyObject *value) {
  if (now == value)
    return 1;
  if (!now || Py_TYPE(now) != Py_TYPE(value))
    return 0;
  PyObject *type = (PyObject *)Py_TYPE(value);
  if (type == (PyObject *)&PyTuple_Type) { /* an equal tuple built anew */
    Py_ssize_t n = PyTuple_Size(value);
    if (PyTuple_Size(now) != n)
      return 0;
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!same_value(PyTuple_GetItem(now, i), PyTuple_GetItem(value, i)))
        return 0;
    return 1;
  }
  if (type == (PyObject *)&PyFloat_Type) { /* by bits: 0.0 and -0.0 differ */
    double a = PyFloat_AsDouble(now), b = PyFloat_AsDouble(value);
    return (a != a && b != b) || memcmp(&a, &b, sizeof a) == 0;
  }
  if (type != (PyObject *)&PyLong_Type && type != (PyObject *)&PyUnicode_Type)
    return 0;
  int eq = PyObject_RichCompareBool(now, value, Py_EQ);
  if (eq < 0) {
    PyErr_Clear();
    return 0;
  }
  return eq;
}

/* 1 when the entry's module state and Python values hold, 0 when not, -1
 * with a Python error. */
int tgc_state_holds(PyObject *links, PyObject *dict_guards, PyObject *guards,
                    PyObject *check) {
  Py_ssize_t n = PyTuple_Size(links);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *link = PyTuple_GetItem(links, i);
    PyObject *now = PyDict_GetItemWithError(PyTuple_GetItem(link, 0),
                                            PyTuple_GetItem(link, 1));
    if (!now && PyErr_Occurred())
      return -1;
    if (now != PyTuple_GetItem(link, 2))
      return 0;
  }
  n = PyTuple_Size(dict_guards);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *guard = PyTuple_GetItem(dict_guards, i);
    if (PyTuple_Size(guard) == 2) { /* (dict, size): a module container's */
      Py_ssize_t size = PyLong_AsSsize_t(PyTuple_GetItem(guard, 1));
      if (size == -1 && PyErr_Occurred())
        return -1;
      if (PyDict_Size(PyTuple_GetItem(guard, 0)) != size)
        return 0;
      continue;
    }
    PyObject *now = PyDict_GetItemWithError(PyTuple_GetItem(guard, 0),
                                            PyTuple_GetItem(guard, 1));
    if (!now && PyErr_Occurred())
      return -1;
    if (!same_value(now, PyTuple_GetItem(guard, 2)))
      return 0;
  }
  n = PyTuple_Size(guards);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *failed =
        PyObject_CallMethodObjArgs(PyTuple_GetItem(guards, i), check, NULL);
    if (!failed)
      return -1;
    int holds = failed == Py_None;
    Py_DECREF(failed);
    if (!holds)
      return 0;
  }
  return 1;
}
