#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Makes sure the window's text font is one Pango can load. On Windows GTK
 * takes the system's menu font (e.g. "Segoe UI 9"); where Pango's font map
 * does not hold that family (Wine without Windows' fonts), every label would
 * be drawn as empty boxes. Then the font becomes "Sans" at the same size.
 * Returns TRUE when it replaced the font. */
gboolean ls_font_fallback_apply (GtkSettings *settings);

G_END_DECLS
