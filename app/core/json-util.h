/* Members of the JSON that runs, sweeps and exports carry, read with the
 * missing value said at each call, and written with null for what was not
 * measured. One reader for every layer above core, so that a figure that
 * is absent, null or not a number reads the same everywhere. */
#pragma once

#include <json-glib/json-glib.h>

/* The number member `name` of o holds (an integer or a double). FALSE, and
 * *value untouched, when o is NULL or the member is absent, null, or holds
 * a string, a boolean, an object or an array. */
gboolean ls_json_number (JsonObject *o, const char *name, double *value);

/* The same, or `missing` (-1, 0, NAN: the caller's convention, said where
 * it reads). */
double ls_json_number_or (JsonObject *o, const char *name, double missing);

/* The object member `name` of o holds, or NULL (o NULL, absent, not an
 * object). */
JsonObject *ls_json_object_or_null (JsonObject *o, const char *name);

/* Sets member `name` to v, or to null where v is not finite (NaN: not
 * measured; JSON has no NaN). */
void ls_json_builder_add_number (JsonBuilder *b, const char *name, double v);
