/*
 * What a sampled profile reads from outside: a process's /proc/PID/maps
 * text (psym_add_maps, then lookups at addresses taken from the input) and
 * a peer's profile member (profile_check, the first line when it is JSON).
 */
#include "fuzz.h"

#include "measure/profile.h"
#include "measure/profile_sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strdup(data, size);
    struct psym s;
    psym_init(&s);
    s.proc_root = "/nonexistent"; /* nothing but the input is read */
    s.kallsyms = "/nonexistent";
    if (psym_add_maps(&s, 1, text) == 0) {
        for (size_t i = 0; i + 8 <= size && i < 64; i += 8) {
            uint64_t ip;
            memcpy(&ip, data + i, 8);
            const char *sym, *mod;
            psym_lookup(&s, ip & ~(1ull << 63), 1, &sym, &mod);
            FUZZ_CHECK(sym && mod, "every address gets a name and a module");
        }
    }
    psym_free(&s);
    json_t *j = json_loads(text, JSON_DISABLE_EOF_CHECK, NULL);
    if (j) {
        char err[NB_ERRLEN] = "";
        if (profile_check(j, err, sizeof(err)))
            FUZZ_CHECK(err[0] != '\0', "a refused profile has an error sentence");
        json_decref(j);
    }
    free(text);
    return 0;
}
