/* The probe stamps' clock and the one-way delays' verdict (clocksync.h). */
#include "measure/clocksync.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timex.h>

/* adjtimex()'s bound is 16 s at most (NTP_PHASE_LIMIT); a peer's beyond a day is nonsense. */
#define CLOCK_ERROR_MAX_US 86400000000LL

static bool boot_id_ok(const char *s)
{
    if (strlen(s) != CLOCK_BOOT_ID_LEN)
        return false;
    for (int i = 0; i < CLOCK_BOOT_ID_LEN; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    }
    return true;
}

void clock_info_capture(struct clock_info *ci)
{
    *ci = (struct clock_info){0};
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    char buf[64] = "";
    if (f) {
        if (fgets(buf, sizeof(buf), f))
            buf[strcspn(buf, "\n")] = 0;
        fclose(f);
    }
    if (boot_id_ok(buf))
        memcpy(ci->boot_id, buf, sizeof(ci->boot_id));
    /* A kernel without time namespaces (before 5.6) has no such file: one clock for all. */
    struct stat st;
    if (!stat("/proc/self/ns/time", &st))
        ci->time_ns = (uint64_t)st.st_ino;
    struct timex tx = {0}; /* modes 0: reads, changes nothing */
    int state = adjtimex(&tx);
    if (state >= 0) {
        ci->have_adj = true;
        ci->synced = state != TIME_ERROR && !(tx.status & STA_UNSYNC);
        ci->maxerror_us = tx.maxerror;
        ci->esterror_us = tx.esterror;
    }
}

json_t *clock_info_to_json(const struct clock_info *ci)
{
    json_t *j = json_object();
    json_object_set_new(j, "boot_id", ci->boot_id[0] ? json_string(ci->boot_id) : json_null());
    json_object_set_new(j, "time_ns",
                        ci->time_ns ? json_integer((json_int_t)ci->time_ns) : json_null());
    if (ci->have_adj)
        json_object_set_new(j, "realtime",
                            json_pack("{s:b, s:I, s:I}", "synchronised", ci->synced, "maxerror_us",
                                      (json_int_t)ci->maxerror_us, "esterror_us",
                                      (json_int_t)ci->esterror_us));
    else
        json_object_set_new(j, "realtime", json_null());
    return j;
}

static int bound(const json_t *j, const char *name, int64_t *v, char *err, size_t len)
{
    json_t *m = json_object_get(j, name);
    if (!json_is_integer(m) || json_integer_value(m) < 0 ||
        json_integer_value(m) > CLOCK_ERROR_MAX_US)
        return err_set(err, len, EPROTO, "server's clock is malformed: realtime.%s", name);
    *v = json_integer_value(m);
    return 0;
}

int clock_info_from_json(const json_t *j, struct clock_info *ci, char *err, size_t len)
{
    *ci = (struct clock_info){0};
    if (!json_is_object(j))
        return err_set(err, len, EPROTO, "server's clock is malformed: not an object");
    json_t *b = json_object_get(j, "boot_id"), *t = json_object_get(j, "time_ns"),
           *r = json_object_get(j, "realtime");
    if (b && !json_is_null(b)) {
        if (!json_is_string(b) || !boot_id_ok(json_string_value(b)))
            return err_set(err, len, EPROTO, "server's clock is malformed: boot_id");
        memcpy(ci->boot_id, json_string_value(b), sizeof(ci->boot_id));
    }
    if (t && !json_is_null(t)) {
        if (!json_is_integer(t) || json_integer_value(t) <= 0)
            return err_set(err, len, EPROTO, "server's clock is malformed: time_ns");
        ci->time_ns = (uint64_t)json_integer_value(t);
    }
    if (!r || json_is_null(r))
        return 0;
    json_t *s = json_object_get(r, "synchronised");
    if (!json_is_object(r) || !json_is_boolean(s))
        return err_set(err, len, EPROTO, "server's clock is malformed: realtime");
    int rc = bound(r, "maxerror_us", &ci->maxerror_us, err, len);
    if (!rc)
        rc = bound(r, "esterror_us", &ci->esterror_us, err, len);
    ci->have_adj = !rc;
    ci->synced = json_is_true(s);
    return rc;
}

/* Why an end's CLOCK_REALTIME does not count, or NULL when it does. */
static const char *unsynced(const struct clock_info *ci)
{
    return !ci->have_adj ? "its state is unknown (no adjtimex)"
           : !ci->synced ? "it is not synchronised (adjtimex: STA_UNSYNC)"
                         : NULL;
}

enum stamp_clock clock_choose(const struct clock_info *local, const struct clock_info *peer,
                              char *reason, size_t len)
{
    if (!peer) {
        snprintf(reason, len,
                 "not measured: both ends' clocks not compared in this version (the "
                 "server is another process)");
        return STAMP_NONE;
    }
    if (local->boot_id[0] && !strcmp(local->boot_id, peer->boot_id)) {
        if (local->time_ns == peer->time_ns) {
            snprintf(reason, len,
                     "both ends read one clock (same host: boot id %s, CLOCK_MONOTONIC)",
                     local->boot_id);
            return STAMP_MONOTONIC;
        }
        snprintf(reason, len,
                 "not measured: same host (boot id %s) but different time namespaces, whose "
                 "CLOCK_MONOTONIC differ",
                 local->boot_id);
        return STAMP_NONE;
    }
    const char *l = unsynced(local), *p = unsynced(peer);
    if (l || p) {
        snprintf(reason, len, "not measured: different hosts, and %s%s%s%s%s",
                 l ? "this end's clock: " : "", l ? l : "", l && p ? "; " : "",
                 p ? "the server's clock: " : "", p ? p : "");
        return STAMP_NONE;
    }
    snprintf(reason, len,
             "different hosts, both clocks synchronised (CLOCK_REALTIME): the clocks may differ "
             "by up to %" PRId64 " us (maxerror: this end %" PRId64 ", the server %" PRId64 ")",
             local->maxerror_us + peer->maxerror_us, local->maxerror_us, peer->maxerror_us);
    return STAMP_REALTIME;
}

int clock_from_accept(const json_t *accept, const struct clock_info *local, struct clock_info *peer,
                      bool *have_peer, enum stamp_clock *c, char *reason, size_t rlen, char *err,
                      size_t elen)
{
    json_t *j = json_object_get(accept, "clock");
    *have_peer = j != NULL;
    *c = STAMP_NONE;
    if (j) {
        int rc = clock_info_from_json(j, peer, err, elen);
        if (rc)
            return rc;
    }
    *c = clock_choose(local, j ? peer : NULL, reason, rlen);
    return 0;
}

bool clock_judge(enum stamp_clock c, const struct clock_info *local, const struct clock_info *peer,
                 double idle_up_p50_us, double idle_down_p50_us, char *reason, size_t len)
{
    if (c != STAMP_REALTIME)
        return c == STAMP_MONOTONIC;
    int64_t err = local->maxerror_us + peer->maxerror_us;
    double least = fmin(idle_up_p50_us, idle_down_p50_us); /* NAN only when both are */
    if (isnan(idle_up_p50_us) || isnan(idle_down_p50_us)) {
        snprintf(reason, len,
                 "not measured: different hosts, and no idle probe was stamped to weigh the "
                 "clocks' error bound (%" PRId64 " us) against",
                 err);
        return false;
    }
    if ((double)err > CLOCK_SYNC_SHARE * least) {
        snprintf(reason, len,
                 "not measured: different hosts whose clocks may differ by up to %" PRId64
                 " us (maxerror: this end %" PRId64 ", the server %" PRId64
                 "), more than 10%% of the idle one-way p50 (%.1f us)",
                 err, local->maxerror_us, peer->maxerror_us, least);
        return false;
    }
    return true;
}
