/*
 * _speedups.c -- Router.resolve and Match in C: the fast path of the linkrouter package. markupsafe's _speedups.c
 * is the model: one C file; the ctypes path in _router.py is the pure-Python fallback, and the same tests run
 * through both.
 *
 * One copy of the library. This module is not linked against liblinkrouter.so. bind() takes the path the ctypes
 * layer (_native.py) loaded and asks the dynamic linker for that very object with RTLD_NOLOAD, which returns a
 * library already in the process and never loads one; the functions used here are looked up in it. Routers are
 * handles of that copy, so no other copy may serve them, and with RTLD_NOLOAD there is none to be had.
 *
 * A resolve is one call of lr_router_resolve_into (no allocation in the library) with the params array and the
 * scratch on this thread's C stack. From its result, the params dict is built at once (path parameters under the
 * route's cached names, then the query pairs in order, so a repeated key keeps its first place and its last value;
 * the library leaves out the keys a path parameter takes; bracket keys go through _params.nested()), and the
 * Match keeps the path values and, when a rule rewrote the URL, the routed URL. What the route never changes
 * (target, pattern, name, metadata, parameter names) is decoded once per route id and cached in the router's
 * `_routes`, as the ctypes path does: route ids are per router and never reused.
 *
 * A result too big for the stack is resolved again into heap memory of the sizes the library asks for. The first
 * lookup of a route goes through lr_router_resolve_packed instead (its result is a whole snapshot, name and
 * metadata included; the into result is dropped, so a table change in between cannot mix two states).
 *
 * The URL's parts (scheme, host, port, path, fragment, every query pair) are read when first asked for: the
 * routed URL is resolved by a router of this module's own that has one route, CATCH_ALL (a catch-all from the
 * host on, with any scheme: it matches every URL), and no rewrite rules, so they are the library's own parse,
 * whatever the user's table has become since.
 *
 * The GIL is held throughout: the library call costs about as much as releasing and taking back the GIL. (Python
 * code run inside a call, in a callback, may hand the GIL to another thread: close() racing with calls on other
 * threads is the caller's to avoid, as the Router docstring says.) A call is counted in the router's `calls`
 * from before its handle is read: a close() meanwhile (a finalizer on this thread) waits for it to end
 * (leave_call), and the ctypes calls are counted the same way (_enter, _leave). Python code can still run inside
 * a library call, on this thread: a call may let go of an old snapshot (of any router) that this thread cached,
 * and the release callbacks of its handlers run. They drop no Python object there (whose __del__ could close the
 * router under the lookup): they move it to _dispatch.RELEASED, which resolve empties at its entry, before it
 * reads the handle (drain_point). Any Python code may still run there (the cyclic garbage collector may run in
 * the callback, with finalizers), so the router pointer is read from its handle again before every library call
 * (open_router), never kept across one. Nothing here is shared between threads but what bind() sets once and the
 * router objects, changed only under the GIL.
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
#define Py_T_PYSSIZET T_PYSSIZET
#define Py_T_BOOL T_BOOL
#define Py_READONLY READONLY
#endif
#if PY_VERSION_HEX < 0x030A0000  /* Python 3.8 and 3.9 */
static PyObject *Py_NewRef(PyObject *o) { Py_INCREF(o); return o; }
#endif
#if PY_VERSION_HEX < 0x03090000
#define PyObject_CallOneArg(f, a) PyObject_CallFunctionObjArgs((f), (a), NULL)
#endif

/* The library functions used here, typed by the header's declarations, found by bind(). */
static __typeof__(lr_version_number) *lib_version_number;
static __typeof__(lr_router_new) *lib_router_new;
static __typeof__(lr_router_add) *lib_router_add;
static __typeof__(lr_router_set_limit) *lib_router_set_limit;
static __typeof__(lr_router_resolve_into) *lib_resolve_into;
static __typeof__(lr_router_resolve_packed) *lib_resolve_packed;

/* Set once by bind(), under the GIL; read-only afterwards. */
static const char CATCH_ALL[] = "*://*";
static lr_router *url_parser;         /* the one route CATCH_ALL: the parts of any URL */
static lr_router *const *const url_parser_handle = &url_parser;  /* as a RouterCore's handle, for resolve_packed */
static PyObject *raise_error;         /* _native.error(code) -> the exception for a negative status */
static PyObject *nested_params;       /* _params.nested(path_params, query, max_depth) */
static PyObject *url_bytes;           /* _router._url_bytes(url): any other URL object as bytes, or raises */
static PyObject *match_as_dict, *match_eq, *match_repr;  /* the Python Match API, shared with the ctypes path */
static PyObject *json_loads;          /* json.loads: a route's metadata as a dict */
static PyObject *released;            /* _dispatch.RELEASED: what the library let go, to drop outside its calls */
static PyObject *drain_released;      /* _dispatch.drain_released(): drops it, unless inside a library call */
static PyObject *names_pool;          /* names tuple -> itself: routes with the same names share one tuple */
static Py_ssize_t route_cache_max = 1 << 17;  /* entries of a router's `_routes` before it is emptied */
static PyObject *str_url, *str_extra, *str_update, *str_nesting;

enum { STACK_PARAMS = 32, STACK_SCRATCH = 2048, STACK_PACKED = 2048 };  /* a GitHub-set URL needs 2 params */
enum { HEADER_WORDS = 8, FIXED_STRINGS = 10 };
#define MAX_URL_LENGTH ((size_t)1 << 30)  /* the largest LR_LIMIT_URL_LENGTH a router takes */
enum { S_TARGET, S_PATTERN, S_NAME, S_METADATA, S_ROUTED, S_SCHEME, S_HOST, S_PORT, S_PATH, S_FRAGMENT };
enum { FLAG_REWRITTEN = 1, FLAG_NAME = 2, FLAG_METADATA = 4 };
enum { INFO_TARGET, INFO_PATTERN, INFO_NAME, INFO_METADATA, INFO_NAMES, INFO_REQUIRES, INFO_META, INFO_SIZE };

static PyObject *error_for(int rc) {  /* raises the exception of status rc; returns NULL */
    PyObject *code = PyLong_FromLong(rc);
    PyObject *err = code ? PyObject_CallOneArg(raise_error, code) : NULL;
    Py_XDECREF(code);
    if (err) {
        PyErr_SetObject((PyObject *)Py_TYPE(err), err);
        Py_DECREF(err);
    }
    return NULL;
}

/* UTF-8 to str; a short ASCII string (most parameter values) is copied straight into a new str. */
static PyObject *decode(const char *s, size_t n) {
    if (n - 1 < 32) {
        unsigned char high = 0;
        for (size_t i = 0; i < n; i++)
            high |= (unsigned char)s[i];
        if (high < 0x80) {
            PyObject *str = PyUnicode_New((Py_ssize_t)n, 127);
            if (str)
                memcpy(PyUnicode_1BYTE_DATA(str), s, n);
            return str;
        }
    }
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, NULL);
}

/* -- the packed result --------------------------------------------------------------------------------------- */

static uint32_t word(const unsigned char *p) {  /* a little-endian uint32, at any alignment */
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A checked view of a packed result: every string's (offset, length) lies within the bytes used. */
typedef struct {
    const unsigned char *base;
    uint32_t used, route_id, flags, require_count, path_count, query_count;
} Packed;

static int packed_open(Packed *pk, PyObject *bytes) {
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(bytes);
    size_t size = (size_t)PyBytes_GET_SIZE(bytes);
    if (size < 4 * HEADER_WORDS)
        goto bad;
    pk->base = b;
    pk->used = word(b);
    pk->route_id = word(b + 4);
    pk->flags = word(b + 8);
    pk->require_count = word(b + 12);
    pk->path_count = word(b + 16);
    pk->query_count = word(b + 20);
    uint64_t strings = word(b + 24);
    if (pk->used != size
        || strings != FIXED_STRINGS + 2 * (uint64_t)pk->path_count + 2 * (uint64_t)pk->query_count + pk->require_count
        || 4 * HEADER_WORDS + 8 * strings > size)
        goto bad;
    for (uint64_t i = 0; i < strings; i++) {
        const unsigned char *e = b + 4 * HEADER_WORDS + 8 * i;
        if ((uint64_t)word(e) + word(e + 4) > size)
            goto bad;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_SystemError, "linkrouter: lr_router_resolve_packed wrote a malformed result");
    return -1;
}

static const char *packed_string(const Packed *pk, size_t i, size_t *len) {
    const unsigned char *e = pk->base + 4 * HEADER_WORDS + 8 * i;
    *len = word(e + 4);
    return (const char *)pk->base + word(e);
}

static PyObject *packed_str(const Packed *pk, size_t i) {
    size_t n;
    const char *s = packed_string(pk, i, &n);
    return decode(s, n);
}

/* String indexes of path parameter i's name and value, and of query pair i's key (its value follows). */
static size_t path_name_at(size_t i) { return FIXED_STRINGS + i; }
static size_t path_value_at(const Packed *pk, size_t i) { return FIXED_STRINGS + pk->path_count + i; }
static size_t query_key_at(const Packed *pk, size_t i) { return FIXED_STRINGS + 2 * pk->path_count + 2 * i; }
static size_t require_at(const Packed *pk, size_t i) {
    return FIXED_STRINGS + 2 * pk->path_count + 2 * pk->query_count + i;
}

/* Drops what the library let go since the last drain (_dispatch.drain_released), when there is any: a list's size
   is all it costs otherwise. Its finalizers may close any router: read handles after it. -1 with an exception
   set when it raised. */
static int drain_point(void) {
    if (!released || PyList_GET_SIZE(released) == 0)
        return 0;
    PyObject *r = PyObject_CallObject(drain_released, NULL);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* The router `handle` points at, or NULL with ValueError when it is closed. Read before every library call on it,
   never kept across one: Python code may run inside a call (a release callback of a snapshot the call lets go,
   and whatever the garbage collector runs there) and close the router, which sets its handle to NULL as it frees
   it. */
static lr_router *open_router(lr_router *const *handle) {
    lr_router *r = *handle;
    if (!r)
        PyErr_SetString(PyExc_ValueError, "the router is closed");
    return r;
}

/* lr_router_resolve_packed of url into an exact-size bytes object: the stack first, then heap memory of the size
   the library asks for (again, if a change of table makes the result grow meanwhile). None when no route
   matches; NULL with an exception set on an error (ValueError when the router is closed, before or between the
   calls). `where` is where the handle pointer lives (&self->handle), read again before each call: close() run
   inside a call (a release's finalizer) points self->handle elsewhere and may free the buffer it pointed into. */
static PyObject *resolve_packed(lr_router *const *const *where, const char *url, size_t len) {
    char stack[STACK_PACKED];
    char *buf = stack, *heap = NULL;
    size_t cap = sizeof stack;
    int rc;
    for (;;) {
        size_t needed = 0;
        lr_router *r = open_router(*where);
        if (!r) {
            PyMem_Free(heap);
            return NULL;
        }
        rc = lib_resolve_packed(r, url, len, buf, cap, &needed);
        if (rc != LR_ELIMIT || needed <= cap)
            break;  /* a result, or a real limit */
        PyMem_Free(heap);
        cap = needed;
        if (!(buf = heap = PyMem_Malloc(cap)))
            return PyErr_NoMemory();
    }
    PyObject *result;
    if (rc == LR_OK)
        result = word((const unsigned char *)buf) <= cap
                 ? PyBytes_FromStringAndSize(buf, word((const unsigned char *)buf))
                 : (PyErr_SetString(PyExc_SystemError, "linkrouter: packed result larger than its buffer"), NULL);
    else if (rc == LR_NOMATCH)
        result = Py_NewRef(Py_None);
    else
        result = error_for(rc);
    PyMem_Free(heap);
    return result;
}

/* -- per-route constants ------------------------------------------------------------------------------------- */

/* (target, pattern, name, metadata, parameter names, required guards, meta) of the route of a packed result;
   meta is the metadata's JSON object as a dict (each Match hands out a copy), {} when the route has none. */
static PyObject *route_info_new(const Packed *pk) {
    PyObject *info = PyTuple_New(INFO_SIZE), *names = info ? PyTuple_New(pk->path_count) : NULL;
    if (!names) {
        Py_XDECREF(info);
        return NULL;
    }
    PyTuple_SET_ITEM(info, INFO_NAMES, names);  /* from here, freeing info frees whatever was set */
    for (size_t i = 0; i < pk->path_count; i++) {
        PyObject *name = packed_str(pk, path_name_at(i));
        if (!name)
            goto fail;
        PyUnicode_InternInPlace(&name);
        PyTuple_SET_ITEM(names, i, name);
    }
    /* One tuple per set of names, so that a lookup reads one that is warm in the CPU's caches (and the kept
       dicts' slot finds it the same at once); the pool is emptied when large, which only costs sharing. */
    if (!names_pool && !(names_pool = PyDict_New()))
        goto fail;
    if (PyDict_GET_SIZE(names_pool) >= 4096)
        PyDict_Clear(names_pool);
    PyObject *shared = PyDict_SetDefault(names_pool, names, names);  /* borrowed */
    if (!shared)
        goto fail;
    if (shared != names) {
        PyTuple_SET_ITEM(info, INFO_NAMES, Py_NewRef(shared));
        Py_DECREF(names);
    }
    PyObject *requires = PyTuple_New(pk->require_count);
    if (!requires)
        goto fail;
    PyTuple_SET_ITEM(info, INFO_REQUIRES, requires);
    for (size_t i = 0; i < pk->require_count; i++) {
        PyObject *guard = packed_str(pk, require_at(pk, i));
        if (!guard)
            goto fail;
        PyTuple_SET_ITEM(requires, i, guard);
    }
    static const int strings[] = {S_TARGET, S_PATTERN, S_NAME, S_METADATA};
    static const uint32_t present[] = {0, 0, FLAG_NAME, FLAG_METADATA};  /* 0: always there */
    for (int i = 0; i < 4; i++) {
        PyObject *field = present[i] && !(pk->flags & present[i]) ? Py_NewRef(Py_None) : packed_str(pk, strings[i]);
        if (!field)
            goto fail;
        PyTuple_SET_ITEM(info, i, field);
    }
    PyObject *metadata = PyTuple_GET_ITEM(info, INFO_METADATA);
    PyObject *meta = metadata == Py_None ? PyDict_New() : PyObject_CallOneArg(json_loads, metadata);
    if (!meta)
        goto fail;
    PyTuple_SET_ITEM(info, INFO_META, meta);
    if (!PyDict_CheckExact(meta)) {
        PyErr_SetString(PyExc_SystemError, "linkrouter: a route's metadata is not a JSON object");
        goto fail;
    }
    return info;
fail:
    Py_DECREF(info);
    return NULL;
}

static int route_info_valid(PyObject *info) {  /* the shape route_info_new makes: the route cache's check */
    return PyTuple_CheckExact(info) && PyTuple_GET_SIZE(info) == INFO_SIZE
           && PyTuple_CheckExact(PyTuple_GET_ITEM(info, INFO_NAMES))
           && (uint64_t)PyTuple_GET_SIZE(PyTuple_GET_ITEM(info, INFO_NAMES)) <= UINT32_MAX;
}

/* -- Match --------------------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_VAR_HEAD           /* ob_size: the number of path parameters */
    PyObject *target;           /* str, the route's (from info) */
    PyObject *params;           /* dict: extra > path > query */
    PyObject *info;             /* the route's constants */
    PyObject *url;              /* as given: str, or bytes */
    PyObject *routed;           /* the rewritten URL as bytes; NULL when no rule fired */
    PyObject *parts;            /* a packed result of the routed URL, for its parts; NULL until first needed */
    PyObject *weakrefs;
    uint64_t params_version;    /* params' version tag once filled (see DICT_VERSION), 0 when unknown */
    uint32_t route_id;
    int rewritten;
    int keyed;                  /* the keyed slot of the names (see keyed_slot), -1 when not yet known */
    PyObject *values[1];        /* the path parameters' values, in pattern order */
} MatchObject;

static PyTypeObject MatchType;

/* Matches freed since, by number of path values (up to FREE_MAX_VALUES), kept for the next resolve as CPython
   keeps tuples: a Match is made and dropped once per lookup, and the allocator's round trip (GC header included)
   was about a seventh of the extension's work. Only touched under the GIL. A kept Match is untracked and holds
   no references (match_dealloc dropped them); match_alloc sets every field again. */
enum { FREE_MAX_VALUES = 4, FREE_PER_SIZE = 8 };
static MatchObject *free_matches[FREE_MAX_VALUES + 1][FREE_PER_SIZE];
static int free_count[FREE_MAX_VALUES + 1];

/* A Match of `path_count` values, none filled yet, not yet tracked by the GC. Steals the reference to info (the
   caller takes it before any allocation: code run by a collection could empty the route cache it came from);
   target is info's. */
static MatchObject *match_alloc(size_t path_count, PyObject *info, PyObject *target, PyObject *url) {
    MatchObject *m;
    if (path_count <= FREE_MAX_VALUES && free_count[path_count] > 0) {
        m = free_matches[path_count][--free_count[path_count]];  /* its values are NULL (match_dealloc) */
        PyObject_InitVar((PyVarObject *)m, &MatchType, (Py_ssize_t)path_count);  /* refcount 1 */
    } else if ((m = PyObject_GC_NewVar(MatchObject, &MatchType, (Py_ssize_t)path_count))) {
        memset(m->values, 0, path_count * sizeof(PyObject *));
    } else {
        Py_DECREF(info);
        return NULL;
    }
    m->target = Py_NewRef(target);
    m->params = m->routed = m->parts = m->weakrefs = NULL;
    m->info = info;
    m->url = Py_NewRef(url);
    m->params_version = 0;
    m->route_id = 0;
    m->rewritten = 0;
    m->keyed = -1;
    return m;
}

static int match_traverse(MatchObject *m, visitproc visit, void *arg) {
    Py_VISIT(m->target);
    Py_VISIT(m->params);
    Py_VISIT(m->info);
    Py_VISIT(m->url);
    return 0;  /* routed, parts and the values are str and bytes: no cycles through them */
}

static int match_clear(MatchObject *m) {
    Py_CLEAR(m->target);
    Py_CLEAR(m->params);
    return 0;
}

/* Emptied params dicts, kept for the next Match: a dict made and freed per lookup (object, GC header) cost more
   than emptying one. Only a dict nothing else holds and the GC does not track is kept. Emptying it may still run
   Python code (a key the caller put there may carry a weakref callback), which may take or keep spares: the room
   and the dict are checked again after. Only touched under the GIL. */
enum { SPARE_DICTS = 16 };
static PyObject *spare_dicts[SPARE_DICTS];
static int spare_dict_count;

#if PY_VERSION_HEX >= 0x03090000
#define DICT_UNTRACKED(d) (!PyObject_GC_IsTracked(d))
#else
#define DICT_UNTRACKED(d) 0
#endif

static void params_release(PyObject *params) {  /* Py_XDECREF, or kept as a spare */
    if (params && Py_REFCNT(params) == 1 && PyDict_CheckExact(params) && DICT_UNTRACKED(params)
        && spare_dict_count < SPARE_DICTS) {
        PyDict_Clear(params);
        if (spare_dict_count < SPARE_DICTS && Py_REFCNT(params) == 1 && PyDict_GET_SIZE(params) == 0
            && DICT_UNTRACKED(params)) {
            spare_dicts[spare_dict_count++] = params;
            return;
        }
    }
    Py_XDECREF(params);
}

static PyObject *params_dict(void) {  /* an empty dict */
    return spare_dict_count > 0 ? spare_dicts[--spare_dict_count] : PyDict_New();
}

/* Params dicts kept whole, by their keys: a freed Match's dict that holds exactly its path parameters (the
   names tuple's items, in order) and only exact str values is kept with them, and the next Match with the same
   names fills it again: no keys to insert, and a value nothing else holds, ASCII and of the new value's length,
   is rewritten in place (as CPython resizes a str only it holds) instead of being freed and made again. Such a
   dict is unreachable from Python: the values it keeps a little longer are plain str, which run no code when
   freed. Sets of names are direct-mapped; a set taking a slot releases the dicts of the set there before.
   Oldest dict first: the newest one's last value is often still held (the loop variable of `for v in ...`). */
enum { KEYED_SLOTS = 64, KEYED_DEPTH = 4, KEYED_MAX_VALUES = 4, KEYED_MAX_LENGTH = 64 };
typedef struct {
    PyObject *names;                /* a names tuple (owned); NULL: a free slot */
    unsigned first, count;          /* dicts[first] is the oldest */
    PyObject *dicts[KEYED_DEPTH];
    PyObject *values[KEYED_DEPTH][KEYED_MAX_VALUES];  /* each dict's values in order (the dict's references) */
} KeyedSpares;
static KeyedSpares keyed[KEYED_SLOTS];

/* A dict's version tag (PEP 509) up to Python 3.11: equal tags mean an unchanged dict, so a params dict the caller
   never changed is kept without reading it again. 0: unknown (later Pythons, or a dict made by nested()). */
#if PY_VERSION_HEX < 0x030C0000
#define DICT_VERSION(d) (((PyDictObject *)(d))->ma_version_tag)
#else
#define DICT_VERSION(d) ((uint64_t)0)
#endif

static int keyed_slot(PyObject *names) {  /* by the names (interned str: equal names are the same object) */
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    uintptr_t h = (uintptr_t)n;
    for (Py_ssize_t i = 0; i < n; i++)
        h = h * 31 + ((uintptr_t)PyTuple_GET_ITEM(names, i) >> 4);
    return (int)((h ^ h >> 7) % KEYED_SLOTS);
}

static int same_names(PyObject *a, PyObject *b) {
    if (a == b)
        return 1;
    Py_ssize_t n = PyTuple_GET_SIZE(a);
    if (n != PyTuple_GET_SIZE(b))
        return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyTuple_GET_ITEM(a, i) != PyTuple_GET_ITEM(b, i))
            return 0;
    return 1;
}

/* The oldest dict kept in slot `index` (keyed_slot of names) holding exactly `names`, its values (borrowed) in
   `values`; NULL when there is none. */
static PyObject *keyed_take(int index, PyObject *names, PyObject **values) {
    KeyedSpares *k = &keyed[index];
    if (!k->count || !same_names(k->names, names))
        return NULL;
    unsigned j = k->first;
    k->first = (j + 1) % KEYED_DEPTH;
    k->count--;
    memcpy(values, k->values[j], sizeof k->values[j]);  /* (a constant size: no call) */
    return k->dicts[j];
}

/* Keeps the params dict of m when nothing else holds it and it has exactly the keys `names` in order and exact
   str values; 1 when kept (the reference is taken), else 0. Runs no Python code. */
static int keyed_keep(MatchObject *m, PyObject *names) {
    PyObject *params = m->params, *values[KEYED_MAX_VALUES] = {NULL};
    Py_ssize_t n = PyTuple_GET_SIZE(names);
    /* (m.params may have been set to anything; its size also refuses names that are not distinct, which only a
       forged `_routes` could give: the version test below then takes the dict for exactly the path values) */
    if (!params || Py_REFCNT(params) != 1 || !PyDict_CheckExact(params) || n > KEYED_MAX_VALUES || n != Py_SIZE(m)
        || PyDict_GET_SIZE(params) != n)
        return 0;
    if (m->params_version && m->params_version == DICT_VERSION(params)) {
        /* unchanged since it was filled: the path values, under the names, and untracked (all str) */
        for (Py_ssize_t i = 0; i < n; i++)
            values[i] = m->values[i];
    } else {
        if (!DICT_UNTRACKED(params))
            return 0;
        Py_ssize_t pos = 0;
        PyObject *key;
        for (Py_ssize_t i = 0; i < n; i++)
            if (!PyDict_Next(params, &pos, &key, &values[i]) || key != PyTuple_GET_ITEM(names, i)
                || !PyUnicode_CheckExact(values[i]))
                return 0;
    }
    /* Only short values are kept (the in-place rewrite needs no more): a long one, perhaps the caller's own,
       is not held alive past its Match. */
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyUnicode_GET_LENGTH(values[i]) > KEYED_MAX_LENGTH)
            return 0;
    KeyedSpares *k = &keyed[m->keyed >= 0 ? m->keyed : keyed_slot(names)];
    if (k->names && !same_names(k->names, names)) {
        /* Another set of names had the slot: its dicts go (all detached first; emptying them runs no code
           either: their keys are held by their names tuple, their values are str). */
        PyObject *old_names = k->names, *old[KEYED_DEPTH];
        unsigned count = k->count;
        for (unsigned j = 0; j < count; j++)
            old[j] = k->dicts[(k->first + j) % KEYED_DEPTH];
        k->names = NULL;
        k->first = k->count = 0;
        for (unsigned j = 0; j < count; j++)
            params_release(old[j]);
        Py_DECREF(old_names);
        if (k->names)  /* (taken meanwhile after all) */
            return 0;
    }
    if (!k->names)
        k->names = Py_NewRef(names);
    if (k->count == KEYED_DEPTH)
        return 0;
    unsigned j = (k->first + k->count++) % KEYED_DEPTH;
    k->dicts[j] = params;
    memcpy(k->values[j], values, sizeof values);
    return 1;
}

/* Writes the ASCII text s[0..n) into `old` when it is an exact str only its kept dict holds, compact ASCII, not
   interned, of length n; 1 when done (the hash it cached is dropped), else 0. */
static int rewrite_in_place(PyObject *old, const char *s, size_t n) {
#if defined(Py_GIL_DISABLED)
    (void)old; (void)s; (void)n;
    return 0;  /* a reference count of 1 does not mean the same there */
#else
    if (Py_REFCNT(old) != 1 || !PyUnicode_CheckExact(old) || !PyUnicode_IS_COMPACT_ASCII(old)
        || PyUnicode_CHECK_INTERNED(old) || (size_t)PyUnicode_GET_LENGTH(old) != n || n == 0)
        return 0;
#if PY_VERSION_HEX < 0x030C0000
    if (((PyASCIIObject *)old)->wstr)  /* a wchar_t copy cached by a legacy API */
        return 0;
#endif
    unsigned char high = 0;
    for (size_t i = 0; i < n; i++)
        high |= (unsigned char)s[i];
    if (high >= 0x80)
        return 0;
    Py_UCS1 *data = PyUnicode_1BYTE_DATA(old);
    for (size_t i = 0; i < n; i++)  /* (a loop: a call to memcpy cost more for a short value) */
        data[i] = (Py_UCS1)s[i];
    ((PyASCIIObject *)old)->hash = -1;
    return 1;
#endif
}

static void match_free(MatchObject *m) {  /* match_dealloc's work, m untracked */
    if (m->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)m);
    Py_XDECREF(m->target);
    if (!keyed_keep(m, PyTuple_GET_ITEM(m->info, INFO_NAMES)))
        params_release(m->params);
    Py_XDECREF(m->info);
    Py_XDECREF(m->url);
    Py_XDECREF(m->routed);
    Py_XDECREF(m->parts);
    Py_ssize_t size = Py_SIZE(m);
    for (Py_ssize_t i = 0; i < size; i++)
        Py_CLEAR(m->values[i]);  /* (NULL: ready for match_alloc, if kept) */
    if (size <= FREE_MAX_VALUES && free_count[size] < FREE_PER_SIZE)
        free_matches[size][free_count[size]++] = m;
    else
        PyObject_GC_Del(m);
}

/* A Match may hold another through target or params, and freeing a chain of them recursed once per link (about
   48,000 overflowed an 8 MiB stack): the trashcan bounds that. A Match holding a str target and dict params (or
   none), as resolve makes it, goes without it (about 40 instructions a lookup): a str holds nothing, and a chain
   through dicts is bounded by the dict's own trashcan. */
static void match_dealloc(MatchObject *m) {
    PyObject_GC_UnTrack(m);  /* (before the trashcan, which may defer m: only an untracked object may wait) */
    if ((!m->target || PyUnicode_CheckExact(m->target)) && (!m->params || PyDict_CheckExact(m->params))) {
        match_free(m);
        return;
    }
    Py_TRASHCAN_BEGIN(m, match_dealloc)
    match_free(m);
    Py_TRASHCAN_END
}

/* The UTF-8 text of the URL that was routed: the rewritten one, else the URL as given. */
static const char *routed_text(MatchObject *m, Py_ssize_t *len) {
    PyObject *u = m->routed ? m->routed : m->url;
    if (PyBytes_Check(u)) {
        *len = PyBytes_GET_SIZE(u);
        return PyBytes_AS_STRING(u);
    }
    return PyUnicode_AsUTF8AndSize(u, len);
}

/* The parts of the routed URL as a packed result (borrowed), resolved by url_parser on first use. */
static int match_parts(MatchObject *m, Packed *pk) {
    if (!m->parts) {
        Py_ssize_t len;
        const char *text = routed_text(m, &len);
        PyObject *parts = text ? resolve_packed(&url_parser_handle, text, (size_t)len) : NULL;
        if (!parts)
            return -1;
        if (parts == Py_None) {
            Py_DECREF(parts);
            PyErr_SetString(PyExc_SystemError, "linkrouter: the URL parser found no route");
            return -1;
        }
        if (m->parts)  /* set meanwhile, by Python code run inside the call (a release callback): keep that one */
            Py_DECREF(parts);
        else
            m->parts = parts;
    }
    return packed_open(pk, m->parts);
}

static PyObject *match_part(MatchObject *m, void *closure) {
    Packed pk;
    return match_parts(m, &pk) < 0 ? NULL : packed_str(&pk, (size_t)(uintptr_t)closure);
}

static PyObject *match_info_field(MatchObject *m, void *closure) {
    return Py_NewRef(PyTuple_GET_ITEM(m->info, (Py_ssize_t)(uintptr_t)closure));
}

static PyObject *match_meta(MatchObject *m, void *closure) {  /* a copy: a caller may change the dict it gets */
    (void)closure;
    return PyDict_Copy(PyTuple_GET_ITEM(m->info, INFO_META));
}

static PyObject *match_requires(MatchObject *m, void *closure) {
    (void)closure;
    return PySequence_List(PyTuple_GET_ITEM(m->info, INFO_REQUIRES));
}

static PyObject *match_route_id(MatchObject *m, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLong(m->route_id);
}

static PyObject *match_url(MatchObject *m, void *closure) {
    (void)closure;
    if (PyUnicode_Check(m->url))
        return Py_NewRef(m->url);
    return decode(PyBytes_AS_STRING(m->url), (size_t)PyBytes_GET_SIZE(m->url));
}

static PyObject *match_rewritten(MatchObject *m, void *closure) {
    if (!m->routed)
        return match_url(m, closure);
    return decode(PyBytes_AS_STRING(m->routed), (size_t)PyBytes_GET_SIZE(m->routed));
}

static PyObject *match_was_rewritten(MatchObject *m, void *closure) {
    (void)closure;
    return PyBool_FromLong(m->rewritten);
}

static PyObject *match_path_params(MatchObject *m, void *closure) {
    (void)closure;
    PyObject *names = PyTuple_GET_ITEM(m->info, INFO_NAMES);
    PyObject *list = PyList_New(Py_SIZE(m));
    for (Py_ssize_t i = 0; list && i < Py_SIZE(m); i++) {
        PyObject *pair = PyTuple_Pack(2, PyTuple_GET_ITEM(names, i), m->values[i]);
        if (!pair)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, pair);
    }
    return list;
}

static PyObject *match_query(MatchObject *m, void *closure) {
    (void)closure;
    Packed pk;
    if (match_parts(m, &pk) < 0)
        return NULL;
    PyObject *list = PyList_New(pk.query_count);
    for (size_t i = 0; list && i < pk.query_count; i++) {
        PyObject *k = packed_str(&pk, query_key_at(&pk, i)), *v = k ? packed_str(&pk, query_key_at(&pk, i) + 1) : NULL;
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

static PyObject *match_as_dict_method(PyObject *m, PyObject *unused) {
    (void)unused;
    return PyObject_CallOneArg(match_as_dict, m);
}

static PyObject *match_richcompare(PyObject *a, PyObject *b, int op) {
    if (op != Py_EQ && op != Py_NE)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *eq = PyObject_CallFunctionObjArgs(match_eq, a, b, NULL);
    if (!eq || eq == Py_NotImplemented || op == Py_EQ)
        return eq;
    int truth = PyObject_IsTrue(eq);
    Py_DECREF(eq);
    return truth < 0 ? NULL : PyBool_FromLong(!truth);
}

static PyObject *match_repr_slot(PyObject *m) { return PyObject_CallOneArg(match_repr, m); }

/* copy.copy: a Match with the same fields, target and params the same objects (as the ctypes Match's copy). Its
   params version is unknown: the dict is shared. */
static PyObject *match_copy(MatchObject *m, PyObject *unused) {
    (void)unused;
    MatchObject *c = match_alloc((size_t)Py_SIZE(m), Py_NewRef(m->info), Py_None, m->url);
    if (!c)
        return NULL;
    /* (read after the allocation, which may run a collection and so code that changes m) */
    Py_XINCREF(m->target);
    Py_SETREF(c->target, m->target);  /* (NULL when deleted) */
    Py_XINCREF(m->params);
    c->params = m->params;
    Py_XINCREF(m->routed);
    c->routed = m->routed;
    Py_XINCREF(m->parts);
    c->parts = m->parts;
    c->route_id = m->route_id;
    c->rewritten = m->rewritten;
    c->keyed = m->keyed;
    for (Py_ssize_t i = 0; i < Py_SIZE(m); i++) {
        Py_XINCREF(m->values[i]);
        c->values[i] = m->values[i];
    }
    PyObject_GC_Track(c);
    return (PyObject *)c;
}

static PyObject *deepcopy_fn;  /* copy.deepcopy, imported on first use */

/* copy.deepcopy: a copy with its own target and params, deep-copied through memo; the Match is in memo first, so
   params holding it get the copy (the ctypes Match's __deepcopy__ does the same). */
static PyObject *match_deepcopy(MatchObject *m, PyObject *memo) {
    if (!deepcopy_fn) {
        PyObject *copy = PyImport_ImportModule("copy");
        deepcopy_fn = copy ? PyObject_GetAttrString(copy, "deepcopy") : NULL;
        Py_XDECREF(copy);
        if (!deepcopy_fn)
            return NULL;
    }
    MatchObject *c = (MatchObject *)match_copy(m, NULL);
    if (!c)
        return NULL;
    PyObject *id = PyLong_FromVoidPtr(m);
    int rc = id ? PyObject_SetItem(memo, id, (PyObject *)c) : -1;
    Py_XDECREF(id);
    PyObject **fields[] = {&c->target, &c->params};
    for (size_t i = 0; rc == 0 && i < sizeof fields / sizeof fields[0]; i++) {
        PyObject *old = *fields[i];
        if (!old)
            continue;
        Py_INCREF(old);  /* (the copying may run code that sets c's field) */
        PyObject *field = PyObject_CallFunctionObjArgs(deepcopy_fn, old, memo, NULL);
        Py_DECREF(old);
        if (!field)
            rc = -1;
        else
            Py_SETREF(*fields[i], field);
    }
    if (rc < 0) {
        Py_DECREF(c);
        return NULL;
    }
    return (PyObject *)c;
}

static PyObject *match_reduce_ex(PyObject *m, PyObject *protocol) {  /* the ctypes Match's words */
    (void)m;
    (void)protocol;
    PyErr_SetString(PyExc_TypeError, "cannot pickle a linkrouter.Match (copy.copy and copy.deepcopy work; "
                                     "pickle its as_dict() to store or send it)");
    return NULL;
}

#define CLOSURE(i) ((void *)(uintptr_t)(i))
static PyGetSetDef match_getset[] = {
    {"pattern", (getter)match_info_field, NULL, "The route's pattern as it was added.", CLOSURE(INFO_PATTERN)},
    {"name", (getter)match_info_field, NULL, "The route's name (Router.add_route), None when it has none.",
     CLOSURE(INFO_NAME)},
    {"metadata", (getter)match_info_field, NULL,
     "The route's meta as JSON text (Router.add_route), None when it has none.", CLOSURE(INFO_METADATA)},
    {"meta", (getter)match_meta, NULL, "The route's meta (string key/values) as a new dict, {} when it has none.",
     NULL},
    {"requires", (getter)match_requires, NULL, "The guards the route requires, in the order they run.", NULL},
    {"route_id", (getter)match_route_id, NULL, "The route's id: its insertion number in its router, never reused.",
     NULL},
    {"url", (getter)match_url, NULL, "The URL as given.", NULL},
    {"rewritten", (getter)match_rewritten, NULL,
     "The URL that was routed: after rewriting, or the same as ``url`` when no rule fired.", NULL},
    {"was_rewritten", (getter)match_was_rewritten, NULL, "True when a rewrite rule fired.", NULL},
    {"scheme", (getter)match_part, NULL, NULL, CLOSURE(S_SCHEME)},
    {"host", (getter)match_part, NULL, "The host the router compared: percent-decoded (as written when that is malformed, not UTF-8 or "
     "holds a NUL), lower-cased, without userinfo and port; \"\" when none.", CLOSURE(S_HOST)},
    {"port", (getter)match_part, NULL, "Digits, \"\" when none.", CLOSURE(S_PORT)},
    {"path", (getter)match_part, NULL, "As written, not decoded.", CLOSURE(S_PATH)},
    {"fragment", (getter)match_part, NULL, "As written, \"\" when none; the fragment is never routed.",
     CLOSURE(S_FRAGMENT)},
    {"path_params", (getter)match_path_params, NULL, "The path parameters in pattern order, as (name, value).", NULL},
    {"query", (getter)match_query, NULL,
     "Every query pair of the routed URL in order, decoded, repeated keys included.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef match_members[] = {
    {"target", Py_T_OBJECT_EX, offsetof(MatchObject, target), 0, "The target the route was added with."},
    {"params", Py_T_OBJECT_EX, offsetof(MatchObject, params), 0,
     "The merged parameters: extra > path > query, bracket keys nested."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef match_methods[] = {
    {"as_dict", match_as_dict_method, METH_NOARGS,
     "Every field, as a dict (the keys of lr_match_to_json, plus route_id and path_params)."},
    {"__copy__", (PyCFunction)match_copy, METH_NOARGS, "A Match sharing this one's target and params."},
    {"__deepcopy__", (PyCFunction)match_deepcopy, METH_O, "A Match with its own (deep) copies of target and params."},
    {"__reduce_ex__", match_reduce_ex, METH_O, "A Match is not picklable: pickle its as_dict()."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MatchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "linkrouter.Match",
    .tp_doc = PyDoc_STR(
        "The result of Router.resolve.\n\n"
        "``params`` merges, on the same key the higher winning: the ``extra`` given to resolve > path parameters\n"
        "(``:name``, ``*name``) > query parameters; bracket keys nest (``info[nickname]=x`` gives\n"
        "``{\"info\": {\"nickname\": \"x\"}}``). ``query`` lists every query pair in order, repeated keys included.\n"
        "``scheme`` and ``host`` are lower-cased, ``host`` percent-decoded as the router compares it; ``path`` and ``fragment`` are as written; ``fragment`` is \"\" when\n"
        "there is none. Everything but ``params`` is decoded when first read."),
    .tp_basicsize = offsetof(MatchObject, values),
    .tp_itemsize = sizeof(PyObject *),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_dealloc = (destructor)match_dealloc,
    .tp_traverse = (traverseproc)match_traverse,
    .tp_clear = (inquiry)match_clear,
    .tp_weaklistoffset = offsetof(MatchObject, weakrefs),
    .tp_repr = match_repr_slot,
    .tp_hash = PyObject_HashNotImplemented,  /* mutable: not hashable */
    .tp_richcompare = match_richcompare,
    .tp_methods = match_methods,
    .tp_members = match_members,
    .tp_getset = match_getset,
};

/* -- params -------------------------------------------------------------------------------------------------- */

/* A list of (name, value) tuples, for nested(): the path parameters (names, values) or the query pairs (refs). */
static PyObject *pairs_list(PyObject *names, PyObject *const *values, const lr_param_ref *refs, size_t count) {
    PyObject *list = PyList_New((Py_ssize_t)count);
    for (size_t i = 0; list && i < count; i++) {
        PyObject *k = names ? Py_NewRef(PyTuple_GET_ITEM(names, i)) : decode(refs[i].name, refs[i].name_len);
        PyObject *v = !k ? NULL : values ? Py_NewRef(values[i]) : decode(refs[i].value, refs[i].value_len);
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

/* The params dict: path parameters (names, values), then the query pairs `query` (without the keys a path
   parameter takes) in order, so a repeated key keeps its first place and its last value; nested() when a key
   has a bracket. */
static PyObject *params_new(PyObject *router, PyObject *names, PyObject *const *values, size_t path_count,
                            const lr_param_ref *query, size_t query_count) {
    for (size_t i = 0; i < query_count; i++) {
        if (query[i].name_len && memchr(query[i].name, '[', query[i].name_len)) {
            PyObject *path = pairs_list(names, values, NULL, path_count);
            PyObject *pairs = path ? pairs_list(NULL, NULL, query, query_count) : NULL;
            PyObject *depth = pairs ? PyObject_GetAttr(router, str_nesting) : NULL;
            PyObject *params = depth ? PyObject_CallFunctionObjArgs(nested_params, path, pairs, depth, NULL) : NULL;
            Py_XDECREF(path);
            Py_XDECREF(pairs);
            Py_XDECREF(depth);
            return params;
        }
    }
    PyObject *params = params_dict();
    if (!params)
        return NULL;
    for (size_t i = 0; i < path_count; i++)
        if (PyDict_SetItem(params, PyTuple_GET_ITEM(names, i), values[i]) < 0)
            goto fail;
    for (size_t i = 0; i < query_count; i++) {
        PyObject *key = decode(query[i].name, query[i].name_len);
        PyObject *value = key ? decode(query[i].value, query[i].value_len) : NULL;
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

static int add_extra(PyObject *params, PyObject *extra) {  /* params.update(extra) when extra is truthy */
    if (!extra || extra == Py_None)
        return 0;
    int truth = PyObject_IsTrue(extra);
    if (truth <= 0)
        return truth;
    if (PyDict_CheckExact(params) && PyDict_Check(extra))
        return PyDict_Update(params, extra);
    PyObject *r = PyObject_CallMethodObjArgs(params, str_update, extra, NULL);  /* any mapping, or pairs */
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* The rest of a Match once its values are in: params (made here, unless a kept dict was filled already), extra,
   then the GC may see it. Steals m. */
static PyObject *match_finish(MatchObject *m, PyObject *names, PyObject *router, const lr_param_ref *query,
                              size_t query_count, PyObject *extra) {
    if (!m->params)  /* (else a kept dict, filled already) */
        m->params = params_new(router, names, m->values, (size_t)Py_SIZE(m), query, query_count);
    if (m->params && query_count == 0)  /* (a query may have made it through nested(): unknown then) */
        m->params_version = DICT_VERSION(m->params);  /* (before extra, which may put other objects in) */
    if (!m->params || add_extra(m->params, extra) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject_GC_Track(m);
    return (PyObject *)m;
}

/* -- resolving ----------------------------------------------------------------------------------------------- */

/* A router's route constants by route id: open addressing on the id itself (ids are insertion numbers, so
   they spread evenly), at most half full, emptied when it holds route_cache_max entries. A slot also holds what
   every resolve reads of the constants (their target and parameter names, borrowed from info): in a large table
   the route is cold in the CPU's caches, and these loads then no longer wait for info's, one after the other. */
typedef struct {
    uint32_t route_id;
    uint32_t path_count;       /* the number of names */
    PyObject *info;            /* NULL: an empty slot */
    PyObject *target, *names;  /* info's */
} RouteSlot;

typedef struct {
    RouteSlot *slots;
    size_t mask, count;  /* capacity - 1 (a power of 2), entries */
} RouteCache;

static const RouteSlot *cache_get(const RouteCache *c, uint32_t route_id) {  /* NULL when not cached */
    if (!c->slots)
        return NULL;
    for (size_t i = route_id & c->mask;; i = (i + 1) & c->mask) {
        if (!c->slots[i].info)
            return NULL;
        if (c->slots[i].route_id == route_id)
            return &c->slots[i];
    }
}

/* Releasing an info may run Python code (an info set through `_routes` may hold any object), which may read or
   set `_routes` again: the cache is detached, or the new entry installed, before anything is released. */
static void cache_clear(RouteCache *c) {
    RouteSlot *slots = c->slots;
    size_t capacity = slots ? c->mask + 1 : 0;
    c->slots = NULL;
    c->mask = c->count = 0;
    for (size_t i = 0; i < capacity; i++)
        Py_XDECREF(slots[i].info);
    PyMem_Free(slots);
}

static void cache_place(RouteCache *c, uint32_t route_id, PyObject *info) {  /* steals info; room is there */
    size_t i = route_id & c->mask;
    while (c->slots[i].info && c->slots[i].route_id != route_id)
        i = (i + 1) & c->mask;
    PyObject *old = c->slots[i].info;
    c->count += !old;
    c->slots[i].route_id = route_id;
    c->slots[i].info = info;
    c->slots[i].target = PyTuple_GET_ITEM(info, INFO_TARGET);
    c->slots[i].names = PyTuple_GET_ITEM(info, INFO_NAMES);
    c->slots[i].path_count = (uint32_t)PyTuple_GET_SIZE(c->slots[i].names);
    Py_XDECREF(old);  /* last: c may change under it */
}

static int cache_put(RouteCache *c, uint32_t route_id, PyObject *info) {  /* takes a new reference */
    if (!route_info_valid(info)) {
        PyErr_SetString(PyExc_TypeError, "_routes: route id (int) -> route constants (tuple)");
        return -1;
    }
    Py_INCREF(info);  /* before cache_clear, whose releases may run code that drops the caller's reference */
    if ((Py_ssize_t)c->count >= route_cache_max)
        cache_clear(c);
    if (!c->slots || 2 * (c->count + 1) > c->mask + 1) {
        size_t capacity = c->slots ? 2 * (c->mask + 1) : 64;
        RouteSlot *old = c->slots, *slots = PyMem_Calloc(capacity, sizeof *slots);
        if (!slots) {
            Py_DECREF(info);
            PyErr_NoMemory();
            return -1;
        }
        size_t old_capacity = old ? c->mask + 1 : 0;
        c->slots = slots;
        c->mask = capacity - 1;
        c->count = 0;
        for (size_t i = 0; i < old_capacity; i++)
            if (old[i].info)
                cache_place(c, old[i].route_id, old[i].info);
        PyMem_Free(old);
    }
    cache_place(c, route_id, info);
    return 0;
}

/* A router's handle is read from `_h`, the ctypes c_void_p the finalizer also holds, on every call: the finalizer
   sets it to NULL as it frees the router (a collected cycle frees it before a __del__ in the cycle may call it),
   so a copy of the pointer could outlive the router. */
typedef struct {
    PyObject_HEAD
    lr_router *const *handle;  /* the pointer inside `_h` (its buffer); &no_router while `_h` is None */
    Py_buffer h;               /* `_h`'s buffer, held while set; h.obj is `_h`, NULL for None */
    RouteCache routes;         /* what Python sees as `_routes` */
    Py_ssize_t url_limit;      /* `_url_limit`: LR_LIMIT_URL_LENGTH as Router sets it; 0 until then */
    Py_ssize_t calls;          /* `_calls`: library calls on this router under way (resolve's, and the ctypes
                                  calls' through _enter/_leave); changed under the GIL only */
    char close_pending;        /* `_close_pending`: close() came during a call; the last call to end frees */
} RouterCore;

/* One call on the router ends: true when it was the last and a close() waits for it (the caller finishes it). */
static int last_call_ended(RouterCore *self) {
    return --self->calls == 0 && self->close_pending;
}

/* The end of a call on the router: the last one to end while a close() waits finishes it (Router._finish_close),
   with any exception of the call kept. A close() run inside a call (a finalizer the garbage collector ran while
   ctypes converted the arguments, or in a callback's prologue) must not free the router under that call. */
static void leave_call(RouterCore *self) {
    if (!last_call_ended(self))
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *done = PyObject_CallMethod((PyObject *)self, "_finish_close", NULL);
    if (done)
        Py_DECREF(done);
    else
        PyErr_WriteUnraisable((PyObject *)self);
    PyErr_Restore(type, value, tb);
}

static lr_router *const no_router = NULL;  /* what a router without a handle reads: closed */

/* The cached constants of the route of a result with path_count path parameters, NULL when there are none. The
   slot is valid until the cache changes: read what is needed and take a reference to its info before any call
   that could run Python code. */
static const RouteSlot *cached_route(RouterCore *self, uint32_t route_id, size_t path_count) {
    const RouteSlot *slot = cache_get(&self->routes, route_id);
    return slot && slot->path_count == path_count ? slot : NULL;
}

/* Whether the route's pattern has optional groups ("app://user/:id(/:tab)"): each combination of its groups is
   an entry of the same route id with its own parameter names, so its constants are not cached by id. */
static int has_optional_groups(PyObject *info) {
    PyObject *pattern = PyTuple_GET_ITEM(info, INFO_PATTERN);
    Py_ssize_t n = PyUnicode_GET_LENGTH(pattern);
    return n > 0 && PyUnicode_READ_CHAR(pattern, n - 1) == ')';
}

static PyObject *cache_info(RouterCore *self, const Packed *pk) {  /* a new reference; cached when new */
    const RouteSlot *slot = cached_route(self, pk->route_id, pk->path_count);
    if (slot)
        return Py_NewRef(slot->info);
    PyObject *info = route_info_new(pk);
    if (!info)
        return NULL;
    if (!has_optional_groups(info) && cache_put(&self->routes, pk->route_id, info) < 0) {
        Py_DECREF(info);
        return NULL;
    }
    return info;
}

/* The Match of an lr_router_resolve_into result whose route is cached in `slot`. */
static PyObject *match_from_result(RouterCore *self, const RouteSlot *slot, const lr_result *res,
                                   const lr_param_ref *refs, PyObject *url, PyObject *extra) {
    size_t path_count = res->path_param_count;
    PyObject *names = slot->names;  /* (info keeps names and target alive) */
    MatchObject *m = match_alloc(path_count, Py_NewRef(slot->info), slot->target, url);
    if (!m)
        return NULL;
    m->route_id = res->route_id;
    m->rewritten = res->rewritten != 0;
    if (m->rewritten && !(m->routed = PyBytes_FromStringAndSize(res->routed, (Py_ssize_t)res->routed_len)))
        goto fail;
    size_t query_count = res->param_count - path_count;
    PyObject *old[KEYED_MAX_VALUES];
    PyObject *params = NULL;
    if (query_count == 0 && path_count <= KEYED_MAX_VALUES)
        params = keyed_take(m->keyed = keyed_slot(names), names, old);
    if (params) {  /* a kept dict with these keys: its values are replaced, or rewritten in place */
        m->params = params;  /* (freed with m on failure; match_finish keeps it) */
        for (size_t i = 0; i < path_count; i++) {
            if (rewrite_in_place(old[i], refs[i].value, refs[i].value_len))
                m->values[i] = Py_NewRef(old[i]);
            else if (!(m->values[i] = decode(refs[i].value, refs[i].value_len))
                     || PyDict_SetItem(params, PyTuple_GET_ITEM(names, i), m->values[i]) < 0)
                goto fail;
        }
    } else {
        for (size_t i = 0; i < path_count; i++)
            if (!(m->values[i] = decode(refs[i].value, refs[i].value_len)))
                goto fail;
    }
    return match_finish(m, names, (PyObject *)self, refs + path_count, query_count, extra);
fail:
    Py_DECREF(m);
    return NULL;
}

/* The Match of a packed result (its bytes become the Match's parts). */
static PyObject *match_from_packed(RouterCore *self, PyObject *data, PyObject *url, PyObject *extra) {
    Packed pk;
    if (packed_open(&pk, data) < 0)
        return NULL;
    PyObject *info = cache_info(self, &pk);
    if (!info)
        return NULL;
    PyObject *names = PyTuple_GET_ITEM(info, INFO_NAMES);
    MatchObject *m = match_alloc(pk.path_count, info, PyTuple_GET_ITEM(info, INFO_TARGET), url);  /* takes info */
    if (!m)
        return NULL;
    m->route_id = pk.route_id;
    m->rewritten = (pk.flags & FLAG_REWRITTEN) != 0;
    m->parts = Py_NewRef(data);
    size_t n;
    const char *s = packed_string(&pk, S_ROUTED, &n);
    if (m->rewritten && !(m->routed = PyBytes_FromStringAndSize(s, (Py_ssize_t)n)))
        goto fail;
    for (size_t i = 0; i < pk.path_count; i++)
        if (!(m->values[i] = packed_str(&pk, path_value_at(&pk, i))))
            goto fail;
    /* The query pairs as refs, leaving out the keys a path parameter takes (as lr_router_resolve_into does). */
    lr_param_ref *query = PyMem_Malloc((pk.query_count ? pk.query_count : 1) * sizeof *query);
    if (!query) {
        PyErr_NoMemory();
        goto fail;
    }
    size_t count = 0;
    for (size_t i = 0; i < pk.query_count; i++) {
        lr_param_ref *q = &query[count];
        q->name = packed_string(&pk, query_key_at(&pk, i), &q->name_len);
        q->value = packed_string(&pk, query_key_at(&pk, i) + 1, &q->value_len);
        int taken = 0;
        for (size_t j = 0; j < pk.path_count && !taken; j++) {
            size_t len;
            const char *name = packed_string(&pk, path_name_at(j), &len);
            taken = len == q->name_len && memcmp(name, q->name, len) == 0;
        }
        count += !taken;
    }
    PyObject *result = match_finish(m, names, (PyObject *)self, query, count, extra);
    PyMem_Free(query);
    return result;
fail:
    Py_DECREF(m);
    return NULL;
}

/* resolve(url, extra=None), parsed by hand: METH_FASTCALL without CPython's private argument parser. */
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

PyDoc_STRVAR(core_resolve_doc,
"resolve($self, /, url, extra=None)\n--\n\n"
"The match for ``url`` (rewritten first), or None when no route matches.\n\n"
"``extra`` values (any Python objects) outrank path and query parameters in ``params``.\n"
"InvalidURLError (not an absolute URL, not UTF-8), LimitError.");

static PyObject *core_resolve(RouterCore *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *url, *extra, *converted = NULL, *result = NULL;
    lr_param_ref *heap_refs = NULL;  /* freed at done: declared before the first goto */
    char *heap_scratch = NULL;
    int entered = 0;  /* counted in self->calls (left at done) */
    if (resolve_args(args, nargs, kwnames, &url, &extra) < 0)
        return NULL;
    const char *text = NULL;
    Py_ssize_t len = 0;
    if (PyUnicode_Check(url) && PyUnicode_IS_COMPACT_ASCII(url)) {  /* the common case: its bytes are its UTF-8 */
        text = (const char *)PyUnicode_DATA(url);
        len = PyUnicode_GET_LENGTH(url);
    } else if (PyUnicode_Check(url)) {
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
    if (!text) {  /* another bytes-like object is copied, and the Match keeps the copy; anything else: TypeError */
        if (!(converted = PyObject_CallOneArg(url_bytes, url)))
            return NULL;
        if (!PyBytes_Check(converted)) {
            PyErr_SetString(PyExc_SystemError, "linkrouter: _url_bytes returned something other than bytes");
            goto done;
        }
        url = converted;
        text = PyBytes_AS_STRING(url);
        len = PyBytes_GET_SIZE(url);
    }
    if (drain_point() < 0)
        goto done;
    self->calls++;  /* before the handle is read: a close() from here on waits for this call to end */
    entered = 1;
    if (!open_router(self->handle))  /* (read again before each call below) */
        goto done;
    /* This thread's memory: the C stack, or heap memory of the sizes the library asks for (again, if a change of
       table makes them grow meanwhile). */
    lr_result res;
    lr_param_ref stack_refs[STACK_PARAMS], *refs = stack_refs;
    char stack_scratch[STACK_SCRATCH], *scratch = stack_scratch;
    size_t refs_cap = STACK_PARAMS, scratch_cap = sizeof stack_scratch;
    /* A long URL: memory sized at once rather than after a failed call, if the router takes a URL that long (one
       it refuses is refused at once with the stack's memory, as LimitError, not sized for first). The limit is
       the one Router.set_limit last set (asking the library cost about 700 instructions a lookup): a stale one
       could only cost a retry, or memory sized up to it, never another outcome. */
    if ((size_t)len <= MAX_URL_LENGTH && LR_SCRATCH_SIZE(len) > scratch_cap && len <= self->url_limit) {
        size_t pieces = 2;  /* parameters are path segments and query pairs: at most one per '/' or '&', + 2 */
        for (Py_ssize_t i = 0; i < len; i++)
            pieces += text[i] == '/' || text[i] == '&';
        scratch_cap = LR_SCRATCH_SIZE(len);
        scratch = heap_scratch = PyMem_Malloc(scratch_cap);
        if (pieces > refs_cap) {
            refs_cap = pieces;
            refs = heap_refs = PyMem_Malloc(refs_cap * sizeof *refs);
        }
        if (!refs || !scratch) {
            PyErr_NoMemory();
            goto done;
        }
    }
    int rc;
    for (;;) {
        lr_router *router = open_router(self->handle);  /* closed by Python code run inside the last call? */
        if (!router)
            goto done;
        rc = lib_resolve_into(router, text, (size_t)len, &res, refs, refs_cap, scratch, scratch_cap);
        if (rc != LR_ELIMIT || (res.needed_params <= refs_cap && res.needed_scratch <= scratch_cap))
            break;  /* a result, or a real limit */
        if (res.needed_params > refs_cap) {
            PyMem_Free(heap_refs);
            refs_cap = res.needed_params;
            refs = heap_refs = refs_cap <= PY_SSIZE_T_MAX / sizeof *refs ? PyMem_Malloc(refs_cap * sizeof *refs) : NULL;
        }
        if (res.needed_scratch > scratch_cap) {
            PyMem_Free(heap_scratch);
            scratch_cap = res.needed_scratch;
            scratch = heap_scratch = PyMem_Malloc(scratch_cap);
        }
        if (!refs || !scratch) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (rc == LR_OK) {
        const RouteSlot *slot = cached_route(self, res.route_id, res.path_param_count);
        if (slot) {
            result = match_from_result(self, slot, &res, refs, url, extra);
            goto done;
        }
    } else if (rc == LR_NOMATCH) {
        result = Py_NewRef(Py_None);
        goto done;
    } else {
        error_for(rc);  /* an error, or a real limit */
        goto done;
    }
    /* A route seen for the first time: its name and metadata are only in the packed result, which is then the
       answer (so a change of table between the two calls cannot mix two states). Python code may have run inside
       lr_router_resolve_into and closed the router: resolve_packed reads it again, and raises ValueError then. */
    PyObject *data = resolve_packed(&self->handle, text, (size_t)len);
    if (data && data != Py_None) {
        result = match_from_packed(self, data, url, extra);
        Py_DECREF(data);
    } else {
        result = data;  /* None (the table changed meanwhile), or NULL with the error */
    }
done:
    if (heap_refs)  /* (only a long URL or a large result has heap memory) */
        PyMem_Free(heap_refs);
    if (heap_scratch)
        PyMem_Free(heap_scratch);
    Py_XDECREF(converted);
    if (entered)
        leave_call(self);
    return result;
}

/* `_enter()` and `_leave()`: a ctypes call on this router (Router._use), counted as resolve counts itself;
   `_leave()` is True when it was the last call and a close() waits (the caller then finishes it). */
static PyObject *core_enter(RouterCore *self, PyObject *unused) {
    (void)unused;
    self->calls++;
    Py_RETURN_NONE;
}

static PyObject *core_leave(RouterCore *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(last_call_ended(self));
}

static PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    RouterCore *self = (RouterCore *)PyType_GenericNew(type, args, kwds);
    if (self)
        self->handle = &no_router;
    return (PyObject *)self;
}

static int core_traverse(RouterCore *self, visitproc visit, void *arg) {
    Py_VISIT(self->h.obj);
    return 0;  /* the route cache holds tuples of str: no cycles */
}

static void core_release_h(RouterCore *self) {
    self->handle = &no_router;
    if (self->h.obj)
        PyBuffer_Release(&self->h);  /* (sets h.obj to NULL) */
}

static int core_clear(RouterCore *self) {
    core_release_h(self);
    cache_clear(&self->routes);
    return 0;
}

static void core_dealloc(RouterCore *self) {
    PyObject_GC_UnTrack(self);
    core_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *core_get_h(RouterCore *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->h.obj ? self->h.obj : Py_None);
}

/* `self._h = c_void_p(...)` opens, `self._h = None` closes: resolve reads the handle inside the c_void_p. */
static int core_set_h(RouterCore *self, PyObject *value, void *closure) {
    (void)closure;
    Py_buffer view = {0};
    if (value && value != Py_None) {
        if (PyObject_GetBuffer(value, &view, PyBUF_FORMAT) < 0)
            goto not_a_pointer;
        size_t n = view.format ? strlen(view.format) : 0;
        if (view.len != (Py_ssize_t)sizeof(lr_router *) || n == 0 || view.format[n - 1] != 'P') {
            PyBuffer_Release(&view);
            goto not_a_pointer;
        }
    }
    Py_buffer old = self->h;  /* released last: freeing it could run code that reads `_h` */
    self->h = view;
    self->handle = view.obj ? (lr_router *const *)view.buf : &no_router;
    if (old.obj)
        PyBuffer_Release(&old);
    return 0;
not_a_pointer:
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, "_h must be a ctypes c_void_p or None");
    return -1;
}

/* `_routes`: a dict copy of the route cache (for tests and a look inside); setting a dict (`self._routes = {}`,
   as Router.clear() does) replaces the cache with its entries. */
static PyObject *core_get_routes(RouterCore *self, void *closure) {
    (void)closure;
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && self->routes.slots && i <= self->routes.mask; i++) {
        RouteSlot *slot = &self->routes.slots[i];
        PyObject *key = slot->info ? PyLong_FromUnsignedLong(slot->route_id) : NULL;
        if (slot->info && (!key || PyDict_SetItem(d, key, slot->info) < 0))
            Py_CLEAR(d);
        Py_XDECREF(key);
    }
    return d;
}

static int core_set_routes(RouterCore *self, PyObject *value, void *closure) {
    (void)closure;
    if (!value || !PyDict_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "_routes must be a dict");
        return -1;
    }
    cache_clear(&self->routes);
    Py_ssize_t pos = 0;
    PyObject *key, *info;
    while (PyDict_Next(value, &pos, &key, &info)) {
        unsigned long id = PyLong_Check(key) ? PyLong_AsUnsignedLong(key) : (unsigned long)-1;
        PyObject *names = PyTuple_CheckExact(info) && PyTuple_GET_SIZE(info) == INFO_SIZE
                          ? PyTuple_GET_ITEM(info, INFO_NAMES) : NULL;
        if (id > UINT32_MAX || !names || !PyTuple_CheckExact(names)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "_routes: route id (int) -> route constants (tuple)");
            return -1;
        }
        if (cache_put(&self->routes, (uint32_t)id, info) < 0)
            return -1;
    }
    return 0;
}

static PyMethodDef core_methods[] = {
    {"resolve", (PyCFunction)(void (*)(void))core_resolve, METH_FASTCALL | METH_KEYWORDS, core_resolve_doc},
    {"_enter", (PyCFunction)core_enter, METH_NOARGS, "a library call on this router begins"},
    {"_leave", (PyCFunction)core_leave, METH_NOARGS, "it ends: True when it was the last and a close() waits"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    {"_h", (getter)core_get_h, (setter)core_set_h, "the lr_router handle (a ctypes c_void_p), None when closed", NULL},
    {"_routes", (getter)core_get_routes, (setter)core_set_routes, "route id -> the route's constants", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef core_members[] = {
    {"_url_limit", Py_T_PYSSIZET, offsetof(RouterCore, url_limit), 0,
     "the router's URL limit, as Router.set_limit last set it: resolve sizes memory ahead for URLs up to it"},
    {"_calls", Py_T_PYSSIZET, offsetof(RouterCore, calls), Py_READONLY, "library calls on this router under way"},
    {"_close_pending", Py_T_BOOL, offsetof(RouterCore, close_pending), 0, "close() waits for the calls to end"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject RouterCoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "linkrouter._speedups.RouterCore",
    .tp_doc = PyDoc_STR("The C half of Router: its handle, its route cache and resolve()."),
    .tp_basicsize = sizeof(RouterCore),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = core_new,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_methods = core_methods,
    .tp_members = core_members,
    .tp_getset = core_getset,
};

/* -- bind ---------------------------------------------------------------------------------------------------- */

PyDoc_STRVAR(bind_doc,
"bind(library_path, error, nested, url_bytes, as_dict, eq, repr, released, drain)\n--\n\n"
"Finds the library functions this module calls in the library the ctypes layer loaded from ``library_path``\n"
"(RTLD_NOLOAD: never a second copy), checks its version against the header this module was built with, and\n"
"records the Python pieces it uses: _native.error, _params.nested, _router._url_bytes, the Match methods\n"
"shared with the ctypes path, and _dispatch.RELEASED (a list) with _dispatch.drain_released, which resolve\n"
"calls when the list is not empty. ImportError when any of that fails; nothing is changed then.");

static PyObject *bind(PyObject *module, PyObject *args) {
    (void)module;
    const char *path;
    PyObject *error, *nested, *to_bytes, *as_dict, *eq, *repr, *let_go, *drain;
    if (!PyArg_ParseTuple(args, "sOOOOOOO!O:bind", &path, &error, &nested, &to_bytes, &as_dict, &eq, &repr,
                          &PyList_Type, &let_go, &drain))
        return NULL;
    void *lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!lib) {
        const char *why = dlerror();
        return PyErr_Format(PyExc_ImportError, "linkrouter._speedups: %s is not loaded in this process%s%s", path,
                            why ? ": " : "", why ? why : "");
    }
    /* POSIX's way to store dlsym's answer in a function pointer (C itself has no such conversion). */
    __typeof__(lr_version_number) *version;
    __typeof__(lr_router_new) *router_new;
    __typeof__(lr_router_add) *router_add;
    __typeof__(lr_router_set_limit) *set_limit;
    __typeof__(lr_router_resolve_into) *into;
    __typeof__(lr_router_resolve_packed) *packed;
    struct { void **fn; const char *name; } symbols[] = {
        {(void **)&version, "lr_version_number"}, {(void **)&router_new, "lr_router_new"},
        {(void **)&router_add, "lr_router_add"}, {(void **)&set_limit, "lr_router_set_limit"},
        {(void **)&into, "lr_router_resolve_into"}, {(void **)&packed, "lr_router_resolve_packed"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        if (!(*symbols[i].fn = dlsym(lib, symbols[i].name))) {
            dlclose(lib);  /* only drops the reference RTLD_NOLOAD took: ctypes still holds the library */
            return PyErr_Format(PyExc_ImportError, "linkrouter._speedups: %s lacks %s", path, symbols[i].name);
        }
    }
    int number = version();
    if (number / 100 != LR_VERSION_NUMBER / 100) {
        dlclose(lib);
        return PyErr_Format(PyExc_ImportError, "linkrouter._speedups: built for library %s, but %s is version %d.%d.%d",
                            LR_VERSION_STRING, path, number / 10000, number / 100 % 100, number % 100);
    }
    if (url_parser) {
        dlclose(lib);
        return PyErr_Format(PyExc_ImportError, "linkrouter._speedups: already bound");
    }
    PyObject *json = PyImport_ImportModule("json"), *loads = json ? PyObject_GetAttrString(json, "loads") : NULL;
    Py_XDECREF(json);
    if (!loads) {
        dlclose(lib);
        return NULL;
    }
    /* The parser of URL parts: CATCH_ALL matches every URL; the largest limits, so that it takes any URL another
       router took. It lives as long as the process, like the library (the handle to it stays open). */
    lr_router *parser = NULL;
    if (router_new(&parser) != LR_OK || router_add(parser, CATCH_ALL, "") != LR_OK
        || set_limit(parser, LR_LIMIT_URL_LENGTH, MAX_URL_LENGTH) != LR_OK
        || set_limit(parser, LR_LIMIT_SEGMENTS, (size_t)1 << 20) != LR_OK
        || set_limit(parser, LR_LIMIT_PARAMS, (size_t)1 << 24) != LR_OK) {
        dlclose(lib);  /* (a parser made before the failure is left: ctypes keeps the library loaded) */
        Py_DECREF(loads);
        return PyErr_Format(PyExc_ImportError, "linkrouter._speedups: could not make the URL parser");
    }
    lib_version_number = version;
    lib_router_new = router_new;
    lib_router_add = router_add;
    lib_router_set_limit = set_limit;
    lib_resolve_into = into;
    lib_resolve_packed = packed;
    url_parser = parser;
    raise_error = Py_NewRef(error);
    nested_params = Py_NewRef(nested);
    url_bytes = Py_NewRef(to_bytes);
    match_as_dict = Py_NewRef(as_dict);
    match_eq = Py_NewRef(eq);
    match_repr = Py_NewRef(repr);
    json_loads = loads;
    released = Py_NewRef(let_go);
    drain_released = Py_NewRef(drain);
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

/* The kept dicts and Matches go with the module, so that a leak checker sees none at exit. */
static void module_free(void *module) {
    (void)module;
    while (spare_dict_count > 0)
        Py_DECREF(spare_dicts[--spare_dict_count]);
    Py_CLEAR(names_pool);
    Py_CLEAR(deepcopy_fn);
    for (int i = 0; i < KEYED_SLOTS; i++) {
        while (keyed[i].count > 0) {
            keyed[i].count--;
            Py_DECREF(keyed[i].dicts[(keyed[i].first + keyed[i].count) % KEYED_DEPTH]);
        }
        Py_CLEAR(keyed[i].names);
    }
    for (int size = 0; size <= FREE_MAX_VALUES; size++)
        while (free_count[size] > 0)
            PyObject_GC_Del(free_matches[size][--free_count[size]]);
}

/* Single-phase, with no Py_mod_gil slot: the caches above (free Matches, spare and kept dicts, the names pool)
   are static state touched only under the GIL, and a free-threaded build turns the GIL back on when this module
   is imported. (Forcing it off with PYTHON_GIL=0 is not supported.) */
static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "linkrouter._speedups",
    .m_doc = PyDoc_STR("Router.resolve and Match in C, over the library the ctypes layer loaded (see _speedups.c)."),
    .m_size = -1,
    .m_methods = module_methods,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    if (!(str_url = PyUnicode_InternFromString("url")) || !(str_extra = PyUnicode_InternFromString("extra"))
        || !(str_update = PyUnicode_InternFromString("update"))
        || !(str_nesting = PyUnicode_InternFromString("_nesting")))
        return NULL;
    if (PyType_Ready(&RouterCoreType) < 0 || PyType_Ready(&MatchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (PyModule_AddObject(m, "RouterCore", Py_NewRef((PyObject *)&RouterCoreType)) < 0
        || PyModule_AddObject(m, "Match", Py_NewRef((PyObject *)&MatchType)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
