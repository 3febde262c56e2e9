/*
 * The run path's fixed per-run cost, in C: a CPython extension (limited API,
 * abi3) that binds a run's tensors and calls the native launcher's
 * ge_run_state (Note [Fast run path] in ge/engine/hotpath.py).
 *
 * A Runner serves one compiled graph of launches only. Its run(inputs,
 * outputs) takes a run state from the graph's pool, checks each
 * tensor (exactly a ge.graph.Tensor, or a DeviceBuffer where allowed, of
 * the graph's dtype and shape), writes its address into the state's address
 * table, releases the GIL around the native call and gives the state back.
 * Whatever it does not handle (a tensor that does not match, outputs to allocate, an empty pool) it leaves untouched and
 * returns None: the caller then takes the Python path, which does the same
 * run or raises the error that names what is wrong. A kernel fault calls
 * `fault(code)`, which raises KernelFault naming the launch.
 */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#ifndef GE_HOTPATH_SOURCE
#define GE_HOTPATH_SOURCE "unknown"
#endif
/* The SHA-256 of the source this binary was built from, found by searching
 * the file's bytes before it is imported (ge/engine/hotpath.py). */
__attribute__((used)) static const char source_marker[] =
    "ge-hotpath-source:" GE_HOTPATH_SOURCE;

/* ge_packed_run in ge/device/native.c (ge.device.native.PackedRun). */
typedef struct packed_run {
  uint64_t *table;
  const uint32_t *slots;
  const uint32_t *sources;
  const uint64_t *offsets;
  uint64_t *addrs;
  const void *tasks;
  uint32_t nbound;
  uint32_t ntasks;
} packed_run;

typedef uint64_t (*run_fn)(const packed_run *state);

typedef struct {
  PyObject_HEAD
  run_fn run;
  PyObject *free;        /* list of RunState: the graph's pool */
  PyObject *kinds;       /* tuple of (dtype, shape, nbytes): inputs, outputs */
  PyObject *tensor_type; /* ge.graph.Tensor */
  PyObject *buffer_type; /* DeviceBuffer, or None when not accepted */
  PyObject *fault;       /* fault(code) raises KernelFault */
  Py_ssize_t ninputs;
  Py_ssize_t noutputs;
  Py_ssize_t first; /* the first input's index in the address table */
} Runner;

static PyObject *str_run_arg, *str_data_type, *str_shape, *str_addr, *str_buffer_addr,
    *str_size;

/* The address of `value` when it is a tensor (or buffer) of `kind`, else 0
 * (an error set meanwhile is cleared: the Python path reports it). */
static uint64_t address_of(Runner *self, PyObject *value, PyObject *kind) {
  PyObject *type = (PyObject *)Py_TYPE(value);
  PyObject *attr, *addr_name = str_addr;
  uint64_t addr = 0;
  if (type == self->tensor_type) {
    attr = PyObject_GetAttr(value, str_data_type);
    if (attr == NULL) goto fail;
    Py_DECREF(attr); /* the dtype enum member outlives the tensor's reference */
    if (attr != PyTuple_GetItem(kind, 0)) return 0;
    attr = PyObject_GetAttr(value, str_shape);
    if (attr == NULL) goto fail;
    int same = PyObject_RichCompareBool(attr, PyTuple_GetItem(kind, 1), Py_EQ);
    Py_DECREF(attr);
    if (same != 1) goto fail;
  } else if (type == self->buffer_type) {
    attr = PyObject_GetAttr(value, str_size);
    if (attr == NULL) goto fail;
    int enough = PyObject_RichCompareBool(attr, PyTuple_GetItem(kind, 2), Py_GE);
    Py_DECREF(attr);
    if (enough != 1) goto fail;
    addr_name = str_buffer_addr; /* a DeviceBuffer's is `addr`, a Tensor's `_addr` */
  } else {
    return 0;
  }
  attr = PyObject_GetAttr(value, addr_name);
  if (attr == NULL) goto fail;
  addr = PyLong_AsUnsignedLongLong(attr);
  Py_DECREF(attr);
  if (addr == (uint64_t)-1 && PyErr_Occurred()) goto fail;
  return addr;
fail:
  PyErr_Clear();
  return 0;
}

/* Write the addresses of `values` (a list or tuple of `count` items) from
 * addrs[0] on, against kinds[at...]: 1, or 0 when one does not match. */
static int bind(Runner *self, PyObject *values, Py_ssize_t count, Py_ssize_t at,
                uint64_t *addrs) {
  int is_list = PyList_CheckExact(values);
  if (!is_list && !PyTuple_CheckExact(values)) return 0;
  if ((is_list ? PyList_Size(values) : PyTuple_Size(values)) != count) return 0;
  for (Py_ssize_t i = 0; i < count; ++i) {
    /* A list's item is held while it is read: a shape's __eq__ could
     * shorten the list (then the item is gone, and so is the fast path). */
    PyObject *value = is_list ? PyList_GetItem(values, i) : PyTuple_GetItem(values, i);
    if (value == NULL) {
      PyErr_Clear();
      return 0;
    }
    Py_INCREF(value);
    uint64_t addr = address_of(self, value, PyTuple_GetItem(self->kinds, at + i));
    Py_DECREF(value);
    if (addr == 0) return 0;
    addrs[i] = addr;
  }
  return 1;
}

/* The last state of the pool, removed from it (a new reference), or NULL. */
static PyObject *take_state(Runner *self) {
  Py_ssize_t n = PyList_Size(self->free);
  if (n <= 0) return NULL;
  PyObject *state = PyList_GetItem(self->free, n - 1);
  Py_INCREF(state);
  if (PyList_SetSlice(self->free, n - 1, n, NULL) < 0) {
    PyErr_Clear();
    Py_DECREF(state);
    return NULL;
  }
  return state;
}

/* Give `state` back to the pool (stealing the reference): 0, or -1 with an
 * error set. */
static int give_back(Runner *self, PyObject *state) {
  int result = PyList_Append(self->free, state);
  Py_DECREF(state);
  return result;
}

static PyObject *runner_run(Runner *self, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "run takes (inputs, outputs)");
    return NULL;
  }
  PyObject *inputs = args[0], *outputs = args[1];
  PyObject *state = take_state(self);
  if (state == NULL) Py_RETURN_NONE;
  PyObject *arg = PyObject_GetAttr(state, str_run_arg);
  packed_run *packed = arg ? (packed_run *)PyLong_AsVoidPtr(arg) : NULL;
  Py_XDECREF(arg);
  if (packed == NULL) {
    PyErr_Clear();
    if (give_back(self, state) < 0) return NULL;
    Py_RETURN_NONE;
  }
  uint64_t *addrs = packed->addrs + self->first;
  if (!bind(self, inputs, self->ninputs, 0, addrs) ||
      !bind(self, outputs, self->noutputs, self->ninputs, addrs + self->ninputs)) {
    if (give_back(self, state) < 0) return NULL;
    Py_RETURN_NONE;
  }
  uint64_t fault;
  Py_BEGIN_ALLOW_THREADS
  fault = self->run(packed);
  Py_END_ALLOW_THREADS
  if (give_back(self, state) < 0) return NULL;
  if (fault) return PyObject_CallFunction(self->fault, "K", (unsigned long long)fault);
  return PySequence_List(outputs);
}

static void runner_dealloc(Runner *self) {
  PyTypeObject *type = Py_TYPE((PyObject *)self);
  Py_XDECREF(self->free);
  Py_XDECREF(self->kinds);
  Py_XDECREF(self->tensor_type);
  Py_XDECREF(self->buffer_type);
  Py_XDECREF(self->fault);
  freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
  tp_free(self);
  Py_DECREF(type);
}

static PyMethodDef runner_methods[] = {
    {"run", (PyCFunction)(void (*)(void))runner_run, METH_FASTCALL,
     "run(inputs, outputs): the outputs as a new list, or None when "
     "the Python path must take the run."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot runner_slots[] = {
    {Py_tp_dealloc, runner_dealloc},
    {Py_tp_methods, runner_methods},
    {Py_tp_doc, "The fast run path of one compiled graph (ge/engine/hotpath.py)."},
    {0, NULL},
};

static PyType_Spec runner_spec = {
    "ge.engine._hotpath.Runner",
    sizeof(Runner),
    0,
    /* Made by runner() only: Runner() would leave its fields NULL. */
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    runner_slots,
};

static PyObject *runner_type;

/* runner(run_fn, free, kinds, ninputs, first, tensor_type, buffer_type, fault) */
static PyObject *make_runner(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *fn, *free, *kinds, *tensor_type, *buffer_type, *fault;
  Py_ssize_t ninputs, first;
  if (!PyArg_ParseTuple(args, "OO!O!nnOOO", &fn, &PyList_Type, &free, &PyTuple_Type,
                        &kinds, &ninputs, &first, &tensor_type, &buffer_type, &fault))
    return NULL;
  void *address = PyLong_AsVoidPtr(fn);
  if (address == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "run_fn is NULL");
    return NULL;
  }
  Py_ssize_t nkinds = PyTuple_Size(kinds);
  if (ninputs < 0 || ninputs > nkinds || first < 0) {
    PyErr_SetString(PyExc_ValueError, "ninputs and first do not fit kinds");
    return NULL;
  }
  for (Py_ssize_t i = 0; i < nkinds; ++i) {
    PyObject *kind = PyTuple_GetItem(kinds, i);
    if (!PyTuple_CheckExact(kind) || PyTuple_Size(kind) != 3) {
      PyErr_SetString(PyExc_TypeError, "each kind is (dtype, shape, nbytes)");
      return NULL;
    }
  }
  Runner *self = (Runner *)PyType_GenericAlloc((PyTypeObject *)runner_type, 0);
  if (self == NULL) return NULL;
  self->run = (run_fn)address;
  self->ninputs = ninputs;
  self->noutputs = nkinds - ninputs;
  self->first = first;
  PyObject **fields[] = {&self->free, &self->kinds, &self->tensor_type,
                         &self->buffer_type, &self->fault};
  PyObject *values[] = {free, kinds, tensor_type, buffer_type, fault};
  for (int i = 0; i < 5; ++i) {
    Py_INCREF(values[i]);
    *fields[i] = values[i];
  }
  return (PyObject *)self;
}

static PyMethodDef module_methods[] = {
    {"runner", make_runner, METH_VARARGS,
     "runner(run_fn, free, kinds, ninputs, first, tensor_type, buffer_type, "
     "fault): a Runner."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_hotpath", "The run path's fast path (hotpath.py).", -1,
    module_methods,        NULL,       NULL,                                      NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__hotpath(void) {
  const char *names[] = {"run_arg", "_data_type", "_shape", "_addr", "addr", "size"};
  PyObject **strings[] = {&str_run_arg, &str_data_type, &str_shape, &str_addr,
                          &str_buffer_addr, &str_size};
  for (int i = 0; i < 6; ++i)
    if ((*strings[i] = PyUnicode_InternFromString(names[i])) == NULL) return NULL;
  runner_type = PyType_FromSpec(&runner_spec);
  if (runner_type == NULL) return NULL;
  PyObject *module = PyModule_Create(&module_def);
  if (module == NULL) return NULL;
  (void)source_marker;
  return module;
}
