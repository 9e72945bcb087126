/*
 * The interface{} section of a snapshot: driver and firmware (ethtool
 * GDRVINFO), link speed, MTU, offload features (ethtool GFEATURES with
 * names from GSTRINGS) and the IRQs serving the interface with their
 * affinity; plus env_iface_for_addr() and env_iface_irqs().
 */
#include "envcap/envcap.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "envcap/envcap_priv.h"
#include "envcap/fsread.h"

#define MAX_IRQS 512

static int ethtool(int fd, const char *ifname, void *cmd)
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    ifr.ifr_data = cmd;
    return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

/* Driver, version, firmware and bus from ETHTOOL_GDRVINFO; null each when it fails. */
static void drvinfo(int fd, const char *ifname, json_t *o)
{
    struct ethtool_drvinfo di;
    memset(&di, 0, sizeof(di));
    di.cmd = ETHTOOL_GDRVINFO;
    int ok = fd >= 0 && ethtool(fd, ifname, &di) == 0;
    json_object_set_new(o, "driver", ok ? str_or_null(di.driver) : json_null());
    json_object_set_new(o, "driver_version", ok ? str_or_null(di.version) : json_null());
    json_object_set_new(o, "firmware_version", ok ? str_or_null(di.fw_version) : json_null());
    json_object_set_new(o, "bus_info", ok ? str_or_null(di.bus_info) : json_null());
}

/*
 * Offload features by name -> active (true/false), from ETHTOOL_GFEATURES
 * with names from ETHTOOL_GSTRINGS(ETH_SS_FEATURES). Null if unsupported.
 */
static json_t *features(int fd, const char *ifname)
{
    struct {
        struct ethtool_sset_info hdr;
        __u32 len;
    } ss;
    struct ethtool_gstrings *names = NULL;
    struct ethtool_gfeatures *feat = NULL;
    json_t *out = json_null();

    if (fd < 0)
        return out;
    memset(&ss, 0, sizeof(ss));
    ss.hdr.cmd = ETHTOOL_GSSET_INFO;
    ss.hdr.sset_mask = 1ULL << ETH_SS_FEATURES;
    if (ethtool(fd, ifname, &ss) || !(ss.hdr.sset_mask & (1ULL << ETH_SS_FEATURES)))
        return out;
    __u32 n = ss.len;
    if (n == 0 || n > 4096)
        return out;
    names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
    size_t blocks = (n + 31) / 32;
    feat = calloc(1, sizeof(*feat) + blocks * sizeof(feat->features[0]));
    if (!names || !feat)
        goto done;
    names->cmd = ETHTOOL_GSTRINGS;
    names->string_set = ETH_SS_FEATURES;
    names->len = n;
    feat->cmd = ETHTOOL_GFEATURES;
    feat->size = (__u32)blocks;
    if (ethtool(fd, ifname, names) || ethtool(fd, ifname, feat))
        goto done;
    json_decref(out);
    out = json_object();
    for (__u32 i = 0; i < n && i < names->len; i++) {
        char name[ETH_GSTRING_LEN + 1];
        memcpy(name, names->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
        name[ETH_GSTRING_LEN] = '\0';
        if (!name[0])
            continue;
        int on = (feat->features[i / 32].active >> (i % 32)) & 1;
        json_object_set_new(out, name, json_boolean(on));
    }
done:
    free(names);
    free(feat);
    return out;
}

/* Link speed in Mb/s from sysfs; null when unknown (-1, EINVAL for lo, link down). */
static json_t *speed(const char *sys, const char *ifname)
{
    char rel[128];
    snprintf(rel, sizeof(rel), "class/net/%s/speed", ifname);
    json_t *v = fs_json_int(sys, rel);
    if (json_is_integer(v) && json_integer_value(v) <= 0) {
        json_decref(v);
        return json_null();
    }
    return v;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Adds the numbers in dir (msi_irqs/ holds one file per vector) to irqs. */
static int add_msi(const char *dir, int *irqs, int n, int max)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/msi_irqs", dir);
    struct dirent **ents = NULL;
    int k = scandir(path, &ents, NULL, NULL);
    for (int i = 0; i < k; i++) {
        char *end;
        long v = strtol(ents[i]->d_name, &end, 10);
        if (end != ents[i]->d_name && !*end && n < max)
            irqs[n++] = (int)v;
        free(ents[i]);
    }
    free(ents);
    return n;
}

/* Does token start with name, followed by its end or a separator ("eth0-rx-1", "virtio2-input.0")?
 */
static int names_it(const char *token, const char *name)
{
    size_t l = strlen(name);
    if (!l || strncmp(token, name, l))
        return 0;
    char c = token[l];
    return c == '\0' || c == '-' || c == '_' || c == '@' || c == ':' || c == '.';
}

int env_iface_irqs(const char *ifname, const char *sysfs_root, const char *procfs_root, int *irqs,
                   int max)
{
    const char *sys = sysfs_root ? sysfs_root : "/sys";
    const char *proc = procfs_root ? procfs_root : "/proc";
    char devlink[PATH_MAX], target[PATH_MAX + 4], devdir[PATH_MAX], devname[PATH_MAX] = "";
    int n = 0;

    if (!ifname || !*ifname || strchr(ifname, '/'))
        return -EINVAL;
    /* MSI vectors of the device, or of its parent for virtio (PCI holds them). */
    snprintf(devlink, sizeof(devlink), "%s/class/net/%s/device", sys, ifname);
    if (realpath(devlink, devdir)) {
        const char *slash = strrchr(devdir, '/');
        snprintf(devname, sizeof(devname), "%s", slash ? slash + 1 : devdir);
        n = add_msi(devdir, irqs, n, max);
        if (n == 0 && !strncmp(devname, "virtio", 6)) {
            snprintf(target, sizeof(target), "%s/..", devdir);
            n = add_msi(target, irqs, n, max);
        }
    }
    /* /proc/interrupts lines naming the interface or its device. */
    char rel[] = "interrupts";
    char *buf = malloc(1 << 20);
    if (buf && fs_read(proc, rel, buf, 1 << 20) > 0) {
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
            char *end;
            long irq = strtol(line, &end, 10);
            if (end == line || *end != ':')
                continue;
            int hit = 0;
            /* The action names are the last fields; test each token after the counts. */
            for (char *t = end + 1; *t && !hit;) {
                while (*t == ' ' || *t == '\t' || *t == ',')
                    t++;
                char *e = t;
                while (*e && *e != ' ' && *e != '\t' && *e != ',')
                    e++;
                char save = *e;
                *e = '\0';
                hit = names_it(t, ifname) || (devname[0] && names_it(t, devname));
                *e = save;
                t = e;
            }
            if (hit && n < max)
                irqs[n++] = (int)irq;
        }
    }
    free(buf);
    qsort(irqs, (size_t)n, sizeof(int), cmp_int);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || irqs[u - 1] != irqs[i])
            irqs[u++] = irqs[i];
    return u;
}

static json_t *irq_list(const char *ifname, const char *sys, const char *proc)
{
    int irqs[MAX_IRQS];
    int n = env_iface_irqs(ifname, sys, proc, irqs, MAX_IRQS);
    if (n < 0)
        return json_null();
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        char rel[64];
        json_t *o = json_object();
        json_object_set_new(o, "irq", json_integer(irqs[i]));
        snprintf(rel, sizeof(rel), "irq/%d/smp_affinity_list", irqs[i]);
        json_object_set_new(o, "affinity", fs_json_str(proc, rel));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *envcap_iface_section(const char *ifname, const char *sys, const char *proc)
{
    json_t *o = json_object();
    char rel[128];
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    if (!o)
        goto out;
    json_object_set_new(o, "name", json_string(ifname));
    snprintf(rel, sizeof(rel), "class/net/%s/mtu", ifname);
    json_t *mtu = fs_json_int(sys, rel);
    if (json_is_null(mtu) && fd >= 0 && !strcmp(sys, "/sys")) {
        struct ifreq ifr;
        memset(&ifr, 0, sizeof(ifr));
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
        if (ioctl(fd, SIOCGIFMTU, &ifr) == 0) {
            json_decref(mtu);
            mtu = json_integer(ifr.ifr_mtu);
        }
    }
    json_object_set_new(o, "mtu", mtu);
    json_object_set_new(o, "speed_mbps", speed(sys, ifname));
    snprintf(rel, sizeof(rel), "class/net/%s/operstate", ifname);
    json_object_set_new(o, "operstate", fs_json_str(sys, rel));
    drvinfo(fd, ifname, o);
    json_object_set_new(o, "features", features(fd, ifname));
    json_object_set_new(o, "irqs", irq_list(ifname, sys, proc));
out:
    if (fd >= 0)
        close(fd);
    return o;
}

/* Is sa the address in ip (already parsed into a4 or a6)? */
static int same_addr(const struct sockaddr *sa, int family, const struct in_addr *a4,
                     const struct in6_addr *a6)
{
    if (!sa || sa->sa_family != family)
        return 0;
    if (family == AF_INET)
        return ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr == a4->s_addr;
    return !memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, a6, sizeof(*a6));
}

static int find_local(int family, const struct in_addr *a4, const struct in6_addr *a6, char *ifname,
                      size_t len)
{
    struct ifaddrs *ifa, *i;
    int err = -ENODEV;
    if (getifaddrs(&ifa) < 0)
        return -errno;
    for (i = ifa; i; i = i->ifa_next)
        if (same_addr(i->ifa_addr, family, a4, a6)) {
            snprintf(ifname, len, "%s", i->ifa_name);
            err = 0;
            break;
        }
    freeifaddrs(ifa);
    return err;
}

int env_iface_for_addr(const char *ip, char *ifname, size_t len)
{
    struct in_addr a4;
    struct in6_addr a6;
    int family;

    if (!ip || !ifname || len == 0)
        return -EINVAL;
    if (inet_pton(AF_INET, ip, &a4) == 1)
        family = AF_INET;
    else if (inet_pton(AF_INET6, ip, &a6) == 1)
        family = AF_INET6;
    else
        return -EINVAL;
    if (find_local(family, &a4, &a6, ifname, len) == 0)
        return 0;
    if ((family == AF_INET && (ntohl(a4.s_addr) >> 24) == 127) ||
        (family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&a6))) {
        snprintf(ifname, len, "lo");
        return 0;
    }
    /* A remote address: connecting a UDP socket asks the kernel for the route; nothing is sent. */
    struct sockaddr_storage ss, local;
    socklen_t sl = sizeof(local);
    memset(&ss, 0, sizeof(ss));
    if (family == AF_INET) {
        struct sockaddr_in *s = (struct sockaddr_in *)&ss;
        s->sin_family = AF_INET;
        s->sin_port = htons(9);
        s->sin_addr = a4;
    } else {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
        s->sin6_family = AF_INET6;
        s->sin6_port = htons(9);
        s->sin6_addr = a6;
    }
    int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int err = 0;
    if (connect(fd, (struct sockaddr *)&ss,
                family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)) < 0 ||
        getsockname(fd, (struct sockaddr *)&local, &sl) < 0)
        err = -errno;
    close(fd);
    if (err)
        return err == -ENETUNREACH ? -ENODEV : err;
    if (family == AF_INET)
        return find_local(AF_INET, &((struct sockaddr_in *)&local)->sin_addr, NULL, ifname, len);
    return find_local(AF_INET6, NULL, &((struct sockaddr_in6 *)&local)->sin6_addr, ifname, len);
}
