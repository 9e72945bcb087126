/* env_diff(): the leaves that differ between two environment snapshots. */
#include "envcap/envcap.h"

#include <stdio.h>
#include <string.h>

/*
 * Facts that change from one second to the next and say nothing about the
 * configuration: load, current clock speed, other processes.
 */
const char *const env_diff_ignored[] = {
    "/load",
    "/cpufreq/cur_mhz",
    "/cpufreq/per_cpu/*/cur_mhz",
    "/noise_processes",
    "/test_processes",
    NULL,
};

/* Appends one RFC 6901 segment (escaping '~' and '/') to path. Returns 0, or -1 if too long. */
static int push(char *path, size_t len, const char *seg)
{
    size_t u = strlen(path);
    if (u + 1 >= len)
        return -1;
    path[u++] = '/';
    for (; *seg; seg++) {
        const char *rep = *seg == '~' ? "~0" : *seg == '/' ? "~1" : NULL;
        size_t need = rep ? 2 : 1;
        if (u + need >= len)
            return -1;
        if (rep) {
            memcpy(path + u, rep, 2);
        } else {
            path[u] = *seg;
        }
        u += need;
    }
    path[u] = '\0';
    return 0;
}

/* Does pattern (with "*" segments) equal path or a prefix of it ending at a segment boundary? */
static int ignored(const char *path)
{
    for (const char *const *p = env_diff_ignored; *p; p++) {
        const char *a = *p, *b = path;
        while (*a) {
            if (a[0] == '*' && (a[1] == '/' || a[1] == '\0') && a[-1] == '/') {
                a++;
                while (*b && *b != '/')
                    b++;
                continue;
            }
            if (*a != *b)
                break;
            a++;
            b++;
        }
        if (!*a && (*b == '\0' || *b == '/'))
            return 1;
    }
    return 0;
}

/* Collects path -> leaf of v into leaves; arrays are indexed by position. */
static void flatten(const json_t *v, char *path, size_t len, json_t *leaves)
{
    size_t mark = strlen(path);
    if (json_is_object(v) && json_object_size(v) > 0) {
        const char *k;
        json_t *c;
        json_object_foreach((json_t *)v, k, c)
        {
            if (push(path, len, k) == 0 && !ignored(path))
                flatten(c, path, len, leaves);
            path[mark] = '\0';
        }
    } else if (json_is_array(v) && json_array_size(v) > 0) {
        size_t i;
        json_t *c;
        json_array_foreach(v, i, c)
        {
            char idx[32];
            snprintf(idx, sizeof(idx), "%zu", i);
            if (push(path, len, idx) == 0 && !ignored(path))
                flatten(c, path, len, leaves);
            path[mark] = '\0';
        }
    } else if (!ignored(path)) {
        json_object_set(leaves, path, (json_t *)v);
    }
}

static json_t *row(const char *path, json_t *a, json_t *b)
{
    return json_pack("{s:s, s:O, s:O}", "path", path, "a", a ? a : json_null(), "b",
                     b ? b : json_null());
}

json_t *env_diff(const json_t *a, const json_t *b)
{
    char path[2048] = "";
    json_t *fa = json_object(), *fb = json_object(), *out = json_array();
    const char *k;
    json_t *va;

    if (!fa || !fb || !out) {
        json_decref(out);
        out = NULL;
        goto done;
    }
    if (a)
        flatten(a, path, sizeof(path), fa);
    path[0] = '\0';
    if (b)
        flatten(b, path, sizeof(path), fb);
    json_object_foreach(fa, k, va)
    {
        json_t *vb = json_object_get(fb, k);
        if (!vb || !json_equal(va, vb))
            json_array_append_new(out, row(k, va, vb));
    }
    json_object_foreach(fb, k, va)
    {
        if (!json_object_get(fa, k))
            json_array_append_new(out, row(k, NULL, va));
    }
done:
    json_decref(fa);
    json_decref(fb);
    return out;
}
