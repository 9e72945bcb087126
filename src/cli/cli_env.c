/*
 * `netab env [--iface NAME | --addr IP] [--json | --identity]`: prints the
 * environment snapshot (env_capture) and its warnings, or the build identity
 * alone as the composite text of docs/environment.md. Argument parsing and printing
 * only; the facts come from libnetab's envcap module.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "envcap/envcap.h"
#include "envcap/print.h"
#include "measure/identity.h"

struct env_args {
    char ifname[64];
    bool json, identity;
};

static int set_iface(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    (void)o;
    if (snprintf(field, sizeof(((struct env_args *)0)->ifname), "%s", value) >=
        (int)sizeof(((struct env_args *)0)->ifname))
        return err_set(err, errlen, EINVAL, "--iface: '%s' is too long for an interface name",
                       value);
    return 0;
}

static int set_addr(void *field, const char *value, const struct cli_opt *o, char *err,
                    size_t errlen)
{
    (void)o;
    int rc = env_iface_for_addr(value, field, sizeof(((struct env_args *)0)->ifname));
    if (rc)
        return err_set(err, errlen, EINVAL, "no interface for address %s: %s", value,
                       strerror(-rc));
    return 0;
}

#define FIELD(f) offsetof(struct env_args, f)

static const struct cli_opt options[] = {
    {"iface", 0, "NAME", "describe this interface (default lo)", set_iface, FIELD(ifname), 0, 0},
    {"addr", 0, "IP", "describe the interface that owns or routes to IP", set_addr, FIELD(ifname),
     0, 0},
    {"json", 0, NULL, "one JSON document {\"environment\": {...}, \"warnings\": [...]}",
     cli_set_true, FIELD(json), 0, 0},
    {"identity", 0, NULL,
     "only the build identity (kernel release, version, build ID,\nconfig hash, command line, "
     "the interface's module), one\n\"key: value\" line each",
     cli_set_true, FIELD(identity), 0, 0},
    {0},
};

static const struct cli_cmd env_cmd = {
    .name = "env",
    .usage = "usage: netab env [--iface NAME | --addr IP] [--json | --identity]\n"
             "\n"
             "Prints the facts about this host that decide whether benchmark runs are\n"
             "comparable (kernel, CPU frequency policy, turbo, SMT, mitigations, the\n"
             "interface's driver, offloads and IRQ affinity, network sysctls, load,\n"
             "competing benchmark processes) and warnings about them. Unknown facts\n"
             "are shown as null. See docs/environment.md.\n"
             "\n",
    .opts = options,
};

/* `--identity`: the composite text, one fact a line. */
static int print_identity(const char *ifname)
{
    struct identity *id = malloc(sizeof(*id));
    if (!id) {
        fprintf(stderr, "netab env: out of memory\n");
        return EXIT_ERROR;
    }
    identity_capture(id, NULL, ifname);
    identity_write_text(id, stdout);
    free(id);
    return fflush(stdout) ? EXIT_ERROR : EXIT_OK;
}

int cli_env(int argc, char **argv)
{
    struct env_args a = {.ifname = "lo"};
    int rc = cli_opts_parse(&env_cmd, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return cli_usage_error("env", "unexpected argument '%s'", argv[optind]);
    const char *ifname = a.ifname;
    bool json = a.json, identity = a.identity;
    /* A name the kernel does not know would only produce a snapshot of nulls. */
    if (!if_nametoindex(ifname)) {
        fprintf(stderr, "netab env: --iface: no network interface named '%s' here\n", ifname);
        return EXIT_USAGE;
    }
    if (identity && json)
        return cli_usage_error("env", "--identity and --json do not go together (--json holds "
                                      "the identity as environment.identity)");
    if (identity)
        return print_identity(ifname);
    json_t *env = env_capture(ifname, NULL, NULL);
    json_t *warn = env ? env_warnings(env) : NULL;
    if (!env || !warn) {
        fprintf(stderr, "netab env: out of memory\n");
        json_decref(env);
        return EXIT_ERROR;
    }
    rc = EXIT_OK;
    if (json) {
        json_t *doc = json_pack("{s:O, s:O}", "environment", env, "warnings", warn);
        char *s = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(doc);
    } else {
        rc = env_print_text(stdout, env, warn) ? EXIT_ERROR : EXIT_OK;
    }
    json_decref(warn);
    json_decref(env);
    return rc;
}
