#include "cli/cli_stats_sets.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* True if s[0..len-1] is a NAME (see the header). */
static bool is_name(const char *s, size_t len)
{
    if (len == 0 || len > CLI_SET_NAME_MAX || s[0] == '-')
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}

static bool exists(const char *path)
{
    return !strcmp(path, "-") || access(path, F_OK) == 0;
}

int cli_stats_split_set(const char *arg, char *name, const char **path, char *err, size_t errlen)
{
    name[0] = '\0';
    *path = arg;
    const char *eq = strchr(arg, '=');
    if (!eq || !is_name(arg, (size_t)(eq - arg)))
        return 0;
    size_t nlen = (size_t)(eq - arg);
    const char *file = eq + 1;
    bool whole = exists(arg), part = *file && exists(file);
    if (whole && part)
        return err_set(err, errlen, EINVAL,
                       "'%s' is both a file and the set %.*s from the file %s; write ./%s for the "
                       "file or %.*s=./%s for the named set",
                       arg, (int)nlen, arg, file, arg, (int)nlen, arg, file);
    if (whole)
        return 0; /* a file whose name holds '=' */
    if (!*file)
        return err_set(err, errlen, EINVAL, "'%s' names the set %.*s but no file after '='", arg,
                       (int)nlen, arg);
    memcpy(name, arg, nlen);
    name[nlen] = '\0';
    *path = file;
    return 0;
}
