#include "loader/dataset-private.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/fs.h"

int
ls_dataset_open (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err)
{
  *out = NULL;
  if (strcmp (spec->kind, "synthetic") == 0)
    return ls_synthetic_open (spec, out, err);
  if (strcmp (spec->kind, "jpeg-dir") == 0)
    {
#ifdef LS_HAVE_JPEG
      return ls_jpegdir_open (spec, out, err);
#else
      return ls_error_set (err, LS_ERR_UNSUPPORTED, "%s: this build has no JPEG support (libjpeg-turbo)", spec->path);
#endif
    }
  if (strcmp (spec->kind, "hdf5") == 0)
    {
#ifdef LS_HAVE_HDF5
      return ls_hdf5_open (spec, out, err);
#else
      return ls_error_set (err, LS_ERR_UNSUPPORTED, "%s: this build has no HDF5 support", spec->path);
#endif
    }
  return ls_error_set (err, LS_ERR_INVALID, "dataset kind '%s' is not known (expected synthetic, jpeg-dir or hdf5)",
                       spec->kind);
}

static int
ends_with_ci (const char *s, const char *suffix)
{
  size_t a = strlen (s), b = strlen (suffix);
  if (b > a)
    return 0;
  for (size_t i = 0; i < b; i++)
    if (tolower ((unsigned char) s[a - b + i]) != suffix[i])
      return 0;
  return 1;
}

const char *
ls_dataset_detect_kind (const char *path, ls_error *err)
{
  switch (ls_fs_kind_of (path, NULL))
    {
    case LS_FS_MISSING:
      ls_error_set (err, LS_ERR_NOT_FOUND, "%s: no such file or folder", path);
      return NULL;
    case LS_FS_DIR:
      return "jpeg-dir";
    case LS_FS_FILE:
      if (ends_with_ci (path, ".h5") || ends_with_ci (path, ".hdf5") || ends_with_ci (path, ".hdf"))
        return "hdf5";
      ls_error_set (err, LS_ERR_INVALID,
                    "%s: cannot tell its format; expected a folder of class folders (jpeg-dir) or an HDF5 file "
                    "(.h5, .hdf5); or give --format",
                    path);
      return NULL;
    default:
      ls_error_set (err, LS_ERR_INVALID, "%s: neither a file nor a folder", path);
      return NULL;
    }
}

uint64_t
ls_dataset_length (const ls_dataset *ds)
{
  return ds->length;
}

size_t
ls_dataset_sample_bytes (const ls_dataset *ds)
{
  return ds->sample_bytes;
}

const ls_dataset_spec *
ls_dataset_get_spec (const ls_dataset *ds)
{
  return &ds->spec;
}

static uint64_t
inner_ns (const ls_stage_ns *s)
{
  return s->decode + s->transform + s->write;
}

int
ls_dataset_read (ls_dataset *ds, uint64_t index, uint32_t epoch, void *out, int32_t *label, ls_error *err)
{
  uint64_t before = inner_ns (&ds->stages);
  uint64_t t0 = ls_clock_ns ();
  int rc = ds->ops->read (ds, index, epoch, out, label, err);
  uint64_t spent = ls_clock_ns () - t0;
  uint64_t inner = inner_ns (&ds->stages) - before;

  ds->stages.read += spent > inner ? spent - inner : 0;
  return rc;
}

void
ls_dataset_take_stages (ls_dataset *ds, ls_stage_ns *into)
{
  into->read += ds->stages.read;
  into->decode += ds->stages.decode;
  into->transform += ds->stages.transform;
  into->write += ds->stages.write;
  memset (&ds->stages, 0, sizeof ds->stages);
}

void
ls_dataset_close (ls_dataset *ds)
{
  if (ds)
    ds->ops->close (ds);
}

int
ls_dataset_spec_format (const ls_dataset_spec *spec, char *buf, size_t len)
{
  /* The path goes last: it may hold any character, ';' included. */
  int n = snprintf (buf, len, "kind=%s;count=%llu;w=%u;h=%u;cost=%u;work=%.17g;seed=%llu;output=%d;"
                    "fail=%llu;crash=%llu;hang=%llu;plimit=%llu;alloc=%llu;path=%s",
                    spec->kind, (unsigned long long) spec->count, spec->width, spec->height, spec->sample_cost_us,
                    spec->work_per_us, (unsigned long long) spec->seed, (int) spec->output,
                    (unsigned long long) spec->fail_every, (unsigned long long) spec->crash_at,
                    (unsigned long long) spec->hang_at, (unsigned long long) spec->pixel_limit,
                    (unsigned long long) spec->alloc_mb, spec->path);
  return n < 0 || (size_t) n >= len ? -1 : n;
}

static int
parse_u64 (const char *key, const char *value, size_t vlen, uint64_t *out, ls_error *err)
{
  char tmp[32];
  char *end;

  if (vlen == 0 || vlen >= sizeof tmp)
    return ls_error_set (err, LS_ERR_INVALID, "dataset spec: %s has no valid value", key);
  memcpy (tmp, value, vlen);
  tmp[vlen] = '\0';
  errno = 0;
  *out = strtoull (tmp, &end, 10);
  if (errno || *end || tmp[0] == '-')
    return ls_error_set (err, LS_ERR_INVALID, "dataset spec: %s=%s is not a number", key, tmp);
  return LS_OK;
}

int
ls_dataset_spec_parse (const char *text, ls_dataset_spec *spec, ls_error *err)
{
  const char *p = text;

  memset (spec, 0, sizeof *spec);
  while (*p)
    {
      const char *eq = strchr (p, '=');
      if (!eq)
        return ls_error_set (err, LS_ERR_INVALID, "dataset spec: '%s' has no '='", p);
      size_t klen = (size_t) (eq - p);
      const char *v = eq + 1;
      if (klen == 4 && strncmp (p, "path", 4) == 0)
        {
          if (strlen (v) >= sizeof spec->path)
            return ls_error_set (err, LS_ERR_INVALID, "dataset spec: path is too long");
          strcpy (spec->path, v);
          return LS_OK;
        }
      const char *semi = strchr (v, ';');
      size_t vlen = semi ? (size_t) (semi - v) : strlen (v);
      uint64_t n = 0;
      char key[16];
      snprintf (key, sizeof key, "%.*s", (int) klen, p);

      if (strcmp (key, "kind") == 0)
        {
          if (vlen == 0 || vlen >= sizeof spec->kind)
            return ls_error_set (err, LS_ERR_INVALID, "dataset spec: bad kind");
          memcpy (spec->kind, v, vlen);
          spec->kind[vlen] = '\0';
        }
      else if (strcmp (key, "work") == 0)
        {
          char tmp[40];
          char *end;
          snprintf (tmp, sizeof tmp, "%.*s", (int) vlen, v);
          spec->work_per_us = strtod (tmp, &end);
          if (*end || vlen == 0)
            return ls_error_set (err, LS_ERR_INVALID, "dataset spec: work=%s is not a number", tmp);
        }
      else
        {
          if (parse_u64 (key, v, vlen, &n, err) != LS_OK)
            return err ? err->code : LS_ERR_INVALID;
          if (strcmp (key, "count") == 0)
            spec->count = n;
          else if (strcmp (key, "w") == 0)
            spec->width = (uint32_t) n;
          else if (strcmp (key, "h") == 0)
            spec->height = (uint32_t) n;
          else if (strcmp (key, "cost") == 0)
            spec->sample_cost_us = (uint32_t) n;
          else if (strcmp (key, "seed") == 0)
            spec->seed = n;
          else if (strcmp (key, "output") == 0)
            spec->output = (ls_output_format) n;
          else if (strcmp (key, "fail") == 0)
            spec->fail_every = n;
          else if (strcmp (key, "crash") == 0)
            spec->crash_at = n;
          else if (strcmp (key, "hang") == 0)
            spec->hang_at = n;
          else if (strcmp (key, "plimit") == 0)
            spec->pixel_limit = n;
          else if (strcmp (key, "alloc") == 0)
            spec->alloc_mb = n;
          else
            return ls_error_set (err, LS_ERR_INVALID, "dataset spec: unknown key '%s'", key);
        }
      p = semi ? semi + 1 : v + vlen;
    }
  return ls_error_set (err, LS_ERR_INVALID, "dataset spec: no path");
}
