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
