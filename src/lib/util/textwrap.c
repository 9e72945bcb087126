/* Word-wrapping for the text reports (textwrap.h). */
#include "util/textwrap.h"

#include <string.h>

void text_wrap(FILE *f, size_t width, const char *first, const char *rest, const char *text)
{
    const char *ind = first;
    while (*text) {
        size_t room = width > strlen(ind) ? width - strlen(ind) : 1;
        size_t len = strlen(text);
        size_t cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0) /* one word longer than the line: break it */
                cut = room;
        }
        fprintf(f, "%s%.*s\n", ind, (int)cut, text);
        text += cut;
        while (*text == ' ')
            text++;
        ind = rest;
    }
}
