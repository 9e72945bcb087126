/* `netab run`'s text lines of a sampled profile: the top functions of each end in 72 columns. */
#include <stdio.h>
#include <string.h>

#include "runout/run_text_counters.h"

#define TEXT_TOP 10

/* The profile's note in parentheses, wrapped at spaces within 72 columns. */
static void print_note(FILE *f, const char *note)
{
    const int width = 66;
    fputs("  (", f);
    while ((int)strlen(note) > width) {
        int cut = width;
        while (cut > 0 && note[cut] != ' ')
            cut--;
        if (cut == 0)
            cut = width;
        fprintf(f, "%.*s\n   ", cut, note);
        note += cut + (note[cut] == ' ');
    }
    fprintf(f, "%s)\n", note);
}

/* What the profile sampled (a peer before scopes sampled the system), and the idle share. */
static void print_scope(FILE *f, const json_t *p)
{
    const char *scope = json_string_value(json_object_get(p, "scope"));
    const json_t *idle = json_object_get(p, "idle_pct");
    const char *note = json_string_value(json_object_get(p, "note"));
    if (!scope)
        return;
    fprintf(f, "  scope %s: %s", scope,
            scope[0] == 't' ? "netab's threads, softirq work on its CPUs"
                            : "every task on the CPUs");
    if (json_is_number(idle))
        fprintf(f, "; idle %.1f%%", json_number_value(idle));
    fputs("\n", f);
    if (note)
        print_note(f, note);
}

/* A ratio of a function's group counts in w columns, "-" where the group lacks its events. */
static void print_ratio(FILE *f, int w, const json_t *v)
{
    if (json_is_number(v))
        fprintf(f, "%*.2f", w, json_number_value(v));
    else
        fprintf(f, "%*s", w, "-");
}

/*
 * A group of events (--profile=cycles,instructions,...): each top
 * function's share of each event's count, its IPC and its L1-icache misses
 * per 1,000 instructions, within 72 columns (4 events at most).
 */
static void print_group(FILE *f, const json_t *p)
{
    const json_t *evs = json_object_get(json_object_get(p, "group"), "events");
    size_t i, k;
    json_t *fn, *e;
    if (!evs)
        return;
    fputs("  per function: % of each event's count, IPC, L1-icache misses/1k instr.\n"
          "  function              ",
          f);
    json_array_foreach(evs, k, e)
    {
        fprintf(f, " %6.6s", json_string_value(e));
    }
    fputs("   IPC  L1i/kI\n", f);
    json_array_foreach(json_object_get(p, "functions"), i, fn)
    {
        if (i >= TEXT_TOP)
            break;
        fprintf(f, "  %-22.22s", json_string_value(json_object_get(fn, "symbol")));
        json_array_foreach(json_object_get(fn, "shares_pct"), k, e)
        {
            fprintf(f, " %6.1f", json_number_value(e));
        }
        print_ratio(f, 6, json_object_get(fn, "ipc"));
        print_ratio(f, 8, json_object_get(fn, "l1i_mpki"));
        fputs("\n", f);
    }
}

static void print_profile(FILE *f, const char *label, const json_t *p)
{
    if (!p)
        return;
    const char *ev = json_string_value(json_object_get(p, "event"));
    const char *why = json_string_value(json_object_get(p, "why"));
    if (why) {
        fprintf(f, "profile %s: none (%s)\n", label, why);
        print_scope(f, p);
        return;
    }
    fprintf(f, "profile %s: %s at %lld Hz on %zu CPUs, %lld samples (%lld lost)\n", label,
            ev ? ev : "?", (long long)json_integer_value(json_object_get(p, "frequency")),
            json_array_size(json_object_get(p, "cpus")),
            (long long)json_integer_value(json_object_get(p, "samples")),
            (long long)json_integer_value(json_object_get(p, "lost")));
    print_scope(f, p);
    size_t i;
    json_t *fn;
    json_array_foreach(json_object_get(p, "functions"), i, fn)
    {
        if (i >= TEXT_TOP)
            break;
        fprintf(f, "  %5.1f%%  %-44.44s %.16s\n",
                json_number_value(json_object_get(fn, "share_pct")),
                json_string_value(json_object_get(fn, "symbol")),
                json_string_value(json_object_get(fn, "module")));
    }
    print_group(f, p);
}

void run_text_profile(FILE *f, const struct run_result *r)
{
    if (r->in_process && r->local.profile) {
        print_profile(f, "both ends (loopback)", r->local.profile);
        return;
    }
    print_profile(f, "local", r->local.profile);
    print_profile(f, "remote", r->remote.profile);
}
