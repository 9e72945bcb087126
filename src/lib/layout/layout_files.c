/* The two builds of `netab layout` read and compared (layout_files.h). */
#include "layout/layout_files.h"

#include <errno.h>

int layout_files_compare(const char *old_path, const char *new_path, const struct layout_hot *hot,
                         unsigned line, struct layout_files *f, char *err, size_t errlen)
{
    *f = (struct layout_files){0};
    int rc = symtab_load(old_path, &f->old, err, errlen);
    if (!rc)
        rc = symtab_load(new_path, &f->new, err, errlen);
    if (rc)
        goto fail;
    /* The CLI checks the line size first, so in practice only memory fails here. */
    rc = layout_diff_build(&f->old, &f->new, hot, line, &f->diff);
    if (rc) {
        err_set(err, errlen, -rc,
                rc == -ENOMEM ? "out of memory" : "line size %u is not a power of two", line);
        goto fail;
    }
    return 0;
fail:
    layout_files_free(f);
    return rc;
}

void layout_files_free(struct layout_files *f)
{
    layout_diff_free(&f->diff);
    symtab_free(&f->old);
    symtab_free(&f->new);
    *f = (struct layout_files){0};
}
