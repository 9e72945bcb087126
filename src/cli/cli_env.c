/*
 * `netab env [--iface NAME | --addr IP] [--json | --identity]`: prints the
 * environment snapshot (env_capture) and its warnings, or the build identity
 * alone as the composite text of docs/environment.md. Argument parsing and printing
 * only; the facts come from libnetab's envcap module.
 */
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "envcap/envcap.h"
#include "measure/identity.h"

static const char usage_text[] =
    "usage: netab env [--iface NAME | --addr IP] [--json | --identity]\n"
    "\n"
    "Prints the facts about this host that decide whether benchmark runs are\n"
    "comparable (kernel, CPU frequency policy, turbo, SMT, mitigations, the\n"
    "interface's driver, offloads and IRQ affinity, network sysctls, load,\n"
    "competing benchmark processes) and warnings about them. Unknown facts\n"
    "are shown as null. See docs/environment.md.\n"
    "\n"
    "  --iface NAME   describe this interface (default lo)\n"
    "  --addr IP      describe the interface that owns or routes to IP\n"
    "  --json         one JSON document {\"environment\": {...}, \"warnings\": [...]}\n"
    "  --identity     only the build identity (kernel release, version, build ID,\n"
    "                 config hash, command line, the interface's module), one\n"
    "                 \"key: value\" line each\n"
    "  -h, --help     this text\n";

/* Prints the leaves of v as "path = value" lines, one per fact. */
static void print_flat(const char *prefix, const json_t *v)
{
    char path[512];
    if (json_is_object(v) && json_object_size(v)) {
        const char *k;
        json_t *c;
        json_object_foreach((json_t *)v, k, c)
        {
            snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k);
            print_flat(path, c);
        }
    } else if (json_is_array(v) && json_array_size(v)) {
        size_t i;
        json_t *c;
        json_array_foreach(v, i, c)
        {
            snprintf(path, sizeof(path), "%s[%zu]", prefix, i);
            print_flat(path, c);
        }
    } else {
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));
        printf("%-44s %s\n", prefix, s ? s : "?");
        free(s);
    }
}

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
    static const struct option opts[] = {
        {"iface", required_argument, NULL, 'i'}, {"addr", required_argument, NULL, 'a'},
        {"json", no_argument, NULL, 'j'},        {"identity", no_argument, NULL, 'I'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    char ifname[64] = "lo";
    int json = 0, identity = 0, c, err;

    optind = 1;
    while ((c = optmatch_next(argc, argv, ":h", opts)) != -1) {
        switch (c) {
        case 'i':
            snprintf(ifname, sizeof(ifname), "%s", optarg);
            break;
        case 'a':
            err = env_iface_for_addr(optarg, ifname, sizeof(ifname));
            if (err) {
                fprintf(stderr, "netab env: no interface for address %s: %s\n", optarg,
                        strerror(-err));
                return EXIT_USAGE;
            }
            break;
        case 'j':
            json = 1;
            break;
        case 'I':
            identity = 1;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return EXIT_OK;
        default:
            return cli_unknown_option("env", argv, opts);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "netab env: unexpected argument '%s'\n%s", argv[optind], usage_text);
        return EXIT_USAGE;
    }
    /* A name the kernel does not know would only produce a snapshot of nulls. */
    if (!if_nametoindex(ifname)) {
        fprintf(stderr, "netab env: --iface: no network interface named '%s' here\n", ifname);
        return EXIT_USAGE;
    }
    if (identity && json) {
        fprintf(stderr,
                "netab env: --identity and --json do not go together (--json holds "
                "the identity as environment.identity)\n%s",
                usage_text);
        return EXIT_USAGE;
    }
    if (identity)
        return print_identity(ifname);
    json_t *env = env_capture(ifname, NULL, NULL);
    json_t *warn = env ? env_warnings(env) : NULL;
    if (!env || !warn) {
        fprintf(stderr, "netab env: out of memory\n");
        json_decref(env);
        return EXIT_ERROR;
    }
    if (json) {
        json_t *doc = json_pack("{s:O, s:O}", "environment", env, "warnings", warn);
        char *s = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(doc);
    } else {
        print_flat("", env);
        size_t i;
        json_t *w;
        printf("\nwarnings:%s\n", json_array_size(warn) ? "" : " none");
        json_array_foreach(warn, i, w)
        {
            printf("  - %s\n", json_string_value(w));
        }
    }
    json_decref(warn);
    json_decref(env);
    return EXIT_OK;
}
