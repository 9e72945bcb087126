#include "compare/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment/experiment.h"

/* A private directory for a store nobody asked to keep. */
static int temporary_store(struct compare_session *s, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    int n = snprintf(s->tmpdir, sizeof(s->tmpdir), "%s/netab-compare-XXXXXX", tmp);
    if (n < 0 || (size_t)n >= sizeof(s->tmpdir) - 32)
        return err_set(err, errlen, ENAMETOOLONG, "TMPDIR '%s' is too long", tmp);
    if (!mkdtemp(s->tmpdir)) {
        int e = errno;
        s->tmpdir[0] = '\0';
        return err_set(err, errlen, e, "cannot create a temporary results store in %s: %s", tmp,
                       strerror(e));
    }
    n = snprintf(s->path, sizeof(s->path), "%s/compare.db", s->tmpdir);
    return n < 0 || (size_t)n >= sizeof(s->path)
               ? err_set(err, errlen, ENAMETOOLONG, "TMPDIR '%s' is too long", tmp)
               : 0;
}

int compare_session_open(struct compare_session *s, const struct compare_config *cfg, long rounds,
                         char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    s->seed = cfg->seed;
    int rc = 0;
    if (cfg->db) {
        if (strlen(cfg->db) >= sizeof(s->path))
            return err_set(err, errlen, ENAMETOOLONG, "--db: the path is too long");
        strcpy(s->path, cfg->db);
    } else {
        rc = temporary_store(s, err, errlen);
    }
    if (!rc)
        rc = store_open(s->path, STORE_OPEN_CREATE, &s->db, err, errlen);
    if (!rc)
        rc = compare_experiment(cfg, &s->e, err, errlen);
    if (!rc) {
        /* Borrowed from cfg, so the engine boots and checks the DUT; given back at close. */
        if (cfg->dut) {
            s->e->dut = s->e->duts = (struct exp_dut *)cfg->dut;
            s->e->nduts = 1;
        }
        /* The plan starts with the first look's rounds; campaign_extend() adds the rest. */
        s->e->runs = rounds - s->e->warmup;
        rc = campaign_create(s->db, s->e, NULL, s->seed, &s->id, err, errlen);
    }
    if (rc) {
        compare_session_close(s);
        return rc;
    }
    s->rounds_planned = rounds;
    return 0;
}

int compare_session_run(struct compare_session *s, long through,
                        void (*progress)(const struct campaign_event *ev, const char *msg,
                                         void *arg),
                        void *arg, bool (*stop)(void *arg), int *signo, char *err, size_t errlen)
{
    *signo = 0;
    if (through > s->rounds_planned) {
        int rc = campaign_extend(s->db, s->e, s->id, s->rounds_planned + 1, through, s->seed, err,
                                 errlen);
        if (rc)
            return rc;
        s->rounds_planned = through;
    }
    struct campaign_opts o = {.db = s->db,
                              .db_path = s->path,
                              .id = s->id,
                              .experiment = s->e,
                              .progress = progress,
                              .arg = arg,
                              .stop = stop};
    enum campaign_outcome outcome;
    return campaign_execute(&o, &outcome, signo, err, errlen);
}

/* Removes path + suffix, which may not exist. */
static void remove_file(const char *path, const char *suffix)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof(p), "%s%s", path, suffix);
    (void)unlink(p);
}

void compare_session_close(struct compare_session *s)
{
    if (s->db)
        store_close(s->db);
    s->db = NULL;
    if (s->e) { /* the DUT is cfg->dut's: not ours to free */
        s->e->dut = s->e->duts = NULL;
        s->e->nduts = 0;
    }
    experiment_free(s->e);
    s->e = NULL;
    if (*s->tmpdir) {
        static const char *const suffixes[] = {"", "-wal", "-shm", "-journal", ".lock", ".cpuctl"};
        for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
            remove_file(s->path, suffixes[i]);
        (void)rmdir(s->tmpdir);
        s->tmpdir[0] = '\0';
    }
}
