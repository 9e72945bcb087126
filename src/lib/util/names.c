/* The rules of names (names.h). */
#include "util/names.h"

#include <errno.h>
#include <string.h>

#include "util/printable.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

bool name_valid(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    return len && len <= NAME_MAX_LEN && strspn(name, NAME_CHARS) == len;
}

bool name_cell_valid(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    return len && len <= NAME_CELL_MAX_LEN && strspn(name, NAME_CHARS "=,") == len;
}

int name_check(const char *what, const char *name, bool cell, char *err, size_t errlen)
{
    if (cell ? name_cell_valid(name) : name_valid(name))
        return 0;
    /* The name is the user's or a file's: shown printable, and cut so the rule still shows. */
    char shown[64];
    printable_copy(shown, sizeof(shown), name);
    if (cell)
        return err_set(err, errlen, EINVAL,
                       "%s '%s' is not a cell name: it may only use letters, digits, '.', '_', "
                       "'-', '=' and ',' (at most %d)",
                       what, shown, NAME_CELL_MAX_LEN);
    return err_set(err, errlen, EINVAL, "%s '%s' %s", what, shown, NAME_RULE);
}
