/* Facts about the host a test ran on: name, kernel, CPU model, CPU count. */
#include "measure/hostinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The first processor's block is all we need; it is well under this size. */
#define CPUINFO_READ_MAX 65536

static void copy_str(char *dst, size_t len, const char *src, size_t n)
{
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/*
 * Keys naming the CPU model, best first. The match is on the whole key, so
 * "cpu" does not match arm64's "CPU implementer" or "cpu MHz".
 */
static const char *const model_keys[] = {"model name", "Processor", "cpu model", "cpu"};
#define NKEYS (sizeof(model_keys) / sizeof(model_keys[0]))

void hostinfo_parse_cpu_model(const char *text, char *out, size_t len)
{
    const char *best = NULL;
    size_t best_len = 0, best_rank = NKEYS;

    if (!out || len == 0)
        return;
    for (const char *line = text; line && *line && best_rank > 0;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            eol = line + strlen(line);
        const char *colon = memchr(line, ':', (size_t)(eol - line));
        if (colon) {
            const char *kend = colon;
            while (kend > line && (kend[-1] == ' ' || kend[-1] == '\t'))
                kend--;
            const char *v = colon + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            const char *vend = eol;
            while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t' || vend[-1] == '\r'))
                vend--;
            for (size_t k = 0; k < best_rank; k++) {
                size_t klen = strlen(model_keys[k]);
                if ((size_t)(kend - line) == klen && !memcmp(line, model_keys[k], klen) &&
                    vend > v) {
                    best = v;
                    best_len = (size_t)(vend - v);
                    best_rank = k;
                    break;
                }
            }
        }
        line = *eol ? eol + 1 : NULL;
    }
    if (best)
        copy_str(out, len, best, best_len);
    else
        copy_str(out, len, "unknown", strlen("unknown"));
}

/* The buffer is on the heap so that hostinfo_collect() is thread-safe and stack-light. */
static void read_cpu_model(char *out, size_t len)
{
    char *buf = malloc(CPUINFO_READ_MAX);
    size_t n = 0;

    if (buf) {
        FILE *f = fopen("/proc/cpuinfo", "re");
        if (f) {
            n = fread(buf, 1, CPUINFO_READ_MAX - 1, f);
            fclose(f);
        }
        buf[n] = '\0';
    }
    hostinfo_parse_cpu_model(buf, out, len);
    free(buf);
}

void hostinfo_collect(struct hostinfo *h)
{
    struct utsname u;

    memset(h, 0, sizeof(*h));
    if (gethostname(h->hostname, sizeof(h->hostname) - 1) || !h->hostname[0])
        snprintf(h->hostname, sizeof(h->hostname), "unknown");
    if (uname(&u) == 0 && u.release[0])
        snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
    else
        snprintf(h->kernel, sizeof(h->kernel), "unknown");
    read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->online_cpus = n > 0 ? (int)n : 0;
}
