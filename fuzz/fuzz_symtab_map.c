/*
 * Text symbol maps (System.map, /proc/kallsyms, nm output) as
 * `netab layout` reads them (symtab_parse_map).
 */
#include "fuzz.h"

#include "symbols/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strdup(data, size);
    struct symtab t;
    char err[NB_ERRLEN] = "";
    if (symtab_parse_map("fuzz.map", text, size, &t, err, sizeof(err)) == 0) {
        for (size_t i = 1; i < t.n; i++)
            FUZZ_CHECK(t.syms[i - 1].addr <= t.syms[i].addr, "symbols are sorted by address");
        symtab_free(&t);
    } else {
        FUZZ_CHECK(err[0] != '\0', "a refused map has an error sentence");
    }
    free(text);
    return 0;
}
