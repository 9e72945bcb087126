/*
 * The device under test of an experiment file (dut:) and the hook forms
 * that may run on it: a hook is a string (run locally, as before) or a
 * mapping {run: CMD, on: dut|local}. Everything is checked here, with the
 * file's positions, so a campaign never finds out halfway that its DUT
 * section was wrong.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/exp_priv.h"
#include "util/pattern.h"

/* "name" is last: only an entry of a duts: list has it. */
enum {
    D_SSH,
    D_OPTS,
    D_SERVER,
    D_PORT,
    D_START,
    D_NETAB,
    D_IDENTITY,
    D_BOOT_TIMEOUT,
    D_NAME,
    D_COUNT
};
static const char *const dut_keys[D_COUNT] = {"ssh",      "ssh_opts",     "server",
                                              "port",     "start_server", "netab",
                                              "identity", "boot_timeout", "name"};

void exp_dut_clear(struct exp_dut *d)
{
    if (!d)
        return;
    free(d->name);
    free(d->ssh);
    free(d->ssh_opts);
    free(d->server);
    free(d->netab);
    free(d->identity);
}

/* YAML 1.2 booleans, unquoted. */
static bool get_bool(struct exp_ctx *c, yaml_node_t *n, const char *key, bool *out)
{
    char buf[64];
    const char *v = exp_scalar(n);
    bool t = v && (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE"));
    bool f = v && (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE"));
    if (!v || !exp_is_plain(n) || (!t && !f)) {
        exp_err(c, n, "'%s' must be true or false, not %s", key, exp_describe(n, buf, sizeof(buf)));
        return false;
    }
    *out = t;
    return true;
}

/*
 * The destination goes to ssh as one argument after "--"; still, a leading
 * '-' or a blank is never a host name and almost always a mistake.
 */
static void check_destination(struct exp_ctx *c, yaml_node_t *n, const char *where, const char *ssh)
{
    if (ssh[0] == '-' || strpbrk(ssh, " \t\r\n"))
        exp_err(c, n,
                "%s: 'ssh' must be an OpenSSH destination such as root@192.0.2.1, not '%.60s' "
                "(put options into 'ssh_opts')",
                where, ssh);
}

static void check_words(struct exp_ctx *c, yaml_node_t *n, const char *where, const char *key,
                        const char *s)
{
    char **words, why[NB_ERRLEN];
    size_t nw;
    int err = exp_split_words(s, &words, &nw, why, sizeof(why));
    if (err == -ENOMEM)
        c->oom = true;
    else if (err)
        exp_err(c, n, "%s: '%s': %s", where, key, why);
    else
        exp_argv_free(words);
}

static void parse_boot_timeout(struct exp_ctx *c, yaml_node_t *n, const char *where,
                               struct exp_dut *d)
{
    char buf[64], *end;
    const char *v = exp_scalar(n);
    double x = v && exp_is_plain(n) ? strtod(v, &end) : NAN;
    if (!v || !exp_is_plain(n) || *end || !isfinite(x) || x < 1 || x > 86400)
        exp_err(c, n, "%s: 'boot_timeout' must be a number of seconds from 1 to 86400, not %s",
                where, exp_describe(n, buf, sizeof(buf)));
    else
        d->boot_timeout = x;
}

bool exp_dut_fields(struct exp_ctx *c, yaml_node_t *n, const char *where, struct exp_dut *d,
                    yaml_node_t **name)
{
    yaml_node_t *v[D_COUNT];
    /* Without a name node to fill, "name" is not a key of this mapping. */
    if (!exp_map_fields(c, n, where, dut_keys, name ? D_COUNT : D_NAME, v))
        return false;
    if (name)
        *name = v[D_NAME];
    d->start_server = true;
    d->boot_timeout = EXP_DUT_BOOT_TIMEOUT_S;
    if (!v[D_SSH])
        exp_err(c, n, "%s has no 'ssh' (the OpenSSH destination, e.g. root@192.0.2.1)", where);
    else if (exp_get_string(c, v[D_SSH], "ssh", &d->ssh))
        check_destination(c, v[D_SSH], where, d->ssh);
    if (v[D_OPTS] && exp_get_string(c, v[D_OPTS], "ssh_opts", &d->ssh_opts))
        check_words(c, v[D_OPTS], where, "ssh_opts", d->ssh_opts);
    if (v[D_SERVER] && exp_get_string(c, v[D_SERVER], "server", &d->server) &&
        (d->server[0] == '-' || strpbrk(d->server, " \t\r\n")))
        exp_err(c, v[D_SERVER], "%s: 'server' must be a host name or address, not '%.60s'", where,
                d->server);
    if (v[D_PORT])
        exp_get_int(c, v[D_PORT], "port", 1, 65535, &d->port);
    if (v[D_START])
        get_bool(c, v[D_START], "start_server", &d->start_server);
    if (v[D_NETAB] && exp_get_string(c, v[D_NETAB], "netab", &d->netab))
        check_words(c, v[D_NETAB], where, "netab", d->netab);
    if (v[D_IDENTITY])
        exp_get_string(c, v[D_IDENTITY], "identity", &d->identity);
    if (v[D_BOOT_TIMEOUT])
        parse_boot_timeout(c, v[D_BOOT_TIMEOUT], where, d);
    return true;
}

void exp_parse_dut(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    struct exp_dut *d = calloc(1, sizeof(*d));
    if (!d) {
        c->oom = true;
        return;
    }
    e->duts = d;
    e->nduts = 1;
    e->dut = d;
    exp_dut_fields(c, n, "dut", d, NULL);
}

enum { H_RUN, H_ON, H_COUNT };
static const char *const hook_keys[H_COUNT] = {"run", "on"};

bool exp_get_hook(struct exp_ctx *c, yaml_node_t *n, const char *key, char **out, bool *on_dut)
{
    *on_dut = false;
    if (n->type != YAML_MAPPING_NODE)
        return exp_get_string(c, n, key, out);
    yaml_node_t *v[H_COUNT];
    char where[64], buf[64];
    snprintf(where, sizeof(where), "hook '%s'", key);
    if (!exp_map_fields(c, n, where, hook_keys, H_COUNT, v))
        return false;
    if (!v[H_RUN]) {
        exp_err(c, n,
                "'%s' must be a command or a mapping {run: CMD, on: dut|local}; this mapping "
                "has no 'run'",
                key);
        return false;
    }
    if (v[H_ON]) {
        const char *on = exp_scalar(v[H_ON]);
        if (on && !strcmp(on, "dut")) {
            *on_dut = true;
        } else if (!on || strcmp(on, "local")) {
            exp_err(c, v[H_ON], "hook '%s': 'on' must be 'dut' or 'local', not %s", key,
                    exp_describe(v[H_ON], buf, sizeof(buf)));
            return false;
        }
    }
    return exp_get_string(c, v[H_RUN], key, out);
}

bool exp_get_regex(struct exp_ctx *c, yaml_node_t *n, const char *key, char **out)
{
    if (!exp_get_string(c, n, key, out))
        return false;
    struct pattern *p;
    char why[NB_ERRLEN];
    int rc = pattern_compile(&p, *out, PATTERN_LINES, why, sizeof(why));
    if (rc == -ENOMEM)
        c->oom = true;
    else if (rc)
        exp_err(c, n, "'%s': %s", key, why);
    pattern_free(p);
    return rc == 0;
}

/* The first DUT-only feature of variant v, or NULL. */
static const char *dut_feature(const struct exp_variant *v)
{
    if (v->boot)
        return "'boot'";
    if (v->expect)
        return "'expect'";
    if (v->setup_on_dut)
        return "setup with 'on: dut'";
    if (v->teardown_on_dut)
        return "teardown with 'on: dut'";
    return NULL;
}

void exp_check_dut(struct exp_ctx *c, const struct exp_dut_marks *m, struct experiment *e)
{
    if (!e->nduts) {
        if (e->prepare_on_dut)
            exp_err(c, m->prepare, "prepare has 'on: dut' but the experiment has no 'dut' section");
        for (size_t i = 0; i < e->nvariants; i++) {
            const char *f = dut_feature(&e->variants[i]);
            if (f && exp_errors_add(c->errs, e->variants[i].line, e->variants[i].col,
                                    "variant '%s' has %s, which needs a 'dut' section",
                                    e->variants[i].name ? e->variants[i].name : "?", f))
                c->oom = true;
        }
        return;
    }
    for (size_t i = 0; i < e->nvariants; i++) {
        const struct exp_variant *v = &e->variants[i];
        const char *why = NULL;
        if (v->cmd)
            why = "has 'cmd', which a DUT campaign cannot measure";
        else if (e->reset == EXP_RESET_REBOOT && !v->boot)
            why = "has no 'boot', which reset: reboot with a 'dut' runs before every run";
        if (why && exp_errors_add(c->errs, v->line, v->col, "variant '%s' %s",
                                  v->name ? v->name : "?", why))
            c->oom = true;
    }
}
