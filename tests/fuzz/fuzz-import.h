/* The import harnesses' common part: the input imported into a fresh
 * store, and what it accepts exported (JSON and bundle) and imported again. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Imports data, written to a file called name, into a fresh temporary
 * store. A refusal must carry a message; an accepted file must survive
 * export -> import in both formats (aborts otherwise: a finding). */
void fuzz_import (const char *name, const uint8_t *data, size_t len);
