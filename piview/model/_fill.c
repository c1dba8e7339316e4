/* The per-entry loop of piview.model.store.NodeStore.extend, compiled.
 *
 * NodeStore._extend_py is the reference: this file does what it does, entry by entry, with
 * the same results (every column, table and shared string). An entry whose values are not of
 * the exact types the skeleton decoder makes (a hand-made skeleton, a subclass) is not
 * handled here: fill() stops before it and the caller runs the Python loop for that one entry,
 * then calls fill() again. The fixed-size columns are gathered in C buffers and added to the
 * store's arrays once per chunk; everything else is added to the store's lists and dicts as
 * the Python loop adds it. No Python code of the store runs meanwhile except prepare() (the
 * lookup of shared block lists, built on first use) and a ``get`` of a base mapping that is
 * not a dict.
 *
 * Built by hatch_build.py; piview runs the Python loop when it is absent or stale (see
 * FILL_ABI) or when PIVIEW_PURE is set.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* memmem */
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#define FILL_ABI 4 /* bumped with any change of what fill() takes or does */
#ifndef FILL_SOURCE
#define FILL_SOURCE "" /* hatch_build.py passes the tag of this file (fill.py checks it) */
#endif

#define N_ENTRY 24
#define N_HEAD 5
#define N_REST (N_ENTRY - N_HEAD)
#define N_MSG 14
#define N_ODD 5 /* SkMessage's fields after ``model`` */
#define N_BLOCK 4
#define N_USAGE 8 /* Usage: input output cacheRead cacheWrite cacheWrite1h reasoning totalTokens cost */
#define N_COST 5  /* Cost: input output cacheRead cacheWrite total */
#define TS_LEN 8 /* a timestamp's milliseconds, little-endian (store_ts.py) */
#define ISO_LEN 24
#define OTHER 255
#define F_NO_ID 1
#define F_ERROR_SET 2
#define F_ERROR 4
#define F_WHOLE 32
#define F_NO_PARENT_REF 64
#define NO_CONTENT (-1)
#define TEXT_CONTENT (-2)
#define CHUNK 4096 /* entries gathered in the C buffers between two flushes */

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static PyTypeObject *entry_t, *msg_t, *block_t, *usage_t, *cost_t, *array_t;
static Py_ssize_t entry_off[N_ENTRY], msg_off[N_MSG], block_off[N_BLOCK];
static Py_ssize_t usage_off[N_USAGE], cost_off[N_COST];
static PyObject *rest_defaults[N_REST];
static PyObject *type_code, *role_code, *stop_code, *caught;
static long message_code = -1, last_plain_role = -1;
static PyObject *s_name, *s_prepare, *s_pattern_code, *s_get, *s_frombytes, *s_typecode;
static PyObject *empty_str, *zero, *scratch;
static int ready = 0;

/* ------------------------------------------------------------------ setup */

static int
offsets_of(PyObject *type, Py_ssize_t *out, Py_ssize_t n)
{
    PyObject *fields = PyObject_GetAttrString(type, "__struct_fields__");
    if (fields == NULL)
        return -1;
    if (!PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) != n) {
        Py_DECREF(fields);
        PyErr_SetString(PyExc_TypeError, "unexpected __struct_fields__");
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *descr = PyObject_GetAttr(type, PyTuple_GET_ITEM(fields, k));
        if (descr == NULL) {
            Py_DECREF(fields);
            return -1;
        }
        if (!Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
            Py_DECREF(descr);
            Py_DECREF(fields);
            PyErr_SetString(PyExc_TypeError, "a Struct field is not a member descriptor");
            return -1;
        }
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type != T_OBJECT_EX && member->type != T_OBJECT) {
            Py_DECREF(descr);
            Py_DECREF(fields);
            PyErr_SetString(PyExc_TypeError, "a Struct field is not an object slot");
            return -1;
        }
        out[k] = member->offset;
        Py_DECREF(descr);
    }
    Py_DECREF(fields);
    return 0;
}

static PyObject *
fill_setup(PyObject *module, PyObject *args)
{
    PyObject *et, *mt, *bt, *ut, *ct, *at, *tc, *rc, *sc, *defaults, *exc;
    long mcode, lpr;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!O!O!O!O!ll", &PyType_Type, &et, &PyType_Type,
                          &mt, &PyType_Type, &bt, &PyType_Type, &ut, &PyType_Type, &ct,
                          &PyType_Type, &at,
                          &PyDict_Type, &tc, &PyDict_Type, &rc, &PyDict_Type, &sc,
                          &PyTuple_Type, &defaults, &PyTuple_Type, &exc, &mcode, &lpr))
        return NULL;
    if (PyTuple_GET_SIZE(defaults) != N_REST) {
        PyErr_SetString(PyExc_ValueError, "wrong number of entry defaults");
        return NULL;
    }
    if (offsets_of(et, entry_off, N_ENTRY) < 0 || offsets_of(mt, msg_off, N_MSG) < 0 ||
        offsets_of(bt, block_off, N_BLOCK) < 0 || offsets_of(ut, usage_off, N_USAGE) < 0 ||
        offsets_of(ct, cost_off, N_COST) < 0)
        return NULL;
    ready = 0;
    Py_INCREF(et);
    Py_XSETREF(entry_t, (PyTypeObject *)et);
    Py_INCREF(mt);
    Py_XSETREF(msg_t, (PyTypeObject *)mt);
    Py_INCREF(bt);
    Py_XSETREF(block_t, (PyTypeObject *)bt);
    Py_INCREF(ut);
    Py_XSETREF(usage_t, (PyTypeObject *)ut);
    Py_INCREF(ct);
    Py_XSETREF(cost_t, (PyTypeObject *)ct);
    Py_INCREF(at);
    Py_XSETREF(array_t, (PyTypeObject *)at);
    Py_INCREF(tc);
    Py_XSETREF(type_code, tc);
    Py_INCREF(rc);
    Py_XSETREF(role_code, rc);
    Py_INCREF(sc);
    Py_XSETREF(stop_code, sc);
    Py_INCREF(exc);
    Py_XSETREF(caught, exc);
    for (Py_ssize_t k = 0; k < N_REST; k++) {
        PyObject *d = PyTuple_GET_ITEM(defaults, k);
        Py_INCREF(d);
        Py_XSETREF(rest_defaults[k], d);
    }
    message_code = mcode;
    last_plain_role = lpr;
    ready = 1;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ usage rows */

/* The values of a Usage as its row holds them: usage_row.row_of in C (see that module). */
static PyObject *
usage_row(PyObject *u)
{
    PyObject *c = SLOT(u, usage_off[7]), *cost;
    if (c == Py_None) {
        cost = Py_None;
        Py_INCREF(cost);
    }
    else {
        Py_ssize_t nc = SLOT(c, cost_off[4]) == Py_None ? 4 : 5;
        cost = PyTuple_New(nc);
        if (cost == NULL)
            return NULL;
        for (Py_ssize_t k = 0; k < nc; k++) {
            PyObject *v = SLOT(c, cost_off[k]);
            Py_INCREF(v);
            PyTuple_SET_ITEM(cost, k, v);
        }
    }
    PyObject *vals[8] = {SLOT(u, usage_off[0]), SLOT(u, usage_off[1]), SLOT(u, usage_off[2]),
                         SLOT(u, usage_off[3]), SLOT(u, usage_off[6]), cost,
                         SLOT(u, usage_off[4]), SLOT(u, usage_off[5])};
    Py_ssize_t n = 8;
    while (n > 4 && vals[n - 1] == Py_None) /* trailing fields not set */
        n--;
    PyObject *row = PyTuple_New(n);
    if (row != NULL)
        for (Py_ssize_t k = 0; k < n; k++) {
            Py_INCREF(vals[k]);
            PyTuple_SET_ITEM(row, k, vals[k]);
        }
    Py_DECREF(cost);
    return row;
}

/* ------------------------------------------------------------------ timestamps */

static const int days_in_month[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

/* store_ts.pack_ts in C: 1 and the milliseconds of a timestamp in Pi's exact form
   (2026-06-05T16:01:45.555Z, a real date and time), else 0. */
static int
pack_ts(const unsigned char *t, long long *out)
{
    static const int digit_at[17] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22};
    if (t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':' ||
        t[19] != '.' || t[23] != 'Z')
        return 0;
    for (int k = 0; k < 17; k++)
        if (t[digit_at[k]] < '0' || t[digit_at[k]] > '9')
            return 0;
#define NUM2(p) ((t[p] - '0') * 10 + (t[(p) + 1] - '0'))
    long long y = NUM2(0) * 100 + NUM2(2);
    int mo = NUM2(5), d = NUM2(8), h = NUM2(11), mi = NUM2(14), sec = NUM2(17);
    int ms = (t[20] - '0') * 100 + NUM2(21);
#undef NUM2
    if (y < 1 || mo < 1 || mo > 12 || h > 23 || mi > 59 || sec > 59 || d < 1)
        return 0;
    int leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    if (d > days_in_month[mo] + (mo == 2 && leap))
        return 0;
    /* Howard Hinnant's days_from_civil (y >= 0 here: C's division is the floor one). */
    y -= mo <= 2;
    long long era = y / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = era * 146097 + doe - 719468;
    *out = days * 86400000LL + ((h * 60LL + mi) * 60 + sec) * 1000 + ms;
    return 1;
}

/* ------------------------------------------------------------------ checks */

#define STR_OR_NONE(v) ((v) == Py_None || PyUnicode_CheckExact(v))
#define BOOL_OR_NONE(v) ((v) == Py_None || PyBool_Check(v))

/* 1: the entry is of the types fill() handles; 0: leave it to the Python loop. */
static int
handled(PyObject *sk)
{
    if (!Py_IS_TYPE(sk, entry_t))
        return 0;
    for (int k = 0; k < N_ENTRY; k++)
        if (SLOT(sk, entry_off[k]) == NULL)
            return 0;
    for (int k = 0; k < 4; k++) /* type, id, parentId, timestamp */
        if (!STR_OR_NONE(SLOT(sk, entry_off[k])))
            return 0;
    for (int k = 0; k < N_REST; k++) {
        /* Compared with its default as the Python loop's ``rest != _ENTRY_DEFAULTS`` does:
           only values whose ``==`` is known to have no side effects. */
        PyObject *v = SLOT(sk, entry_off[N_HEAD + k]);
        if (v != rest_defaults[k] && v != Py_None && !PyUnicode_CheckExact(v) &&
            !PyBool_Check(v) && !PyLong_CheckExact(v) && !PyFloat_CheckExact(v) &&
            !Py_IS_TYPE(v, usage_t))
            return 0;
    }
    PyObject *m = SLOT(sk, entry_off[4]);
    if (m == Py_None)
        return 1;
    if (!Py_IS_TYPE(m, msg_t))
        return 0;
    for (int k = 0; k < N_MSG; k++)
        if (SLOT(m, msg_off[k]) == NULL)
            return 0;
    PyObject *content = SLOT(m, msg_off[1]), *usage = SLOT(m, msg_off[2]);
    if (!STR_OR_NONE(SLOT(m, msg_off[0])) || !STR_OR_NONE(SLOT(m, msg_off[3])) ||
        !STR_OR_NONE(SLOT(m, msg_off[4])) || !STR_OR_NONE(SLOT(m, msg_off[5])) ||
        !BOOL_OR_NONE(SLOT(m, msg_off[6])) || !STR_OR_NONE(SLOT(m, msg_off[7])) ||
        !STR_OR_NONE(SLOT(m, msg_off[8])))
        return 0;
    if (usage != Py_None) {
        if (!Py_IS_TYPE(usage, usage_t))
            return 0;
        for (int k = 0; k < N_USAGE; k++)
            if (SLOT(usage, usage_off[k]) == NULL)
                return 0;
        PyObject *cost = SLOT(usage, usage_off[N_USAGE - 1]);
        if (cost != Py_None) {
            if (!Py_IS_TYPE(cost, cost_t))
                return 0;
            for (int k = 0; k < N_COST; k++)
                if (SLOT(cost, cost_off[k]) == NULL)
                    return 0;
        }
    }
    for (int k = N_MSG - N_ODD; k < N_MSG; k++) {
        PyObject *v = SLOT(m, msg_off[k]);
        if (v != Py_None && !PyUnicode_CheckExact(v) && !PyBool_Check(v) &&
            !PyLong_CheckExact(v) && !PyFloat_CheckExact(v))
            return 0;
    }
    if (content == Py_None || PyUnicode_Check(content))
        return 1;
    if (!PyList_CheckExact(content))
        return 0;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(content); j++) {
        PyObject *b = PyList_GET_ITEM(content, j);
        if (!Py_IS_TYPE(b, block_t))
            return 0;
        for (int k = 0; k < N_BLOCK; k++)
            if (SLOT(b, block_off[k]) == NULL)
                return 0;
        if (!STR_OR_NONE(SLOT(b, block_off[0])) || !STR_OR_NONE(SLOT(b, block_off[1])) ||
            !STR_OR_NONE(SLOT(b, block_off[2])) || !BOOL_OR_NONE(SLOT(b, block_off[3])))
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ the store */

typedef struct {
    PyObject *store;
    /* borrowed from the store (it holds them for the call) */
    PyObject *types, *roles, *stops, *flags, *ts, *usage_blob;
    PyObject *parent_at, *models, *content_at, *usage_at, *usage_end, *result_at;
    PyObject *ids, *missing_ids, *model_table, *patterns, *result_ids, *result_names;
    PyObject *forward_refs, *ts_other, *model_code, *texts, *whole, *recent, *open_calls;
    PyObject *canon, *base, *shared;
    PyObject *encode_into; /* borrowed from fill()'s arguments */
    PyObject *prev_own;    /* the id of the entry just added, when it has one (borrowed) */
    PyObject *owned[32]; /* what the attribute lookups returned */
    int n_owned;
    /* the C buffers of one chunk */
    Py_ssize_t n;       /* entries in them */
    Py_ssize_t i0;      /* the index of their first entry */
    Py_ssize_t ends0;   /* len(usage_end) before them */
    Py_ssize_t n_ends;  /* usage rows in them */
    unsigned char *b_types, *b_roles, *b_stops, *b_flags, *b_ts;
    long long *b_parent, *b_ends;
    unsigned int *b_models;
    int *b_content, *b_usage, *b_result;
} Store;

static PyObject *
get(Store *st, const char *name)
{
    PyObject *v = PyObject_GetAttrString(st->store, name);
    if (v != NULL)
        st->owned[st->n_owned++] = v;
    return v;
}

/* 1: ``obj`` is an array of ``code`` whose items are ``size`` bytes. */
static int
is_array(PyObject *obj, const char *code, Py_ssize_t size)
{
    if (!Py_IS_TYPE(obj, array_t))
        return 0;
    PyObject *tc = PyObject_GetAttr(obj, s_typecode);
    if (tc == NULL) {
        PyErr_Clear();
        return 0;
    }
    int ok = PyUnicode_CompareWithASCIIString(tc, code) == 0;
    Py_DECREF(tc);
    PyObject *is = PyObject_GetAttrString(obj, "itemsize");
    if (is == NULL) {
        PyErr_Clear();
        return 0;
    }
    ok = ok && PyLong_AsSsize_t(is) == size;
    Py_DECREF(is);
    PyErr_Clear();
    return ok;
}

/* 1: ready; 0: the store's columns are not what fill() knows (use the Python loop); -1. */
static int
open_store(Store *st, PyObject *store)
{
    memset(st, 0, sizeof(*st));
    st->store = store;
#define GET(field, name)                  \
    if ((st->field = get(st, name)) == NULL) \
        return -1;
    GET(types, "types");
    GET(roles, "roles");
    GET(stops, "stops");
    GET(flags, "flags");
    GET(ts, "ts");
    GET(usage_blob, "usage_blob");
    GET(parent_at, "parent_at");
    GET(models, "models");
    GET(content_at, "content_at");
    GET(usage_at, "usage_at");
    GET(usage_end, "usage_end");
    GET(result_at, "result_at");
    GET(ids, "ids");
    GET(missing_ids, "missing_ids");
    GET(model_table, "model_table");
    GET(patterns, "patterns");
    GET(result_ids, "result_ids");
    GET(result_names, "result_names");
    GET(forward_refs, "forward_refs");
    GET(ts_other, "ts_other");
    GET(model_code, "_model_code");
    GET(texts, "texts");
    GET(whole, "whole");
    GET(recent, "_recent");
    GET(open_calls, "_open_calls");
    GET(canon, "_canon");
    GET(base, "_base");
    GET(shared, "_pattern_code");
#undef GET
    if (!PyByteArray_CheckExact(st->types) || !PyByteArray_CheckExact(st->roles) ||
        !PyByteArray_CheckExact(st->stops) || !PyByteArray_CheckExact(st->flags) ||
        !PyByteArray_CheckExact(st->ts) || !PyByteArray_CheckExact(st->usage_blob))
        return 0;
    if (!PyList_CheckExact(st->ids) || !PyList_CheckExact(st->missing_ids) ||
        !PyList_CheckExact(st->model_table) || !PyList_CheckExact(st->patterns) ||
        !PyList_CheckExact(st->result_ids) || !PyList_CheckExact(st->result_names))
        return 0;
    if (!PyDict_CheckExact(st->forward_refs) || !PyDict_CheckExact(st->ts_other) ||
        !PyDict_CheckExact(st->model_code) || !PyDict_CheckExact(st->texts) ||
        !PyDict_CheckExact(st->whole) || !PyDict_CheckExact(st->recent) ||
        !PyDict_CheckExact(st->open_calls) || !PyDict_CheckExact(st->canon))
        return 0;
    if (st->shared != Py_None && !PyDict_CheckExact(st->shared))
        return 0;
    if (!is_array(st->parent_at, "q", 8) || !is_array(st->models, "I", sizeof(unsigned int)) ||
        !is_array(st->content_at, "i", sizeof(int)) || !is_array(st->usage_at, "i", sizeof(int)) ||
        !is_array(st->usage_end, "q", 8) || !is_array(st->result_at, "i", sizeof(int)))
        return 0;
    if (sizeof(unsigned int) != 4 || sizeof(int) != 4 || sizeof(long long) != 8)
        return 0;
    st->i0 = PyByteArray_GET_SIZE(st->types);
    st->ends0 = PyObject_Length(st->usage_end);
    if (st->ends0 < 0)
        return -1;
    size_t c = CHUNK;
    st->b_types = PyMem_Malloc(c * 4 + c * TS_LEN);
    st->b_parent = PyMem_Malloc(c * 8 * 2);
    st->b_models = PyMem_Malloc(c * 4 * 4);
    if (st->b_types == NULL || st->b_parent == NULL || st->b_models == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    st->b_roles = st->b_types + c;
    st->b_stops = st->b_roles + c;
    st->b_flags = st->b_stops + c;
    st->b_ts = st->b_flags + c;
    st->b_ends = st->b_parent + c;
    st->b_content = (int *)(st->b_models + c);
    st->b_usage = st->b_content + c;
    st->b_result = st->b_usage + c;
    return 1;
}

static void
close_store(Store *st)
{
    PyMem_Free(st->b_types);
    PyMem_Free(st->b_parent);
    PyMem_Free(st->b_models);
    st->b_types = NULL;
    st->b_parent = NULL;
    st->b_models = NULL;
    for (int k = 0; k < st->n_owned; k++)
        Py_DECREF(st->owned[k]);
    st->n_owned = 0;
}

static int
add_bytes(PyObject *col, const void *data, Py_ssize_t len)
{
    Py_ssize_t size = PyByteArray_GET_SIZE(col);
    if (len == 0)
        return 0;
    if (PyByteArray_Resize(col, size + len) < 0)
        return -1;
    memcpy(PyByteArray_AS_STRING(col) + size, data, len);
    return 0;
}

static int
add_items(PyObject *arr, const void *data, Py_ssize_t len)
{
    if (len == 0)
        return 0;
    PyObject *raw = PyBytes_FromStringAndSize(data, len);
    if (raw == NULL)
        return -1;
    PyObject *r = PyObject_CallMethodOneArg(arr, s_frombytes, raw);
    Py_DECREF(raw);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* Add the chunk's buffers to the store's columns. */
static int
flush(Store *st)
{
    Py_ssize_t n = st->n;
    if (add_bytes(st->types, st->b_types, n) < 0 || add_bytes(st->roles, st->b_roles, n) < 0 ||
        add_bytes(st->stops, st->b_stops, n) < 0 || add_bytes(st->flags, st->b_flags, n) < 0 ||
        add_bytes(st->ts, st->b_ts, n * TS_LEN) < 0 ||
        add_items(st->parent_at, st->b_parent, n * 8) < 0 ||
        add_items(st->models, st->b_models, n * 4) < 0 ||
        add_items(st->content_at, st->b_content, n * 4) < 0 ||
        add_items(st->usage_at, st->b_usage, n * 4) < 0 ||
        add_items(st->usage_end, st->b_ends, st->n_ends * 8) < 0 ||
        add_items(st->result_at, st->b_result, n * 4) < 0)
        return -1;
    st->i0 += n;
    st->ends0 += st->n_ends;
    st->n = 0;
    st->n_ends = 0;
    return 0;
}

/* ------------------------------------------------------------------ one entry */

/* ``name`` interned, as sys.intern does (a new reference). */
static PyObject *
interned(PyObject *name)
{
    Py_INCREF(name);
    PyUnicode_InternInPlace(&name);
    return name;
}

/* Every block's name interned in place (``b.name = sys.intern(b.name)``). */
static int
intern_names(PyObject *blocks)
{
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(blocks); j++) {
        PyObject *b = PyList_GET_ITEM(blocks, j);
        PyObject *name = SLOT(b, block_off[2]);
        if (name == Py_None)
            continue;
        PyObject *in = interned(name);
        int rc = in == name ? 0 : PyObject_SetAttr(b, s_name, in);
        Py_DECREF(in);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static PyObject *
block_key(PyObject *b)
{
    return PyTuple_Pack(4, SLOT(b, block_off[0]), SLOT(b, block_off[1]), SLOT(b, block_off[2]),
                        SLOT(b, block_off[3]));
}

/* NodeStore._pattern: the code of a block list (-1 and an exception on error). */
static long
pattern(Store *st, PyObject *blocks)
{
    Py_ssize_t n = PyList_GET_SIZE(blocks);
    int any_id = 0;
    for (Py_ssize_t j = 0; j < n && !any_id; j++)
        any_id = SLOT(PyList_GET_ITEM(blocks, j), block_off[1]) != Py_None;
    if (!any_id) { /* NodeStore._shared_pattern */
        PyObject *key = PyTuple_New(n);
        if (key == NULL)
            return -1;
        for (Py_ssize_t j = 0; j < n; j++) {
            PyObject *k = block_key(PyList_GET_ITEM(blocks, j));
            if (k == NULL) {
                Py_DECREF(key);
                return -1;
            }
            PyTuple_SET_ITEM(key, j, k);
        }
        if (st->shared == Py_None) {
            PyObject *r = PyObject_CallMethodNoArgs(st->store, s_prepare);
            if (r == NULL) {
                Py_DECREF(key);
                return -1;
            }
            Py_DECREF(r);
            PyObject *shared = get(st, "_pattern_code");
            if (shared == NULL || !PyDict_CheckExact(shared)) {
                if (shared != NULL)
                    PyErr_SetString(PyExc_TypeError, "_pattern_code is not a dict");
                Py_DECREF(key);
                return -1;
            }
            st->shared = shared;
        }
        PyObject *found = PyDict_GetItemWithError(st->shared, key);
        if (found != NULL) {
            Py_DECREF(key);
            return PyLong_AsLong(found);
        }
        if (PyErr_Occurred() || intern_names(blocks) < 0) {
            Py_DECREF(key);
            return -1;
        }
        Py_ssize_t code = PyList_GET_SIZE(st->patterns);
        PyObject *code_obj = PyLong_FromSsize_t(code);
        PyObject *tup = code_obj != NULL ? PyList_AsTuple(blocks) : NULL;
        int rc = tup != NULL ? PyDict_SetItem(st->shared, key, code_obj) : -1;
        if (rc == 0)
            rc = PyList_Append(st->patterns, tup);
        Py_XDECREF(code_obj);
        Py_XDECREF(tup);
        Py_DECREF(key);
        return rc < 0 ? -1 : (long)code;
    }
    /* Tool-call ids make a list unique; the other blocks in it are shared through _canon. */
    PyObject *out = PyTuple_New(n);
    if (out == NULL)
        return -1;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *b = PyList_GET_ITEM(blocks, j);
        PyObject *name = SLOT(b, block_off[2]);
        if (name != Py_None) {
            PyObject *in = interned(name);
            int rc = in == name ? 0 : PyObject_SetAttr(b, s_name, in);
            Py_DECREF(in);
            if (rc < 0)
                goto fail;
        }
        PyObject *own = SLOT(b, block_off[1]);
        PyObject *item;
        if (own != Py_None) {
            if (PyDict_SetItem(st->open_calls, own, own) < 0)
                goto fail;
            item = b;
        }
        else {
            PyObject *key = block_key(b);
            if (key == NULL)
                goto fail;
            item = PyDict_SetDefault(st->canon, key, b);
            Py_DECREF(key);
            if (item == NULL)
                goto fail;
        }
        Py_INCREF(item);
        PyTuple_SET_ITEM(out, j, item);
    }
    if (PyList_Append(st->patterns, out) < 0)
        goto fail;
    Py_DECREF(out);
    return (long)(PyList_GET_SIZE(st->patterns) - 1);
fail:
    Py_DECREF(out);
    return -1;
}

static int
code_of(PyObject *table, PyObject *key, long *out)
{
    PyObject *v = PyDict_GetItemWithError(table, key);
    if (v == NULL) {
        if (PyErr_Occurred())
            return -1;
        *out = OTHER;
        return 0;
    }
    *out = PyLong_AsLong(v);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

typedef struct {
    PyObject *provider, *model; /* the last pair looked up (borrowed: the entries hold them) */
    unsigned int code;
} ModelCache;

/* Add entry ``sk`` (checked by handled()) as the Python loop does. */
static int
add(Store *st, PyObject *sk, ModelCache *mc)
{
    Py_ssize_t i = st->i0 + st->n, row = st->n;
    PyObject *own = SLOT(sk, entry_off[1]), *ref = SLOT(sk, entry_off[2]);
    PyObject *t = SLOT(sk, entry_off[3]), *m = SLOT(sk, entry_off[4]);
    PyObject *ix = PyLong_FromSsize_t(i);
    if (ix == NULL)
        return -1;
    unsigned char flags = 0;
    long long p = -1;
    if (own == Py_None) {
        flags = F_NO_ID;
        own = empty_str;
        if (PyList_Append(st->missing_ids, ix) < 0)
            goto fail;
    }
    if (ref == Py_None)
        flags |= F_NO_PARENT_REF;
    else if (st->prev_own != NULL && (ref == st->prev_own ||
                                      (PyUnicode_GET_LENGTH(ref) ==
                                           PyUnicode_GET_LENGTH(st->prev_own) &&
                                       PyUnicode_Compare(ref, st->prev_own) == 0)))
        /* Most entries hang from the one before, which this call just put in ``recent``:
           the lookup would find it (a miss in a big map, the loop's dearest step). */
        p = i - 1;
    else {
        PyObject *pv = PyDict_GetItemWithError(st->recent, ref);
        PyObject *got = NULL; /* a reference from base.get */
        if (pv == NULL && PyErr_Occurred())
            goto fail;
        if (pv == NULL && st->base != Py_None) {
            if (PyDict_CheckExact(st->base)) {
                pv = PyDict_GetItemWithError(st->base, ref);
                if (pv == NULL && PyErr_Occurred())
                    goto fail;
            }
            else {
                got = PyObject_CallMethodOneArg(st->base, s_get, ref);
                if (got == NULL)
                    goto fail;
                pv = got;
            }
        }
        if (pv == NULL || pv == Py_None) {
            if (PyDict_SetItem(st->forward_refs, ix, ref) < 0) {
                Py_XDECREF(got);
                goto fail;
            }
        }
        else {
            p = PyLong_AsLongLong(pv);
            if (p == -1 && PyErr_Occurred()) {
                Py_XDECREF(got);
                goto fail;
            }
        }
        Py_XDECREF(got);
    }
    st->b_parent[row] = p;
    if (PyUnicode_GET_LENGTH(own) > 0) {
        if (PyDict_SetItem(st->recent, own, ix) < 0)
            goto fail;
        st->prev_own = own;
    }
    else
        st->prev_own = NULL;
    if (PyList_Append(st->ids, own) < 0)
        goto fail;
    unsigned char *ts = st->b_ts + row * TS_LEN;
    long long ms;
    if (t != Py_None && PyUnicode_GET_LENGTH(t) == ISO_LEN && PyUnicode_IS_ASCII(t) &&
        pack_ts((const unsigned char *)PyUnicode_DATA(t), &ms)) {
        unsigned long long u = (unsigned long long)ms;
        for (int k = 0; k < TS_LEN; k++, u >>= 8)
            ts[k] = (unsigned char)(u & 0xff);
    }
    else {
        memset(ts, 0, TS_LEN);
        ts[TS_LEN - 1] = 0x80; /* the gap: INT64_MIN (store_ts.GAP_MS) */
        if (PyDict_SetItem(st->ts_other, ix, t) < 0)
            goto fail;
    }
    long tcode, rcode, scode;
    if (code_of(type_code, SLOT(sk, entry_off[0]), &tcode) < 0)
        goto fail;
    st->b_types[row] = (unsigned char)tcode;
    PyObject *mf[N_MSG];
    for (int k = 0; k < N_MSG; k++)
        mf[k] = m != Py_None ? SLOT(m, msg_off[k]) : Py_None;
    PyObject *content = mf[1], *usage = mf[2], *call_id = mf[4], *tool_name = mf[5];
    PyObject *is_error = mf[6], *provider = mf[7], *model = mf[8];
    if (code_of(role_code, mf[0], &rcode) < 0 || code_of(stop_code, mf[3], &scode) < 0)
        goto fail;
    st->b_roles[row] = (unsigned char)rcode;
    st->b_stops[row] = (unsigned char)scode;
    int same_p = PyObject_RichCompareBool(provider, mc->provider, Py_EQ);
    int same_m = same_p > 0 ? PyObject_RichCompareBool(model, mc->model, Py_EQ) : 0;
    if (same_p < 0 || same_m < 0)
        goto fail;
    if (!same_p || !same_m) {
        PyObject *key = PyTuple_Pack(2, provider, model);
        if (key == NULL)
            goto fail;
        PyObject *found = PyDict_GetItemWithError(st->model_code, key);
        long code;
        if (found != NULL)
            code = PyLong_AsLong(found);
        else if (PyErr_Occurred())
            code = -1;
        else {
            Py_ssize_t next = PyList_GET_SIZE(st->model_table);
            PyObject *next_obj = PyLong_FromSsize_t(next);
            int rc = next_obj != NULL ? PyDict_SetItem(st->model_code, key, next_obj) : -1;
            Py_XDECREF(next_obj);
            if (rc == 0)
                rc = PyList_Append(st->model_table, key);
            code = rc < 0 ? -1 : (long)next;
        }
        Py_DECREF(key);
        if (code == -1 && PyErr_Occurred())
            goto fail;
        mc->code = (unsigned int)code;
        mc->provider = provider;
        mc->model = model;
    }
    st->b_models[row] = mc->code;
    if (is_error != Py_None)
        flags |= F_ERROR_SET | (is_error == Py_True ? F_ERROR : 0);
    int is_whole = m == Py_None || tcode != message_code || rcode > last_plain_role ||
                   scode == OTHER;
    for (int k = N_MSG - N_ODD; k < N_MSG && !is_whole; k++)
        is_whole = mf[k] != Py_None;
    for (int k = 0; k < N_REST && !is_whole; k++) {
        int eq = PyObject_RichCompareBool(SLOT(sk, entry_off[N_HEAD + k]), rest_defaults[k],
                                          Py_EQ);
        if (eq < 0)
            goto fail;
        is_whole = !eq;
    }
    if (!is_whole && usage != Py_None) {
        /* Encoded into a scratch buffer, then appended: msgspec grows the buffer it writes
           into to 1.5 times what it needs, and at 1 GB the blob's spare third was 13 MB. */
        PyObject *values = usage_row(usage);
        if (values == NULL)
            goto fail;
        PyObject *r = PyObject_CallFunctionObjArgs(st->encode_into, values, scratch, zero, NULL);
        Py_DECREF(values);
        if (r != NULL) {
            Py_DECREF(r);
            Py_ssize_t mark = PyByteArray_GET_SIZE(st->usage_blob);
            Py_ssize_t len = PyByteArray_GET_SIZE(scratch);
            if (PyByteArray_Resize(st->usage_blob, mark + len) < 0)
                goto fail;
            memcpy(PyByteArray_AS_STRING(st->usage_blob) + mark, PyByteArray_AS_STRING(scratch),
                   (size_t)len);
        }
        else if (PyErr_ExceptionMatches(caught)) {
            /* An integer msgpack cannot hold (hand-edited file): keep the entry whole. */
            PyErr_Clear();
            is_whole = 1;
        }
        else
            goto fail;
    }
    if (is_whole) {
        st->b_content[row] = NO_CONTENT;
        st->b_usage[row] = -1;
        st->b_result[row] = -1;
        st->b_flags[row] = flags | F_WHOLE;
        if (PyDict_SetItem(st->whole, ix, sk) < 0)
            goto fail;
        st->n++;
        Py_DECREF(ix);
        return 0;
    }
    if (content == Py_None)
        st->b_content[row] = NO_CONTENT;
    else if (PyUnicode_Check(content)) {
        st->b_content[row] = TEXT_CONTENT;
        if (PyDict_SetItem(st->texts, ix, content) < 0)
            goto fail;
    }
    else {
        long code = pattern(st, content);
        if (code == -1 && PyErr_Occurred())
            goto fail;
        st->b_content[row] = (int)code;
    }
    if (usage == Py_None)
        st->b_usage[row] = -1;
    else {
        st->b_usage[row] = (int)(st->ends0 + st->n_ends);
        st->b_ends[st->n_ends++] = PyByteArray_GET_SIZE(st->usage_blob);
    }
    if (call_id != Py_None || tool_name != Py_None) {
        st->b_result[row] = (int)PyList_GET_SIZE(st->result_ids);
        /* The call's id string serves the result too (most calls are answered). */
        PyObject *rid;
        if (call_id == Py_None) {
            rid = Py_None;
            Py_INCREF(rid);
        }
        else {
            rid = PyDict_GetItemWithError(st->open_calls, call_id);
            if (rid != NULL) {
                Py_INCREF(rid);
                if (PyDict_DelItem(st->open_calls, call_id) < 0) {
                    Py_DECREF(rid);
                    goto fail;
                }
            }
            else if (PyErr_Occurred())
                goto fail;
            else {
                rid = call_id;
                Py_INCREF(rid);
            }
        }
        int rc = PyList_Append(st->result_ids, rid);
        Py_DECREF(rid);
        if (rc < 0)
            goto fail;
        PyObject *name = tool_name != Py_None && PyUnicode_GET_LENGTH(tool_name) > 0
                             ? interned(tool_name)
                             : (Py_INCREF(tool_name), tool_name);
        rc = PyList_Append(st->result_names, name);
        Py_DECREF(name);
        if (rc < 0)
            goto fail;
    }
    else
        st->b_result[row] = -1;
    st->b_flags[row] = flags;
    st->n++;
    Py_DECREF(ix);
    return 0;
fail:
    Py_DECREF(ix);
    return -1;
}

/* ------------------------------------------------------------------ fill */

static PyObject *
fill_fill(PyObject *module, PyObject *args)
{
    PyObject *store, *seq, *encode_into;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "OOnO", &store, &seq, &start, &encode_into))
        return NULL;
    if (!ready) {
        PyErr_SetString(PyExc_RuntimeError, "_fill.setup() was not called");
        return NULL;
    }
    if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) {
        PyErr_SetString(PyExc_TypeError, "fill() takes a list or a tuple");
        return NULL;
    }
    Store st;
    int ok = open_store(&st, store);
    if (ok <= 0) {
        close_store(&st);
        return ok < 0 ? NULL : PyLong_FromLong(-1);
    }
    st.encode_into = encode_into;
    ModelCache mc = {Py_None, Py_None, 0};
    Py_ssize_t k = start < 0 ? 0 : start;
    /* The length is read each time and the entry held while it is added: a base mapping's
       ``get`` is Python code, which could change the list. */
    for (; k < PySequence_Fast_GET_SIZE(seq); k++) {
        PyObject *sk = PySequence_Fast_GET_ITEM(seq, k);
        if (!handled(sk))
            break;
        Py_INCREF(sk);
        int rc = add(&st, sk, &mc);
        Py_DECREF(sk);
        if (rc < 0 || (st.n == CHUNK && flush(&st) < 0))
            goto fail;
    }
    if (flush(&st) < 0)
        goto fail;
    close_store(&st);
    return PyLong_FromSsize_t(k);
fail: {
    /* The entries added so far are kept whole, as the Python loop leaves them. */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (flush(&st) < 0)
        PyErr_Clear();
    PyErr_Restore(type, value, tb);
    close_store(&st);
    return NULL;
}
}

static int
is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static PyObject *
fill_line_spans(PyObject *module, PyObject *args)
{
    Py_buffer buf;
    Py_ssize_t start, end;
    long long base;
    if (!PyArg_ParseTuple(args, "y*nnL", &buf, &start, &end, &base))
        return NULL;
    if (start < 0 || end > buf.len || start > end) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "bad range");
        return NULL;
    }
    const unsigned char *data = buf.buf;
    Py_ssize_t count = 0;
    for (const unsigned char *at = data + start, *stop = data + end;
         (at = memchr(at, '\n', stop - at)) != NULL; at++)
        count++;
    PyObject *offsets = PyBytes_FromStringAndSize(NULL, count * 8);
    PyObject *lengths = offsets != NULL ? PyBytes_FromStringAndSize(NULL, count * 8) : NULL;
    if (lengths == NULL) {
        Py_XDECREF(offsets);
        PyBuffer_Release(&buf);
        return NULL;
    }
    long long *off = (long long *)PyBytes_AS_STRING(offsets);
    long long *len = (long long *)PyBytes_AS_STRING(lengths);
    int padded = 0;
    Py_ssize_t n = 0, s = start;
    for (const unsigned char *at = data + start, *stop = data + end;
         n < count && (at = memchr(at, '\n', stop - at)) != NULL; at++) {
        Py_ssize_t e = at - data;
        /* As _padded reads it: the first byte and the one before the newline (index -1 is
           the buffer's last byte, as in Python). */
        unsigned char last = e > 0 ? data[e - 1] : data[buf.len - 1];
        padded |= is_ws(data[s]) | is_ws(last);
        off[n] = base + s;
        len[n] = e - s;
        n++;
        s = e + 1;
    }
    PyBuffer_Release(&buf);
    return Py_BuildValue("nNNO", count, offsets, lengths, padded ? Py_True : Py_False);
}

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
/* The first position >= from of needle in data[:end], or -1: 16 positions at a time are
   tested on two of the needle's bytes (the first capital, rare in JSON, and the last), and
   only those matching both are compared whole (memmem is three times slower here). */
static Py_ssize_t
find_next(const char *data, Py_ssize_t from, Py_ssize_t end, const char *nd, Py_ssize_t nl)
{
    Py_ssize_t k1 = 0, k2 = nl - 1, i = from;
    while (k1 < k2 && !(nd[k1] >= 'A' && nd[k1] <= 'Z'))
        k1++;
    if (k1 == k2)
        k1 = 0;
    const __m128i c1 = _mm_set1_epi8(nd[k1]), c2 = _mm_set1_epi8(nd[k2]);
    for (; i + k2 + 16 <= end; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(data + i + k1));
        __m128i b = _mm_loadu_si128((const __m128i *)(data + i + k2));
        unsigned mask = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(a, c1), _mm_cmpeq_epi8(b, c2)));
        while (mask) {
            int bit = __builtin_ctz(mask);
            if (memcmp(data + i + bit, nd, nl) == 0)
                return i + bit;
            mask &= mask - 1;
        }
    }
    for (; i + nl <= end; i++)
        if (memcmp(data + i, nd, nl) == 0)
            return i;
    return -1;
}
#else
static Py_ssize_t
find_next(const char *data, Py_ssize_t from, Py_ssize_t end, const char *nd, Py_ssize_t nl)
{
    const char *at = memmem(data + from, end - from, nd, nl);
    return at != NULL ? at - data : -1;
}
#endif

static PyObject *
fill_find_all(PyObject *module, PyObject *args)
{
    Py_buffer buf, needle;
    Py_ssize_t end;
    long long base;
    if (!PyArg_ParseTuple(args, "y*y*nL", &buf, &needle, &end, &base))
        return NULL;
    PyObject *out = NULL;
    if (end < 0 || end > buf.len || needle.len == 0) {
        PyErr_SetString(PyExc_ValueError, "bad range or empty needle");
        goto done;
    }
    const char *data = buf.buf, *nd = needle.buf;
    Py_ssize_t nl = needle.len, count = 0;
    for (Py_ssize_t at = 0; (at = find_next(data, at, end, nd, nl)) >= 0; at++)
        count++;
    out = PyBytes_FromStringAndSize(NULL, count * 8);
    if (out == NULL)
        goto done;
    long long *pos = (long long *)PyBytes_AS_STRING(out);
    Py_ssize_t n = 0;
    for (Py_ssize_t at = 0; n < count && (at = find_next(data, at, end, nd, nl)) >= 0; at++)
        pos[n++] = base + at;
done:
    PyBuffer_Release(&buf);
    PyBuffer_Release(&needle);
    return out;
}

/* store_ts.unpack_ts of the i-th timestamp of a column, or None for the gap. */
static PyObject *
fill_ts_string(PyObject *module, PyObject *args)
{
    Py_buffer buf;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "y*n", &buf, &i))
        return NULL;
    if (i < 0 || (i + 1) * TS_LEN > buf.len) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_IndexError, "timestamp index out of range");
        return NULL;
    }
    const unsigned char *b = (const unsigned char *)buf.buf + i * TS_LEN;
    unsigned long long u = 0;
    for (int k = TS_LEN - 1; k >= 0; k--)
        u = (u << 8) | b[k];
    PyBuffer_Release(&buf);
    long long v = (long long)u;
    if (u == 0x8000000000000000ULL)
        Py_RETURN_NONE;
    /* Floor divisions: packed values lie in years 1-9999, some before 1970. */
    long long z = v / 86400000LL, rest = v % 86400000LL;
    if (rest < 0) {
        rest += 86400000LL;
        z -= 1;
    }
    z += 719468; /* Hinnant's civil_from_days; z >= 0 from year 1 on */
    long long era = z / 146097, doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long d = doy - (153 * mp + 2) / 5 + 1;
    long long m = mp < 10 ? mp + 3 : mp - 9;
    long long y = yoe + era * 400 + (m <= 2);
    long long ms = rest % 1000, sec = rest / 1000;
    char out[ISO_LEN + 1];
    snprintf(out, sizeof out, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", y, m, d,
             sec / 3600, sec / 60 % 60, sec % 60, ms);
    return PyUnicode_FromStringAndSize(out, ISO_LEN);
}

static PyMethodDef methods[] = {
    {"ts_string", fill_ts_string, METH_VARARGS,
     "ts_string(column, i) -> str | None: the i-th timestamp of NodeStore.ts as written "
     "(store_ts.unpack_ts), None for the gap."},
    {"setup", fill_setup, METH_VARARGS,
     "setup(SkEntry, SkMessage, SkBlock, Usage, Cost, array, type_code, role_code, stop_code, "
     "entry_defaults, caught, message_code, last_plain_role): what fill() reads entries with."},
    {"fill", fill_fill, METH_VARARGS,
     "fill(store, entries, start, encode_into) -> int: add entries[start:] to the store as "
     "NodeStore._extend_py does; stop before the first one it does not handle and return its "
     "index (len(entries) when done), or -1 when the store's columns are not of known types "
     "(nothing added)."},
    {"line_spans", fill_line_spans, METH_VARARGS,
     "line_spans(buf, start, end, base) -> (count, offsets, lengths, padded): the lines of "
     "buf[start:end] (each ending with a newline): their file positions (buf read at base) "
     "and lengths as native 64-bit integers, and whether one starts or ends with a space, "
     "tab or CR."},
    {"find_all", fill_find_all, METH_VARARGS,
     "find_all(buf, needle, end, base) -> bytes: base plus every position of needle in "
     "buf[:end] (overlapping ones too), as native 64-bit integers."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_fill",
    "The per-entry loop of NodeStore.extend, compiled (see piview/model/store.py).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__fill(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "ABI", FILL_ABI) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE", FILL_SOURCE) < 0)
        goto fail;
#define INTERN(var, text)                                \
    if ((var = PyUnicode_InternFromString(text)) == NULL) \
        goto fail;
    INTERN(s_name, "name");
    INTERN(s_prepare, "prepare");
    INTERN(s_pattern_code, "_pattern_code");
    INTERN(s_get, "get");
    INTERN(s_frombytes, "frombytes");
    INTERN(s_typecode, "typecode");
#undef INTERN
    if ((empty_str = PyUnicode_New(0, 0)) == NULL ||
        (zero = PyLong_FromLong(0)) == NULL || (scratch = PyByteArray_FromStringAndSize(NULL, 0)) == NULL)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
