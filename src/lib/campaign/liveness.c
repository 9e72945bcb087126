/*
 * Is a campaign running? The runner records itself in the store (pid, host,
 * boot, a heartbeat before and after every run, how it ended:
 * store_runner.h) and holds the store's lock (runner.c) while it runs. A
 * reader believes a campaign runs only when both say so: the newest runner
 * row has not ended, the store's lock is held, and (on the same host and
 * boot) its pid is alive. The status column alone said "running" after a
 * kill -9. See docs/campaign.md, "Status".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "campaign/campaign_priv.h"

/* This machine's host name and boot ID ("" when unknown). */
static void whoami(char *host, size_t hlen, char *boot, size_t blen)
{
    if (gethostname(host, hlen))
        *host = '\0';
    host[hlen - 1] = '\0';
    *boot = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (f) {
        if (fgets(boot, (int)blen, f))
            boot[strcspn(boot, "\n")] = '\0';
        fclose(f);
    }
}

int campaign_runner_begin(struct campaign_ctx *c, char *err, size_t errlen)
{
    const struct campaign_opts *o = c->opts;
    struct store_runner last;
    bool found = false;
    char why[NB_ERRLEN * 2] = "runner vanished";
    int rc = store_runner_last(o->db, o->id, &last, &found, err, errlen);
    if (rc)
        return rc;
    /* A runner that never recorded its end vanished (kill -9, a crash, power loss). */
    if (found && !last.ended) {
        snprintf(why, sizeof(why), "runner vanished (pid %ld on %s; its last heartbeat %s)",
                 last.pid, last.host, last.heartbeat);
        rc = store_runner_end(o->db, last.id, "vanished (found at resume)", err, errlen);
    }
    if (found)
        store_runner_free(&last);
    if (!rc)
        rc = store_mark_interrupted(o->db, o->id, why, NULL, err, errlen);
    char host[256], boot[64];
    whoami(host, sizeof(host), boot, sizeof(boot));
    if (!rc)
        rc = store_runner_begin(o->db, o->id, (long)getpid(), host, *boot ? boot : NULL,
                                &c->runner_id, err, errlen);
    return rc;
}

int campaign_runner_beat(struct campaign_ctx *c, char *err, size_t errlen)
{
    return c->runner_id ? store_runner_beat(c->opts->db, c->runner_id, err, errlen) : 0;
}

void campaign_runner_end(struct campaign_ctx *c, int rc, enum campaign_outcome outcome, int sig,
                         const char *why)
{
    char reason[NB_ERRLEN * 2], err[NB_ERRLEN];
    if (!c->runner_id)
        return;
    if (rc)
        snprintf(reason, sizeof(reason), "stopped by an error: %s", why);
    else if (sig)
        snprintf(reason, sizeof(reason), "interrupted by signal %d (%s)", sig, strsignal(sig));
    else if (outcome == CAMPAIGN_COMPLETE)
        snprintf(reason, sizeof(reason), "complete");
    else
        snprintf(reason, sizeof(reason), "handed over to a reboot");
    /* Nothing more can be done if even this write fails; status then says "vanished". */
    if (store_runner_end(c->opts->db, c->runner_id, reason, err, sizeof(err)))
        return;
}

/*
 * Is the store's lock (db_path.lock) held? 1 held, 0 free (or no lock file),
 * -1 unknown. A shared lock taken and dropped at once cannot be had while
 * a runner holds its exclusive one; a runner starting in that instant
 * retries (runner.c).
 */
static int lock_held(const char *db_path)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s.lock", db_path) >= (int)sizeof(path))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    int held = 0;
    if (flock(fd, LOCK_SH | LOCK_NB))
        held = errno == EWOULDBLOCK ? 1 : -1;
    close(fd);
    return held;
}

/* Decides s->state and s->alive from the runner row, the lock and the process table. */
static void judge(struct campaign_status *s, struct store *db, const char *db_path, int64_t id,
                  const char *column)
{
    char host[256], boot[64];
    whoami(host, sizeof(host), boot, sizeof(boot));
    const struct store_runner *r = &s->runner;
    bool here = s->has_runner && !strcmp(r->host ? r->host : "", host);
    s->same_boot = here && r->boot_id && !strcmp(r->boot_id, boot);
    /* A server store's runner holds its experiment's lock in the database. */
    int lock = store_is_server(db) ? store_campaign_lock_held(db, id) : lock_held(db_path);
    if (s->has_runner && !r->ended) {
        if (s->same_boot)
            s->alive = lock != 0 && (kill((pid_t)r->pid, 0) == 0 || errno == EPERM);
        else
            s->alive = !here && lock != 0; /* another host: only its lock and row can say */
    }
    if (!strcmp(column, "done"))
        s->state = CAMPAIGN_STATE_DONE;
    else if (s->alive)
        s->state = CAMPAIGN_STATE_RUNNING;
    else if (!s->has_runner && !s->has_last_run)
        s->state = CAMPAIGN_STATE_PLANNED;
    else
        s->state = CAMPAIGN_STATE_STOPPED;
}

int campaign_status_get(struct store *db, const char *db_path, int64_t id, const char *column,
                        struct campaign_status *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    int rc = store_runner_last(db, id, &s->runner, &s->has_runner, err, errlen);
    if (!rc)
        rc = store_last_run_get(db, id, &s->last_run, &s->has_last_run, err, errlen);
    if (rc) {
        campaign_status_free(s);
        return rc;
    }
    judge(s, db, db_path, id, column ? column : "");
    return 0;
}

void campaign_status_free(struct campaign_status *s)
{
    if (s->has_runner)
        store_runner_free(&s->runner);
    if (s->has_last_run)
        store_last_run_free(&s->last_run);
    memset(s, 0, sizeof(*s));
}
