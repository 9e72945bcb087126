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

struct env_args {
    char ifname[64];
    bool json, identity;
};

static int set_iface(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)o;
    if (snprintf(field, sizeof(((struct env_args *)0)->ifname), "%s", value) >=
        (int)sizeof(((struct env_args *)0)->ifname))
        return err_set(err, errlen, EINVAL, "--iface: '%s' is too long for an interface name",
                       value);
    return 0;
}

static int set_addr(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)o;
    int rc = env_iface_for_addr(value, field, sizeof(((struct env_args *)0)->ifname));
    if (rc)
        return err_set(err, errlen, EINVAL, "no interface for address %s: %s", value,
                       strerror(-rc));
    return 0;
}

#define FIELD(f) offsetof(struct env_args, f)

static const struct opt options[] = {
    {"iface", 0, "NAME", "describe this interface (default lo)", set_iface, FIELD(ifname), 0, 0,
     NULL},
    {"addr", 0, "IP", "describe the interface that owns or routes to IP", set_addr, FIELD(ifname),
     0, 0, NULL},
    {"json", 0, NULL, "one JSON document {\"environment\": {...}, \"warnings\": [...]}",
     opt_set_true, FIELD(json), 0, 0, NULL},
    {"identity", 0, NULL,
     "only the build identity (kernel release, version, build ID,\nconfig hash, command line, "
     "the interface's module), one\n\"key: value\" line each",
     opt_set_true, FIELD(identity), 0, 0, NULL},
    {0},
};

static const struct opt_table env_cmd = {
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

int cli_env(int argc, char **argv)
{
    struct env_args a = {.ifname = "lo"};
    int rc = cli_opts_parse(&env_cmd, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (cli_no_operands("env", argc, argv))
        return EXIT_USAGE;
    /* A name the kernel does not know would only produce a snapshot of nulls. */
    if (!if_nametoindex(a.ifname))
        return cli_fail(EXIT_USAGE, "env", "--iface: no network interface named '%s' here",
                        a.ifname);
    if (a.identity && a.json)
        return cli_usage_error("env", "--identity and --json do not go together (--json holds "
                                      "the identity as environment.identity)");
    if (a.identity) {
        rc = env_print_identity(stdout, a.ifname);
        if (rc == -ENOMEM)
            fprintf(stderr, "netab env: out of memory\n");
        return rc ? EXIT_ERROR : EXIT_OK;
    }
    json_t *doc = env_document(a.ifname, NULL, NULL);
    if (!doc)
        return cli_fail(EXIT_ERROR, "env", "out of memory");
    rc = a.json ? cli_json_print("env", json_incref(doc))
                : env_print_text(stdout, json_object_get(doc, "environment"),
                                 json_object_get(doc, "warnings"));
    json_decref(doc);
    return rc ? EXIT_ERROR : EXIT_OK;
}
