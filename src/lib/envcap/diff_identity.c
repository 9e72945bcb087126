/*
 * env_identity_notes(): what two build identities say when their kernel
 * releases are the same: that the builds differ all the same. A reader
 * who sees one `uname -r` on both sides would otherwise take them for one
 * kernel.
 */
#include "envcap/envcap.h"

#include <stdio.h>
#include <string.h>

/* The string member key of o, or NULL when o is not an object or key is not a string. */
static const char *member(const json_t *o, const char *key)
{
    return json_is_object(o) ? json_string_value(json_object_get(o, key)) : NULL;
}

/* Both known and different. */
static int differ(const char *x, const char *y)
{
    return x && y && strcmp(x, y);
}

static void note(json_t *out, const char *text)
{
    json_array_append_new(out, json_string(text));
}

/* The module sentences: only when both ends name the same module. */
static void module_notes(json_t *out, const json_t *ma, const json_t *mb, const char *end,
                         const char *release)
{
    const char *name = member(ma, "name"), *nb = member(mb, "name");
    char text[1024];
    if (!name || !nb || strcmp(name, nb))
        return;
    const char *sa = member(ma, "srcversion"), *sb = member(mb, "srcversion");
    if (differ(sa, sb)) {
        snprintf(text, sizeof(text),
                 "%s: same kernel release %s, module %s has different srcversions: %s vs %s", end,
                 release, name, sa, sb);
        note(out, text);
    }
    const char *ba = member(ma, "build_id"), *bb = member(mb, "build_id");
    if (differ(ba, bb)) {
        snprintf(text, sizeof(text),
                 "%s: same kernel release %s, module %s has different build IDs: %s vs %s", end,
                 release, name, ba, bb);
        note(out, text);
    }
}

json_t *env_identity_notes(const json_t *a, const json_t *b, const char *end)
{
    json_t *out = json_array();
    const char *ra = member(a, "release"), *rb = member(b, "release");
    char text[1024];
    if (!out || !ra || !rb || strcmp(ra, rb))
        return out;
    const char *ba = member(a, "build_id"), *bb = member(b, "build_id");
    if (differ(ba, bb)) {
        snprintf(text, sizeof(text), "%s: same kernel release %s, different build IDs: %s vs %s",
                 end, ra, ba, bb);
        note(out, text);
    }
    const char *ca = member(a, "config_sha256"), *cb = member(b, "config_sha256");
    if (differ(ca, cb)) {
        snprintf(text, sizeof(text),
                 "%s: same kernel release %s, different kernel configs (SHA-256 %.12s vs %.12s)",
                 end, ra, ca, cb);
        note(out, text);
    }
    module_notes(out, json_object_get(a, "module"), json_object_get(b, "module"), end, ra);
    return out;
}
