/*
 * campaign_preflight(): can this plan run here? The one decision that
 * `netab experiment validate` prints and `run`/`resume` obey before their
 * first run (docs/campaign.md, "Before the first run").
 */
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "campaign/campaign_priv.h"
#include "runspec/run_spec.h"

/* Appends one finding unless the same one is there already. Returns 0 or -ENOMEM. */
static int add(struct campaign_findings *f, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int add(struct campaign_findings *f, bool error, const char *fmt, ...)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        struct campaign_finding *v = realloc(f->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        f->v = v;
        f->cap = cap;
    }
    struct campaign_finding *x = &f->v[f->n];
    x->error = error;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
    va_end(ap);
    /* The cells of a matrix repeat a variant's findings: say each once. */
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].msg, x->msg))
            return 0;
    f->n++;
    f->errors += error;
    return 0;
}

void campaign_findings_free(struct campaign_findings *f)
{
    free(f->v);
    memset(f, 0, sizeof(*f));
}

/*
 * CPU-constrained settings against this machine: cpuctl_check()'s refusal
 * is an error (the words run has always used); cpus: equal to the CPUs
 * online is a warning, since it changes nothing.
 */
static int check_cpus(const struct experiment *e, struct campaign_findings *f)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int rc = 0;
    for (size_t i = 0; !rc && i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        char why[NB_ERRLEN];
        if (!v->cpus && !v->max_freq_mhz)
            continue;
        if (cpuctl_check(v->cpus, v->max_freq_mhz, why, sizeof(why)))
            rc = add(f, true, "variant %s: %s", v->name, why);
        else if (v->cpus && v->cpus == online)
            rc = add(f, false,
                     "variant %s: cpus: %d is the number of CPUs online here, so it changes "
                     "nothing (no CPU is taken offline)",
                     v->name, v->cpus);
    }
    return rc;
}

/* Shell words that are no program on PATH: builtins and reserved words. */
static const char *const shell_words[] = {
    ":",     ".",       "[",      "[[",     "!",       "{",        "(",        "alias",
    "bg",    "break",   "case",   "cd",     "command", "continue", "echo",     "eval",
    "exec",  "exit",    "export", "false",  "fg",      "for",      "getopts",  "hash",
    "if",    "jobs",    "kill",   "printf", "pwd",     "read",     "readonly", "return",
    "set",   "shift",   "test",   "times",  "trap",    "true",     "type",     "ulimit",
    "umask", "unalias", "unset",  "until",  "wait",    "while",    NULL};

/* Is word a program this process would find: a path that is executable, or a name on PATH? */
static bool on_path(const char *word)
{
    if (strchr(word, '/'))
        return access(word, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char full[4096];
        if (snprintf(full, sizeof(full), "%.*s/%s", (int)len, len ? p : ".", word) <
                (int)sizeof(full) &&
            access(full, X_OK) == 0)
            return true;
        p += len + (end ? 1 : 0);
    }
    return false;
}

/*
 * A hook (or cmd:) whose first word is not a program found on PATH, nor a
 * shell builtin, reserved word or assignment: a warning, since a setup
 * hook may install what a later one runs.
 */
static int check_command(struct campaign_findings *f, const char *where, const char *what,
                         const char *cmd)
{
    char **words = NULL, why[NB_ERRLEN];
    size_t n = 0;
    if (!cmd || exp_split_words(cmd, &words, &n, why, sizeof(why)))
        return 0; /* shell syntax beyond plain words: the shell will judge it */
    int rc = 0;
    const char *w = n ? words[0] : NULL;
    bool skip = !w || strchr(w, '=') || strchr(w, '$') || strchr(w, '`') || strchr(w, '(');
    for (const char *const *s = shell_words; !skip && *s; s++)
        skip = !strcmp(w, *s);
    if (!skip && !on_path(w))
        rc = add(f, false, "%s%s: '%s' is not %s", where, what, w,
                 strchr(w, '/') ? "an executable file" : "a program on PATH");
    exp_argv_free(words);
    return rc;
}

static int check_hooks(const struct experiment *e, struct campaign_findings *f)
{
    int rc = e->prepare_on_dut ? 0 : check_command(f, "", "prepare", e->prepare);
    for (size_t i = 0; !rc && i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        char where[128];
        snprintf(where, sizeof(where), "variant %s: ", v->name);
        if (!v->setup_on_dut)
            rc = check_command(f, where, "setup", v->setup);
        if (!rc && !v->teardown_on_dut)
            rc = check_command(f, where, "teardown", v->teardown);
        if (!rc)
            rc = check_command(f, where, "cmd", v->cmd);
    }
    return rc;
}

/*
 * A run's server on this host (its address is local here, in this network
 * namespace) with nothing listening on its port: bind() with SO_REUSEADDR
 * tells both at once without touching a server that is there (no
 * connection): EADDRNOTAVAIL for an address of another host, EADDRINUSE
 * when something listens. A warning, since a setup hook may start it.
 */
static int check_server(struct campaign_findings *f, const char *host, unsigned port)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *ai = NULL;
    char serv[16];
    snprintf(serv, sizeof(serv), "%u", port);
    if (getaddrinfo(host, serv, &hints, &ai))
        return add(f, false, "server %s: the name does not resolve here", host);
    int rc = 0;
    int s = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (s >= 0 && !setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) &&
        !bind(s, ai->ai_addr, ai->ai_addrlen))
        rc = add(f, false,
                 "server %s port %u is on this host, but nothing listens there: start `netab "
                 "server -p %u` (or a setup hook that does) before the campaign",
                 host, port, port);
    if (s >= 0)
        close(s);
    freeaddrinfo(ai);
    return rc;
}

/*
 * --cport P: data connection i binds local port P + i, and a port that
 * something else holds fails the run at connect. Probed like the client
 * binds (SO_REUSEADDR, the -B address or the wildcard of the server's
 * family, TCP or UDP by the test kind); the first port taken is a warning.
 */
static int check_cports(struct campaign_findings *f, const char *variant,
                        const struct run_spec *spec)
{
    const struct client_config *cc = &spec->client;
    bool udp = spec->params.kind == TEST_UDP_STREAM || spec->params.kind == TEST_UDP_RR;
    struct addrinfo hints = {.ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM,
                             .ai_family = cc->family,
                             .ai_flags = AI_NUMERICSERV | AI_PASSIVE},
                    *ai = NULL;
    int rc = 0;
    for (int i = 0; !rc && i < spec->params.streams && cc->cport + i <= 65535; i++) {
        char serv[16];
        snprintf(serv, sizeof(serv), "%d", cc->cport + i);
        if (getaddrinfo(cc->bind_addr, serv, &hints, &ai))
            return 0; /* an unusable -B fails the run with its own message */
        int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0), one = 1;
        if (s >= 0 && !setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) &&
            bind(s, ai->ai_addr, ai->ai_addrlen) && errno == EADDRINUSE)
            rc = add(f, false,
                     "variant %s: --cport %u: local %s port %d (data connection %d) is in use "
                     "on this host, so that connection would fail",
                     variant, cc->cport, udp ? "UDP" : "TCP", cc->cport + i, i + 1);
        if (s >= 0)
            close(s);
        freeaddrinfo(ai);
        ai = NULL;
    }
    return rc;
}

/* Every distinct server (-c, -p) of the plan's runs, checked once; every --cport. */
static int check_servers(const struct experiment *e, struct campaign_findings *f)
{
    struct exp_cell *cells = NULL;
    size_t ncells = 0;
    if (experiment_cells(e, &cells, &ncells))
        return -ENOMEM;
    char seen[16][300];
    size_t nseen = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < e->nvariants; i++)
        for (size_t c = 0; !rc && c < ncells; c++) {
            struct run_spec spec;
            char **words = NULL, why[NB_ERRLEN], key[300];
            if (e->variants[i].cmd ||
                experiment_run_spec(e, &e->variants[i], &cells[c], &spec, &words, why, sizeof(why)))
                continue; /* loading checked every run; an external command has no server */
            snprintf(key, sizeof(key), "%s %u", spec.host ? spec.host : "", spec.client.port);
            bool dup = false;
            for (size_t k = 0; k < nseen && !dup; k++)
                dup = !strcmp(seen[k], key);
            if (spec.host && !dup && nseen < 16) {
                snprintf(seen[nseen++], sizeof(seen[0]), "%s", key);
                rc = check_server(f, spec.host, spec.client.port);
            }
            if (!rc && spec.client.cport)
                rc = check_cports(f, e->variants[i].name, &spec);
            exp_argv_free(words);
        }
    exp_cells_free(cells, ncells);
    return rc;
}

/* With --check-dut: does each DUT answer over ssh and print its identity now? */
static int check_dut(const struct experiment *e, struct campaign_findings *f)
{
    static const volatile sig_atomic_t never;
    int rc = 0;
    for (size_t i = 0; !rc && i < e->nduts; i++) {
        const struct exp_dut *cfg = &e->duts[i];
        struct dut d = {0};
        char err[NB_ERRLEN * 2], id[DUT_IDENTITY_MAX];
        rc = dut_open(&d, cfg, 0, &never, err, sizeof(err));
        if (!rc)
            rc = dut_identity(&d, id, sizeof(id), err, sizeof(err));
        dut_close(&d);
        if (rc && rc != -ENOMEM)
            rc = cfg->name ? add(f, true, "dut %s (%s): %s", cfg->name, cfg->ssh, err)
                           : add(f, true, "dut %s: %s", cfg->ssh, err);
    }
    return rc;
}

int campaign_preflight(const struct experiment *e, const struct campaign_preflight_opts *o,
                       struct campaign_findings *f)
{
    int rc = check_cpus(e, f);
    if (!rc)
        rc = check_hooks(e, f);
    if (!rc && !e->nduts)
        rc = check_servers(e, f);
    if (!rc && e->nduts && o && o->check_dut)
        rc = check_dut(e, f);
    return rc;
}

int campaign_preflight_print(FILE *out, const char *path, const struct experiment *e,
                             bool check_dut)
{
    struct campaign_findings f = {0};
    struct campaign_preflight_opts o = {.check_dut = check_dut};
    if (campaign_preflight(e, &o, &f)) {
        campaign_findings_free(&f);
        fprintf(out, "netab experiment: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < f.n; i++)
        fprintf(out, "netab experiment: %s: %s: %s\n", path,
                f.v[i].error ? "refusing to start" : "warning", f.v[i].msg);
    int n = (int)f.errors;
    campaign_findings_free(&f);
    return n;
}
