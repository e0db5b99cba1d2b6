#include "app/chart/chart-theme.h"

#define RGB(hex) { ((hex) >> 16 & 0xff) / 255.0, ((hex) >> 8 & 0xff) / 255.0, ((hex) & 0xff) / 255.0 }

/* GNOME palette: blue, orange, green, purple, red, brown, teal, yellow.
 * Light: the 4th and 5th shades (dark enough on white); dark: the 2nd. */
static const ls_chart_theme light = {
  .background = RGB (0xffffff),
  .text = RGB (0x241f31),
  .muted = RGB (0x5e5c64),
  .grid = RGB (0xe6e6e6),
  .frame = RGB (0x9a9996),
  .badge_fill = RGB (0xf5c211),
  .badge_text = RGB (0x241f31),
  .series = {
    RGB (0x1c71d8), RGB (0xe66100), RGB (0x26a269), RGB (0x813d9c),
    RGB (0xc01c28), RGB (0x865e3c), RGB (0x0f7a80), RGB (0xb38600),
  },
  .band_alpha = 0.18,
};

static const ls_chart_theme dark = {
  .background = RGB (0x1e1e1e),
  .text = RGB (0xf6f5f4),
  .muted = RGB (0xc0bfbc),
  .grid = RGB (0x3d3846),
  .frame = RGB (0x77767b),
  .badge_fill = RGB (0xf6d32d),
  .badge_text = RGB (0x1e1e1e),
  .series = {
    RGB (0x62a0ea), RGB (0xffa348), RGB (0x57e389), RGB (0xc061cb),
    RGB (0xf66151), RGB (0xcdab8f), RGB (0x5bc8d0), RGB (0xf8e45c),
  },
  .band_alpha = 0.25,
};

const ls_chart_theme *
ls_chart_theme_get (gboolean is_dark)
{
  return is_dark ? &dark : &light;
}

ls_rgb
ls_chart_theme_color (const ls_chart_theme *theme, int index)
{
  if (index < 0)
    return theme->text;
  return theme->series[index % LS_CHART_N_COLORS];
}
