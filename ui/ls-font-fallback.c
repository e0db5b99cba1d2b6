#include "ui/ls-font-fallback.h"

#include <pango/pangocairo.h>

/* Whether the font map loads a font for DESC at all: Pango's win32 font map
 * answers NULL for a family it does not hold, where fontconfig substitutes. */
static gboolean
font_loads (const PangoFontDescription *desc)
{
  PangoFontMap *map = pango_cairo_font_map_get_default ();
  PangoContext *context = pango_font_map_create_context (map);
  PangoFont *font = pango_font_map_load_font (map, context, desc);
  gboolean loads = font != NULL;
  g_clear_object (&font);
  g_object_unref (context);
  return loads;
}

gboolean
ls_font_fallback_apply (GtkSettings *settings)
{
  g_autofree char *name = NULL;
  g_object_get (settings, "gtk-font-name", &name, NULL);
  PangoFontDescription *desc = pango_font_description_from_string (name ? name : "");
  gboolean loads = font_loads (desc);
  int size = pango_font_description_get_size (desc);
  pango_font_description_free (desc);
  if (loads)
    return FALSE;

  /* "Sans" is an alias every Pango font map resolves to a font it has. */
  int points = size > 0 ? size / PANGO_SCALE : 10;
  g_autofree char *fallback = g_strdup_printf ("Sans %d", points < 6 ? 10 : points);
  g_debug ("window font '%s' cannot be loaded here; using '%s'", name ? name : "", fallback);
  g_object_set (settings, "gtk-font-name", fallback, NULL);
  return TRUE;
}
