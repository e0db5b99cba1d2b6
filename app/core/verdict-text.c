/* The verdict written out: the limit's name, the verdict as JSON, and
 * as the lines a terminal or a label shows ("Verdict: ...", "  - ",
 * "  ! ", the PyTorch lines). Apart from how the verdict is reached. */
#include "app/core/verdict.h"

#include "app/core/i18n.h"

const char *
ls_limit_name (ls_limit limit)
{
  switch (limit)
    {
    case LS_LIMIT_LOADING: return "loading";
    case LS_LIMIT_COPY: return "copy";
    case LS_LIMIT_GPU: return "gpu";
    case LS_LIMIT_MEMORY: return "memory";
    case LS_LIMIT_EPOCH_BOUNDARY: return "epoch-boundary";
    case LS_LIMIT_STEP: return "step";
    case LS_LIMIT_UNKNOWN:
    default: return "unknown";
    }
}

static void
add_string_or_null (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_strings (JsonBuilder *b, const char *name, GPtrArray *list)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; list && i < list->len; i++)
    json_builder_add_string_value (b, list->pdata[i]);
  json_builder_end_array (b);
}

JsonNode *
ls_verdict_to_json (const ls_verdict *v)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "limit");
  json_builder_add_string_value (b, ls_limit_name (v->limit));
  add_string_or_null (b, "headline", v->headline);
  add_strings (b, "findings", v->findings);
  add_strings (b, "warnings", v->warnings);
  add_string_or_null (b, "recommendation", v->recommendation);
  add_string_or_null (b, "pytorch", v->dataloader);
  add_string_or_null (b, "pytorch_suggested", v->suggested);
  add_string_or_null (b, "expected_gain", v->gain);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* "  LABEL PADDING TEXT": the labels of the PyTorch lines padded to one
 * display width (a translated label may hold wide characters). */
static void
append_labelled (GString *s, const char *label, gsize width, const char *text)
{
  g_string_append (s, "  ");
  g_string_append (s, label);
  for (gsize w = ls_i18n_display_width (label); w < width; w++)
    g_string_append_c (s, ' ');
  g_string_append_printf (s, " %s\n", text);
}

char *
ls_verdict_text (const ls_verdict *v)
{
  GString *s = g_string_new (NULL);
  if (v->recommendation)
    {
      g_string_append_printf (s, _("Recommendation: %s"), v->recommendation);
      g_string_append_c (s, '\n');
      if (v->dataloader)
        g_string_append_printf (s, "  %s\n", v->dataloader);
    }
  g_string_append_printf (s, _("Verdict: %s"), v->headline ? v->headline : _("none"));
  g_string_append_c (s, '\n');
  for (guint i = 0; v->findings && i < v->findings->len; i++)
    g_string_append_printf (s, "  - %s\n", (char *) v->findings->pdata[i]);
  for (guint i = 0; v->warnings && i < v->warnings->len; i++)
    g_string_append_printf (s, "  ! %s\n", (char *) v->warnings->pdata[i]);
  /* TRANSLATORS: labels of a verdict's last lines, before a PyTorch DataLoader call or a sentence */
  const char *in_pytorch = _("In PyTorch:"), *to_try = _("To try:"), *expected = _("Expected:");
  gsize width = MAX (ls_i18n_display_width (in_pytorch),
                     MAX (ls_i18n_display_width (to_try), ls_i18n_display_width (expected)));
  if (!v->recommendation && v->dataloader)
    append_labelled (s, in_pytorch, width, v->dataloader);
  if (v->suggested)
    append_labelled (s, to_try, width, v->suggested);
  if (v->gain)
    append_labelled (s, expected, width, v->gain);
  return g_string_free (s, FALSE);
}

void
ls_verdict_print (FILE *to, const ls_verdict *v)
{
  g_autofree char *text = ls_verdict_text (v);
  fputs (text, to);
}
