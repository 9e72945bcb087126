#include <stdio.h>

#include "cli/cli.h"

int cli_server(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "netab server: under construction\n");
    return EXIT_FAIL;
}
