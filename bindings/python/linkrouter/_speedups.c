/*
 * _speedups.c -- Router.resolve in C: the fast path of the linkrouter package (markupsafe's _speedups.c is the
 * model: one small C file; the ctypes path in _router.py is the pure-Python fallback, and the same tests run
 * through both).
 *
 * One copy of the library. This module is not linked against liblinkrouter.so. bind() takes the path the ctypes
 * layer (_native.py) loaded and asks the dynamic linker for that very object with RTLD_NOLOAD, which returns the
 * handle of a library already in the process and never loads one; the two functions used here are then looked
 * up in it. Routers are handles of that copy, so a second copy (another build, another path) must never serve
 * them: with RTLD_NOLOAD there is none to be had.
 *
 * A resolve is one call of lr_router_resolve_packed into a buffer on this thread's C stack (heap memory of the
 * exact size when a result does not fit), read here without any other call into the library:
 *   - the route's constant strings (target, pattern, name, metadata, parameter names) are decoded once per route
 *     id and cached in the router's `_routes` dict, as the ctypes path does (ids are per router, never reused);
 *   - the params dict is built at once (path parameters, then query pairs; the last value of a repeated key at
 *     its first place; keys a path parameter takes are skipped); when a query key has a "[", the Python nested()
 *     of _params.py builds it instead;
 *   - the Match is the Python class of _router.py, its slots filled directly; it keeps a bytes copy of the
 *     packed result, from which its properties decode everything else when first read.
 *
 * The GIL is held during the library call: the call costs about as much as releasing and taking the GIL back,
 * and holding it means close() can never free a router under a running resolve.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "linkrouter.h"

#ifndef Py_T_OBJECT_EX
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif
#if PY_VERSION_HEX < 0x030A0000  /* Python 3.8 and 3.9 */
static PyObject *Py_NewRef(PyObject *o) { Py_INCREF(o); return o; }
#endif
#if PY_VERSION_HEX < 0x03090000
#define PyObject_CallOneArg(f, a) PyObject_CallFunctionObjArgs((f), (a), NULL)
#endif

/* The library functions this module calls, typed by the header's own declarations. */
static __typeof__(lr_version_number) *lib_version_number;
static __typeof__(lr_router_resolve_packed) *lib_resolve_packed;

/* Set once by bind(), under the GIL; read-only afterwards. */
static PyTypeObject *match_type;                /* _router.Match */
static Py_ssize_t off_target, off_params, off_info, off_data, off_url;  /* its slots' offsets */
static PyObject *raise_error;                   /* _native.error(code) -> the exception for a negative status */
static PyObject *nested_params;                 /* _params.nested(path_params, query, max_depth) */
static PyObject *url_bytes;                     /* _router._url_bytes(url): any other URL object to bytes */
static Py_ssize_t route_cache_max = 1 << 17;    /* entries of a router's `_routes` before it is emptied */
static PyObject *str_url, *str_extra, *str_value, *str_update, *str_nesting;

enum { STACK_BUFFER = 2048 };           /* a GitHub-set result takes about 400 bytes */
enum { HEADER_WORDS = 8, FIXED_STRINGS = 10 };
enum { S_TARGET, S_PATTERN, S_NAME, S_METADATA };
enum { FLAG_NAME = 2, FLAG_METADATA = 4 };

/* -- the packed result --------------------------------------------------------------------------------------- */

static uint32_t word(const unsigned char *p) {  /* a little-endian uint32, at any alignment */
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A checked view of one packed result: every string's (offset, length) lies within the bytes used. */
typedef struct {
    const unsigned char *base;
    uint32_t used, route_id, flags, path_count, query_count;
} Packed;

static int packed_open(Packed *pk, const void *buf, size_t cap) {
    const unsigned char *b = buf;
    if (cap < 4 * HEADER_WORDS)
        goto bad;
    pk->base = b;
    pk->used = word(b);
    pk->route_id = word(b + 4);
    pk->flags = word(b + 8);
    pk->path_count = word(b + 16);
    pk->query_count = word(b + 20);
    uint64_t strings = word(b + 24);
    if (pk->used > cap || pk->path_count > UINT32_MAX / 4 || pk->query_count > UINT32_MAX / 4
        || strings != FIXED_STRINGS + 2 * (uint64_t)pk->path_count + 2 * (uint64_t)pk->query_count
        || 4 * HEADER_WORDS + 8 * strings > pk->used)
        goto bad;
    for (uint64_t i = 0; i < strings; i++) {
        const unsigned char *e = b + 4 * HEADER_WORDS + 8 * i;
        if ((uint64_t)word(e) + word(e + 4) > pk->used)
            goto bad;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_SystemError, "linkrouter: lr_router_resolve_packed wrote a malformed result");
    return -1;
}

static const char *packed_string(const Packed *pk, size_t i, Py_ssize_t *len) {
    const unsigned char *e = pk->base + 4 * HEADER_WORDS + 8 * i;
    *len = (Py_ssize_t)word(e + 4);
    return (const char *)pk->base + word(e);
}

static PyObject *packed_str(const Packed *pk, size_t i) {
    Py_ssize_t n;
    const char *s = packed_string(pk, i, &n);
    return PyUnicode_DecodeUTF8(s, n, NULL);
}

/* The index of the string of path parameter i's name, of its value, and of query pair i's key and value. */
static size_t path_name(const Packed *pk, size_t i) { (void)pk; return FIXED_STRINGS + i; }
static size_t path_value(const Packed *pk, size_t i) { return FIXED_STRINGS + pk->path_count + i; }
static size_t query_key(const Packed *pk, size_t i) { return FIXED_STRINGS + 2 * pk->path_count + 2 * i; }

/* -- per-route constants ------------------------------------------------------------------------------------- */

/* (target, pattern, name, metadata, parameter names): the Match's `_info`, as the ctypes path caches it. */
static PyObject *route_info_new(const Packed *pk) {
    PyObject *names = PyTuple_New(pk->path_count);
    if (!names)
        return NULL;
    for (size_t i = 0; i < pk->path_count; i++) {
        PyObject *name = packed_str(pk, path_name(pk, i));
        if (!name)
            goto fail;
        PyUnicode_InternInPlace(&name);
        PyTuple_SET_ITEM(names, i, name);
    }
    PyObject *target = packed_str(pk, S_TARGET), *pattern = target ? packed_str(pk, S_PATTERN) : NULL;
    PyObject *name = pattern ? (pk->flags & FLAG_NAME ? packed_str(pk, S_NAME) : Py_NewRef(Py_None)) : NULL;
    PyObject *metadata = name ? (pk->flags & FLAG_METADATA ? packed_str(pk, S_METADATA) : Py_NewRef(Py_None)) : NULL;
    if (!metadata) {
        Py_XDECREF(target);
        Py_XDECREF(pattern);
        Py_XDECREF(name);
        goto fail;
    }
    PyObject *info = PyTuple_New(5);
    if (!info) {
        Py_DECREF(target);
        Py_DECREF(pattern);
        Py_DECREF(name);
        Py_DECREF(metadata);
        goto fail;
    }
    PyTuple_SET_ITEM(info, 0, target);
    PyTuple_SET_ITEM(info, 1, pattern);
    PyTuple_SET_ITEM(info, 2, name);
    PyTuple_SET_ITEM(info, 3, metadata);
    PyTuple_SET_ITEM(info, 4, names);
    return info;
fail:
    Py_DECREF(names);
    return NULL;
}

/* The cached info of the matched route (a borrowed reference), made on first sight. */
static PyObject *route_info(PyObject **routes, const Packed *pk) {
    if (!*routes && !(*routes = PyDict_New()))
        return NULL;
    PyObject *key = PyLong_FromUnsignedLong(pk->route_id);
    if (!key)
        return NULL;
    PyObject *info = PyDict_GetItemWithError(*routes, key);
    if (info && PyTuple_CheckExact(info) && PyTuple_GET_SIZE(info) == 5 && PyTuple_CheckExact(PyTuple_GET_ITEM(info, 4))
        && PyTuple_GET_SIZE(PyTuple_GET_ITEM(info, 4)) == (Py_ssize_t)pk->path_count) {
        Py_DECREF(key);
        return info;
    }
    if (PyErr_Occurred() || !(info = route_info_new(pk))) {
        Py_DECREF(key);
        return NULL;
    }
    if (PyDict_GET_SIZE(*routes) >= route_cache_max)
        PyDict_Clear(*routes);
    int rc = PyDict_SetItem(*routes, key, info);
    Py_DECREF(key);
    Py_DECREF(info);  /* the dict holds it */
    return rc < 0 ? NULL : info;
}

/* -- params -------------------------------------------------------------------------------------------------- */

static int is_path_name(const Packed *pk, const char *key, Py_ssize_t len) {
    for (size_t i = 0; i < pk->path_count; i++) {
        Py_ssize_t n;
        const char *name = packed_string(pk, path_name(pk, i), &n);
        if (n == len && memcmp(name, key, (size_t)n) == 0)
            return 1;
    }
    return 0;
}

/* A list of (name, value) tuples of `count` string pairs: the path parameters (names from the cache) or the
   query pairs, for nested(). */
static PyObject *pairs_list(const Packed *pk, PyObject *names, size_t first, size_t count) {
    PyObject *list = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; list && i < count; i++) {
        PyObject *k = names ? Py_NewRef(PyTuple_GET_ITEM(names, i)) : packed_str(pk, first + 2 * i);
        PyObject *v = k ? packed_str(pk, names ? first + i : first + 2 * i + 1) : NULL;
        PyObject *pair = v ? PyTuple_Pack(2, k, v) : NULL;
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (!pair)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, pair);
    }
    return list;
}

static PyObject *params_nested(PyObject *router, const Packed *pk, PyObject *names) {
    PyObject *path = pairs_list(pk, names, path_value(pk, 0), pk->path_count);
    PyObject *query = path ? pairs_list(pk, NULL, query_key(pk, 0), pk->query_count) : NULL;
    PyObject *depth = query ? PyObject_GetAttr(router, str_nesting) : NULL;
    PyObject *params = depth ? PyObject_CallFunctionObjArgs(nested_params, path, query, depth, NULL) : NULL;
    Py_XDECREF(path);
    Py_XDECREF(query);
    Py_XDECREF(depth);
    return params;
}

/* extra > path > query; bracket keys nested. */
static PyObject *params_new(PyObject *router, const Packed *pk, PyObject *names) {
    for (size_t i = 0; i < pk->query_count; i++) {
        Py_ssize_t n;
        const char *key = packed_string(pk, query_key(pk, i), &n);
        if (memchr(key, '[', (size_t)n))
            return params_nested(router, pk, names);
    }
    PyObject *params = PyDict_New();
    if (!params)
        return NULL;
    for (size_t i = 0; i < pk->path_count; i++) {
        PyObject *value = packed_str(pk, path_value(pk, i));
        if (!value || PyDict_SetItem(params, PyTuple_GET_ITEM(names, i), value) < 0) {
            Py_XDECREF(value);
            goto fail;
        }
        Py_DECREF(value);
    }
    for (size_t i = 0; i < pk->query_count; i++) {
        Py_ssize_t n;
        const char *raw = packed_string(pk, query_key(pk, i), &n);
        if (pk->path_count && is_path_name(pk, raw, n))
            continue;  /* a path parameter outranks the query */
        PyObject *key = PyUnicode_DecodeUTF8(raw, n, NULL);
        PyObject *value = key ? packed_str(pk, query_key(pk, i) + 1) : NULL;
        int rc = value ? PyDict_SetItem(params, key, value) : -1;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (rc < 0)
            goto fail;
    }
    return params;
fail:
    Py_DECREF(params);
    return NULL;
}

/* -- the Match ----------------------------------------------------------------------------------------------- */

static void set_slot(PyObject *obj, Py_ssize_t offset, PyObject *value) {  /* steals `value` */
    PyObject **slot = (PyObject **)((char *)obj + offset);
    Py_XSETREF(*slot, value);
}

static PyObject *match_new(PyObject *router, PyObject **routes, const Packed *pk, PyObject *url, PyObject *extra) {
    PyObject *info = route_info(routes, pk);
    if (!info)
        return NULL;
    Py_INCREF(info);  /* a router's cache may be emptied by the Python code below (nested(), extra's update) */
    PyObject *params = params_new(router, pk, PyTuple_GET_ITEM(info, 4));
    if (!params)
        goto fail;
    if (extra && extra != Py_None) {
        int truth = PyObject_IsTrue(extra);
        int rc = truth < 0 ? -1 : 0;
        if (truth > 0) {
            if (PyDict_CheckExact(params) && PyDict_Check(extra)) {
                rc = PyDict_Update(params, extra);
            } else {  /* any mapping, or pairs: as dict.update takes them */
                PyObject *r = PyObject_CallMethodObjArgs(params, str_update, extra, NULL);
                rc = r ? 0 : -1;
                Py_XDECREF(r);
            }
        }
        if (rc < 0)
            goto fail_params;
    }
    PyObject *data = PyBytes_FromStringAndSize((const char *)pk->base, pk->used);
    if (!data)
        goto fail_params;
    PyObject *m = match_type->tp_alloc(match_type, 0);
    if (!m) {
        Py_DECREF(data);
        goto fail_params;
    }
    set_slot(m, off_target, Py_NewRef(PyTuple_GET_ITEM(info, 0)));
    set_slot(m, off_params, params);
    set_slot(m, off_info, info);
    set_slot(m, off_data, data);
    set_slot(m, off_url, Py_NewRef(url));
    return m;
fail_params:
    Py_DECREF(params);
fail:
    Py_DECREF(info);
    return NULL;
}

/* -- RouterCore: the base class of Router when this module is in use ----------------------------------------- */

typedef struct {
    PyObject_HEAD
    lr_router *handle;  /* NULL when closed (or not yet opened) */
    PyObject *h;        /* what Python sees as `_h`: the ctypes c_void_p, or None */
    PyObject *routes;   /* `_routes`: route id -> info tuple, or NULL until first used */
} RouterCore;

static int core_traverse(RouterCore *self, visitproc visit, void *arg) {
    Py_VISIT(self->h);
    Py_VISIT(self->routes);
    return 0;
}

static int core_clear(RouterCore *self) {
    Py_CLEAR(self->h);
    Py_CLEAR(self->routes);
    return 0;
}

static void core_dealloc(RouterCore *self) {
    PyObject_GC_UnTrack(self);
    core_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *core_get_h(RouterCore *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->h ? self->h : Py_None);
}

/* `self._h = c_void_p(...)` opens, `self._h = None` closes: the handle is kept in C for resolve. */
static int core_set_h(RouterCore *self, PyObject *value, void *closure) {
    (void)closure;
    void *handle = NULL;
    if (value && value != Py_None) {
        PyObject *address = PyLong_Check(value) ? Py_NewRef(value) : PyObject_GetAttr(value, str_value);
        if (!address)
            return -1;
        handle = address == Py_None ? NULL : PyLong_AsVoidPtr(address);
        Py_DECREF(address);
        if (PyErr_Occurred())
            return -1;
    }
    Py_XSETREF(self->h, value ? Py_NewRef(value) : NULL);
    self->handle = handle;
    return 0;
}

static PyObject *core_get_routes(RouterCore *self, void *closure) {
    (void)closure;
    if (!self->routes && !(self->routes = PyDict_New()))
        return NULL;
    return Py_NewRef(self->routes);
}

static int core_set_routes(RouterCore *self, PyObject *value, void *closure) {
    (void)closure;
    if (!value || !PyDict_CheckExact(value)) {
        PyErr_SetString(PyExc_TypeError, "_routes must be a dict");
        return -1;
    }
    Py_XSETREF(self->routes, Py_NewRef(value));
    return 0;
}

/* resolve(url, extra=None), parsed by hand: METH_FASTCALL without the private argument-clinic parser. */
static int resolve_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **url,
                        PyObject **extra) {
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError, "resolve() takes at most 2 arguments (%zd given)", nargs);
        return -1;
    }
    *url = nargs > 0 ? args[0] : NULL;
    *extra = nargs > 1 ? args[1] : NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i), **slot;
        if (name == str_url || PyUnicode_Compare(name, str_url) == 0)
            slot = url;
        else if (name == str_extra || PyUnicode_Compare(name, str_extra) == 0)
            slot = extra;
        else {
            PyErr_Format(PyExc_TypeError, "resolve() got an unexpected keyword argument '%S'", name);
            return -1;
        }
        if (*slot) {
            PyErr_Format(PyExc_TypeError, "resolve() got multiple values for argument '%S'", name);
            return -1;
        }
        *slot = args[nargs + i];
    }
    if (!*url) {
        PyErr_SetString(PyExc_TypeError, "resolve() missing required argument 'url'");
        return -1;
    }
    return 0;
}

static PyObject *error_for(int rc) {
    PyObject *code = PyLong_FromLong(rc);
    PyObject *err = code ? PyObject_CallOneArg(raise_error, code) : NULL;
    Py_XDECREF(code);
    if (err) {
        PyErr_SetObject((PyObject *)Py_TYPE(err), err);
        Py_DECREF(err);
    }
    return NULL;
}

PyDoc_STRVAR(core_resolve_doc,
"resolve($self, /, url, extra=None)\n--\n\n"
"The match for ``url`` (rewritten first), or None when no route matches.\n\n"
"``extra`` values (any Python objects) outrank path and query parameters in ``params``.\n"
"InvalidURLError (not an absolute URL, not UTF-8), LimitError.");

static PyObject *core_resolve(RouterCore *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *url, *extra, *converted = NULL;
    if (resolve_args(args, nargs, kwnames, &url, &extra) < 0)
        return NULL;
    const char *text = NULL;
    Py_ssize_t len = 0;
    if (PyUnicode_Check(url)) {
        text = PyUnicode_AsUTF8AndSize(url, &len);  /* no copy for ASCII; cached in the str otherwise */
        if (!text) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
                return NULL;
            PyErr_Clear();  /* lone surrogates: _url_bytes raises InvalidURLError, with the ctypes path's text */
        }
    } else if (PyBytes_CheckExact(url)) {
        text = PyBytes_AS_STRING(url);
        len = PyBytes_GET_SIZE(url);
    }
    if (!text) {  /* any other bytes-like object is copied (and the Match keeps the copy); else TypeError */
        if (!(converted = PyObject_CallOneArg(url_bytes, url)))
            return NULL;
        if (!PyBytes_Check(converted)) {
            Py_DECREF(converted);
            PyErr_SetString(PyExc_SystemError, "linkrouter: _url_bytes returned something other than bytes");
            return NULL;
        }
        url = converted;
        text = PyBytes_AS_STRING(url);
        len = PyBytes_GET_SIZE(url);
    }
    PyObject *result = NULL;
    if (!self->handle) {
        PyErr_SetString(PyExc_ValueError, "the router is closed");
        goto done;
    }
    /* This thread's memory: the C stack, or heap memory of the size the library asked for. */
    char stack[STACK_BUFFER];
    char *buf = stack, *heap = NULL;
    size_t cap = sizeof stack;
    int rc;
    for (;;) {
        size_t needed = 0;
        rc = lib_resolve_packed(self->handle, text, (size_t)len, buf, cap, &needed);
        if (rc != LR_ELIMIT || needed <= cap)
            break;  /* a result, or a real limit */
        PyMem_Free(heap);  /* too small: call again with what it said, which a change of table may outgrow */
        cap = needed;
        if (!(buf = heap = PyMem_Malloc(cap))) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (rc == LR_OK) {
        Packed pk;
        if (packed_open(&pk, buf, cap) == 0)
            result = match_new((PyObject *)self, &self->routes, &pk, url, extra);
    } else if (rc == LR_NOMATCH) {
        result = Py_NewRef(Py_None);
    } else {
        error_for(rc);
    }
    PyMem_Free(heap);
done:
    Py_XDECREF(converted);
    return result;
}

static PyMethodDef core_methods[] = {
    {"resolve", (PyCFunction)(void (*)(void))core_resolve, METH_FASTCALL | METH_KEYWORDS, core_resolve_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    {"_h", (getter)core_get_h, (setter)core_set_h, "the lr_router handle (a ctypes c_void_p), None when closed", NULL},
    {"_routes", (getter)core_get_routes, (setter)core_set_routes, "route id -> cached route constants", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject RouterCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "linkrouter._speedups.RouterCore",
    .tp_doc = PyDoc_STR("The C half of Router: its handle, its route cache and resolve()."),
    .tp_basicsize = sizeof(RouterCore),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_methods = core_methods,
    .tp_getset = core_getset,
};

/* -- bind ---------------------------------------------------------------------------------------------------- */

/* The offset of the object slot `name` of a Python class with __slots__. */
static int slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *out) {
    PyObject *descr = PyObject_GetAttrString((PyObject *)type, name);  /* a slot's member descriptor itself */
    PyMemberDef *member = descr && PyObject_TypeCheck(descr, &PyMemberDescr_Type)
                          ? ((PyMemberDescrObject *)descr)->d_member : NULL;
    int ok = member && member->type == Py_T_OBJECT_EX && member->flags == 0 && member->offset > 0
             && member->offset + (Py_ssize_t)sizeof(PyObject *) <= type->tp_basicsize;
    if (ok)
        *out = member->offset;
    Py_XDECREF(descr);
    if (!ok) {
        PyErr_Clear();
        PyErr_Format(PyExc_ImportError, "linkrouter._speedups: %s.%s is not a writable object slot",
                     type->tp_name, name);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(bind_doc,
"bind(library_path, match_type, error, nested, url_bytes)\n--\n\n"
"Finds lr_version_number and lr_router_resolve_packed in the library the ctypes layer loaded from\n"
"``library_path`` (RTLD_NOLOAD: never a second copy), checks its version against the header this module was\n"
"built with, and records the Python pieces resolve() uses. ImportError when any of that fails.");

static PyObject *bind(PyObject *module, PyObject *args) {
    (void)module;
    const char *path;
    PyObject *type, *error, *nested, *to_bytes;
    if (!PyArg_ParseTuple(args, "sO!OOO:bind", &path, &PyType_Type, &type, &error, &nested, &to_bytes))
        return NULL;
    void *lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!lib) {
        const char *why = dlerror();
        return PyErr_Format(PyExc_ImportError, "linkrouter._speedups: %s is not loaded in this process%s%s", path,
                            why ? ": " : "", why ? why : "");
    }
    /* POSIX's way to store dlsym's answer in a function pointer (C itself has no such conversion). */
    __typeof__(lr_version_number) *version_fn;
    __typeof__(lr_router_resolve_packed) *resolve_fn;
    *(void **)&version_fn = dlsym(lib, "lr_version_number");
    *(void **)&resolve_fn = dlsym(lib, "lr_router_resolve_packed");
    if (!version_fn || !resolve_fn) {
        dlclose(lib);  /* only drops the reference RTLD_NOLOAD took: ctypes still holds the library */
        return PyErr_Format(PyExc_ImportError, "linkrouter._speedups: %s lacks %s", path,
                            version_fn ? "lr_router_resolve_packed" : "lr_version_number");
    }
    /* The handle stays open: the functions are called for the life of the process. */
    int number = version_fn();
    if (number / 100 != LR_VERSION_NUMBER / 100) {
        dlclose(lib);
        return PyErr_Format(PyExc_ImportError,
                            "linkrouter._speedups: built for library %s, but %s is version %d.%d.%d",
                            LR_VERSION_STRING, path, number / 10000, number / 100 % 100, number % 100);
    }
    Py_ssize_t offsets[5];
    PyTypeObject *mt = (PyTypeObject *)type;
    if (slot_offset(mt, "target", &offsets[0]) < 0 || slot_offset(mt, "params", &offsets[1]) < 0
        || slot_offset(mt, "_info", &offsets[2]) < 0 || slot_offset(mt, "_data", &offsets[3]) < 0
        || slot_offset(mt, "_url", &offsets[4]) < 0)
        return NULL;
    if (mt->tp_itemsize != 0 || !mt->tp_alloc) {
        PyErr_Format(PyExc_ImportError, "linkrouter._speedups: %s cannot be made here", mt->tp_name);
        return NULL;
    }
    lib_version_number = version_fn;
    lib_resolve_packed = resolve_fn;
    Py_XSETREF(match_type, (PyTypeObject *)Py_NewRef(type));
    off_target = offsets[0];
    off_params = offsets[1];
    off_info = offsets[2];
    off_data = offsets[3];
    off_url = offsets[4];
    Py_XSETREF(raise_error, Py_NewRef(error));
    Py_XSETREF(nested_params, Py_NewRef(nested));
    Py_XSETREF(url_bytes, Py_NewRef(to_bytes));
    Py_RETURN_NONE;
}

PyDoc_STRVAR(cache_max_doc,
"route_cache_max(n=None)\n--\n\n"
"The number of entries a router's route cache may hold before it is emptied; sets it when ``n`` is given\n"
"(tests use a small one). Returns the previous value.");

static PyObject *cache_max(PyObject *module, PyObject *args) {
    (void)module;
    Py_ssize_t n = -1, old = route_cache_max;
    if (!PyArg_ParseTuple(args, "|n:route_cache_max", &n))
        return NULL;
    if (n == 0 || n < -1) {
        PyErr_SetString(PyExc_ValueError, "route_cache_max: n must be positive");
        return NULL;
    }
    if (n > 0)
        route_cache_max = n;
    return PyLong_FromSsize_t(old);
}

static PyMethodDef module_methods[] = {
    {"bind", bind, METH_VARARGS, bind_doc},
    {"route_cache_max", cache_max, METH_VARARGS, cache_max_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "linkrouter._speedups",
    .m_doc = PyDoc_STR("Router.resolve in C, over the library the ctypes layer loaded (see _speedups.c)."),
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    if (!(str_url = PyUnicode_InternFromString("url")) || !(str_extra = PyUnicode_InternFromString("extra"))
        || !(str_value = PyUnicode_InternFromString("value")) || !(str_update = PyUnicode_InternFromString("update"))
        || !(str_nesting = PyUnicode_InternFromString("_nesting")))
        return NULL;
    if (PyType_Ready(&RouterCoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (PyModule_AddObject(m, "RouterCore", Py_NewRef((PyObject *)&RouterCoreType)) < 0
        || PyModule_AddIntConstant(m, "HEADER_VERSION", LR_VERSION_NUMBER) < 0) {
        Py_DECREF(&RouterCoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
