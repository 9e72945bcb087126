/* The trees of a bisection and their builds (bisect/tree.h). */
#include "bisect/tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/proc.h"
#include "util/words.h"

/* The last n lines of text into buf, joined by " | " for one message. */
static void last_lines(const char *text, int n, char *buf, size_t len)
{
    size_t l = strlen(text);
    while (l && text[l - 1] == '\n')
        l--;
    size_t start = l;
    for (int seen = 0; start > 0; start--)
        if (text[start - 1] == '\n' && ++seen == n)
            break;
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = start; i < l && used + 3 < len; i++) {
        if (text[i] == '\n') {
            used += (size_t)snprintf(buf + used, len - used, " | ");
            continue;
        }
        buf[used++] = text[i];
        buf[used] = '\0';
    }
}

int bisect_tree_build(const char *build, double timeout_s, const char *dir, const char *hash,
                      const volatile sig_atomic_t *stop, char *why, size_t whylen, char *err,
                      size_t errlen)
{
    if (!build)
        return 0;
    char cmd[PATH_MAX * 2 + 4096], env0[64];
    size_t used = (size_t)snprintf(cmd, sizeof(cmd), "cd ");
    used += words_shell_quote(dir, cmd + used, sizeof(cmd) - used);
    if (snprintf(cmd + used, sizeof(cmd) - used, " && { %s\n} 2>&1", build) >=
        (int)(sizeof(cmd) - used))
        return err_set(err, errlen, E2BIG, "--build: the command is too long");
    snprintf(env0, sizeof(env0), "NETAB_BISECT_COMMIT=%s", hash);
    char *env[] = {env0, NULL};
    struct proc_result r;
    int rc = proc_run_shell_env(cmd, env, timeout_s, stop, &r, err, errlen);
    if (!rc && !r.interrupted) {
        char desc[NB_ERRLEN], tail[600];
        proc_describe_failure(&r, timeout_s, desc, sizeof(desc));
        if (*desc) {
            last_lines(r.out ? r.out : "", 5, tail, sizeof(tail));
            snprintf(why, whylen, "build failed (%s): %s", desc, tail);
            rc = 1;
        }
    }
    if (!rc && r.interrupted)
        rc = err_set(err, errlen, EINTR, "interrupted during the build");
    proc_result_free(&r);
    return rc;
}

int bisect_trees_make(struct bisect_trees *t, char *err, size_t errlen)
{
    const char *d = getenv("TMPDIR");
    if (!d || !*d)
        d = "/tmp";
    if (snprintf(t->tmp, sizeof(t->tmp), "%s/netab-bisect-XXXXXX", d) >= (int)sizeof(t->tmp) - 8)
        return err_set(err, errlen, ENAMETOOLONG, "TMPDIR is too long");
    if (!mkdtemp(t->tmp)) {
        int e = errno;
        t->tmp[0] = '\0';
        return err_set(err, errlen, e, "cannot create a directory in %s: %s", d, strerror(e));
    }
    snprintf(t->good, sizeof(t->good), "%s/good", t->tmp);
    snprintf(t->bad, sizeof(t->bad), "%s/bad", t->tmp);
    return 0;
}

void bisect_trees_remove(struct bisect_trees *t)
{
    if (!*t->tmp)
        return;
    char cmd[PATH_MAX + 16] = "rm -rf ";
    words_shell_quote(t->tmp, cmd + 7, sizeof(cmd) - 7);
    struct proc_result r;
    char err[NB_ERRLEN];
    if (!proc_run_shell(cmd, 600, NULL, &r, err, sizeof(err)))
        proc_result_free(&r);
    t->tmp[0] = '\0';
}
