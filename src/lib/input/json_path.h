/* Dotted paths into JSON documents, shared by `netab stats` and `netab compare`. */
#ifndef NETAB_INPUT_JSON_PATH_H
#define NETAB_INPUT_JSON_PATH_H

#include <jansson.h>

/*
 * Follows a dotted path ("end.streams.0.receiver.bits_per_second") through
 * objects and, with numeric components, arrays. Returns a borrowed reference
 * into doc, or NULL if the path is absent or malformed.
 */
json_t *input_json_path(json_t *doc, const char *path);

#endif
