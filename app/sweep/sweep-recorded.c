#include "app/sweep/sweep-recorded.h"

#include <string.h>

#include "app/store/store-query.h"

/* The runner's own reason: the text after "could not be recorded: ". */
static char *
runner_reason (const char *said)
{
  static const char mark[] = "could not be recorded: ";
  const char *at = said ? strstr (said, mark) : NULL;
  if (!at)
    return NULL;
  at += strlen (mark);
  const char *end = strstr (at, "; ");
  return end ? g_strndup (at, (gsize) (end - at)) : g_strdup (at);
}

char *
ls_sweep_run_not_recorded (ls_store *store, JsonObject *summary, const char *runner_said)
{
  g_autofree char *reason = runner_reason (runner_said);
  gint64 id = json_object_get_int_member_with_default (summary, "run_id", 0);

  if (id <= 0)
    /* untranslated: feeds the sweep's reason and the run's error, kept in the store */
    return reason ? g_steal_pointer (&reason) : g_strdup ("the runner could not begin its run's row");
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) row = ls_store_run_object (store, id, &error);
  if (!row)
    /* untranslated: feeds the sweep's reason and the run's error, kept in the store */
    return g_strdup_printf ("run %" G_GINT64_FORMAT " could not be read back (%s)", id, error->message);
  const char *status = json_object_get_string_member_with_default (row, "status", "running");
  JsonNode *figures = json_object_get_member (row, "summary");
  if (strcmp (status, "running") != 0 && figures && !JSON_NODE_HOLDS_NULL (figures))
    return NULL;
  if (reason)
    return g_steal_pointer (&reason);
  /* untranslated: feeds the sweep's reason and the run's error, kept in the store */
  return g_strdup_printf ("run %" G_GINT64_FORMAT " is %s in the store, without its figures", id, status);
}

JsonObject *
ls_sweep_summary_not_recorded (JsonObject *summary, const char *why)
{
  /* A fresh object: the event's may be sealed (an immutable parser). */
  JsonObject *copy = json_object_new ();
  g_autoptr (GList) members = json_object_get_members (summary);
  for (GList *l = members; l; l = l->next)
    json_object_set_member (copy, l->data, json_node_copy (json_object_get_member (summary, l->data)));
  /* untranslated: feeds the sweep's reason and the run's error, kept in the store */
  g_autofree char *error = g_strdup_printf ("not recorded in the store: %s", why);
  json_object_set_string_member (copy, "status", "failed");
  json_object_set_string_member (copy, "error", error);
  return copy;
}
