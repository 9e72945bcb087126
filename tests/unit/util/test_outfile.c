/*
 * Unit tests for util/outfile: a file appears under its name only whole, a
 * symbolic link there is replaced rather than followed, a FIFO is written
 * through as a stream, and a directory or a link to a device is refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "netab_assert.h"
#include "util/outfile.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/test_outfile.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void in_dir(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* The bytes of path, NUL-terminated, in buf. */
static size_t slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

/* How many entries dir holds besides . and .. */
static int entries(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void test_new_and_replaced(void **state)
{
    (void)state;
    char path[128], buf[64], err[NB_ERRLEN];
    in_dir(path, sizeof(path), "a.txt");
    ASSERT_EQ(outfile_write(path, "first\n", 6, err, sizeof(err)), 0);
    assert_int_equal(slurp(path, buf, sizeof(buf)), 6);
    assert_string_equal(buf, "first\n");
    /* A replaced file keeps its permission bits. */
    ASSERT_EQ(chmod(path, 0600), 0);
    ASSERT_EQ(outfile_write(path, "second\n", 7, err, sizeof(err)), 0);
    assert_string_equal((slurp(path, buf, sizeof(buf)), buf), "second\n");
    struct stat sb;
    ASSERT_EQ(stat(path, &sb), 0);
    ASSERT_EQ(sb.st_mode & 0777, 0600);
    ASSERT_EQ(entries(), 1);
    ASSERT_EQ(unlink(path), 0);
}

/* The link itself is replaced; the file it pointed to keeps its bytes. */
static void test_link_replaced(void **state)
{
    (void)state;
    char target[128], link[128], buf[64], err[NB_ERRLEN];
    in_dir(target, sizeof(target), "victim");
    in_dir(link, sizeof(link), "fig.png");
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("precious\n", f);
    fclose(f);
    ASSERT_EQ(symlink(target, link), 0);
    ASSERT_EQ(outfile_write(link, "figure\n", 7, err, sizeof(err)), 0);
    assert_string_equal((slurp(target, buf, sizeof(buf)), buf), "precious\n");
    struct stat sb;
    ASSERT_EQ(lstat(link, &sb), 0);
    ASSERT_NE(S_ISREG(sb.st_mode), 0);
    assert_string_equal((slurp(link, buf, sizeof(buf)), buf), "figure\n");
    ASSERT_EQ(unlink(link), 0);
    ASSERT_EQ(unlink(target), 0);
}

/* A directory and a link to a device that is no terminal are refused by name. */
static void test_refused(void **state)
{
    (void)state;
    char sub[128], link[128], err[NB_ERRLEN];
    in_dir(sub, sizeof(sub), "sub");
    in_dir(link, sizeof(link), "null");
    ASSERT_EQ(mkdir(sub, 0700), 0);
    ASSERT_EQ(symlink("/dev/null", link), 0);
    ASSERT_EQ(outfile_write(sub, "x", 1, err, sizeof(err)), -EISDIR);
    assert_non_null(strstr(err, "it is a directory"));
    ASSERT_EQ(outfile_write(link, "x", 1, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "a symbolic link to a character device that is no terminal"));
    ASSERT_EQ(entries(), 2);
    ASSERT_EQ(rmdir(sub), 0);
    ASSERT_EQ(unlink(link), 0);
}

/* A FIFO, also behind a link, is a stream: the bytes go through it, nothing is created. */
static void test_fifo_stream(void **state)
{
    (void)state;
    char fifo[128], link[128], buf[64], err[NB_ERRLEN];
    in_dir(fifo, sizeof(fifo), "fifo");
    in_dir(link, sizeof(link), "port");
    ASSERT_EQ(mkfifo(fifo, 0600), 0);
    ASSERT_EQ(symlink(fifo, link), 0);
    /* Held open for reading and writing here, so that the writer's open does not wait. */
    int fd = open(fifo, O_RDWR | O_NONBLOCK);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(outfile_write(fifo, "12345\n", 6, err, sizeof(err)), 0);
    ASSERT_EQ(outfile_write(link, "678\n", 4, err, sizeof(err)), 0);
    ASSERT_EQ(read(fd, buf, sizeof(buf)), 10);
    assert_memory_equal(buf, "12345\n678\n", 10);
    close(fd);
    ASSERT_EQ(entries(), 2);
    ASSERT_EQ(unlink(fifo), 0);
    ASSERT_EQ(unlink(link), 0);
}

/* An abandoned file leaves nothing: neither the name nor the temporary file. */
/* A log is appended to, created 0644, never through a link to a file; a link to a stream is. */
static void test_append(void **state)
{
    (void)state;
    char log[128], victim[128], link[128], err[NB_ERRLEN], buf[64];
    in_dir(log, sizeof(log), "server.log");
    in_dir(victim, sizeof(victim), "victim");
    in_dir(link, sizeof(link), "link.log");
    for (int i = 0; i < 2; i++) {
        FILE *f = outfile_append(log, err, sizeof(err));
        assert_non_null(f);
        fputs(i ? "two\n" : "one\n", f);
        ASSERT_EQ(fclose(f), 0);
    }
    slurp(log, buf, sizeof(buf));
    assert_string_equal(buf, "one\ntwo\n");
    struct stat st;
    ASSERT_EQ(stat(log, &st), 0);
    ASSERT_EQ(st.st_mode & 0777, 0644 & ~(mode_t)umask(022));
    FILE *v = fopen(victim, "w");
    assert_non_null(v);
    fputs("keep", v);
    fclose(v);
    ASSERT_EQ(symlink(victim, link), 0);
    assert_null(outfile_append(link, err, sizeof(err)));
    assert_non_null(strstr(err, "is a symbolic link to a file"));
    slurp(victim, buf, sizeof(buf));
    assert_string_equal(buf, "keep");
    /* A link to a stream (as /dev/stderr is) is followed. */
    char fifo_link[128];
    in_dir(fifo_link, sizeof(fifo_link), "null.log");
    ASSERT_EQ(symlink("/dev/null", fifo_link), 0);
    FILE *n = outfile_append(fifo_link, err, sizeof(err));
    assert_non_null(n);
    fclose(n);
    assert_null(outfile_append(dir, err, sizeof(err)));
    assert_non_null(strstr(err, "cannot append to"));
}

static void test_abort(void **state)
{
    (void)state;
    char path[128], err[NB_ERRLEN];
    in_dir(path, sizeof(path), "gone.svg");
    struct outfile o;
    ASSERT_EQ(outfile_open(&o, path, err, sizeof(err)), 0);
    fputs("half a figure", o.f);
    ASSERT_EQ(entries(), 1);
    outfile_abort(&o);
    ASSERT_EQ(entries(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_and_replaced),
        cmocka_unit_test(test_link_replaced),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_fifo_stream),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_append),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
