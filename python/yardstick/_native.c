/*
 * yardstick._native: the Python package's C side over libyardstick
 * (include/yardstick.h). Two parts:
 *
 * Zones. zone(name) is the whole cost of `with yardstick.zone("x"):`
 * when no reader is attached: ys__trace_on is decided once, when
 * libyardstick is loaded (its constructor reads YARDSTICK_TRACE_FD), so
 * untraced every call returns one shared object whose __enter__ and
 * __exit__ do nothing. Traced, each name has one call site (ys__site)
 * for the life of the process, kept in a dict; a zone object holds the
 * id ys__zbegin returned, for ys__zend.
 *
 * Benchmarks. register() hands a Python callable to ys_register_data;
 * run() is ys_main_from over the batch registered since the last run.
 * The body (py_body) calls the callable in YS_LOOP with the GIL held
 * (run() is called from Python and never releases it), counts the
 * interpreter's allocations (PyMem/PyObject domains, hooked only while
 * a batch runs) in the timed loop, and after the loop times a few calls
 * one by one (call_time: the per-call distribution), all through
 * ys_value. An exception in the callable fails the benchmark with the
 * exception's text; a KeyboardInterrupt (Ctrl-C) ends the batch and is
 * raised again by run().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yardstick.h"

/* ---- zones ---- */

typedef struct {
	PyObject_HEAD
	ys__site *site;		/* NULL: the shared no-op zone */
	const char *name;	/* the site's name, owned by sites */
	PyObject *pyname;	/* the name as given (None: the function's) */
	uint32_t id;
} ZoneObject;

static PyTypeObject ZoneType;
/* The zone of every call when untraced, of a type of its own: its
 * __enter__ and __exit__ are plain functions in the type's dict, not
 * method descriptors, so `with` finds them without making a bound method
 * for each (CPython 3.11's BEFORE_WITH looks both up on every `with`):
 * about half the cost of a `with` on an object with methods. */
static PyTypeObject NoopType;
static ZoneObject *noop_zone;
/* name (str) -> capsule of a ys__site followed by its UTF-8 name */
static PyObject *sites;
/* yardstick._decorate(zone, fn): the decorator (Python: functools.wraps,
 * coroutines), set by the package at import */
static PyObject *decorate;

static void site_free(PyObject *cap)
{
	PyMem_RawFree(PyCapsule_GetPointer(cap, "yardstick.site"));
}

/* The call site of name; NULL with an exception set. */
static ys__site *site_of(PyObject *name, const char **text)
{
	PyObject *cap = PyDict_GetItemWithError(sites, name);
	const char *utf8;
	Py_ssize_t len;
	ys__site *site;

	if (!cap && PyErr_Occurred())
		return NULL;
	if (cap) {
		site = PyCapsule_GetPointer(cap, "yardstick.site");
		*text = (const char *)(site + 1);
		return site;
	}
	utf8 = PyUnicode_AsUTF8AndSize(name, &len);
	if (!utf8)
		return NULL;
	site = PyMem_RawCalloc(1, sizeof(*site) + (size_t)len + 1);
	if (!site) {
		PyErr_NoMemory();
		return NULL;
	}
	memcpy(site + 1, utf8, (size_t)len);
	cap = PyCapsule_New(site, "yardstick.site", site_free);
	if (!cap) {
		PyMem_RawFree(site);
		return NULL;
	}
	if (PyDict_SetItem(sites, name, cap) < 0) {
		Py_DECREF(cap);
		return NULL;
	}
	Py_DECREF(cap);
	*text = (const char *)(site + 1);
	return site;
}

static int check_name(PyObject *name, const char *what)
{
	if (PyUnicode_Check(name))
		return 0;
	PyErr_Format(PyExc_TypeError, "%s: the name must be a str, not '%s'",
		     what, Py_TYPE(name)->tp_name);
	return -1;
}

/* zone(name=None): a context manager and a decorator. */
static PyObject *py_zone(PyObject *self, PyObject *const *args,
			 Py_ssize_t nargs)
{
	PyObject *name = nargs > 0 ? args[0] : Py_None;
	ZoneObject *z;

	if (nargs > 1)
		return PyErr_Format(PyExc_TypeError, "zone() takes at most "
				    "one argument (%zd given)", nargs);
	if (name != Py_None && check_name(name, "zone()"))
		return NULL;
	if (!ys_tracing())
		return Py_NewRef((PyObject *)noop_zone);
	z = PyObject_New(ZoneObject, &ZoneType);
	if (!z)
		return NULL;
	z->site = NULL;
	z->name = NULL;
	z->id = 0;
	z->pyname = Py_NewRef(name);
	if (name != Py_None && !(z->site = site_of(name, &z->name))) {
		Py_DECREF(z);
		return NULL;
	}
	return (PyObject *)z;
}

static void zone_dealloc(ZoneObject *z)
{
	Py_XDECREF(z->pyname);
	PyObject_Free(z);
}

static PyObject *zone_enter(ZoneObject *z, PyObject *unused)
{
	if (!z->site)
		return PyErr_Format(PyExc_TypeError, "zone() without a name "
				    "is a decorator: @yardstick.zone()");
	z->id = ys__zbegin(z->site, z->name);
	return Py_NewRef((PyObject *)z);
}

/* the no-op zone's, called unbound (self is NULL) */
static PyObject *noop_enter(PyObject *unused, PyObject *unused2)
{
	return Py_NewRef((PyObject *)noop_zone);
}

static PyObject *noop_exit(PyObject *unused, PyObject *const *args,
			   Py_ssize_t nargs)
{
	Py_RETURN_FALSE;
}

static PyMethodDef noop_enter_def = { "__enter__", noop_enter, METH_NOARGS,
				      NULL };
static PyMethodDef noop_exit_def = {
	"__exit__", (PyCFunction)(void (*)(void))noop_exit, METH_FASTCALL,
	NULL
};

static PyObject *zone_exit(ZoneObject *z, PyObject *const *args,
			   Py_ssize_t nargs)
{
	if (z->site && z->id) {
		ys__zend(z->id);
		z->id = 0;
	}
	Py_RETURN_FALSE;
}

/* As a decorator: untraced, the function itself (nothing to pay). */
static PyObject *zone_call(ZoneObject *z, PyObject *args, PyObject *kw)
{
	PyObject *fn;

	if (kw || PyTuple_GET_SIZE(args) != 1)
		return PyErr_Format(PyExc_TypeError, "a zone decorates one "
				    "function: @yardstick.zone() or "
				    "@yardstick.zone(\"name\")");
	fn = PyTuple_GET_ITEM(args, 0);
	if (z == noop_zone)
		return Py_NewRef(fn);	/* untraced for the process's life */
	if (!decorate)
		return PyErr_Format(PyExc_RuntimeError, "yardstick._native "
				    "is used without the yardstick package");
	return PyObject_CallFunctionObjArgs(decorate, z->pyname, fn, NULL);
}

static PyMethodDef zone_methods[] = {
	{ "__enter__", (PyCFunction)zone_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)(void (*)(void))zone_exit, METH_FASTCALL,
	  NULL },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject NoopType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "yardstick.NoZone",
	.tp_basicsize = sizeof(ZoneObject),
	.tp_call = (ternaryfunc)zone_call,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "the zone when no reader records: does nothing",
};

static PyTypeObject ZoneType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "yardstick.Zone",
	.tp_basicsize = sizeof(ZoneObject),
	.tp_dealloc = (destructor)zone_dealloc,
	.tp_call = (ternaryfunc)zone_call,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "a zone of the trace: `with` it, or decorate a function",
	.tp_methods = zone_methods,
};

/* ---- a function under @zone, traced: the zone around each call, in C
 * (a Python wrapper would add its own frame, a few hundred ns) ---- */

typedef struct {
	PyObject_HEAD
	ys__site *site;
	const char *name;
	PyObject *fn;
	PyObject *dict;		/* functools.update_wrapper's attributes */
	vectorcallfunc vectorcall;
} ZonedObject;

static PyObject *zoned_vectorcall(ZonedObject *z, PyObject *const *args,
				  size_t nargsf, PyObject *kwnames)
{
	uint32_t id = ys__zbegin(z->site, z->name);
	PyObject *r = PyObject_Vectorcall(z->fn, args, nargsf, kwnames);

	ys__zend(id);
	return r;
}

static void zoned_dealloc(ZonedObject *z)
{
	PyObject_GC_UnTrack(z);
	Py_XDECREF(z->fn);
	Py_XDECREF(z->dict);
	PyObject_GC_Del(z);
}

static int zoned_traverse(ZonedObject *z, visitproc visit, void *arg)
{
	Py_VISIT(z->fn);
	Py_VISIT(z->dict);
	return 0;
}

static int zoned_clear(ZonedObject *z)
{
	Py_CLEAR(z->fn);
	Py_CLEAR(z->dict);
	return 0;
}

/* as a method: bound to the instance, as the function would be */
static PyObject *zoned_get(PyObject *self, PyObject *obj, PyObject *type)
{
	if (obj == NULL || obj == Py_None)
		return Py_NewRef(self);
	return PyMethod_New(self, obj);
}

static PyGetSetDef zoned_getset[] = {
	{ "__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL,
	  NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject ZonedType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "yardstick.ZonedFunction",
	.tp_basicsize = sizeof(ZonedObject),
	.tp_dealloc = (destructor)zoned_dealloc,
	.tp_vectorcall_offset = offsetof(ZonedObject, vectorcall),
	.tp_call = PyVectorcall_Call,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
		    Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
	.tp_doc = "a function whose every call is a zone of the trace",
	.tp_traverse = (traverseproc)zoned_traverse,
	.tp_clear = (inquiry)zoned_clear,
	.tp_descr_get = zoned_get,
	.tp_dictoffset = offsetof(ZonedObject, dict),
	.tp_getset = zoned_getset,
};

/* _zoned(name, fn): fn, each call a zone named name */
static PyObject *py_zoned(PyObject *self, PyObject *const *args,
			  Py_ssize_t nargs)
{
	ZonedObject *z;

	if (nargs != 2 || check_name(args[0], "zone()"))
		return nargs != 2 ? PyErr_Format(PyExc_TypeError,
						 "_zoned(name, fn)")
				  : NULL;
	if (!PyCallable_Check(args[1]))
		return PyErr_Format(PyExc_TypeError, "zone(): '%s' is not "
				    "callable", Py_TYPE(args[1])->tp_name);
	z = PyObject_GC_New(ZonedObject, &ZonedType);
	if (!z)
		return NULL;
	z->fn = Py_NewRef(args[1]);
	z->dict = NULL;
	z->vectorcall = (vectorcallfunc)zoned_vectorcall;
	if (!(z->site = site_of(args[0], &z->name))) {
		Py_DECREF(z);
		return NULL;
	}
	PyObject_GC_Track(z);
	return (PyObject *)z;
}

/* zone_begin(name) -> token, zone_end(token): a zone without `with`,
 * two calls (untraced, each returns at its first test) */
static PyObject *py_zone_begin(PyObject *self, PyObject *name)
{
	const char *text;
	ys__site *site;

	if (!ys_tracing())
		return PyLong_FromLong(0);
	if (check_name(name, "zone_begin()") || !(site = site_of(name, &text)))
		return NULL;
	return PyLong_FromUnsignedLong(ys__zbegin(site, text));
}

static PyObject *py_zone_end(PyObject *self, PyObject *token)
{
	unsigned long id;

	if (!ys_tracing())
		Py_RETURN_NONE;
	id = PyLong_AsUnsignedLong(token);
	if (id == (unsigned long)-1 && PyErr_Occurred())
		return NULL;
	if (id && id <= UINT32_MAX)
		ys__zend((uint32_t)id);
	Py_RETURN_NONE;
}

/* mark(name, text=None) */
static PyObject *py_mark(PyObject *self, PyObject *const *args,
			 Py_ssize_t nargs)
{
	const char *name, *text = NULL;
	ys__site *site;

	if (nargs < 1 || nargs > 2)
		return PyErr_Format(PyExc_TypeError, "mark(name, text=None)");
	if (check_name(args[0], "mark()"))
		return NULL;
	if (!ys_tracing())
		Py_RETURN_NONE;
	if (nargs == 2 && args[1] != Py_None &&
	    !(text = PyUnicode_AsUTF8(args[1])))
		return NULL;
	if (!(site = site_of(args[0], &name)))
		return NULL;
	ys__mark(site, name, text);
	Py_RETURN_NONE;
}

/* counter(name, value) */
static PyObject *py_counter(PyObject *self, PyObject *const *args,
			    Py_ssize_t nargs)
{
	const char *name;
	ys__site *site;
	double v;

	if (nargs != 2)
		return PyErr_Format(PyExc_TypeError, "counter(name, value)");
	if (check_name(args[0], "counter()"))
		return NULL;
	v = PyFloat_AsDouble(args[1]);
	if (v == -1 && PyErr_Occurred())
		return NULL;
	if (!ys_tracing())
		Py_RETURN_NONE;
	if (!(site = site_of(args[0], &name)))
		return NULL;
	ys__counter(site, name, v);
	Py_RETURN_NONE;
}

static PyObject *async_event(PyObject *const *args, Py_ssize_t nargs,
			     int end)
{
	const char *name;
	ys__site *site;
	unsigned long long id;

	if (nargs != 2)
		return PyErr_Format(PyExc_TypeError, "async_%s(name, id)",
				    end ? "end" : "begin");
	if (check_name(args[0], end ? "async_end()" : "async_begin()"))
		return NULL;
	id = PyLong_AsUnsignedLongLongMask(args[1]);
	if (id == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	if (!ys_tracing())
		Py_RETURN_NONE;
	if (!(site = site_of(args[0], &name)))
		return NULL;
	ys__async(site, name, id, end);
	Py_RETURN_NONE;
}

static PyObject *py_async_begin(PyObject *self, PyObject *const *args,
				Py_ssize_t nargs)
{
	return async_event(args, nargs, 0);
}

static PyObject *py_async_end(PyObject *self, PyObject *const *args,
			      Py_ssize_t nargs)
{
	return async_event(args, nargs, 1);
}

static PyObject *py_thread_name(PyObject *self, PyObject *name)
{
	const char *s;

	if (check_name(name, "thread_name()"))
		return NULL;
	if (!ys_tracing())
		Py_RETURN_NONE;
	if (!(s = PyUnicode_AsUTF8(name)))
		return NULL;
	ys_thread_name(s);
	Py_RETURN_NONE;
}

static PyObject *py_zone_text(PyObject *self, PyObject *text)
{
	const char *s;

	if (!ys_tracing())
		Py_RETURN_NONE;
	if (!(s = PyUnicode_AsUTF8(text)))
		return NULL;
	ys__ztext(s);
	Py_RETURN_NONE;
}

static PyObject *py_zone_value(PyObject *self, PyObject *value)
{
	long long v = PyLong_AsLongLong(value);

	if (v == -1 && PyErr_Occurred())
		return NULL;
	if (ys_tracing())
		ys__zvalue(v);
	Py_RETURN_NONE;
}

static PyObject *py_tracing(PyObject *self, PyObject *unused)
{
	return PyBool_FromLong(ys_tracing());
}

static PyObject *py_set_decorator(PyObject *self, PyObject *fn)
{
	Py_XSETREF(decorate, Py_NewRef(fn));
	Py_RETURN_NONE;
}

/* ---- benchmarks ---- */

/* A registration: target(values) -> (fn, args, kwargs[, prep]) for the
 * values (str) of the parameters named in params, in order. prep, when
 * given and not None, is called before each call, untimed, and returns
 * the call's (args, kwargs): pytest-benchmark's pedantic(setup=...). */
struct pybench {
	PyObject *target;
	PyObject *params;	/* tuple of str */
};

/* the interpreter's allocations in the timed loops (the GIL is held by
 * whoever calls the MEM and OBJ domains: no atomics needed) */
static struct {
	PyMemAllocatorEx mem, obj;	/* the allocators hooked */
	int hooked, counting;
	uint64_t allocs, bytes, frees;
} ac;

static void count(void *p, size_t size)
{
	if (ac.counting && p) {
		ac.allocs++;
		ac.bytes += size;
	}
}

static void *h_malloc(void *ctx, size_t size)
{
	PyMemAllocatorEx *a = ctx;
	void *p = a->malloc(a->ctx, size);

	count(p, size);
	return p;
}

static void *h_calloc(void *ctx, size_t nelem, size_t elsize)
{
	PyMemAllocatorEx *a = ctx;
	void *p = a->calloc(a->ctx, nelem, elsize);

	count(p, nelem * elsize);
	return p;
}

/* as libyardstick's counters: a realloc to a size is an allocation of
 * that size; to 0, a free */
static void *h_realloc(void *ctx, void *old, size_t size)
{
	PyMemAllocatorEx *a = ctx;
	void *p = a->realloc(a->ctx, old, size);

	if (size)
		count(p, size);
	else if (ac.counting && old)
		ac.frees++;
	return p;
}

static void h_free(void *ctx, void *p)
{
	PyMemAllocatorEx *a = ctx;

	if (ac.counting && p)
		ac.frees++;
	a->free(a->ctx, p);
}

static void hook_allocators(void)
{
	PyMemAllocatorEx h;

	if (ac.hooked)
		return;
	PyMem_GetAllocator(PYMEM_DOMAIN_MEM, &ac.mem);
	PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &ac.obj);
	h = (PyMemAllocatorEx){ &ac.mem, h_malloc, h_calloc, h_realloc,
				h_free };
	PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &h);
	h.ctx = &ac.obj;
	PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &h);
	ac.hooked = 1;
}

static void unhook_allocators(void)
{
	if (!ac.hooked)
		return;
	PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &ac.mem);
	PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &ac.obj);
	ac.hooked = 0;
}

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * Ctrl-C while a benchmark ran: the interpreter turns SIGINT into a
 * KeyboardInterrupt in the benchmarked function, which would only fail
 * that benchmark (and a test under pytest) while the others ran on.
 * Set, the remaining benchmarks of the batch are not run and run()
 * raises KeyboardInterrupt when ys_main_from returns.
 */
static int interrupted;

/* The Python exception now set, as the benchmark's failure (cleared). */
static void fail_with_exception(ys_state *s, const char *where)
{
	PyObject *type, *value, *tb, *text = NULL;
	const char *msg = NULL;
	char buf[512];

	if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
		interrupted = 1;
	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	if (value)
		text = PyObject_Str(value);
	if (text)
		msg = PyUnicode_AsUTF8(text);
	if (!msg)
		PyErr_Clear();
	snprintf(buf, sizeof(buf), "%s raised %s%s%s", where,
		 type ? ((PyTypeObject *)type)->tp_name : "an exception",
		 msg && *msg ? ": " : "", msg ? msg : "");
	ys_fail(s, buf);
	Py_XDECREF(text);
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
}

/* (fn, args, kwargs, prep) of this instance, new references (kwargs
 * and prep NULL for none); -1: failed. */
static int resolve(ys_state *s, struct pybench *b, PyObject **fn,
		   PyObject **args, PyObject **kwargs, PyObject **prep)
{
	Py_ssize_t n = PyTuple_GET_SIZE(b->params);
	PyObject *values = PyTuple_New(n), *t;

	if (!values)
		return -1;
	for (Py_ssize_t i = 0; i < n; i++) {
		const char *v = ys_param(
			s, PyUnicode_AsUTF8(PyTuple_GET_ITEM(b->params, i)));
		PyObject *str = PyUnicode_FromString(v);

		if (!str) {
			Py_DECREF(values);
			return -1;
		}
		PyTuple_SET_ITEM(values, i, str);
	}
	t = PyObject_CallOneArg(b->target, values);
	Py_DECREF(values);
	if (!t)
		return -1;
	if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 3 ||
	    PyTuple_GET_SIZE(t) > 4 || !PyTuple_Check(PyTuple_GET_ITEM(t, 1))) {
		Py_DECREF(t);
		PyErr_SetString(PyExc_TypeError, "the target is not "
				"(fn, args, kwargs[, prep])");
		return -1;
	}
	*prep = PyTuple_GET_SIZE(t) == 4 && PyTuple_GET_ITEM(t, 3) != Py_None
			? Py_NewRef(PyTuple_GET_ITEM(t, 3))
			: NULL;
	*fn = Py_NewRef(PyTuple_GET_ITEM(t, 0));
	*args = Py_NewRef(PyTuple_GET_ITEM(t, 1));
	*kwargs = PyTuple_GET_ITEM(t, 2) == Py_None
			  ? NULL
			  : Py_NewRef(PyTuple_GET_ITEM(t, 2));
	Py_DECREF(t);
	return 0;
}

static PyObject *call(PyObject *fn, PyObject *args, PyObject *kwargs)
{
	if (kwargs)
		return PyObject_Call(fn, args, kwargs);
	return PyObject_Vectorcall(fn, &PyTuple_GET_ITEM(args, 0),
				   (size_t)PyTuple_GET_SIZE(args), NULL);
}

/* One call's arguments from prep(): a tuple (args, kwargs), args a
 * tuple, kwargs a dict or None; a new reference, NULL: raised. */
static PyObject *prepare(PyObject *prep)
{
	PyObject *t = PyObject_CallNoArgs(prep);

	if (t && (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2 ||
		  !PyTuple_Check(PyTuple_GET_ITEM(t, 0)) ||
		  (PyTuple_GET_ITEM(t, 1) != Py_None &&
		   !PyDict_Check(PyTuple_GET_ITEM(t, 1))))) {
		Py_DECREF(t);
		PyErr_SetString(PyExc_TypeError, "the setup's arguments are "
				"not (tuple, dict or None)");
		return NULL;
	}
	return t;
}

/* fn with the arguments of a prepare()d pair */
static PyObject *call_prepared(PyObject *fn, PyObject *pair)
{
	PyObject *kw = PyTuple_GET_ITEM(pair, 1);

	return call(fn, PyTuple_GET_ITEM(pair, 0), kw == Py_None ? NULL : kw);
}

/* the cost of timing a call alone (two clock readings around nothing,
 * the median of 101), taken off each call_time: measured per batch */
static double pair_cost;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void measure_pair_cost(void)
{
	double d[101];

	for (int i = 0; i < 101; i++) {
		double t0 = mono();

		d[i] = mono() - t0;
	}
	qsort(d, 101, sizeof(double), cmp_double);
	pair_cost = d[50];
}

/* calls timed one by one after each measured epoch: a quarter of its
 * iterations, at least 4 (a p99 wants a hundred values or more: 11
 * epochs give 44, `yardstick bench`'s 20 processes of 5 epochs 400), at
 * most 64 */
#define CALL_SAMPLES_MIN 4
#define CALL_SAMPLES_MAX 64

/* One call timed alone (after prep, untimed, when given), a value of
 * metric; false when it raised. */
static int timed_call(ys_state *s, const char *metric, PyObject *fn,
		      PyObject *args, PyObject *kwargs, PyObject *prep)
{
	PyObject *pair = prep ? prepare(prep) : NULL, *r;
	double t0, t1;

	if (prep && !pair)
		return 0;
	t0 = mono();
	r = pair ? call_prepared(fn, pair) : call(fn, args, kwargs);
	t1 = mono();
	Py_XDECREF(pair);
	if (!r)
		return 0;
	Py_DECREF(r);
	ys_value(s, metric, "s", t1 - t0 > pair_cost ? t1 - t0 - pair_cost : 0);
	return 1;
}

/* The calls after the loop, each timed alone (call_time); false when
 * one raised (the benchmark failed). */
static int time_calls(ys_state *s, PyObject *fn, PyObject *args,
		      PyObject *kwargs, PyObject *prep, uint64_t iters)
{
	uint64_t k = iters / 4;

	if (k < CALL_SAMPLES_MIN)
		k = CALL_SAMPLES_MIN;
	if (k > CALL_SAMPLES_MAX)
		k = CALL_SAMPLES_MAX;
	for (uint64_t i = 0; i < k; i++)
		if (!timed_call(s, "call_time", fn, args, kwargs, prep))
			return 0;
	return 1;
}

/* The arguments of each of the loop's n calls, prepared before it (a
 * batch setup, as docs/libyardstick.md has it); NULL: failed (raised, or
 * no memory, with the exception set). */
static PyObject **prepare_batch(PyObject *prep, uint64_t n)
{
	PyObject **v;

	if (n > PY_SSIZE_T_MAX / sizeof(*v)) {
		PyErr_NoMemory();
		return NULL;
	}
	v = PyMem_Calloc(n ? (size_t)n : 1, sizeof(*v));
	if (!v) {
		PyErr_NoMemory();
		return NULL;
	}
	for (uint64_t i = 0; i < n; i++) {
		v[i] = prepare(prep);
		if (!v[i]) {
			for (uint64_t j = 0; j < i; j++)
				Py_DECREF(v[j]);
			PyMem_Free(v);
			return NULL;
		}
	}
	return v;
}

static void release_batch(PyObject **v, uint64_t n)
{
	if (!v)
		return;
	for (uint64_t i = 0; i < n; i++)
		Py_DECREF(v[i]);
	PyMem_Free(v);
}

static void py_body(ys_state *s)
{
	struct pybench *b = ys_data(s);
	PyObject *fn, *args, *kwargs, *prep, *r, **batch = NULL;
	int raised = 0, warm = ys_warmup(s);
	uint64_t iters = ys_iterations(s), k = 0;

	if (interrupted) {
		ys_fail(s, "not run: interrupted (KeyboardInterrupt)");
		return;
	}
	if (resolve(s, b, &fn, &args, &kwargs, &prep)) {
		fail_with_exception(s, "the benchmark's setup");
		return;
	}
	/* the instance's first call in the process, before any other */
	if (warm == 1 &&
	    !timed_call(s, "first_call_time", fn, args, kwargs, prep)) {
		fail_with_exception(s, "the first call");
		goto out;
	}
	if (prep) {
		batch = prepare_batch(prep, iters);
		if (!batch) {
			fail_with_exception(s, "the setup");
			goto out;
		}
	}
	ac.allocs = ac.bytes = ac.frees = 0;
	ac.counting = ac.hooked;
	YS_LOOP(s) {
		if (raised)
			continue;
		/* a tuned epoch's iterations are known before its loop */
		r = batch ? call_prepared(fn, batch[k++]) :
			    call(fn, args, kwargs);
		if (r)
			Py_DECREF(r);
		else
			raised = 1;
	}
	ac.counting = 0;
	release_batch(batch, iters);
	if (raised) {
		fail_with_exception(s, "the benchmark");
		goto out;
	}
	if (!warm && ac.hooked && iters) {
		ys_value(s, "allocs_per_op", "count",
			 (double)ac.allocs / (double)iters);
		ys_value(s, "alloc_bytes_per_op", "bytes",
			 (double)ac.bytes / (double)iters);
		ys_value(s, "frees_per_op", "count",
			 (double)ac.frees / (double)iters);
	}
	if (!warm && !time_calls(s, fn, args, kwargs, prep, iters))
		fail_with_exception(s, "the benchmark");
out:
	Py_DECREF(fn);
	Py_DECREF(args);
	Py_XDECREF(kwargs);
	Py_XDECREF(prep);
}

/* register(name, spec, params, target, file, line) */
static PyObject *py_register(PyObject *self, PyObject *a)
{
	const char *name, *spec, *file;
	PyObject *params, *target;
	int line;
	struct pybench *b;

	if (!PyArg_ParseTuple(a, "ssO!Osi", &name, &spec, &PyTuple_Type,
			      &params, &target, &file, &line))
		return NULL;
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(params); i++)
		if (check_name(PyTuple_GET_ITEM(params, i), "register()"))
			return NULL;
	b = PyMem_RawCalloc(1, sizeof(*b));
	if (!b)
		return PyErr_NoMemory();
	/* registrations live as long as the process (libyardstick keeps
	 * them): so do their references */
	b->target = Py_NewRef(target);
	b->params = Py_NewRef(params);
	ys_register_data(name, py_body, spec, file, line, b);
	Py_RETURN_NONE;
}

/* the first registration not yet run */
static unsigned long batch_first;

/* run(argv) -> exit status of ys_main over the batch */
static PyObject *py_run(PyObject *self, PyObject *list)
{
	Py_ssize_t n;
	char **argv;
	int rc, count_allocs = 1;
	unsigned long first = batch_first;

	if (!PyList_Check(list))
		return PyErr_Format(PyExc_TypeError, "run(argv: list)");
	n = PyList_GET_SIZE(list);
	argv = PyMem_RawCalloc((size_t)n + 1, sizeof(char *));
	if (!argv)
		return PyErr_NoMemory();
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *o = PyList_GET_ITEM(list, i);

		if (!PyUnicode_Check(o) || !(argv[i] = (char *)PyUnicode_AsUTF8(o))) {
			PyMem_RawFree(argv);
			return PyErr_Format(PyExc_TypeError, "run(): argv "
					    "holds str only");
		}
		if (!strcmp(argv[i], "--no-alloc-count"))
			count_allocs = 0;
	}
	batch_first = ys_registered();
	measure_pair_cost();
	if (count_allocs)
		hook_allocators();
	interrupted = 0;
	rc = ys_main_from(first, (int)n, argv);
	unhook_allocators();
	PyMem_RawFree(argv);
	fflush(stdout);
	fflush(stderr);
	if (interrupted) {
		interrupted = 0;
		PyErr_SetNone(PyExc_KeyboardInterrupt);
		return NULL;
	}
	if (PyErr_CheckSignals() < 0)
		return NULL;
	return PyLong_FromLong(rc);
}

static PyMethodDef methods[] = {
	{ "zone", (PyCFunction)(void (*)(void))py_zone, METH_FASTCALL,
	  "zone(name=None): a zone (with), or a decorator" },
	{ "mark", (PyCFunction)(void (*)(void))py_mark, METH_FASTCALL,
	  "mark(name, text=None): an instant" },
	{ "counter", (PyCFunction)(void (*)(void))py_counter, METH_FASTCALL,
	  "counter(name, value): a counter takes value now" },
	{ "async_begin", (PyCFunction)(void (*)(void))py_async_begin,
	  METH_FASTCALL, "async_begin(name, id): a span begins" },
	{ "async_end", (PyCFunction)(void (*)(void))py_async_end,
	  METH_FASTCALL, "async_end(name, id): the span ends" },
	{ "thread_name", py_thread_name, METH_O,
	  "thread_name(name): the thread's name in the trace" },
	{ "zone_text", py_zone_text, METH_O,
	  "zone_text(text): text of the innermost open zone" },
	{ "zone_value", py_zone_value, METH_O,
	  "zone_value(int): an integer of the innermost open zone" },
	{ "zone_begin", py_zone_begin, METH_O,
	  "zone_begin(name) -> token: a zone begins (end it with zone_end)" },
	{ "zone_end", py_zone_end, METH_O,
	  "zone_end(token): the zone zone_begin began ends" },
	{ "_zoned", (PyCFunction)(void (*)(void))py_zoned, METH_FASTCALL,
	  NULL },
	{ "tracing", py_tracing, METH_NOARGS,
	  "tracing(): whether a reader records the events" },
	{ "_set_decorator", py_set_decorator, METH_O, NULL },
	{ "register", py_register, METH_VARARGS, NULL },
	{ "run", py_run, METH_O, NULL },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "yardstick._native",
	"libyardstick's zones and benchmarks (use the yardstick package)",
	-1, methods, NULL, NULL, NULL, NULL,
};

/* __enter__ and __exit__ of NoopType: functions without self */
static int noop_methods(void)
{
	PyObject *enter = PyCFunction_New(&noop_enter_def, NULL);
	PyObject *exit_ = PyCFunction_New(&noop_exit_def, NULL);
	int rc = -1;

	if (enter && exit_ &&
	    !PyDict_SetItemString(NoopType.tp_dict, "__enter__", enter) &&
	    !PyDict_SetItemString(NoopType.tp_dict, "__exit__", exit_)) {
		PyType_Modified(&NoopType);
		rc = 0;
	}
	Py_XDECREF(enter);
	Py_XDECREF(exit_);
	return rc;
}

PyMODINIT_FUNC PyInit__native(void)
{
	PyObject *m;

	if (PyType_Ready(&ZoneType) < 0 || PyType_Ready(&NoopType) < 0 ||
	    PyType_Ready(&ZonedType) < 0 ||
	    noop_methods() < 0)
		return NULL;
	if (!(m = PyModule_Create(&module)))
		return NULL;
	sites = PyDict_New();
	noop_zone = PyObject_New(ZoneObject, &NoopType);
	if (!sites || !noop_zone) {
		Py_DECREF(m);
		return NULL;
	}
	noop_zone->site = NULL;
	noop_zone->name = NULL;
	noop_zone->pyname = NULL;
	noop_zone->id = 0;
	return m;
}
