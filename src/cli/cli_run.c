#include <stdio.h>

#include "cli/cli.h"

int cli_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "netab run: under construction\n");
    return EXIT_FAIL;
}
