#include "app/store/run-row.h"
#include "app/store/store-query.h"

#include <string.h>

struct _LsRunRow {
  GObject parent_instance;
  JsonObject *run;
};

enum { PROP_0, PROP_ID, PROP_SWEEP_ID, PROP_STATUS, N_PROPS };
static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE (LsRunRow, ls_run_row, G_TYPE_OBJECT)

static void
ls_run_row_finalize (GObject *object)
{
  g_clear_pointer (&LS_RUN_ROW (object)->run, json_object_unref);
  G_OBJECT_CLASS (ls_run_row_parent_class)->finalize (object);
}

static void
ls_run_row_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  LsRunRow *self = LS_RUN_ROW (object);
  switch (id)
    {
    case PROP_ID:
      g_value_set_int64 (value, ls_run_row_get_id (self));
      break;
    case PROP_SWEEP_ID:
      g_value_set_int64 (value, ls_run_row_get_sweep_id (self));
      break;
    case PROP_STATUS:
      g_value_set_string (value, ls_run_row_get_status (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
    }
}

static void
ls_run_row_class_init (LsRunRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = ls_run_row_finalize;
  object_class->get_property = ls_run_row_get_property;
  props[PROP_ID] = g_param_spec_int64 ("id", NULL, NULL, 0, G_MAXINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_SWEEP_ID] = g_param_spec_int64 ("sweep-id", NULL, NULL, 0, G_MAXINT64, 0,
                                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_STATUS] = g_param_spec_string ("status", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ls_run_row_init (LsRunRow *self)
{
}

/* What a row shows that is not a stored value as it is. */
static void
add_shown_members (JsonObject *run)
{
  gboolean simulated = json_object_get_boolean_member_with_default (run, "simulated", FALSE);
  g_autofree char *machine = ls_run_machine_shown (run);
  json_object_set_string_member (run, "machine_shown", machine);
  json_object_set_string_member (run, "sink_shown",
                                 simulated ? "sim GPU" : json_object_get_string_member_with_default (run, "sink", "?"));
  /* Prefetch and persistence mean nothing without workers. */
  JsonNode *p = json_object_get_member (run, "persistent");
  gboolean applies = json_object_get_int_member_with_default (run, "workers", 0) > 0;
  if (applies)
    json_object_set_int_member (run, "prefetch_shown", json_object_get_int_member_with_default (run, "prefetch", 0));
  else
    json_object_set_null_member (run, "prefetch_shown");
  json_object_set_string_member (run, "persistent_shown",
                                 !applies || !p || json_node_is_null (p) ? "–"
                                 : json_node_get_boolean (p)            ? "on"
                                                                        : "off");
}

LsRunRow *
ls_run_row_new (JsonObject *run)
{
  g_return_val_if_fail (run != NULL, NULL);
  LsRunRow *self = g_object_new (LS_TYPE_RUN_ROW, NULL);
  self->run = json_object_ref (run);
  add_shown_members (self->run);
  return self;
}

JsonObject *
ls_run_row_get_run (LsRunRow *self)
{
  g_return_val_if_fail (LS_IS_RUN_ROW (self), NULL);
  return self->run;
}

gint64
ls_run_row_get_id (LsRunRow *self)
{
  g_return_val_if_fail (LS_IS_RUN_ROW (self), 0);
  return json_object_get_int_member_with_default (self->run, "id", 0);
}

gint64
ls_run_row_get_sweep_id (LsRunRow *self)
{
  g_return_val_if_fail (LS_IS_RUN_ROW (self), 0);
  JsonNode *n = json_object_get_member (self->run, "sweep_id");
  return n && !json_node_is_null (n) ? json_node_get_int (n) : 0;
}

gboolean
ls_run_row_get_simulated (LsRunRow *self)
{
  g_return_val_if_fail (LS_IS_RUN_ROW (self), FALSE);
  return json_object_get_boolean_member_with_default (self->run, "simulated", FALSE);
}

const char *
ls_run_row_get_status (LsRunRow *self)
{
  g_return_val_if_fail (LS_IS_RUN_ROW (self), NULL);
  return json_object_get_string_member_with_default (self->run, "status", NULL);
}

gboolean
ls_run_row_matches (LsRunRow *self, const char *needle)
{
  g_return_val_if_fail (LS_IS_RUN_ROW (self), FALSE);
  if (!needle || !*needle)
    return TRUE;
  g_autofree char *lower = g_utf8_strdown (needle, -1);
  static const char *const fields[] = { "machine_shown", "os", "dataset", "started_at", "sink_shown", "status", "pin", "start" };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const char *v = json_object_get_string_member_with_default (self->run, fields[i], NULL);
      if (!v)
        continue;
      g_autofree char *lv = g_utf8_strdown (v, -1);
      if (strstr (lv, lower))
        return TRUE;
    }
  return FALSE;
}
