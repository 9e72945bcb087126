/*
 * `netab stats`' set arguments: input_set_split, which tells NAME=FILE from
 * a FILE (whose name may hold '='), fed one argument as the command line
 * gives it. Its promises: a refusal has a sentence; an accepted argument
 * has an empty name or a NAME (1 to INPUT_SET_NAME_MAX of [A-Za-z0-9_.-],
 * not starting with '-') that is exactly the text before the first '=', and
 * a path that is the argument itself or the rest after that '='.
 */
#include "fuzz.h"

#include "input/input_sets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *arg = fuzz_strdup(data, size);
    char name[INPUT_SET_NAME_MAX + 1], err[NB_ERRLEN] = "";
    const char *path = NULL;
    if (input_set_split(arg, name, &path, err, sizeof(err))) {
        FUZZ_CHECK(err[0] != '\0', "a refused argument has an error sentence");
    } else if (!name[0]) {
        FUZZ_CHECK(path == arg, "an unnamed set is the whole argument");
    } else {
        size_t n = strlen(name);
        FUZZ_CHECK(n <= INPUT_SET_NAME_MAX && name[0] != '-', "a NAME's length and first char");
        FUZZ_CHECK(
            strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n,
            "a NAME holds only [A-Za-z0-9_.-]");
        FUZZ_CHECK(!strncmp(arg, name, n) && arg[n] == '=' && path == arg + n + 1,
                   "the NAME is the text before the first '=', the path the rest");
    }
    free(arg);
    return 0;
}
