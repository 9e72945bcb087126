#include "proto/iperf3_doc.h"

#include "proto/iperf3_wire.h"

#include "engine/path_tx_params.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *iperf3_params_to_json(const struct test_params *p)
{
    json_t *o = json_object();
    bool udp = p->kind == TEST_UDP_STREAM;
    json_object_set_new(o, udp ? "udp" : "tcp", json_true());
    json_object_set_new(o, "omit", json_integer((json_int_t)ceil(p->omit_s)));
    json_object_set_new(o, "time", json_integer(p->bytes ? 0 : (json_int_t)ceil(p->duration_s)));
    json_object_set_new(o, "num", json_integer((json_int_t)p->bytes));
    json_object_set_new(o, "blockcount", json_integer(0));
    json_object_set_new(o, "parallel", json_integer(p->streams));
    if (p->mss)
        json_object_set_new(o, "MSS", json_integer(p->mss));
    if (p->nodelay)
        json_object_set_new(o, "nodelay", json_true());
    if (p->reverse)
        json_object_set_new(o, "reverse", json_true());
    if (p->bidir)
        json_object_set_new(o, "bidirectional", json_true());
    if (p->sockbuf)
        json_object_set_new(o, "window", json_integer(p->sockbuf));
    json_object_set_new(o, "len", json_integer(p->block));
    if (udp)
        json_object_set_new(o, "bandwidth", json_integer((json_int_t)p->rate_bps));
    /* send path (issue 32): iperf3's own members for -Z, --fq-rate and -b with TCP. */
    if (p->tx.mode == PATH_TX_SENDFILE)
        json_object_set_new(o, "zerocopy", json_integer(1));
    if (p->tx.fq_rate_bps)
        json_object_set_new(o, "fqrate", json_integer((json_int_t)p->tx.fq_rate_bps));
    if (!udp && p->tx.pace_bps)
        json_object_set_new(o, "bandwidth", json_integer((json_int_t)p->tx.pace_bps));
    if (p->cc[0])
        json_object_set_new(o, "congestion", json_string(p->cc));
    json_object_set_new(o, "get_server_output", json_integer(1));
    if (udp)
        json_object_set_new(o, "udp_counters_64bit", json_integer(1));
    json_object_set_new(o, "client_version", json_string("netab " NETAB_VERSION));
    return o;
}

/* Members only iperf3's own sender uses, or that change nothing measurable here: ignored. */
static const char *const ignored_members[] = {
    "pacing_timer",
    "burst",
    "TOS",
    "flowlabel",
    "repeating_payload",
    "dont_fragment",
    "congestion_used",
    "skip_rx_copy",
    "title",
    "extra_data",
    NULL,
};

/* Members refused by name: netab's server does not provide them. */
static const struct {
    const char *key, *why;
} refused_members[] = {
    {"sctp", "SCTP tests are not supported"},
    {"authtoken", "iperf3's RSA authentication is not supported (netab uses --auth-key)"},
    {"server_affinity", "server CPU affinity (-A x,N) is not offered to iperf3 clients"},
    {"mptcp", "MPTCP is not supported"},
    {NULL, NULL},
};

/* An integer member in [lo, hi] into *v; absent leaves *v. Returns false with a message. */
static bool int_member(const json_t *doc, const char *key, long long lo, long long hi, long long *v,
                       char *err, size_t errlen)
{
    json_t *j = json_object_get(doc, key);
    if (!j)
        return true;
    if (!json_is_integer(j)) {
        err_set(err, errlen, EINVAL, "iperf3 parameter '%s' must be an integer", key);
        return false;
    }
    long long x = json_integer_value(j);
    if (x < lo || x > hi) {
        err_set(err, errlen, EINVAL, "iperf3 parameter '%s' = %lld is out of range %lld..%lld", key,
                x, lo, hi);
        return false;
    }
    *v = x;
    return true;
}

/* A flag iperf3 sends as true (or, in some versions, a number): true when present and set. */
static bool flag_member(const json_t *doc, const char *key, bool *v, char *err, size_t errlen)
{
    json_t *j = json_object_get(doc, key);
    if (!j)
        return true;
    if (json_is_boolean(j))
        *v = json_is_true(j);
    else if (json_is_integer(j) && (json_integer_value(j) == 0 || json_integer_value(j) == 1))
        *v = json_integer_value(j) == 1;
    else {
        err_set(err, errlen, EINVAL, "iperf3 parameter '%s' must be true, false, 0 or 1", key);
        return false;
    }
    return true;
}

/* A string member of at most cap - 1 bytes into buf (may be NULL: only checked). */
static bool string_member(const json_t *doc, const char *key, char *buf, size_t cap, char *err,
                          size_t errlen)
{
    json_t *j = json_object_get(doc, key);
    if (!j)
        return true;
    if (!json_is_string(j) || json_string_length(j) >= cap) {
        err_set(err, errlen, EINVAL, "iperf3 parameter '%s' must be a string under %zu bytes", key,
                cap);
        return false;
    }
    if (buf)
        snprintf(buf, cap, "%s", json_string_value(j));
    return true;
}

/* The protocol members: exactly one of tcp and udp, and the refused features. */
static int check_kind(const json_t *doc, struct test_params *p, char *err, size_t errlen)
{
    for (int i = 0; refused_members[i].key; i++)
        if (json_object_get(doc, refused_members[i].key))
            return err_set(err, errlen, EINVAL, "iperf3 parameter '%s': %s", refused_members[i].key,
                           refused_members[i].why);
    bool tcp = false, udp = false;
    if (!flag_member(doc, "tcp", &tcp, err, errlen) || !flag_member(doc, "udp", &udp, err, errlen))
        return -EINVAL;
    if (tcp == udp)
        return err_set(err, errlen, EINVAL,
                       "iperf3 parameters must name exactly one of 'tcp' and 'udp'");
    p->kind = udp ? TEST_UDP_STREAM : TEST_TCP_STREAM;
    p->block = params_default_block(p->kind);
    return 0;
}

/* Sizes and counts: time, omit, num, blockcount, parallel, len, window, MSS, bandwidth. */
static int check_numbers(const json_t *doc, const struct iperf3_limits *lim, struct test_params *p,
                         char *err, size_t errlen)
{
    long long time = 10, omit = 0, num = 0, blocks = 0, parallel = 1, len = p->block, window = 0,
              mss = 0, bw = 0;
    long long max_time = (long long)lim->max_duration;
    if (!int_member(doc, "time", 0, max_time, &time, err, errlen) ||
        !int_member(doc, "omit", 0, max_time, &omit, err, errlen) ||
        !int_member(doc, "num", 0, (long long)1 << 50, &num, err, errlen) ||
        !int_member(doc, "blockcount", 0, (long long)1 << 40, &blocks, err, errlen) ||
        !int_member(doc, "parallel", 1, lim->max_streams, &parallel, err, errlen) ||
        !int_member(doc, "len", 1, PARAMS_MAX_BLOCK, &len, err, errlen) ||
        !int_member(doc, "window", 0, 1 << 30, &window, err, errlen) ||
        !int_member(doc, "MSS", 0, 65535, &mss, err, errlen) ||
        !int_member(doc, "bandwidth", 0, 400000000000ll, &bw, err, errlen))
        return -EINVAL;
    if (time + omit > max_time)
        return err_set(err, errlen, EINVAL,
                       "iperf3 test of %lld s plus %lld s omitted exceeds this server's "
                       "limit of %lld s (--max-duration)",
                       time, omit, max_time);
    p->bytes = num ? (uint64_t)num : (uint64_t)blocks * (uint64_t)len;
    /* The same bound as 'num', so that the test netab runs can be said back as 'num'. */
    if (p->bytes > (uint64_t)1 << 50)
        return err_set(err, errlen, EINVAL,
                       "iperf3 parameters 'blockcount' %lld x 'len' %lld: more than 2^50 bytes",
                       blocks, len);
    if (!p->bytes && time == 0)
        return err_set(err, errlen, EINVAL, "iperf3 parameters give neither a time nor a size");
    p->duration_s = p->bytes ? lim->max_duration : (double)time;
    p->omit_s = (double)omit;
    p->streams = (int)parallel;
    p->block = (uint32_t)len;
    p->sockbuf = (uint32_t)window;
    p->mss = (uint32_t)mss;
    if (p->kind == TEST_UDP_STREAM)
        p->rate_bps = (uint64_t)bw;
    else
        p->tx.pace_bps = (uint64_t)bw; /* -b with TCP: the sender's pacing (engine/path_tx.h) */
    return 0;
}

/*
 * iperf3's TCP send paths, which a server that sends (-R, --bidir) follows
 * as iperf3's own sender does: -Z (sendfile), --fq-rate
 * (SO_MAX_PACING_RATE, bits per second); -b is check_numbers()'s.
 */
static int check_send_path(const json_t *doc, struct test_params *p, char *err, size_t errlen)
{
    /* UDP: netab's UDP sender paces itself; the kernel's fq rate is left as before. */
    if (p->kind != TEST_TCP_STREAM)
        return 0;
    long long fq = 0;
    bool zerocopy = false;
    if (!int_member(doc, "fqrate", 0, (long long)PATH_TX_MAX_RATE, &fq, err, errlen) ||
        !flag_member(doc, "zerocopy", &zerocopy, err, errlen))
        return -EINVAL;
    p->tx.fq_rate_bps = (uint64_t)fq;
    if (zerocopy)
        p->tx.mode = PATH_TX_SENDFILE;
    return path_tx_params_validate(&p->tx, "tcp_stream", true, 0, err, errlen);
}

int iperf3_params_from_json(const json_t *doc, const struct iperf3_limits *lim,
                            struct test_params *p, struct iperf3_request *req, char *err,
                            size_t errlen)
{
    memset(req, 0, sizeof(*req));
    if (!json_is_object(doc))
        return err_set(err, errlen, EINVAL, "iperf3 parameters are not a JSON object");
    int rc = check_kind(doc, p, err, errlen);
    if (!rc)
        rc = check_numbers(doc, lim, p, err, errlen);
    if (!rc)
        rc = check_send_path(doc, p, err, errlen);
    if (rc)
        return rc;
    bool gso = false, u64 = false;
    if (!flag_member(doc, "reverse", &p->reverse, err, errlen) ||
        !flag_member(doc, "bidirectional", &p->bidir, err, errlen) ||
        !flag_member(doc, "nodelay", &p->nodelay, err, errlen) ||
        !flag_member(doc, "get_server_output", &gso, err, errlen) ||
        !flag_member(doc, "udp_counters_64bit", &u64, err, errlen) ||
        !string_member(doc, "congestion", p->cc, sizeof(p->cc), err, errlen) ||
        !string_member(doc, "client_version", req->version, sizeof(req->version), err, errlen))
        return -EINVAL;
    for (int i = 0; ignored_members[i]; i++) {
        json_t *j = json_object_get(doc, ignored_members[i]);
        if (j && !json_is_integer(j) && !json_is_string(j) && !json_is_boolean(j))
            return err_set(err, errlen, EINVAL, "iperf3 parameter '%s' has an unexpected type",
                           ignored_members[i]);
        if (json_is_string(j) && json_string_length(j) > 4096)
            return err_set(err, errlen, EINVAL, "iperf3 parameter '%s' is too long",
                           ignored_members[i]);
    }
    req->get_server_output = gso;
    req->udp64 = u64;
    if (p->kind == TEST_TCP_STREAM && (req->udp64))
        req->udp64 = false;
    if (params_connections(p) > lim->max_streams)
        return err_set(err, errlen, EINVAL,
                       "iperf3 test asks for %d connections; this server allows %d (--max-streams)",
                       params_connections(p), lim->max_streams);
    return params_validate_udp_min(p, IPERF3_UDP_MIN_LEN, err, errlen);
}

json_t *iperf3_results_to_json(const struct iperf3_results *r)
{
    json_t *arr = json_array();
    for (int i = 0; i < r->n; i++) {
        const struct iperf3_stream_result *s = &r->streams[i];
        json_array_append_new(arr,
                              json_pack("{s:i, s:I, s:I, s:f, s:I, s:I, s:f, s:f}", "id", s->id,
                                        "bytes", (json_int_t)s->bytes, "retransmits",
                                        (json_int_t)s->retransmits, "jitter", s->jitter_s, "errors",
                                        (json_int_t)s->errors, "packets", (json_int_t)s->packets,
                                        "start_time", s->start_time, "end_time", s->end_time));
    }
    return json_pack("{s:f, s:f, s:f, s:i, s:o}", "cpu_util_total", r->cpu_total, "cpu_util_user",
                     r->cpu_user, "cpu_util_system", r->cpu_system, "sender_has_retransmits",
                     r->sender_has_retransmits, "streams", arr);
}

/* A finite number member in [lo, hi]; required unless optional. */
static bool num_member(const json_t *o, const char *key, double lo, double hi, bool optional,
                       double *v)
{
    json_t *j = json_object_get(o, key);
    if (!j)
        return optional;
    if (!json_is_number(j))
        return false;
    double x = json_number_value(j);
    if (!isfinite(x) || x < lo || x > hi)
        return false;
    *v = x;
    return true;
}

static int stream_from_json(const json_t *o, int n, struct iperf3_stream_result *s, char *err,
                            size_t errlen)
{
    double id = 0, bytes = 0, retr = -1, jitter = 0, errors = 0, packets = 0, t0 = 0, t1 = 0;
    if (!json_is_object(o) || !num_member(o, "id", 1, 1e6, false, &id) ||
        !num_member(o, "bytes", 0, 9.0e18, false, &bytes) ||
        !num_member(o, "retransmits", -1, 4.0e9, false, &retr) ||
        !num_member(o, "jitter", 0, 3600, false, &jitter) ||
        !num_member(o, "errors", -1, 9.0e18, false, &errors) ||
        !num_member(o, "packets", 0, 9.0e18, false, &packets) ||
        !num_member(o, "start_time", 0, 1e7, true, &t0) ||
        !num_member(o, "end_time", 0, 1e7, true, &t1))
        return err_set(err, errlen, EPROTO,
                       "iperf3 results: a stream lacks id, bytes, retransmits, jitter, errors "
                       "or packets, or has one out of range");
    if (id != floor(id) || iperf3_stream_index((int)id, n) < 0)
        return err_set(err, errlen, EPROTO, "iperf3 results name stream id %g, not in this test",
                       id);
    *s = (struct iperf3_stream_result){.id = (int)id,
                                       .bytes = (uint64_t)bytes,
                                       .retransmits = (int64_t)retr,
                                       .jitter_s = jitter,
                                       .errors = (int64_t)errors,
                                       .packets = (int64_t)packets,
                                       .start_time = t0,
                                       .end_time = t1 >= t0 ? t1 : t0};
    return 0;
}

int iperf3_results_from_json(const json_t *doc, int n, struct iperf3_results *out, char *err,
                             size_t errlen)
{
    memset(out, 0, sizeof(*out));
    double total = 0, user = 0, sys = 0, shr = 0;
    if (!json_is_object(doc) || !num_member(doc, "cpu_util_total", 0, 1e6, false, &total) ||
        !num_member(doc, "cpu_util_user", 0, 1e6, false, &user) ||
        !num_member(doc, "cpu_util_system", 0, 1e6, false, &sys) ||
        !num_member(doc, "sender_has_retransmits", -1, 1, false, &shr))
        return err_set(err, errlen, EPROTO,
                       "iperf3 results lack cpu_util_total, cpu_util_user, cpu_util_system or "
                       "sender_has_retransmits, or have one out of range");
    json_t *arr = json_object_get(doc, "streams");
    if (!json_is_array(arr) || json_array_size(arr) > (size_t)n)
        return err_set(err, errlen, EPROTO,
                       "iperf3 results: 'streams' must be an array of at "
                       "most the test's %d streams",
                       n);
    out->cpu_total = total;
    out->cpu_user = user;
    out->cpu_system = sys;
    out->sender_has_retransmits = (int)shr;
    out->n = (int)json_array_size(arr);
    out->streams = calloc((size_t)(out->n ? out->n : 1), sizeof(*out->streams));
    if (!out->streams)
        return err_set(err, errlen, ENOMEM, "out of memory");
    for (int i = 0; i < out->n; i++) {
        int rc = stream_from_json(json_array_get(arr, (size_t)i), n, &out->streams[i], err, errlen);
        for (int k = 0; !rc && k < i; k++)
            if (out->streams[k].id == out->streams[i].id)
                rc = err_set(err, errlen, EPROTO, "iperf3 results name stream %d twice",
                             out->streams[i].id);
        if (rc) {
            iperf3_results_free(out);
            return rc;
        }
    }
    return 0;
}

void iperf3_results_free(struct iperf3_results *r)
{
    free(r->streams);
    r->streams = NULL;
    r->n = 0;
}

const struct iperf3_stream_result *iperf3_results_find(const struct iperf3_results *r, int id)
{
    for (int i = 0; i < r->n; i++)
        if (r->streams[i].id == id)
            return &r->streams[i];
    return NULL;
}
