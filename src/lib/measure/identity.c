/*
 * Build identity capture: the kernel's release, version string, build ID,
 * config hash and command line, and the interface module's name,
 * srcversion and build ID. The JSON and text forms are in identity_codec.c.
 */
#include "measure/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

/* NT_GNU_BUILD_ID from <elf.h>, spelled out so the parser needs no ELF headers. */
#define NOTE_TYPE_BUILD_ID 3
/* /sys/kernel/notes holds a handful of notes; a page or two in practice. */
#define NOTES_MAX (64 * 1024)
/* A kernel config is a few hundred KiB of text; anything past this is not one. */
#define CONFIG_MAX ((size_t)64 << 20)

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v)); /* notes are in the host's byte order, possibly unaligned here */
    return v;
}

static size_t pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

int identity_parse_build_id(const uint8_t *buf, size_t len, char *hex, size_t hexlen, char *err,
                            size_t errlen)
{
    size_t off = 0;
    if (hexlen < IDENTITY_HEX_LEN)
        return err_set(err, errlen, EINVAL, "the build ID buffer is too small");
    hex[0] = '\0';
    while (off < len) {
        if (len - off < 12)
            return err_set(err, errlen, EINVAL, "ELF note header truncated at offset %zu", off);
        size_t namesz = get_u32(buf + off), descsz = get_u32(buf + off + 4);
        uint32_t type = get_u32(buf + off + 8);
        size_t at = off + 12, rest = len - at;
        /* Sizes are checked against what is left before any addition can overflow. */
        if (namesz > rest || pad4(namesz) > rest || descsz > rest - pad4(namesz) ||
            pad4(descsz) > rest - pad4(namesz))
            return err_set(err, errlen, EINVAL,
                           "ELF note at offset %zu claims %zu name and %zu descriptor bytes, "
                           "more than the %zu left",
                           off, namesz, descsz, rest);
        const uint8_t *name = buf + at, *desc = buf + at + pad4(namesz);
        if (type == NOTE_TYPE_BUILD_ID && namesz == 4 && !memcmp(name, "GNU", 4)) {
            if (descsz == 0 || descsz > IDENTITY_BUILD_ID_MAX)
                return err_set(err, errlen, EINVAL,
                               "GNU build ID note at offset %zu has %zu bytes (1 to %d expected)",
                               off, descsz, IDENTITY_BUILD_ID_MAX);
            for (size_t i = 0; i < descsz; i++)
                snprintf(hex + 2 * i, 3, "%02x", desc[i]);
            return 0;
        }
        off = at + pad4(namesz) + pad4(descsz);
    }
    return -ENOENT;
}

/* root/rel into path; root NULL is "/". Returns 0 or -ENAMETOOLONG. */
static int join(const char *root, const char *rel, char *path, size_t len)
{
    int n = snprintf(path, len, "%s/%s", root ? root : "", rel);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * Opens root/rel for reading without ever blocking: O_NONBLOCK, and only a
 * regular file (procfs and sysfs files are), so that a FIFO or a device
 * placed where a fact should be is refused. Returns the fd or -errno.
 */
static int open_fact(const char *root, const char *rel)
{
    char path[PATH_MAX];
    struct stat st;
    int e = join(root, rel, path, sizeof(path));
    if (e)
        return e;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

/* Reads root/rel, at most cap bytes, into buf; *got its length. -EFBIG if larger. */
static int read_fact(const char *root, const char *rel, uint8_t *buf, size_t cap, size_t *got)
{
    int fd = open_fact(root, rel);
    if (fd < 0)
        return fd;
    int e = 0;
    *got = 0;
    for (;;) {
        uint8_t extra;
        uint8_t *to = *got < cap ? buf + *got : &extra;
        ssize_t n = read(fd, to, *got < cap ? cap - *got : 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            e = -errno;
            break;
        }
        if (n == 0)
            break;
        if (to == &extra) {
            e = -EFBIG;
            break;
        }
        *got += (size_t)n;
    }
    close(fd);
    return e;
}

/*
 * Reads a one-line text fact into out: trailing whitespace removed, every
 * byte outside printable ASCII shown as '?' so the fact is valid JSON text
 * and one line. Leaves out empty when unreadable or longer than out.
 */
static void read_text(const char *root, const char *rel, char *out, size_t len)
{
    size_t got = 0;
    out[0] = '\0';
    if (read_fact(root, rel, (uint8_t *)out, len - 1, &got))
        return;
    while (got > 0 && (out[got - 1] == '\n' || out[got - 1] == ' ' || out[got - 1] == '\t' ||
                       out[got - 1] == '\0'))
        got--;
    for (size_t i = 0; i < got; i++)
        if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
            out[i] = '?';
    out[got] = '\0';
}

/* The build ID in the notes file root/rel, or empty. */
static void read_build_id(const char *root, const char *rel, char *hex, size_t hexlen)
{
    uint8_t *buf = malloc(NOTES_MAX);
    size_t got = 0;
    char err[NB_ERRLEN];
    hex[0] = '\0';
    if (buf && read_fact(root, rel, buf, NOTES_MAX, &got) == 0 &&
        identity_parse_build_id(buf, got, hex, hexlen, err, sizeof(err)))
        hex[0] = '\0';
    free(buf);
}

static void sha_hex(crypto_hash_sha256_state *st, char *out)
{
    unsigned char d[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_final(st, d);
    for (size_t i = 0; i < sizeof(d); i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* SHA-256 of the decompressed text of root/proc/config.gz. Returns 0 or -errno. */
static int hash_config_gz(const char *root, char *out)
{
    int fd = open_fact(root, "proc/config.gz");
    if (fd < 0)
        return fd;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        return -ENOMEM;
    }
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    unsigned char buf[16384];
    size_t total = 0;
    int n, e = 0;
    while ((n = gzread(gz, buf, sizeof(buf))) > 0 && !e) {
        total += (size_t)n;
        e = total > CONFIG_MAX ? -EFBIG : 0;
        crypto_hash_sha256_update(&st, buf, (unsigned long long)n);
    }
    if (n < 0 || !gzeof(gz))
        e = e ? e : -EIO;
    /* zlib reads a file without a gzip header as is; that is not a config.gz. */
    if (!e && gzdirect(gz))
        e = -EINVAL;
    gzclose(gz);
    if (!e)
        sha_hex(&st, out);
    return e;
}

/* SHA-256 of the plain file root/rel. Returns 0 or -errno. */
static int hash_plain(const char *root, const char *rel, char *out)
{
    int fd = open_fact(root, rel);
    if (fd < 0)
        return fd;
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    unsigned char buf[16384];
    size_t total = 0;
    int e = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? -errno : 0;
            break;
        }
        total += (size_t)n;
        if (total > CONFIG_MAX) {
            e = -EFBIG;
            break;
        }
        crypto_hash_sha256_update(&st, buf, (unsigned long long)n);
    }
    close(fd);
    if (!e)
        sha_hex(&st, out);
    return e;
}

/*
 * The config's hash: /proc/config.gz first (it is the running kernel's
 * own), else /boot/config-RELEASE (what the distribution installed with
 * that release). The source is named as on the host, without root.
 */
static void capture_config(struct identity *id, const char *root)
{
    char rel[256];
    if (hash_config_gz(root, id->config_sha256) == 0) {
        snprintf(id->config_source, sizeof(id->config_source), "/proc/config.gz");
        return;
    }
    id->config_sha256[0] = '\0';
    if (!id->release[0] || strchr(id->release, '/'))
        return;
    snprintf(rel, sizeof(rel), "boot/config-%s", id->release);
    if (hash_plain(root, rel, id->config_sha256) == 0)
        snprintf(id->config_source, sizeof(id->config_source), "/%s", rel);
    else
        id->config_sha256[0] = '\0';
}

/* The last path component of the symbolic link root/rel into out, or -errno. */
static int link_base(const char *root, const char *rel, char *out, size_t len)
{
    char path[PATH_MAX], target[PATH_MAX];
    int e = join(root, rel, path, sizeof(path));
    if (e)
        return e;
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n <= 0)
        return n < 0 ? -errno : -ENOENT;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    if (!*base || strlen(base) >= len)
        return -ENAMETOOLONG;
    snprintf(out, len, "%s", base);
    return 0;
}

/* The driver ethtool -i names (ETHTOOL_GDRVINFO), for interfaces without a device link. */
static int ethtool_driver(const char *ifname, char *out, size_t len)
{
    struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
    struct ifreq ifr = {0};
    if (strlen(ifname) >= sizeof(ifr.ifr_name))
        return -ENAMETOOLONG;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    ifr.ifr_data = (void *)&di;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int e = ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
    close(fd);
    di.driver[sizeof(di.driver) - 1] = '\0';
    if (!e && !di.driver[0])
        e = -ENOENT;
    if (!e)
        snprintf(out, len, "%s", di.driver);
    return e;
}

/* A name usable as one path component under sys/module. */
static int safe_component(const char *s)
{
    return s[0] && s[0] != '.' && !strchr(s, '/');
}

/*
 * The interface's module: the device's driver/module link (a loadable or
 * registered module), else the device's driver link, else what ethtool -i
 * reports (virtual interfaces such as veth have no device; lo answers
 * nothing, so it has no module). Then /sys/module/NAME says the rest: a
 * loadable module has an initstate file, a built-in one does not.
 */
static void capture_module(struct identity_module *m, const char *root, const char *ifname)
{
    char rel[512];
    memset(m, 0, sizeof(*m));
    m->builtin = -1;
    snprintf(rel, sizeof(rel), "sys/class/net/%s/device/driver/module", ifname);
    if (link_base(root, rel, m->name, sizeof(m->name))) {
        snprintf(rel, sizeof(rel), "sys/class/net/%s/device/driver", ifname);
        if (link_base(root, rel, m->name, sizeof(m->name)) &&
            (root || ethtool_driver(ifname, m->name, sizeof(m->name))))
            m->name[0] = '\0';
    }
    if (!safe_component(m->name)) {
        m->name[0] = '\0';
        return;
    }
    char path[PATH_MAX];
    struct stat st;
    snprintf(rel, sizeof(rel), "sys/module/%s", m->name);
    if (join(root, rel, path, sizeof(path)) || stat(path, &st) || !S_ISDIR(st.st_mode))
        return;
    snprintf(rel, sizeof(rel), "sys/module/%s/initstate", m->name);
    m->builtin = join(root, rel, path, sizeof(path)) == 0 && access(path, F_OK) == 0 ? 0 : 1;
    snprintf(rel, sizeof(rel), "sys/module/%s/srcversion", m->name);
    read_text(root, rel, m->srcversion, sizeof(m->srcversion));
    snprintf(rel, sizeof(rel), "sys/module/%s/notes/.note.gnu.build-id", m->name);
    read_build_id(root, rel, m->build_id, sizeof(m->build_id));
}

void identity_capture(struct identity *id, const char *root, const char *ifname)
{
    memset(id, 0, sizeof(*id));
    id->module.builtin = -1;
    read_text(root, "proc/sys/kernel/osrelease", id->release, sizeof(id->release));
    if (!id->release[0] && !root) {
        struct utsname u;
        if (uname(&u) == 0)
            snprintf(id->release, sizeof(id->release), "%s", u.release);
    }
    read_text(root, "proc/version", id->version, sizeof(id->version));
    read_build_id(root, "sys/kernel/notes", id->build_id, sizeof(id->build_id));
    capture_config(id, root);
    read_text(root, "proc/cmdline", id->cmdline, sizeof(id->cmdline));
    if (ifname && *ifname && strcmp(ifname, "lo") && safe_component(ifname) &&
        strlen(ifname) < sizeof(id->iface)) {
        snprintf(id->iface, sizeof(id->iface), "%s", ifname);
        capture_module(&id->module, root, ifname);
    } else if (ifname && !strcmp(ifname, "lo")) {
        snprintf(id->iface, sizeof(id->iface), "lo");
    }
}
