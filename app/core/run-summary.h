/* The run summary of the command line contract, as JSON or as text. */
#pragma once

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "loader/run.h"

/* Builds the summary object (DESIGN.md, "Command line contract"). */
JsonNode *ls_run_summary_json (const ls_run_config *config, const ls_run_result *result);

/* A few lines for a person reading a terminal. */
void ls_run_summary_print (FILE *to, const ls_run_config *config, const ls_run_result *result);

const char *ls_run_status_name (ls_run_status status);
