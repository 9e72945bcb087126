/*
 * Tests of the build identity in environment differences: env_diff rows of
 * crafted snapshots whose identities differ, and env_identity_notes'
 * sentences (same release, different builds) and silences (different or
 * unknown releases, different modules).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "envcap/envcap.h"

static json_t *parse(const char *text)
{
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (!v)
        fail_msg("bad test JSON: %s", jerr.text);
    return v;
}

/* The notes of a and b (JSON texts) joined by "|". */
static char *notes(const char *a, const char *b)
{
    json_t *ja = parse(a), *jb = parse(b);
    json_t *n = env_identity_notes(ja, jb, "local");
    assert_non_null(n);
    static char out[4096];
    out[0] = '\0';
    size_t i;
    json_t *s;
    json_array_foreach(n, i, s)
    {
        if (i)
            strcat(out, "|");
        strcat(out, json_string_value(s));
    }
    json_decref(n);
    json_decref(ja);
    json_decref(jb);
    return out;
}

#define ID(rel, bid, cfg, mod)                                                                     \
    "{\"release\": \"" rel "\", \"build_id\": " bid ", \"config_sha256\": " cfg                    \
    ", \"module\": " mod "}"

static void test_same_release_different_builds(void **state)
{
    (void)state;
    assert_string_equal(notes(ID("6.1.0-18-amd64", "\"3f2a\"", "null", "null"),
                              ID("6.1.0-18-amd64", "\"9c0d\"", "null", "null")),
                        "local: same kernel release 6.1.0-18-amd64, different build IDs: 3f2a "
                        "vs 9c0d");
    assert_string_equal(
        notes(ID("6.1", "\"aa\"", "\"0123456789abcdef0123\"", "null"),
              ID("6.1", "\"aa\"", "\"fedcba9876543210fedc\"", "null")),
        "local: same kernel release 6.1, different kernel configs (SHA-256 0123456789ab vs "
        "fedcba987654)");
    const char *m1 = "{\"name\": \"virtio_net\", \"srcversion\": \"A1\", \"build_id\": \"b1\"}";
    const char *m2 = "{\"name\": \"virtio_net\", \"srcversion\": \"A2\", \"build_id\": \"b2\"}";
    char a[512], b[512];
    snprintf(a, sizeof(a), ID("6.1", "\"aa\"", "null", "%s"), m1);
    snprintf(b, sizeof(b), ID("6.1", "\"aa\"", "null", "%s"), m2);
    assert_string_equal(notes(a, b),
                        "local: same kernel release 6.1, module virtio_net has different "
                        "srcversions: A1 vs A2|local: same kernel release 6.1, module "
                        "virtio_net has different build IDs: b1 vs b2");
}

static void test_silences(void **state)
{
    (void)state;
    /* Same build: nothing to say. */
    assert_string_equal(
        notes(ID("6.1", "\"aa\"", "null", "null"), ID("6.1", "\"aa\"", "null", "null")), "");
    /* Different releases: the release row says it already. */
    assert_string_equal(
        notes(ID("6.1", "\"aa\"", "null", "null"), ID("6.2", "\"bb\"", "null", "null")), "");
    /* An unknown build ID on one side is no difference proven. */
    assert_string_equal(
        notes(ID("6.1", "\"aa\"", "null", "null"), ID("6.1", "null", "null", "null")), "");
    /* Different modules (another NIC) are not one module's two builds. */
    assert_string_equal(
        notes(ID("6.1", "\"aa\"", "null", "{\"name\": \"e1000e\", \"srcversion\": \"X\"}"),
              ID("6.1", "\"aa\"", "null", "{\"name\": \"ixgbe\", \"srcversion\": \"Y\"}")),
        "");
    /* No identity at all (older snapshots), or not objects. */
    assert_string_equal(notes("null", ID("6.1", "\"aa\"", "null", "null")), "");
    json_t *n = env_identity_notes(NULL, NULL, "remote");
    assert_non_null(n);
    assert_int_equal(json_array_size(n), 0);
    json_decref(n);
    assert_string_equal(notes("[1]", "\"6.1\""), "");
}

static void test_diff_rows(void **state)
{
    (void)state;
    json_t *a =
        parse("{\"kernel\": \"6.1\", \"identity\": " ID("6.1", "\"aa\"", "null", "null") "}");
    json_t *b =
        parse("{\"kernel\": \"6.1\", \"identity\": " ID("6.1", "\"bb\"", "null", "null") "}");
    json_t *d = env_diff(a, b);
    assert_non_null(d);
    assert_int_equal(json_array_size(d), 1);
    json_t *row = json_array_get(d, 0);
    assert_string_equal(json_string_value(json_object_get(row, "path")), "/identity/build_id");
    assert_string_equal(json_string_value(json_object_get(row, "a")), "aa");
    assert_string_equal(json_string_value(json_object_get(row, "b")), "bb");
    json_decref(d);
    json_decref(a);
    json_decref(b);
}

/* env_capture on the fake tree reads the identity from the tree's proc/ and sys/. */
static void test_capture_fake_tree(void **state)
{
    const char *data = *state;
    char sys[4096], proc[4096];
    snprintf(sys, sizeof(sys), "%s/sys", data);
    snprintf(proc, sizeof(proc), "%s/proc", data);
    json_t *env = env_capture("nbtest0", sys, proc);
    assert_non_null(env);
    json_t *id = json_object_get(env, "identity");
    assert_true(json_is_object(id));
    assert_string_equal(json_string_value(json_object_get(id, "cmdline")),
                        "BOOT_IMAGE=/vmlinuz-6.1.0-fake root=/dev/sda1 quiet");
    assert_string_equal(json_string_value(json_object_get(id, "interface")), "nbtest0");
    json_decref(env);
}

static int setup(void **state)
{
    *state = getenv("ENVCAP_DATA");
    return *state ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_release_different_builds),
        cmocka_unit_test(test_silences),
        cmocka_unit_test(test_diff_rows),
        cmocka_unit_test_setup(test_capture_fake_tree, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
