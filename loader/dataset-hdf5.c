/* The hdf5 dataset: one HDF5 file holding either
 *   images  uint8 [N][H][W][C], C = 1 or 3, and labels integer [N], or
 *   jpeg    variable-length uint8 [N] (encoded JPEG files) and labels [N].
 * Chunked and gzip-compressed datasets read like any other.
 *
 * HDF5 handles must not cross fork(): the runner checks the file and reads
 * the labels, then closes it; every process (runner or worker) opens its
 * own handle on its first read. The first check runs in a child process
 * (POSIX), so a file that crashes libhdf5 is an error, not a dead runner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "loader/dataset-private.h"
#include "loader/image-sample.h"
#include "loader/sampler.h"
#include "platform/process.h"
#include "platform/sysinfo.h"

/* Every size a file declares is checked before anything is allocated or
 * computed from it: a chunked file of a few kilobytes may declare 2^62
 * rows. */
#define HDF5_MAX_SIDE 65535                     /* an image's height or width (JPEG's own limit) */
#define HDF5_MAX_ROW_BYTES ((hsize_t) 256 << 20) /* one encoded JPEG row */

typedef enum { HDF5_RAW, HDF5_JPEG } hdf5_layout;

typedef struct {
  ls_dataset base;
  hdf5_layout layout;
  hsize_t dims[4];        /* raw: N, H, W, C */
  int32_t *labels;
  ls_pid opened_by;       /* process whose handles these are */
  hid_t file, data;       /* H5I_INVALID_HID until this process opens them */
  uint8_t *scratch;       /* one raw image */
  ls_image_pipeline pipeline;
} hdf5ds;

static const char *
class_name (H5T_class_t c)
{
  switch (c)
    {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_STRING: return "string";
    case H5T_VLEN: return "variable-length";
    case H5T_COMPOUND: return "compound";
    case H5T_OPAQUE: return "opaque";
    case H5T_ARRAY: return "array";
    default: return "other";
    }
}

/* "100x32x32x3" */
static void
shape_text (const hsize_t *dims, int rank, char *buf, size_t len)
{
  size_t o = 0;
  buf[0] = '\0';
  for (int i = 0; i < rank && o < len; i++)
    o += (size_t) snprintf (buf + o, len - o, "%s%llu", i ? "x" : "", (unsigned long long) dims[i]);
  if (rank == 0)
    snprintf (buf, len, "a scalar");
}

static int
names_in_file (hid_t file, char *buf, size_t len)
{
  H5G_info_t info;
  size_t o = 0;
  buf[0] = '\0';
  if (H5Gget_info (file, &info) < 0)
    return 0;
  for (hsize_t i = 0; i < info.nlinks && o + 1 < len; i++)
    {
      char name[128];
      if (H5Lget_name_by_idx (file, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT) < 0)
        continue;
      o += (size_t) snprintf (buf + o, len - o, "%s'%s'", o ? ", " : "", name);
    }
  return (int) info.nlinks;
}

static int
exists (hid_t file, const char *name)
{
  return H5Lexists (file, name, H5P_DEFAULT) > 0;
}

/* A dataset of the file opened to be checked: its type, rank and shape. */
typedef struct {
  hid_t d, space, type;
  int rank;
  hsize_t dims[8];
  char shape[96]; /* "100x32x32x3" */
} dataset_info;

static void
dataset_info_close (dataset_info *i)
{
  if (i->type >= 0)
    H5Tclose (i->type);
  if (i->space >= 0)
    H5Sclose (i->space);
  if (i->d >= 0)
    H5Dclose (i->d);
}

static int
dataset_info_open (hid_t file, const char *name, const char *path, dataset_info *i, ls_error *err)
{
  memset (i, 0, sizeof *i);
  i->d = H5Dopen2 (file, name, H5P_DEFAULT);
  i->space = i->d >= 0 ? H5Dget_space (i->d) : H5I_INVALID_HID;
  i->type = i->d >= 0 ? H5Dget_type (i->d) : H5I_INVALID_HID;
  i->rank = i->space >= 0 ? H5Sget_simple_extent_ndims (i->space) : -1;
  if (i->rank < 0 || i->type < 0)
    {
      dataset_info_close (i);
      return ls_error_set (err, LS_ERR_INVALID, "%s: cannot read dataset '%s'", path, name);
    }
  if (i->rank <= 8)
    H5Sget_simple_extent_dims (i->space, i->dims, NULL);
  shape_text (i->dims, i->rank > 8 ? 8 : i->rank, i->shape, sizeof i->shape);
  return LS_OK;
}

/* The rows a dataset declares: at most LS_SAMPLER_MAX_LENGTH, and its
 * labels (4 bytes each, read whole) within half of this machine's memory. */
static int
check_rows (const char *path, const char *name, hsize_t rows, ls_error *err)
{
  ls_sysinfo info;
  if (rows > LS_SAMPLER_MAX_LENGTH)
    return ls_error_set (err, LS_ERR_INVALID, "%s: dataset '%s' declares %llu rows; at most %llu are supported", path,
                         name, (unsigned long long) rows, (unsigned long long) LS_SAMPLER_MAX_LENGTH);
  if (ls_sysinfo_read (&info, NULL) == LS_OK && info.total_ram_bytes
      && rows * sizeof (int32_t) > info.total_ram_bytes / 2)
    return ls_error_set (err, LS_ERR_INVALID,
                         "%s: dataset '%s' declares %llu rows, whose labels alone need %.1f GiB, more than half of "
                         "this machine's %.1f GiB of memory",
                         path, name, (unsigned long long) rows, rows * 4.0 / 1073741824.0,
                         info.total_ram_bytes / 1073741824.0);
  return LS_OK;
}

static int
check_raw (hdf5ds *h, hid_t file, const char *path, ls_error *err)
{
  dataset_info i;
  int rc = dataset_info_open (file, "images", path, &i, err);
  if (rc != LS_OK)
    return rc;
  if (H5Tget_class (i.type) != H5T_INTEGER || H5Tget_size (i.type) != 1 || H5Tget_sign (i.type) != H5T_SGN_NONE)
    rc = ls_error_set (err, LS_ERR_INVALID,
                       "%s: dataset 'images' holds %zu-byte %s values; expected uint8 N x H x W x C", path,
                       H5Tget_size (i.type), class_name (H5Tget_class (i.type)));
  else if (i.rank != 4 || (i.dims[3] != 1 && i.dims[3] != 3))
    rc = ls_error_set (err, LS_ERR_INVALID,
                       "%s: dataset 'images' has shape %s (rank %d); expected N x H x W x C with C = 1 or 3", path,
                       i.shape, i.rank);
  else if (i.dims[0] == 0 || i.dims[1] == 0 || i.dims[2] == 0)
    rc = ls_error_set (err, LS_ERR_INVALID, "%s: dataset 'images' is empty (shape %s)", path, i.shape);
  else if (i.dims[1] > HDF5_MAX_SIDE || i.dims[2] > HDF5_MAX_SIDE)
    rc = ls_error_set (err, LS_ERR_INVALID, "%s: dataset 'images' has shape %s; images may be at most %d pixels high "
                       "and wide", path, i.shape, HDF5_MAX_SIDE);
  else if ((rc = check_rows (path, "images", i.dims[0], err)) == LS_OK)
    memcpy (h->dims, i.dims, sizeof h->dims);
  dataset_info_close (&i);
  return rc;
}

static int
check_jpeg (hdf5ds *h, hid_t file, const char *path, ls_error *err)
{
  dataset_info i;
  int rc = dataset_info_open (file, "jpeg", path, &i, err);
  if (rc != LS_OK)
    return rc;
  hid_t base = H5Tget_class (i.type) == H5T_VLEN ? H5Tget_super (i.type) : H5I_INVALID_HID;
  if (base < 0 || H5Tget_class (base) != H5T_INTEGER || H5Tget_size (base) != 1)
    rc = ls_error_set (err, LS_ERR_INVALID,
                       "%s: dataset 'jpeg' holds %s values; expected variable-length uint8 (one encoded JPEG per row)",
                       path, class_name (H5Tget_class (i.type)));
  else if (i.rank != 1 || i.dims[0] == 0)
    rc = ls_error_set (err, LS_ERR_INVALID, "%s: dataset 'jpeg' has shape %s; expected N rows (rank 1, N > 0)", path,
                       i.shape);
  else if ((rc = check_rows (path, "jpeg", i.dims[0], err)) == LS_OK)
    h->dims[0] = i.dims[0];
  if (base >= 0)
    H5Tclose (base);
  dataset_info_close (&i);
  return rc;
}

static int
read_labels (hdf5ds *h, hid_t file, const char *path, ls_error *err)
{
  const char *data_name = h->layout == HDF5_RAW ? "images" : "jpeg";
  dataset_info i;
  int rc = dataset_info_open (file, "labels", path, &i, err);
  if (rc != LS_OK)
    return rc;
  if (H5Tget_class (i.type) != H5T_INTEGER)
    rc = ls_error_set (err, LS_ERR_INVALID, "%s: dataset 'labels' holds %s values; expected integers", path,
                       class_name (H5Tget_class (i.type)));
  else if (i.rank != 1)
    rc = ls_error_set (err, LS_ERR_INVALID, "%s: dataset 'labels' has shape %s; expected %llu integers (rank 1)",
                       path, i.shape, (unsigned long long) h->dims[0]);
  else if (i.dims[0] != h->dims[0])
    rc = ls_error_set (err, LS_ERR_INVALID, "%s: dataset 'labels' has %llu entries but '%s' has %llu", path,
                       (unsigned long long) i.dims[0], data_name, (unsigned long long) h->dims[0]);
  else if (!(h->labels = malloc ((size_t) i.dims[0] * sizeof *h->labels))) /* rows checked: no overflow */
    rc = ls_error_set (err, LS_ERR_NOMEM, "%s: no memory for %llu labels", path, (unsigned long long) i.dims[0]);
  else if (H5Dread (i.d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->labels) < 0)
    rc = ls_error_set (err, LS_ERR_INVALID, "%s: reading dataset 'labels' failed", path);
  dataset_info_close (&i);
  return rc;
}

static void
close_handles (hdf5ds *h)
{
  if (h->opened_by == ls_process_self_pid ())
    {
      if (h->data >= 0)
        H5Dclose (h->data);
      if (h->file >= 0)
        H5Fclose (h->file);
    }
  /* Inherited over fork: never touch the parent's handles. */
  h->data = h->file = H5I_INVALID_HID;
  h->opened_by = 0;
}

static int
ensure_open (hdf5ds *h, ls_error *err)
{
  if (h->file >= 0 && h->opened_by == ls_process_self_pid ())
    return LS_OK;
  h->data = h->file = H5I_INVALID_HID;
  h->file = H5Fopen (h->base.spec.path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (h->file < 0)
    return ls_error_set (err, LS_ERR_INVALID, "%s: cannot open as HDF5", h->base.spec.path);
  h->data = H5Dopen2 (h->file, h->layout == HDF5_RAW ? "images" : "jpeg", H5P_DEFAULT);
  h->opened_by = ls_process_self_pid ();
  if (h->data < 0)
    return ls_error_set (err, LS_ERR_INVALID, "%s: cannot open its image dataset", h->base.spec.path);
  return LS_OK;
}

static int
read_raw (hdf5ds *h, uint64_t index, uint32_t epoch, void *out, ls_error *err)
{
  hsize_t start[4] = { index, 0, 0, 0 };
  hsize_t count[4] = { 1, h->dims[1], h->dims[2], h->dims[3] };
  hid_t file_space = H5Dget_space (h->data);
  hid_t mem_space = H5Screate_simple (4, count, NULL);
  int rc = LS_OK;

  if (H5Sselect_hyperslab (file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0
      || H5Dread (h->data, H5T_NATIVE_UINT8, mem_space, file_space, H5P_DEFAULT, h->scratch) < 0)
    rc = ls_error_set (err, LS_ERR_INVALID, "reading row %llu of 'images' failed", (unsigned long long) index);
  H5Sclose (mem_space);
  H5Sclose (file_space);
  if (rc == LS_OK)
    rc = ls_image_sample_pixels (&h->pipeline, h->scratch, (int) h->dims[2], (int) h->dims[1], (int) h->dims[3],
                                 (size_t) (h->dims[2] * h->dims[3]), epoch, index, out, err);
  return rc;
}

static int
read_jpeg (hdf5ds *h, uint64_t index, uint32_t epoch, void *out, ls_error *err)
{
  hsize_t start[1] = { index }, count[1] = { 1 };
  hid_t file_space = H5Dget_space (h->data);
  hid_t mem_space = H5Screate_simple (1, count, NULL);
  hid_t vtype = H5Tvlen_create (H5T_NATIVE_UINT8);
  hvl_t row = { 0, NULL };
  hsize_t bytes = 0;
  int rc = LS_OK;

  /* The row's declared length before HDF5 allocates it. */
  if (H5Sselect_hyperslab (file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0
      || H5Dvlen_get_buf_size (h->data, vtype, file_space, &bytes) < 0)
    rc = ls_error_set (err, LS_ERR_INVALID, "reading row %llu of 'jpeg' failed", (unsigned long long) index);
  else if (bytes > HDF5_MAX_ROW_BYTES)
    rc = ls_error_set (err, LS_ERR_INVALID, "row %llu of 'jpeg' declares %llu bytes; at most %llu MiB per image",
                       (unsigned long long) index, (unsigned long long) bytes,
                       (unsigned long long) (HDF5_MAX_ROW_BYTES >> 20));
  else if (H5Dread (h->data, vtype, mem_space, file_space, H5P_DEFAULT, &row) < 0)
    rc = ls_error_set (err, LS_ERR_INVALID, "reading row %llu of 'jpeg' failed", (unsigned long long) index);
  else if (row.len == 0)
    rc = ls_error_set (err, LS_ERR_INVALID, "row %llu of 'jpeg' is empty", (unsigned long long) index);
  else
    rc = ls_image_sample_jpeg (&h->pipeline, row.p, row.len, epoch, index, out, err);
  if (row.p)
    H5Dvlen_reclaim (vtype, mem_space, H5P_DEFAULT, &row);
  H5Tclose (vtype);
  H5Sclose (mem_space);
  H5Sclose (file_space);
  return rc;
}

static int
hdf5_read (ls_dataset *ds, uint64_t index, uint32_t epoch, void *out, int32_t *label, ls_error *err)
{
  hdf5ds *h = (hdf5ds *) ds;
  int rc = index < ds->length ? ensure_open (h, err)
                              : ls_error_set (err, LS_ERR_INVALID, "no row %llu: the file has %llu",
                                              (unsigned long long) index, (unsigned long long) ds->length);

  if (rc == LS_OK)
    rc = h->layout == HDF5_RAW ? read_raw (h, index, epoch, out, err) : read_jpeg (h, index, epoch, out, err);
  if (rc != LS_OK)
    {
      ls_error_prefix (err, "%s", ds->spec.path);
      return rc;
    }
  *label = h->labels[index];
  return LS_OK;
}

static void
hdf5_close (ls_dataset *ds)
{
  hdf5ds *h = (hdf5ds *) ds;
  close_handles (h);
  free (h->labels);
  free (h->scratch);
  ls_image_pipeline_clear (&h->pipeline);
  free (h);
}

static const ls_dataset_ops hdf5_ops = { hdf5_close, hdf5_read };

static int
open_here (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err)
{
  hdf5ds *h;
  hid_t file;
  int rc;
  char found[256];

  *out = NULL;
  /* Errors are reported here, in words; HDF5's own stack traces are noise. */
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  if (H5Fis_hdf5 (spec->path) <= 0)
    return ls_error_set (err, LS_ERR_INVALID, "%s: not an HDF5 file", spec->path);
  file = H5Fopen (spec->path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    return ls_error_set (err, LS_ERR_INVALID, "%s: cannot open as HDF5", spec->path);

  h = calloc (1, sizeof *h);
  if (!h)
    {
      H5Fclose (file);
      return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
    }
  h->base.ops = &hdf5_ops;
  h->base.spec = *spec;
  h->file = h->data = H5I_INVALID_HID;

  if (exists (file, "images"))
    {
      h->layout = HDF5_RAW;
      rc = check_raw (h, file, spec->path, err);
    }
  else if (exists (file, "jpeg"))
    {
      h->layout = HDF5_JPEG;
      rc = check_jpeg (h, file, spec->path, err);
    }
  else
    {
      int n = names_in_file (file, found, sizeof found);
      rc = ls_error_set (err, LS_ERR_INVALID,
                         "%s: no dataset 'images' (uint8 N x H x W x C) or 'jpeg' (encoded rows); the file holds %s%s",
                         spec->path, n ? found : "nothing", n ? "" : " at its root");
    }
  if (rc == LS_OK && !exists (file, "labels"))
    rc = ls_error_set (err, LS_ERR_INVALID, "%s: no dataset 'labels' (N integers) beside '%s'", spec->path,
                       h->layout == HDF5_RAW ? "images" : "jpeg");
  if (rc == LS_OK)
    rc = read_labels (h, file, spec->path, err);
  H5Fclose (file);

  if (rc == LS_OK && h->layout == HDF5_RAW)
    {
      uint64_t pixels = (uint64_t) h->dims[1] * h->dims[2];
      uint64_t limit = spec->pixel_limit ? spec->pixel_limit : LS_DEFAULT_PIXEL_LIMIT;
      if (pixels > limit)
        rc = ls_error_set (err, LS_ERR_INVALID, "%s: images of %llux%llu are over the %.1f MP pixel limit", spec->path,
                           (unsigned long long) h->dims[2], (unsigned long long) h->dims[1], limit / 1e6);
      else if (!(h->scratch = malloc ((size_t) (pixels * h->dims[3])))) /* sides checked: no overflow */
        rc = ls_error_set (err, LS_ERR_NOMEM, "out of memory");
    }
  if (rc == LS_OK)
    rc = ls_image_pipeline_init (&h->pipeline, spec->seed, (int) spec->width, spec->output,
                                 spec->pixel_limit ? spec->pixel_limit : LS_DEFAULT_PIXEL_LIMIT, err);
  if (rc != LS_OK)
    {
      hdf5_close (&h->base);
      return rc;
    }
  h->pipeline.stages = &h->base.stages;
  h->base.length = h->dims[0];
  h->base.sample_bytes = ls_transformed_bytes ((int) spec->width, spec->output);
  *out = &h->base;
  return LS_OK;
}

#ifndef _WIN32
/* A file that crashes libhdf5 (damaged, or made to) must end as an error
 * naming it, never take the runner down: the open is made first in a
 * forked child, and here only once the child came through it, whatever it
 * decided (the same open then decides the same here). */
#define HDF5_PROBE_TIMEOUT_MS 120000
#define HDF5_PROBE_CAME_THROUGH 0

static int
probe_child (void *arg)
{
  ls_dataset *ds = NULL;
  ls_error err = { 0 };
  if (open_here (arg, &ds, &err) == LS_OK)
    hdf5_close (ds);
  return HDF5_PROBE_CAME_THROUGH;
}

static int
probe (const ls_dataset_spec *spec, ls_error *err)
{
  ls_process *child = NULL;
  ls_exit_status status = { 0 };
  ls_error why = { 0 };
  char how[96];
  int rc;

  if (ls_process_fork (probe_child, (void *) spec, &child, &why) != LS_OK)
    return ls_error_set (err, why.code, "%s: cannot check the file in a child process: %s", spec->path, why.message);
  rc = ls_process_wait (child, HDF5_PROBE_TIMEOUT_MS, &status, &why);
  ls_process_free (child); /* kills and reaps it when it is still running */
  if (rc == LS_ERR_TIMEOUT)
    return ls_error_set (err, LS_ERR_INVALID, "%s: libhdf5 did not finish opening the file within %d s",
                         spec->path, HDF5_PROBE_TIMEOUT_MS / 1000);
  if (rc != LS_OK)
    return ls_error_set (err, rc, "%s: waiting for the child process that checks the file: %s", spec->path,
                         why.message);
  if (status.kind == LS_EXIT_CODE && status.code == HDF5_PROBE_CAME_THROUGH)
    return LS_OK;
  ls_exit_status_describe (&status, how, sizeof how);
  return ls_error_set (err, LS_ERR_INVALID,
                       "%s: opening the file crashed libhdf5 (the child process that checked it: %s); the file is "
                       "damaged or not an HDF5 file as it claims",
                       spec->path, how);
}
#endif

int
ls_hdf5_open (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err)
{
  *out = NULL;
#ifndef _WIN32
  int rc = probe (spec, err);
  if (rc != LS_OK)
    return rc;
#endif
  return open_here (spec, out, err);
}
