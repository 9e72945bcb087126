/* The git commands of netab bisect (bisect/git.h). */
#include "bisect/git.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "util/proc.h"
#include "util/words.h"

/* git operations are local; a minute is generous, a hang is still bounded. */
#define GIT_TIMEOUT_S 600.0

/* Appends word, quoted for /bin/sh, to the command line in buf. */
static int append_quoted(char *buf, size_t len, size_t *used, const char *word)
{
    size_t need = words_shell_quote(word, NULL, 0);
    if (*used + need + 2 >= len)
        return -E2BIG;
    buf[(*used)++] = ' ';
    *used += words_shell_quote(word, buf + *used, len - *used);
    return 0;
}

int bisect_git(const char *dir, const char *const *args, char **out, int *status, char *err,
               size_t errlen)
{
    char cmd[8192];
    size_t used = (size_t)snprintf(cmd, sizeof(cmd), "exec git -C");
    int rc = append_quoted(cmd, sizeof(cmd), &used, dir);
    for (size_t i = 0; !rc && args[i]; i++)
        rc = append_quoted(cmd, sizeof(cmd), &used, args[i]);
    if (rc)
        return err_set(err, errlen, E2BIG, "git command line too long");
    struct proc_result r;
    rc = proc_run_shell(cmd, GIT_TIMEOUT_S, NULL, &r, err, errlen);
    if (rc) {
        proc_result_free(&r);
        return rc;
    }
    *status = !r.timed_out && WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
    if (*status == 127) {
        proc_result_free(&r);
        return err_set(err, errlen, ENOENT, "git is not installed (no 'git' in PATH)");
    }
    if (out) {
        *out = r.out;
        r.out = NULL;
    }
    proc_result_free(&r);
    return 0;
}

/* Runs git and insists on exit 0; *out as bisect_git(). what names the step for errors. */
static int git_ok(const char *dir, const char *const *args, char **out, const char *what, char *err,
                  size_t errlen)
{
    int status;
    char *o = NULL;
    int rc = bisect_git(dir, args, &o, &status, err, errlen);
    if (!rc && status != 0) {
        rc = err_set(err, errlen, EIO, "%s: git %s exited with status %d", what, args[0], status);
        free(o);
        o = NULL;
    }
    if (out)
        *out = o;
    else
        free(o);
    return rc;
}

/* Cuts s at its first newline. */
static void first_line(char *s)
{
    s[strcspn(s, "\n")] = '\0';
}

int bisect_git_toplevel(const char *dir, char top[PATH_MAX], char *err, size_t errlen)
{
    const char *a[] = {"rev-parse", "--show-toplevel", NULL};
    char *out = NULL;
    int status;
    int rc = bisect_git(dir, a, &out, &status, err, errlen);
    if (!rc && (status != 0 || !out || !*out))
        rc = err_set(err, errlen, ENOTDIR, "%s is not a git work tree", dir);
    if (!rc) {
        first_line(out);
        if (strlen(out) >= PATH_MAX)
            rc = err_set(err, errlen, ENAMETOOLONG, "the work tree's path is too long");
        else
            strcpy(top, out);
    }
    free(out);
    return rc;
}

int bisect_git_clean(const char *top, char *err, size_t errlen)
{
    const char *a[] = {"status", "--porcelain", "--untracked-files=no", NULL};
    char *out = NULL;
    int rc = git_ok(top, a, &out, "checking the work tree", err, errlen);
    if (!rc && out && *out) {
        char first[256];
        size_t n = strcspn(out, "\n");
        snprintf(first, sizeof(first), "%.*s%s", (int)(n < 200 ? n : 200), out,
                 out[n] && out[n + 1] ? " ..." : "");
        rc = err_set(err, errlen, EBUSY,
                     "the work tree has uncommitted changes (%s); commit or stash them first",
                     first);
    }
    free(out);
    return rc;
}

int bisect_git_commit(const char *top, const char *rev, char hash[BISECT_HASH_LEN + 1], char *err,
                      size_t errlen)
{
    char spec[512];
    if (snprintf(spec, sizeof(spec), "%s^{commit}", rev) >= (int)sizeof(spec) || *rev == '-')
        return err_set(err, errlen, EINVAL, "'%s' is not a commit", rev);
    const char *a[] = {"rev-parse", "--verify", "--quiet", spec, NULL};
    char *out = NULL;
    int status;
    int rc = bisect_git(top, a, &out, &status, err, errlen);
    if (!rc && (status || !out || strlen(out) < BISECT_HASH_LEN))
        rc = err_set(err, errlen, EINVAL, "'%s' is not a commit of %s", rev, top);
    if (!rc) {
        memcpy(hash, out, BISECT_HASH_LEN);
        hash[BISECT_HASH_LEN] = '\0';
    }
    free(out);
    return rc;
}

void bisect_git_subject(const char *top, const char *hash, char *buf, size_t len)
{
    const char *a[] = {"log", "-1", "--format=%s", hash, NULL};
    char *out = NULL, err[NB_ERRLEN];
    buf[0] = '\0';
    if (!git_ok(top, a, &out, "subject", err, sizeof(err)) && out) {
        first_line(out);
        snprintf(buf, len, "%s", out);
    }
    free(out);
}

int bisect_git_ancestor(const char *top, const char *a, const char *b, char *err, size_t errlen)
{
    const char *args[] = {"merge-base", "--is-ancestor", a, b, NULL};
    int status;
    int rc = bisect_git(top, args, NULL, &status, err, errlen);
    if (!rc && status)
        rc = err_set(err, errlen, EINVAL, "GOOD %.12s is not an ancestor of BAD %.12s", a, b);
    return rc;
}

bool bisect_git_bisecting(const char *top)
{
    const char *a[] = {"bisect", "log", NULL};
    int status;
    char err[NB_ERRLEN];
    return !bisect_git(top, a, NULL, &status, err, sizeof(err)) && status == 0;
}

/* The hash of the first "# MARK: [HASH]" line of a bisect log. */
static bool log_mark(const char *log, const char *mark, char hash[BISECT_HASH_LEN + 1])
{
    char pat[32];
    snprintf(pat, sizeof(pat), "# %s: [", mark);
    for (const char *p = log; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (!strncmp(p, pat, strlen(pat)) && strlen(p) > strlen(pat) + BISECT_HASH_LEN) {
            memcpy(hash, p + strlen(pat), BISECT_HASH_LEN);
            hash[BISECT_HASH_LEN] = '\0';
            return true;
        }
    }
    return false;
}

int bisect_git_log_refs(const char *top, char good[BISECT_HASH_LEN + 1],
                        char bad[BISECT_HASH_LEN + 1], char *err, size_t errlen)
{
    const char *a[] = {"bisect", "log", NULL};
    char *out = NULL;
    int status;
    int rc = bisect_git(top, a, &out, &status, err, errlen);
    if (!rc && (status || !out))
        rc = err_set(err, errlen, ENOENT, "no git bisect is in progress in %s", top);
    if (!rc && (!log_mark(out, "good", good) || !log_mark(out, "bad", bad)))
        rc = err_set(err, errlen, ENOENT,
                     "the bisection in %s has no good and bad commit yet; give --good and --bad",
                     top);
    free(out);
    return rc;
}

/* What git's bisect output says: done (first bad), only skipped commits left, or go on. */
static void parse_state(const char *out, struct bisect_git_state *st)
{
    memset(st, 0, sizeof(*st));
    const char *p = out ? strstr(out, " is the first bad commit") : NULL;
    if (p && p - out >= BISECT_HASH_LEN) {
        st->done = true;
        memcpy(st->first_bad, p - BISECT_HASH_LEN, BISECT_HASH_LEN);
        return;
    }
    p = out ? strstr(out, "could be any of:\n") : NULL;
    if (p) {
        st->only_skipped = true;
        p += strlen("could be any of:\n");
        size_t n = strcspn(p, "W"); /* up to "We cannot bisect more!" */
        snprintf(st->candidates, sizeof(st->candidates), "%.*s", (int)n, p);
    }
}

/* Runs a bisect subcommand whose status 2 means "only skipped commits are left". */
static int bisect_cmd(const char *top, const char *const *a, struct bisect_git_state *st, char *err,
                      size_t errlen)
{
    char *out = NULL;
    int status;
    int rc = bisect_git(top, a, &out, &status, err, errlen);
    if (!rc) {
        parse_state(out, st);
        if (status && !st->only_skipped)
            rc = err_set(err, errlen, EIO, "git bisect %s exited with status %d", a[1], status);
    }
    free(out);
    return rc;
}

int bisect_git_start(const char *top, const char *bad, const char *good,
                     struct bisect_git_state *st, char *err, size_t errlen)
{
    const char *a[] = {"bisect", "start", bad, good, "--", NULL};
    return bisect_cmd(top, a, st, err, errlen);
}

int bisect_git_mark(const char *top, const char *mark, const char *hash,
                    struct bisect_git_state *st, char *err, size_t errlen)
{
    const char *a[] = {"bisect", mark, hash, NULL};
    return bisect_cmd(top, a, st, err, errlen);
}

int bisect_git_reset(const char *top, char *err, size_t errlen)
{
    const char *a[] = {"bisect", "reset", NULL};
    return git_ok(top, a, NULL, "leaving the bisection", err, errlen);
}

int bisect_git_export(const char *top, const char *hash, const char *dir, char *err, size_t errlen)
{
    char cmd[3 * PATH_MAX];
    size_t used = (size_t)snprintf(cmd, sizeof(cmd), "set -e; git -C");
    int rc = append_quoted(cmd, sizeof(cmd), &used, top);
    used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, " archive %s | tar -x -C", hash);
    if (!rc && used < sizeof(cmd))
        rc = append_quoted(cmd, sizeof(cmd), &used, dir);
    if (rc || used >= sizeof(cmd))
        return err_set(err, errlen, E2BIG, "path too long");
    struct proc_result r;
    rc = proc_run_shell(cmd, GIT_TIMEOUT_S, NULL, &r, err, errlen);
    if (!rc) {
        char why[NB_ERRLEN];
        proc_describe_failure(&r, GIT_TIMEOUT_S, why, sizeof(why));
        if (*why)
            rc = err_set(err, errlen, EIO, "cannot extract %.12s into %s: %s", hash, dir, why);
    }
    proc_result_free(&r);
    return rc;
}
