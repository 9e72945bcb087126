/* The experiments `netab experiment resume --all` resumes (resume_all.h). */
#include "campaign/resume_all.h"

#include <string.h>

int campaign_resume_all(struct store *db, campaign_resume_fn resume, void *arg, size_t *resumed,
                        char *err, size_t errlen)
{
    struct store_experiment *x;
    size_t n;
    *resumed = 0;
    int rc = store_experiment_list(db, &x, &n, err, errlen);
    if (rc)
        return rc;
    /* A finished experiment has nothing left; a failed or stopped one is picked up. */
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(x[i].status, "done"))
            continue;
        ++*resumed;
        if (!resume(arg, x[i].id, x[i].name))
            break;
    }
    store_experiment_list_free(x, n);
    return 0;
}
