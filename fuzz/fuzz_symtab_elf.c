/*
 * ELF files as `netab layout` reads them (symtab_load_elf, through
 * libelf). The reader takes a path, so each input is written to a memory
 * file (memfd) and read through /proc/self/fd: the same code path as a
 * file on disk, without touching the disk.
 */
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

#include "symbols/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    size_t off = 0;
    while (off < size) {
        ssize_t n = write(fd, data + off, size - off);
        if (n <= 0)
            abort();
        off += (size_t)n;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    struct symtab t;
    char err[NB_ERRLEN] = "";
    if (symtab_load_elf(path, &t, err, sizeof(err)) == 0) {
        for (size_t i = 0; i < t.n; i++)
            FUZZ_CHECK(t.syms[i].name != NULL, "every symbol has a name");
        symtab_free(&t);
    } else {
        FUZZ_CHECK(err[0] != '\0', "a refused ELF file has an error sentence");
    }
    close(fd);
    return 0;
}
