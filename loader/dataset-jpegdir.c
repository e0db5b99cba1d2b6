/* The jpeg-dir dataset: torchvision's ImageFolder layout, root/<class>/<image>.jpg
 * (any case of .jpg or .jpeg), classes sorted by name, files sorted within
 * each class, labels the class's position. The file list is built once in
 * the runner; forked workers share it, spawned workers list the folder
 * again and get the same order. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/dataset-private.h"
#include "loader/image-sample.h"
#include "platform/fs.h"

/* A file is read whole before decoding: one larger than this is refused
 * from its size alone, before a byte is read (a 1 GB sparse .jpg). A
 * 64 MP JPEG at quality 100 is well under it. */
#define JPEGDIR_MAX_FILE_BYTES ((uint64_t) 256 << 20)

typedef struct {
  ls_dataset base;
  char **paths;     /* full path of each sample */
  int32_t *labels;
  size_t n_classes;
  ls_image_pipeline pipeline;
  uint8_t *file_buf;
  size_t file_cap;
} jpegdir;

static int
equal_ci (const char *a, const char *lower)
{
  for (; *a && *lower; a++, lower++)
    if (tolower ((unsigned char) *a) != *lower)
      return 0;
  return *a == *lower;
}

static int
has_jpeg_extension (const char *name)
{
  const char *dot = strrchr (name, '.');
  return dot && dot != name && (equal_ci (dot + 1, "jpg") || equal_ci (dot + 1, "jpeg"));
}

static void
jpegdir_close (ls_dataset *ds)
{
  jpegdir *j = (jpegdir *) ds;
  for (uint64_t i = 0; i < ds->length; i++)
    free (j->paths[i]);
  free (j->paths);
  free (j->labels);
  free (j->file_buf);
  ls_image_pipeline_clear (&j->pipeline);
  free (j);
}

static int
jpegdir_read (ls_dataset *ds, uint64_t index, uint32_t epoch, void *out, int32_t *label, ls_error *err)
{
  jpegdir *j = (jpegdir *) ds;
  size_t len = 0;
  const char *path = j->paths[index];
  uint64_t size = 0;

  if (ls_fs_kind_of (path, &size) == LS_FS_FILE && size > JPEGDIR_MAX_FILE_BYTES)
    return ls_error_set (err, LS_ERR_INVALID, "%s: %llu bytes; image files may be at most %llu MiB", path,
                         (unsigned long long) size, (unsigned long long) (JPEGDIR_MAX_FILE_BYTES >> 20));
  if (ls_fs_read_file (path, &j->file_buf, &j->file_cap, &len, err) != LS_OK)
    return err ? err->code : LS_ERR_OS;
  if (len == 0)
    return ls_error_set (err, LS_ERR_INVALID, "%s: empty file", path);
  if (ls_image_sample_jpeg (&j->pipeline, j->file_buf, len, epoch, index, out, err) != LS_OK)
    {
      ls_error_prefix (err, "%s", path);
      return err ? err->code : LS_ERR_INVALID;
    }
  *label = j->labels[index];
  return LS_OK;
}

static const ls_dataset_ops jpegdir_ops = { jpegdir_close, jpegdir_read };

static int
add_sample (jpegdir *j, size_t *cap, char *path, int32_t label)
{
  if (j->base.length == *cap)
    {
      size_t ncap = *cap ? *cap * 2 : 1024;
      char **p = realloc (j->paths, ncap * sizeof *p);
      if (!p)
        return LS_ERR_NOMEM;
      j->paths = p;
      int32_t *l = realloc (j->labels, ncap * sizeof *l);
      if (!l)
        return LS_ERR_NOMEM;
      j->labels = l;
      *cap = ncap;
    }
  j->paths[j->base.length] = path;
  j->labels[j->base.length] = label;
  j->base.length++;
  return LS_OK;
}

int
ls_jpegdir_open (const ls_dataset_spec *spec, ls_dataset **out, ls_error *err)
{
  ls_dir_entry *classes = NULL;
  size_t n_entries = 0, cap = 0, loose_jpegs = 0;
  jpegdir *j;
  int rc;

  *out = NULL;
  switch (ls_fs_kind_of (spec->path, NULL))
    {
    case LS_FS_MISSING:
      return ls_error_set (err, LS_ERR_NOT_FOUND, "%s: no such file or folder", spec->path);
    case LS_FS_DIR:
      break;
    default:
      return ls_error_set (err, LS_ERR_INVALID, "%s: is a file; a jpeg-dir dataset is a folder of class folders",
                           spec->path);
    }
  if (ls_fs_list_dir (spec->path, &classes, &n_entries, err) != LS_OK)
    return err ? err->code : LS_ERR_OS;

  j = calloc (1, sizeof *j);
  if (!j)
    {
      ls_fs_entries_free (classes, n_entries);
      return ls_error_set (err, LS_ERR_NOMEM, "out of memory");
    }
  j->base.ops = &jpegdir_ops;
  j->base.spec = *spec;

  rc = LS_OK;
  for (size_t c = 0; c < n_entries && rc == LS_OK; c++)
    {
      if (classes[c].kind != LS_FS_DIR)
        {
          loose_jpegs += has_jpeg_extension (classes[c].name);
          continue;
        }
      char *class_dir = ls_fs_join (spec->path, classes[c].name);
      ls_dir_entry *files = NULL;
      size_t n_files = 0;
      if (!class_dir || ls_fs_list_dir (class_dir, &files, &n_files, err) != LS_OK)
        {
          free (class_dir);
          rc = err && err->code ? err->code : LS_ERR_NOMEM;
          break;
        }
      size_t before = j->base.length;
      for (size_t f = 0; f < n_files && rc == LS_OK; f++)
        {
          if (files[f].kind != LS_FS_FILE || !has_jpeg_extension (files[f].name))
            continue;
          char *path = ls_fs_join (class_dir, files[f].name);
          if (!path || add_sample (j, &cap, path, (int32_t) j->n_classes) != LS_OK)
            {
              free (path);
              rc = ls_error_set (err, LS_ERR_NOMEM, "out of memory listing %s", class_dir);
            }
        }
      ls_fs_entries_free (files, n_files);
      free (class_dir);
      /* ImageFolder counts a class folder only if it holds a valid file. */
      if (j->base.length > before)
        j->n_classes++;
    }
  ls_fs_entries_free (classes, n_entries);

  if (rc == LS_OK && j->base.length == 0)
    {
      if (loose_jpegs)
        rc = ls_error_set (err, LS_ERR_INVALID,
                           "%s: found %zu JPEG files but no class folders; expected %s/<class>/<image>.jpg",
                           spec->path, loose_jpegs, spec->path);
      else
        rc = ls_error_set (err, LS_ERR_INVALID,
                           "%s: found no .jpg or .jpeg files in class folders; expected %s/<class>/<image>.jpg",
                           spec->path, spec->path);
    }
  if (rc == LS_OK)
    rc = ls_image_pipeline_init (&j->pipeline, spec->seed, (int) spec->width, spec->output,
                                 spec->pixel_limit ? spec->pixel_limit : LS_DEFAULT_PIXEL_LIMIT, err);
  if (rc != LS_OK)
    {
      jpegdir_close (&j->base);
      return rc;
    }
  j->pipeline.stages = &j->base.stages;
  j->base.sample_bytes = ls_transformed_bytes ((int) spec->width, spec->output);
  *out = &j->base;
  return LS_OK;
}
