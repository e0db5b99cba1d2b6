#pragma once

/* `loadscope make-dataset`: writes a sample dataset (JPEG folder or HDF5). */
int ls_cli_make_dataset (int argc, char **argv);
