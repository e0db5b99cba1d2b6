/* JSON members read and written one way (json-util.h). */
#include "app/core/json-util.h"

#include <math.h>

gboolean
ls_json_number (JsonObject *o, const char *name, double *value)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;
  if (!n || JSON_NODE_TYPE (n) != JSON_NODE_VALUE)
    return FALSE;
  GType t = json_node_get_value_type (n);
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return FALSE;
  *value = json_node_get_double (n);
  return TRUE;
}

double
ls_json_number_or (JsonObject *o, const char *name, double missing)
{
  double v;
  return ls_json_number (o, name, &v) ? v : missing;
}

JsonObject *
ls_json_object_or_null (JsonObject *o, const char *name)
{
  JsonNode *n = o ? json_object_get_member (o, name) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

void
ls_json_builder_add_number (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  if (isfinite (v))
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}
