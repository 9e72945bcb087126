/*
 * A main() for the harnesses outside libFuzzer: feeds every file of the
 * directories (or files) named on the command line to
 * LLVMFuzzerTestOneInput once. The meson suite runs each harness this way on
 * its seed corpus, so every input in fuzz/corpus/ (including each past
 * finding) is replayed by every build, the sanitizer build among them.
 */
#include "fuzz.h"

#include <dirent.h>
#include <sys/stat.h>

/* Feeds one file; returns 1 when it was fed, 0 when it was not a regular file. */
static int replay_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    uint8_t *data = malloc((size_t)st.st_size + 1);
    if (!data || fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(1);
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)st.st_size);
    free(data);
    return 1;
}

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            n += replay_file(argv[i]);
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
            n += replay_file(path);
        }
        closedir(d);
    }
    /* An empty corpus would make the test pass without testing anything. */
    if (n == 0) {
        fprintf(stderr, "no input files in the corpus given\n");
        return 1;
    }
    printf("%d inputs replayed\n", n);
    return 0;
}
