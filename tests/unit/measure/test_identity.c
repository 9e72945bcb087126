/*
 * Unit tests for measure/identity: the ELF note parser on hand-built
 * buffers (well formed, truncated, hostile), capture on a fixture tree
 * built here (notes, config.gz, /boot config, module links), the JSON
 * round trip and its checks, and the composite text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "measure/identity.h"

/* Appends one note (namesz, descsz, type, padded name, padded desc) at buf+*len. */
static void put_note(uint8_t *buf, size_t *len, const char *name, size_t namesz, uint32_t type,
                     const uint8_t *desc, size_t descsz)
{
    uint32_t h[3] = {(uint32_t)namesz, (uint32_t)descsz, type};
    memcpy(buf + *len, h, sizeof(h));
    *len += sizeof(h);
    memset(buf + *len, 0, (namesz + 3) & ~(size_t)3);
    memcpy(buf + *len, name, namesz);
    *len += (namesz + 3) & ~(size_t)3;
    memset(buf + *len, 0, (descsz + 3) & ~(size_t)3);
    memcpy(buf + *len, desc, descsz);
    *len += (descsz + 3) & ~(size_t)3;
}

static const uint8_t id20[20] = {0xa3, 0xe4, 0xcd, 0x60, 0xa8, 0xec, 0x14, 0xf0, 0x2a, 0xa4,
                                 0x1b, 0x41, 0xd5, 0xb5, 0x84, 0x6d, 0x3d, 0x9f, 0x1d, 0xd8};
#define HEX20 "a3e4cd60a8ec14f02aa41b41d5b5846d3d9f1dd8"

static void test_parse_build_id(void **state)
{
    (void)state;
    uint8_t buf[512];
    size_t len = 0;
    char hex[IDENTITY_HEX_LEN], err[NB_ERRLEN];
    /* As in /sys/kernel/notes: Xen and Linux notes around the GNU one. */
    put_note(buf, &len, "Xen", 4, 6, (const uint8_t *)"xen-3.0", 8);
    put_note(buf, &len, "GNU", 4, 1, (const uint8_t *)"\0\0\0\0", 4); /* ABI tag, not the ID */
    put_note(buf, &len, "GNU", 4, 3, id20, sizeof(id20));
    put_note(buf, &len, "Linux", 6, 0x101, (const uint8_t *)"\6\0\0\0", 4);
    assert_int_equal(identity_parse_build_id(buf, len, hex, sizeof(hex), err, sizeof(err)), 0);
    assert_string_equal(hex, HEX20);
    /* A descriptor of an odd length is padded; the ID is its bytes only. */
    len = 0;
    put_note(buf, &len, "GNU", 4, 3, id20, 5);
    assert_int_equal(identity_parse_build_id(buf, len, hex, sizeof(hex), err, sizeof(err)), 0);
    assert_string_equal(hex, "a3e4cd60a8");
    /* Well formed, no build ID: -ENOENT; the empty buffer too. */
    len = 0;
    put_note(buf, &len, "Linux", 6, 3, id20, 20); /* type 3 under another name */
    put_note(buf, &len, "GNUX", 5, 3, id20, 20);
    assert_int_equal(identity_parse_build_id(buf, len, hex, sizeof(hex), err, sizeof(err)),
                     -ENOENT);
    assert_int_equal(identity_parse_build_id(buf, 0, hex, sizeof(hex), err, sizeof(err)), -ENOENT);
}

static void expect_bad(const uint8_t *buf, size_t len, const char *words)
{
    char hex[IDENTITY_HEX_LEN], err[NB_ERRLEN] = "";
    assert_int_equal(identity_parse_build_id(buf, len, hex, sizeof(hex), err, sizeof(err)),
                     -EINVAL);
    if (!strstr(err, words))
        fail_msg("error '%s' does not say '%s'", err, words);
}

static void test_parse_hostile(void **state)
{
    (void)state;
    uint8_t buf[512];
    size_t len = 0;
    put_note(buf, &len, "GNU", 4, 3, id20, sizeof(id20));
    /* Every truncation of a good note is refused, never read past. */
    for (size_t cut = 1; cut < len; cut++) {
        uint8_t *copy = malloc(cut);
        memcpy(copy, buf, cut);
        expect_bad(copy, cut, cut < 12 ? "header truncated" : "more than");
        free(copy);
    }
    /* Sizes near 2^32 must not wrap the arithmetic. */
    uint32_t h[3] = {0xffffffffu, 0xfffffffdu, 3};
    memcpy(buf, h, sizeof(h));
    expect_bad(buf, 64, "more than");
    h[0] = 4;
    h[1] = 0xfffffffcu;
    memcpy(buf, h, sizeof(h));
    memcpy(buf + 12, "GNU", 4);
    expect_bad(buf, 64, "more than");
    /* An empty build ID, and one longer than any real one. */
    len = 0;
    put_note(buf, &len, "GNU", 4, 3, id20, 0);
    expect_bad(buf, len, "has 0 bytes");
    uint8_t big[100] = {0};
    len = 0;
    put_note(buf, &len, "GNU", 4, 3, big, sizeof(big));
    expect_bad(buf, len, "has 100 bytes");
    /* A good note followed by a truncated one: the ID is found first. */
    len = 0;
    put_note(buf, &len, "GNU", 4, 3, id20, sizeof(id20));
    char hex[IDENTITY_HEX_LEN], err[NB_ERRLEN];
    assert_int_equal(identity_parse_build_id(buf, len + 5, hex, sizeof(hex), err, sizeof(err)), 0);
    /* A caller's buffer too small for any ID is refused. */
    assert_int_equal(identity_parse_build_id(buf, len, hex, 10, err, sizeof(err)), -EINVAL);
}

static char root[256];

static void write_file(const char *rel, const void *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void link_to(const char *target, const char *rel)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    write_file(rel, "", 0); /* makes the directories; the file is replaced */
    unlink(path);
    assert_int_equal(symlink(target, path), 0);
}

#define CONFIG_TEXT "CONFIG_NET=y\nCONFIG_VIRTIO_NET=m\n"
/* sha256sum of CONFIG_TEXT, computed with coreutils' sha256sum. */
#define CONFIG_SHA "3c8aa47a00ff7f9d6b37856b944b922e0d3931ad1072ace93cfe7004360de19c"

static void build_tree(void)
{
    uint8_t notes[256];
    size_t len = 0;
    snprintf(root, sizeof(root), "/tmp/netab-identity-XXXXXX");
    assert_non_null(mkdtemp(root));
    write_file("proc/sys/kernel/osrelease", "6.1.0-fake\n", 11);
    const char *version = "Linux version 6.1.0-fake (b@h) (gcc 12) #1 SMP\n";
    write_file("proc/version", version, strlen(version));
    const char *cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 \x01quiet\n";
    write_file("proc/cmdline", cmdline, strlen(cmdline));
    put_note(notes, &len, "GNU", 4, 3, id20, sizeof(id20));
    write_file("sys/kernel/notes", notes, len);
    write_file("boot/config-6.1.0-fake", CONFIG_TEXT, strlen(CONFIG_TEXT));
    /* A loadable module behind a device: driver/module link, initstate, srcversion, notes. */
    link_to("../../../../module/virtio_net", "sys/class/net/eth9/device/driver/module");
    write_file("sys/module/virtio_net/initstate", "live\n", 5);
    write_file("sys/module/virtio_net/srcversion", "1A2B3C4D5E6F\n", 13);
    len = 0;
    put_note(notes, &len, "GNU", 4, 3, id20 + 4, 16);
    write_file("sys/module/virtio_net/notes/.note.gnu.build-id", notes, len);
    /* A built-in driver: a driver link, no module link, no initstate. */
    link_to("../../../bus/virtio/drivers/e1000e", "sys/class/net/eth8/device/driver");
    write_file("sys/module/e1000e/parameters/x", "1", 1);
}

static void remove_tree(void)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

static void test_capture_tree(void **state)
{
    (void)state;
    build_tree();
    struct identity *id = malloc(sizeof(*id));
    identity_capture(id, root, "eth9");
    assert_string_equal(id->release, "6.1.0-fake");
    assert_string_equal(id->version, "Linux version 6.1.0-fake (b@h) (gcc 12) #1 SMP");
    assert_string_equal(id->build_id, HEX20);
    assert_string_equal(id->cmdline, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ?quiet");
    assert_string_equal(id->config_source, "/boot/config-6.1.0-fake");
    assert_int_equal(strlen(id->config_sha256), 64);
    const char *want_sha = CONFIG_SHA;
    assert_string_equal(id->config_sha256, want_sha);
    assert_string_equal(id->iface, "eth9");
    assert_string_equal(id->module.name, "virtio_net");
    assert_int_equal(id->module.builtin, 0);
    assert_string_equal(id->module.srcversion, "1A2B3C4D5E6F");
    assert_string_equal(id->module.build_id, "a8ec14f02aa41b41d5b5846d3d9f1dd8");

    /* /proc/config.gz wins over /boot, and its decompressed text is what is hashed. */
    char gzpath[512];
    snprintf(gzpath, sizeof(gzpath), "%s/proc/config.gz", root);
    gzFile gz = gzopen(gzpath, "wb");
    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, CONFIG_TEXT, strlen(CONFIG_TEXT)), (int)strlen(CONFIG_TEXT));
    gzclose(gz);
    identity_capture(id, root, "eth8");
    assert_string_equal(id->config_source, "/proc/config.gz");
    assert_string_equal(id->config_sha256, want_sha);
    assert_string_equal(id->module.name, "e1000e");
    assert_int_equal(id->module.builtin, 1);
    assert_string_equal(id->module.srcversion, "");

    /* A config.gz that is not gzip is not hashed as is: /boot's config is taken. */
    write_file("proc/config.gz", "not gzip at all", 15);
    identity_capture(id, root, "lo");
    assert_string_equal(id->config_source, "/boot/config-6.1.0-fake");
    assert_string_equal(id->config_sha256, want_sha);
    /* lo has no module, and that is no error. */
    assert_string_equal(id->iface, "lo");
    assert_string_equal(id->module.name, "");

    /* A FIFO where a fact should be is refused without blocking. */
    char fifo[512];
    snprintf(fifo, sizeof(fifo), "%s/proc/version", root);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    identity_capture(id, root, NULL);
    assert_string_equal(id->version, "");
    assert_string_equal(id->release, "6.1.0-fake");

    /* Without either config the hash is unknown. */
    char boot[512];
    snprintf(boot, sizeof(boot), "%s/boot/config-6.1.0-fake", root);
    unlink(boot);
    identity_capture(id, root, NULL);
    assert_string_equal(id->config_sha256, "");
    assert_string_equal(id->config_source, "");
    /* Hostile notes leave the build ID unknown; an unknown interface has no module. */
    write_file("sys/kernel/notes", "\xff\xff\xff\xff\x01", 5);
    identity_capture(id, root, "nosuch0");
    assert_string_equal(id->build_id, "");
    assert_string_equal(id->module.name, "");
    free(id);
    remove_tree();
}

static void test_capture_here(void **state)
{
    (void)state;
    struct identity *id = malloc(sizeof(*id));
    identity_capture(id, NULL, "lo");
    ASSERT_NE(id->release[0], '\0');
    assert_non_null(strstr(id->version, id->release));
    assert_string_equal(id->module.name, "");
    free(id);
}

static void test_json_round_trip(void **state)
{
    (void)state;
    build_tree();
    struct identity *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
    char err[NB_ERRLEN];
    identity_capture(a, root, "eth9");
    json_t *j = identity_to_json(a);
    assert_non_null(j);
    assert_int_equal(identity_from_json(j, b, err, sizeof(err)), 0);
    assert_memory_equal(a, b, sizeof(*a));
    assert_string_equal(json_string_value(json_object_get(j, "build_id")), HEX20);
    assert_true(json_is_false(json_object_get(json_object_get(j, "module"), "builtin")));
    json_decref(j);
    /* The composite text: fixed keys, fixed order. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    identity_write_text(a, f);
    fclose(f);
    char want[1024];
    snprintf(want, sizeof(want),
             "release: 6.1.0-fake\n"
             "version: Linux version 6.1.0-fake (b@h) (gcc 12) #1 SMP\n"
             "build_id: " HEX20 "\n"
             "config_sha256: %s (/boot/config-6.1.0-fake)\n"
             "cmdline: BOOT_IMAGE=/vmlinuz root=/dev/sda1 ?quiet\n"
             "module: virtio_net srcversion 1A2B3C4D5E6F build_id "
             "a8ec14f02aa41b41d5b5846d3d9f1dd8\n",
             a->config_sha256);
    assert_string_equal(text, want);
    free(text);
    /* Nothing known: null members, "unknown" and "none" in the text. */
    memset(a, 0, sizeof(*a));
    a->module.builtin = -1;
    j = identity_to_json(a);
    assert_true(json_is_null(json_object_get(j, "release")));
    assert_true(json_is_null(json_object_get(j, "module")));
    json_decref(j);
    f = open_memstream(&text, &len);
    identity_write_text(a, f);
    fclose(f);
    assert_string_equal(text, "release: unknown\nversion: unknown\nbuild_id: unknown\n"
                              "config_sha256: unknown\ncmdline: unknown\nmodule: none\n");
    free(text);
    free(a);
    free(b);
    remove_tree();
}

static void expect_refused(const char *doc, const char *words)
{
    json_error_t jerr;
    json_t *j = json_loads(doc, JSON_DECODE_ANY, &jerr);
    if (!j)
        fail_msg("bad test JSON %s: %s", doc, jerr.text);
    struct identity *id = malloc(sizeof(*id));
    char err[NB_ERRLEN] = "";
    assert_int_equal(identity_from_json(j, id, err, sizeof(err)), -EPROTO);
    if (!strstr(err, words))
        fail_msg("error '%s' for %s does not say '%s'", err, doc, words);
    free(id);
    json_decref(j);
}

static void test_from_json_checks(void **state)
{
    (void)state;
    expect_refused("[]", "not a JSON object");
    expect_refused("{\"release\": 5}", "identity.release");
    expect_refused("{\"build_id\": \"A3\"}", "identity.build_id has a byte 0x41");
    expect_refused("{\"build_id\": \"abc\"}", "odd number");
    expect_refused("{\"config_sha256\": \"ab\"}", "64 hex digits");
    expect_refused("{\"cmdline\": \"a\\nb\"}", "identity.cmdline has a byte 0x0a");
    expect_refused("{\"module\": 3}", "identity.module");
    expect_refused("{\"module\": {\"srcversion\": \"X\"}}", "has no name");
    expect_refused("{\"module\": {\"name\": \"m\", \"builtin\": 1}}", "builtin");
    char big[6000];
    snprintf(big, sizeof(big), "{\"version\": \"%5000d\"}", 1);
    expect_refused(big, "fewer than 512 bytes");
    /* An empty object is an identity of unknowns. */
    struct identity *id = malloc(sizeof(*id));
    char err[NB_ERRLEN];
    json_t *j = json_object();
    assert_int_equal(identity_from_json(j, id, err, sizeof(err)), 0);
    assert_string_equal(id->release, "");
    assert_int_equal(id->module.builtin, -1);
    json_decref(j);
    free(id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_build_id),  cmocka_unit_test(test_parse_hostile),
        cmocka_unit_test(test_capture_tree),    cmocka_unit_test(test_capture_here),
        cmocka_unit_test(test_json_round_trip), cmocka_unit_test(test_from_json_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
