/* An HDF5 filter plugin (loaded through HDF5_PLUGIN_PATH) that passes data
 * through, or, with LS_TEST_FILTER_CRASH set, crashes the way a damaged
 * file can crash libhdf5: test-fuzz-regress checks that the HDF5 dataset's
 * open turns such a crash into an error naming the file. */
#include <signal.h>
#include <stdlib.h>

#include <H5PLextern.h>

#define LS_TEST_FILTER_ID 32100

const void *H5PLget_plugin_info (void);
H5PL_type_t H5PLget_plugin_type (void);

static size_t
filter (unsigned int flags, size_t n_values, const unsigned int values[], size_t nbytes, size_t *buf_size, void **buf)
{
  if (getenv ("LS_TEST_FILTER_CRASH"))
    raise (SIGSEGV);
  return nbytes;
}

static const H5Z_class2_t filter_class = {
  H5Z_CLASS_T_VERS, (H5Z_filter_t) LS_TEST_FILTER_ID, 1, 1, "loadscope test crash filter", NULL, NULL, filter,
};

H5PL_type_t
H5PLget_plugin_type (void)
{
  return H5PL_TYPE_FILTER;
}

const void *
H5PLget_plugin_info (void)
{
  return &filter_class;
}
