#include "app/cli/cli-terminal-text.h"

#include <string.h>

#include "app/core/terminal-text.h"

/* The one escaping, in app/core so that app/slurm prints the same. */
char *
ls_cli_terminal_text (const char *text)
{
  return ls_terminal_text (text);
}

static gboolean
needs_escape (const char *s)
{
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (*p < 0x20 || *p == 0x7f || *p >= 0x80)
      return TRUE;
  return FALSE;
}

static JsonNode *
terminal_node (JsonNode *n)
{
  if (JSON_NODE_HOLDS_OBJECT (n))
    ls_cli_terminal_object (json_node_get_object (n));
  else if (JSON_NODE_HOLDS_ARRAY (n))
    ls_cli_terminal_array (json_node_get_array (n));
  else if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
           && needs_escape (json_node_get_string (n)))
    {
      g_autofree char *safe = ls_cli_terminal_text (json_node_get_string (n));
      if (strcmp (safe, json_node_get_string (n)) != 0)
        json_node_set_string (n, safe);
    }
  return n;
}

void
ls_cli_terminal_object (JsonObject *o)
{
  g_autoptr (GList) members = json_object_get_members (o);
  for (GList *l = members; l; l = l->next)
    terminal_node (json_object_get_member (o, l->data));
}

void
ls_cli_terminal_array (JsonArray *a)
{
  for (guint i = 0; i < json_array_get_length (a); i++)
    terminal_node (json_array_get_element (a, i));
}
