/* What the libFuzzer harnesses share: the input as a file (the product
 * reads paths, not buffers) and the check that a refusal says something. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Writes data to "<a private temporary folder>/<name>" (the folder is made
 * once per process and removed at exit) and returns the path, valid until
 * the next call. Aborts when it cannot: the harness cannot test anything. */
const char *fuzz_write_input (const char *name, const uint8_t *data, size_t len);

/* The private temporary folder itself. */
const char *fuzz_tmp_dir (void);

/* A refusal must name what failed: aborts (a finding) when message is
 * empty. */
void fuzz_require_message (const char *what, const char *message);
