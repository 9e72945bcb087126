/*
 * The ELF note parser of the build identity (identity_parse_build_id): the
 * bytes of /sys/kernel/notes or of a module's .note.gnu.build-id, which a
 * server reads after every test and which a fake or broken sysfs could
 * fill with anything.
 */
#include "fuzz.h"

#include "measure/identity.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char hex[IDENTITY_HEX_LEN], err[NB_ERRLEN] = "";
    /* A copy of exactly size bytes, so that any read past the end is a sanitizer finding. */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    int rc = identity_parse_build_id(copy, size, hex, sizeof(hex), err, sizeof(err));
    if (rc == 0) {
        size_t n = strlen(hex);
        FUZZ_CHECK(n > 0 && n % 2 == 0 && n <= 2 * IDENTITY_BUILD_ID_MAX,
                   "a found build ID is 1 to 64 bytes of hex");
    } else if (rc == -EINVAL) {
        FUZZ_CHECK(err[0] != '\0', "a refused note has an error sentence");
    } else {
        FUZZ_CHECK(rc == -ENOENT, "the parser returns 0, -EINVAL or -ENOENT");
    }
    free(copy);
    return 0;
}
