/*
 * Text of the environment snapshot for `netab env`: moved from the CLI,
 * which keeps the argument handling.
 */
#include "envcap/print.h"
#include "envcap/envcap.h"
#include "measure/identity.h"
#include "util/jsonout.h"

#include <errno.h>
#include <stdlib.h>

/* The leaves of v as "path value" lines, one per fact. */
static void print_flat(FILE *f, const char *prefix, const json_t *v)
{
    char path[512];
    if (json_is_object(v) && json_object_size(v)) {
        const char *k;
        json_t *c;
        json_object_foreach((json_t *)v, k, c)
        {
            snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k);
            print_flat(f, path, c);
        }
    } else if (json_is_array(v) && json_array_size(v)) {
        size_t i;
        json_t *c;
        json_array_foreach(v, i, c)
        {
            snprintf(path, sizeof(path), "%s[%zu]", prefix, i);
            print_flat(f, path, c);
        }
    } else {
        char *s = jsonout_display(v);
        fprintf(f, "%-44s %s\n", prefix, s ? s : "?");
        free(s);
    }
}

json_t *env_document(const char *ifname, const char *sysfs_root, const char *procfs_root)
{
    json_t *env = env_capture(ifname, sysfs_root, procfs_root);
    json_t *warn = env ? env_warnings(env) : NULL;
    json_t *doc = warn ? json_pack("{s:O, s:O}", "environment", env, "warnings", warn) : NULL;
    json_decref(warn);
    json_decref(env);
    return doc;
}

int env_print_text(FILE *f, const json_t *env, const json_t *warn)
{
    print_flat(f, "", env);
    size_t i;
    json_t *w;
    fprintf(f, "\nwarnings:%s\n", json_array_size(warn) ? "" : " none");
    json_array_foreach(warn, i, w) fprintf(f, "  - %s\n", json_string_value(w));
    return ferror(f) ? -EIO : 0;
}

int env_print_identity(FILE *f, const char *ifname)
{
    /* Large (build IDs, the command line, module facts): not on the stack. */
    struct identity *id = malloc(sizeof(*id));
    if (!id)
        return -ENOMEM;
    identity_capture(id, NULL, ifname);
    identity_write_text(id, f);
    free(id);
    return fflush(f) || ferror(f) ? -EIO : 0;
}
