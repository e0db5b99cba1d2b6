#include "test-fonts.h"

#include <cairo.h>
#include <pango/pangocairo.h>
#ifdef LS_HAVE_FONTCONFIG
#include <fontconfig/fontconfig.h>
#endif

void
ls_test_release_fonts (void)
{
  pango_cairo_font_map_set_default (NULL);
  cairo_debug_reset_static_data ();
#ifdef LS_HAVE_FONTCONFIG
  FcFini ();
#endif
}
