/*
 * Text of the stored runs for `netab runs list` and `netab runs show`:
 * moved here from the CLI, which keeps only the argument handling.
 */
#include "store/store_print.h"
#include "util/jsonout.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

/* " %W.Pf" of v / scale, or a dash where the store holds no value. */
static void print_num(FILE *f, double v, double scale, int width, int prec)
{
    if (isfinite(v))
        fprintf(f, " %*.*f", width, prec, v / scale);
    else
        fprintf(f, " %*s", width, "-");
}

/* The first 12 hex digits of an identity's build ID (its JSON text), or "-". */
static void print_build(FILE *f, const char *identity)
{
    json_t *v = identity ? json_loads(identity, 0, NULL) : NULL;
    const char *b = json_string_value(json_object_get(v, "build_id"));
    fprintf(f, " %-12.12s", b ? b : "-");
    json_decref(v);
}

/* One run's line, in the columns of the header. */
static void print_line(FILE *f, const struct store_run *r, bool duts)
{
    fprintf(f, "%5lld ", (long long)r->id);
    if (r->experiment_id)
        fprintf(f, "%4lld %4d ", (long long)r->experiment_id, r->seq);
    else
        fprintf(f, "%4s %4s ", "-", "-");
    fprintf(f, "%-10s %-10s ", r->variant ? r->variant : "-", r->cell ? r->cell : "-");
    if (duts)
        fprintf(f, "%-10s ", r->dut ? r->dut : "-");
    fprintf(f, "%-11s %3d ", store_run_status_name(r->status), r->attempt);
    if (r->has_plan)
        fprintf(f, "%2s %3d ", r->warmup ? "y" : "n", r->round);
    else
        fprintf(f, "%2s %3s ", "-", "-");
    fprintf(f, "%-24s", r->started ? r->started : "-");
    print_num(f, r->receiver_bps, 1e6, 11, 2);
    print_num(f, r->sender_bps, 1e6, 11, 2);
    print_num(f, r->cpu_local_pct, 1, 6, 1);
    print_num(f, r->cpu_remote_pct, 1, 6, 1);
    print_num(f, r->local_us_per_kib, 1, 9, 3);
    print_num(f, r->remote_us_per_kib, 1, 9, 3);
    print_num(f, r->transactions_per_second, 1, 10, 1);
    print_num(f, r->latency_p50_us, 1, 8, 1);
    print_num(f, r->latency_p99_us, 1, 8, 1);
    print_num(f, r->lost_percent, 1, 6, 3);
    print_build(f, r->identity_local);
    print_build(f, r->identity_remote);
    fputc('\n', f);
}

int store_print_run_list(FILE *f, const struct store_run *runs, size_t n)
{
    /* The DUT column only where some run has a named DUT (duts:): other listings stay as they
     * were. */
    bool duts = false;
    for (size_t i = 0; i < n && !duts; i++)
        duts = runs[i].dut != NULL;
    fprintf(f, "%5s %4s %4s %-10s %-10s ", "ID", "EXP", "SEQ", "VARIANT", "CELL");
    if (duts)
        fprintf(f, "%-10s ", "DUT");
    fprintf(f, "%-11s %3s %2s %3s %-24s %11s %11s %6s %6s %9s %9s %10s %8s %8s %6s %-12s %-12s\n",
            "STATUS", "TRY", "WU", "RND", "STARTED", "RECV_Mbit/s", "SEND_Mbit/s", "CPU_L%",
            "CPU_R%", "L_us/KiB", "R_us/KiB", "trans/s", "p50_us", "p99_us", "LOST%", "L_BUILD",
            "R_BUILD");
    for (size_t i = 0; i < n; i++)
        print_line(f, &runs[i], duts);
    if (n == 0)
        fprintf(f, "(no runs recorded)\n");
    return ferror(f) ? -EIO : 0;
}

/* A stored JSON document indented under a heading. */
static void print_doc(FILE *f, const char *title, const char *text)
{
    fprintf(f, "%s:", title);
    if (!text) {
        fprintf(f, " (none)\n");
        return;
    }
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    if (!v) {
        fprintf(f, " (not valid JSON, stored as is)\n%s\n", text);
        return;
    }
    fputc('\n', f);
    jsonout_write(f, v);
    json_decref(v);
}

int store_print_run(FILE *f, const struct store_run *r)
{
    json_t *o = store_run_to_json(r, false);
    if (!o)
        return -ENOMEM;
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        char *t = jsonout_display(v);
        fprintf(f, "%-24s %s\n", key, json_is_string(v) ? json_string_value(v) : t ? t : "?");
        free(t);
    }
    json_decref(o);
    if (r->n_intervals) {
        fprintf(f, "intervals:\n  %4s %10s %10s %14s %10s\n", "IDX", "START", "END", "Mbit/s",
                "PACKETS");
        for (size_t i = 0; i < r->n_intervals; i++)
            fprintf(f, "  %4d %10.3f %10.3f %14.2f %10lld\n", r->intervals[i].idx,
                    r->intervals[i].start, r->intervals[i].end,
                    r->intervals[i].bits_per_second / 1e6, (long long)r->intervals[i].packets);
    }
    print_doc(f, "params", r->params_json);
    print_doc(f, "environment", r->env_json);
    print_doc(f, "result", r->result_json);
    return ferror(f) ? -EIO : 0;
}
