#include "app/chart/chart-decimate.h"

#include <math.h>

static gboolean
is_break (const ls_chart_xy *p)
{
  return !isfinite (p->x) || !isfinite (p->y);
}

static void
put (ls_chart_xy *out, guint *n, ls_chart_xy p)
{
  if (*n > 0 && out[*n - 1].x == p.x && out[*n - 1].y == p.y)
    return;
  out[(*n)++] = p;
}

guint
ls_chart_decimate_line (const ls_chart_xy *in, guint n, ls_chart_xy *out)
{
  guint written = 0;
  guint i = 0;

  while (i < n)
    {
      if (is_break (&in[i]))
        {
          out[written++] = (ls_chart_xy){ NAN, NAN };
          i++;
          continue;
        }
      /* One column: in[i .. end). */
      double column = floor (in[i].x);
      guint end = i + 1, lo = i, hi = i;
      while (end < n && !is_break (&in[end]) && floor (in[end].x) == column)
        {
          if (in[end].y < in[lo].y)
            lo = end;
          if (in[end].y > in[hi].y)
            hi = end;
          end++;
        }
      put (out, &written, in[i]);
      guint first = MIN (lo, hi), second = MAX (lo, hi);
      put (out, &written, in[first]);
      put (out, &written, in[second]);
      put (out, &written, in[end - 1]);
      i = end;
    }
  return written;
}

guint
ls_chart_line_ribbon (const ls_chart_xy *in, guint n, ls_chart_span *out)
{
  guint written = 0;
  guint i = 0;
  gboolean joined = FALSE; /* the previous column continues into this one */
  double prev_last = 0;

  while (i < n)
    {
      if (is_break (&in[i]))
        {
          out[written++] = (ls_chart_span){ NAN, NAN, NAN };
          joined = FALSE;
          i++;
          continue;
        }
      double column = floor (in[i].x);
      ls_chart_span s = { in[i].x, in[i].y, in[i].y };
      guint end = i + 1;
      while (end < n && !is_break (&in[end]) && floor (in[end].x) == column)
        {
          s.lo = MIN (s.lo, in[end].y);
          s.hi = MAX (s.hi, in[end].y);
          end++;
        }
      if (joined)
        {
          /* The segment between the columns: each gets its half. */
          double mid = (prev_last + in[i].y) / 2;
          out[written - 1].lo = MIN (out[written - 1].lo, mid);
          out[written - 1].hi = MAX (out[written - 1].hi, mid);
          s.lo = MIN (s.lo, mid);
          s.hi = MAX (s.hi, mid);
        }
      out[written++] = s;
      prev_last = in[end - 1].y;
      joined = TRUE;
      i = end;
    }
  return written;
}

guint
ls_chart_decimate_spans (const ls_chart_span *in, guint n, ls_chart_span *out)
{
  guint written = 0;
  guint i = 0;

  while (i < n)
    {
      if (!isfinite (in[i].x) || !isfinite (in[i].lo) || !isfinite (in[i].hi))
        {
          out[written++] = (ls_chart_span){ NAN, NAN, NAN };
          i++;
          continue;
        }
      double column = floor (in[i].x);
      ls_chart_span s = in[i];
      guint end = i + 1;
      while (end < n && isfinite (in[end].x) && isfinite (in[end].lo) && isfinite (in[end].hi)
             && floor (in[end].x) == column)
        {
          s.lo = MIN (s.lo, in[end].lo);
          s.hi = MAX (s.hi, in[end].hi);
          end++;
        }
      out[written++] = s;
      i = end;
    }
  return written;
}
