#include "app/chart/chart-axis.h"

#include <glib/gi18n-lib.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* Beyond this, differences of values are no longer finite. */
#define LIMIT (DBL_MAX / 8)
/* Ranges narrower than this fraction of their values are taken as one value. */
#define RELATIVE_EPSILON 1e-12

ls_chart_display_unit
ls_chart_display_unit_for (ls_chart_unit unit, double max_abs)
{
  ls_chart_display_unit u = { 1, "" };
  if (!isfinite (max_abs))
    max_abs = 0;
  switch (unit)
    {
    case LS_CHART_UNIT_MS:
      if (max_abs > 0 && max_abs < 1)
        u = (ls_chart_display_unit){ 1e3, "µs" };
      else if (max_abs >= 10000)
        u = (ls_chart_display_unit){ 1e-3, "s" };
      else
        u = (ls_chart_display_unit){ 1, "ms" };
      break;
    case LS_CHART_UNIT_BYTES:
      if (max_abs >= 1e9)
        u = (ls_chart_display_unit){ 1e-9, "GB" };
      else if (max_abs >= 1e6)
        u = (ls_chart_display_unit){ 1e-6, "MB" };
      else if (max_abs >= 1e3)
        u = (ls_chart_display_unit){ 1e-3, "kB" };
      else
        u = (ls_chart_display_unit){ 1, _("bytes") };
      break;
    case LS_CHART_UNIT_FRACTION:
      u = (ls_chart_display_unit){ 100, "%" };
      break;
    case LS_CHART_UNIT_SPS:
      u = (ls_chart_display_unit){ 1, "img/s" };
      break;
    case LS_CHART_UNIT_COUNT:
    case LS_CHART_UNIT_CATEGORY:
    default:
      break;
    }
  return u;
}

double
ls_chart_nice_step (double raw)
{
  if (!(raw > 0) || !isfinite (raw))
    return 1;
  double p = pow (10, floor (log10 (raw)));
  double m = raw / p;
  /* Rounding in log10/pow can leave m a hair off 1, 2 or 5. */
  double nice = m <= 1 + 1e-9 ? 1 : m <= 2 + 1e-9 ? 2 : m <= 5 + 1e-9 ? 5 : 10;
  return nice * p;
}

static int
decimals_for_step (double step_shown)
{
  if (!(step_shown > 0) || step_shown >= 1)
    return 0;
  return (int) ceil (-log10 (step_shown) - 1e-9);
}

static double
clamp_finite (double v)
{
  return v > LIMIT ? LIMIT : v < -LIMIT ? -LIMIT : v;
}

static void
finish_labels (ls_chart_ticks *t, ls_chart_unit unit)
{
  double max_abs = MAX (fabs (t->lo), fabs (t->hi));
  t->unit = ls_chart_display_unit_for (unit, max_abs);
  double shown_max = max_abs * t->unit.factor;
  if (t->scale == LS_CHART_LOG)
    {
      double lo_shown = t->lo * t->unit.factor;
      t->exponent = shown_max >= 1e7 || lo_shown < 1e-3;
      t->decimals = t->exponent ? 0 : decimals_for_step (lo_shown);
      return;
    }
  double step_shown = t->step * t->unit.factor;
  /* Powers of ten for huge and tiny values, unless the steps are fine
   * compared with the values (then only all digits tell ticks apart). */
  t->exponent = (shown_max >= 1e7 && step_shown >= 1e5) || (shown_max > 0 && shown_max < 1e-3);
  t->decimals = decimals_for_step (step_shown);
}

static void
linear_ticks (double lo, double hi, int target, gboolean integer, gboolean pad, ls_chart_ticks *t)
{
  double range = hi - lo;
  double step = ls_chart_nice_step (range / MAX (target - 1, 1));
  if (integer && step < 1)
    step = 1;
  /* Count in whole steps from an integer index: no drift from adding. */
  double k0 = floor (lo / step + 1e-9), k1 = ceil (hi / step - 1e-9);
  if (pad)
    {
      /* The ends stay where the data is, plus a margin; ticks inside. */
      double margin = range * 0.04;
      t->lo = lo - margin;
      t->hi = hi + margin;
      k0 = ceil (t->lo / step - 1e-9);
      k1 = floor (t->hi / step + 1e-9);
    }
  else
    {
      t->lo = k0 * step;
      t->hi = k1 * step;
    }
  while (k1 - k0 + 1 > LS_CHART_MAX_TICKS)
    {
      /* Only on absurd targets: widen the step. */
      step *= 2;
      k0 = ceil (t->lo / step - 1e-9);
      k1 = floor (t->hi / step + 1e-9);
    }
  t->step = step;
  t->n = 0;
  for (double k = k0; k <= k1 && t->n < LS_CHART_MAX_TICKS; k++)
    {
      double v = k * step;
      if (fabs (v) < step * 1e-9)
        v = 0; /* no "-0" */
      t->values[t->n++] = v;
    }
}

static void
log_ticks (double lo, double hi, int target, gboolean pad, ls_chart_ticks *t)
{
  double d0 = floor (log10 (lo) + 1e-9), d1 = ceil (log10 (hi) - 1e-9);
  if (d1 <= d0)
    d1 = d0 + 1;
  double decades = d1 - d0;
  t->step = 0;
  t->n = 0;
  if (pad)
    {
      double margin = (log10 (hi) - log10 (lo)) * 0.04;
      if (margin <= 0)
        margin = 0.04;
      t->lo = pow (10, log10 (lo) - margin);
      t->hi = pow (10, log10 (hi) + margin);
    }
  else
    {
      t->lo = pow (10, d0);
      t->hi = pow (10, d1);
    }
  /* 1-2-5 in each decade when there is room, else every k-th decade. */
  static const double mantissas[] = { 1, 2, 5 };
  gboolean fine = decades * 3 <= target + 1;
  double every = fine ? 1 : ceil (decades / MAX (target - 1, 1));
  for (double d = d0; d <= d1 && t->n < LS_CHART_MAX_TICKS; d += every)
    for (guint m = 0; m < (fine ? 3u : 1u) && t->n < LS_CHART_MAX_TICKS; m++)
      {
        double v = mantissas[m] * pow (10, d);
        if (v >= t->lo * (1 - 1e-9) && v <= t->hi * (1 + 1e-9))
          t->values[t->n++] = v;
      }
}

void
ls_chart_axis_ticks (const ls_chart_axis *axis, double lo, double hi, int target, ls_chart_ticks *out)
{
  memset (out, 0, sizeof *out);
  out->scale = axis->scale;
  target = CLAMP (target, 2, LS_CHART_MAX_TICKS / 2);

  if (axis->unit == LS_CHART_UNIT_CATEGORY)
    {
      guint n = MIN (axis->categories->len, LS_CHART_MAX_TICKS);
      out->scale = LS_CHART_LINEAR;
      out->categories = axis->categories;
      out->lo = -0.6;
      out->hi = n > 0 ? n - 0.4 : 0.6;
      out->step = 1;
      for (guint i = 0; i < n; i++)
        out->values[out->n++] = i;
      out->unit = ls_chart_display_unit_for (axis->unit, 0);
      return;
    }

  if (isfinite (axis->min))
    lo = axis->min;
  if (isfinite (axis->max))
    hi = axis->max;
  if (axis->scale == LS_CHART_LOG)
    {
      if (!(lo > 0) || !isfinite (lo))
        lo = isfinite (hi) && hi > 0 ? hi / 10 : 1;
      if (!(hi > 0) || !isfinite (hi))
        hi = lo * 10;
      if (lo > hi)
        {
          double swap = lo;
          lo = hi;
          hi = swap;
        }
      lo = MAX (lo, DBL_MIN * 1e10);
      hi = MIN (hi, LIMIT);
      log_ticks (lo, hi, target, axis->pad, out);
      finish_labels (out, axis->unit);
      return;
    }

  if (!isfinite (lo) && !isfinite (hi))
    lo = 0, hi = 1;
  else if (!isfinite (lo))
    lo = hi;
  else if (!isfinite (hi))
    hi = lo;
  lo = clamp_finite (lo);
  hi = clamp_finite (hi);
  if (lo > hi)
    {
      double swap = lo;
      lo = hi;
      hi = swap;
    }
  if (axis->include_zero)
    {
      lo = MIN (lo, 0);
      hi = MAX (hi, 0);
    }
  gboolean pad = axis->pad;
  if (hi - lo <= MAX (fabs (lo), fabs (hi)) * RELATIVE_EPSILON)
    {
      /* One value: a range around it, the value in the middle. */
      double v = (lo + hi) / 2;
      double half = v == 0 ? 1 : axis->integer ? MAX (1, fabs (v) * 0.1) : fabs (v) * 0.1;
      lo = v - half;
      hi = v + half;
      if (axis->include_zero && v > 0 && lo < 0)
        lo = 0;
      if (axis->include_zero && v < 0 && hi > 0)
        hi = 0;
      pad = FALSE;
    }
  linear_ticks (lo, hi, target, axis->integer, pad, out);
  finish_labels (out, axis->unit);
}

double
ls_chart_ticks_norm (const ls_chart_ticks *t, double v)
{
  if (!isfinite (v))
    return NAN;
  if (t->scale == LS_CHART_LOG)
    {
      if (v <= 0)
        return NAN;
      return (log10 (v) - log10 (t->lo)) / (log10 (t->hi) - log10 (t->lo));
    }
  return (v - t->lo) / (t->hi - t->lo);
}

/* Digits in groups of three with thin spaces: "62 346". */
static void
append_grouped (GString *s, const char *digits)
{
  const char *p = digits;
  if (*p == '-')
    g_string_append_c (s, *p++);
  const char *dot = strchr (p, '.');
  size_t int_len = dot ? (size_t) (dot - p) : strlen (p);
  for (size_t i = 0; i < int_len; i++)
    {
      if (i > 0 && (int_len - i) % 3 == 0 && int_len > 4)
        g_string_append (s, "\u2009");
      g_string_append_c (s, p[i]);
    }
  if (dot)
    g_string_append (s, dot);
}

static void
append_superscript (GString *s, int n)
{
  static const char *const digits[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
  char buf[16];
  g_snprintf (buf, sizeof buf, "%d", n);
  for (const char *p = buf; *p; p++)
    g_string_append (s, *p == '-' ? "⁻" : digits[*p - '0']);
}

/* exponent: m×10ⁿ with as many digits of m as `step` needs. */
static char *
format_number (double v, int decimals, gboolean exponent, double step)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  GString *s = g_string_new (NULL);
  if (exponent && v != 0)
    {
      int e = (int) floor (log10 (fabs (v)) + 1e-9);
      double m = v / pow (10, e);
      int digits = step > 0 ? e - (int) floor (log10 (step) + 1e-9) : 2;
      char fmt[16];
      g_snprintf (fmt, sizeof fmt, "%%.%df", CLAMP (digits, 0, 12));
      g_ascii_formatd (buf, sizeof buf, fmt, m);
      /* Trailing zeros of the mantissa say nothing: "2.0×10⁹" is 2×10⁹. */
      if (strchr (buf, '.'))
        {
          size_t len = strlen (buf);
          while (buf[len - 1] == '0')
            buf[--len] = '\0';
          if (buf[len - 1] == '.')
            buf[--len] = '\0';
        }
      if (strcmp (buf, "1") != 0)
        {
          g_string_append (s, buf);
          g_string_append (s, "×");
        }
      g_string_append (s, "10");
      append_superscript (s, e);
      return g_string_free (s, FALSE);
    }
  char fmt[16];
  g_snprintf (fmt, sizeof fmt, "%%.%df", CLAMP (decimals, 0, 12));
  g_ascii_formatd (buf, sizeof buf, fmt, v);
  if (buf[0] == '-' && strspn (buf + 1, "0.") == strlen (buf + 1))
    memmove (buf, buf + 1, strlen (buf)); /* "-0.0" */
  append_grouped (s, buf);
  return g_string_free (s, FALSE);
}

char *
ls_chart_tick_label (const ls_chart_ticks *t, double value)
{
  if (t->categories)
    {
      long i = lround (value);
      return i >= 0 && (guint) i < t->categories->len ? g_strdup (t->categories->pdata[i]) : g_strdup ("");
    }
  double shown = value * t->unit.factor;
  if (t->scale == LS_CHART_LOG && !t->exponent)
    return format_number (shown, decimals_for_step (shown), FALSE, 0);
  return format_number (shown, t->decimals, t->exponent,
                        t->scale == LS_CHART_LOG ? fabs (shown) : t->step * t->unit.factor);
}

char *
ls_chart_format_value (ls_chart_unit unit, double value)
{
  ls_chart_display_unit u = ls_chart_display_unit_for (unit, fabs (value));
  double shown = value * u.factor;
  double a = fabs (shown);
  int decimals = a == 0 || a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  g_autofree char *number = format_number (shown, decimals, a != 0 && (a >= 1e9 || a < 1e-3), a / 100);
  return u.symbol[0] ? g_strdup_printf ("%s %s", number, u.symbol) : g_steal_pointer (&number);
}

char *
ls_chart_axis_title (const ls_chart_axis *axis, const ls_chart_ticks *ticks)
{
  const char *symbol = ticks->unit.symbol;
  if (!symbol[0])
    return g_strdup (axis->label);
  if (!axis->label[0])
    return g_strdup (symbol);
  return g_strdup_printf ("%s (%s)", axis->label, symbol);
}
