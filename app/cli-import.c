#include "app/cli-import.h"

#include <stdio.h>

#include "app/import.h"
#include "app/store.h"

int
ls_cli_import (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE - merge runs recorded elsewhere into the store");
  g_autoptr (GError) error = NULL;
  g_autofree char *db = NULL;
  ls_import_counts counts;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db, "The run store (default: $XDG_DATA_HOME/loadscope/history.sqlite)",
      "PATH" },
    { NULL },
  };

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (
      context,
      "FILE is a sqlite bundle or a JSON export (`loadscope export --format sqlite|json`)\n"
      "from this or another machine. Every field is checked first; runs already in the\n"
      "store (the same uuid) are kept once, machines keep their own description, and a\n"
      "run still running when exported arrives as interrupted. Any error imports nothing.\n"
      "\n"
      "Exit status: 0 imported, 1 the store could not be written, 2 bad usage or a bad FILE.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "loadscope import: %s\n", error->message);
      return 2;
    }
  if (argc != 2)
    {
      fprintf (stderr, "loadscope import: %s\n", argc < 2 ? "which file? (a sqlite bundle or a JSON export)"
                                                           : "one file at a time");
      return 2;
    }

  g_autoptr (ls_store) store = ls_store_open (db, &error);
  if (!store)
    {
      fprintf (stderr, "loadscope import: %s\n", error->message);
      return 1;
    }
  if (!ls_import_file (store, argv[1], &counts, &error))
    {
      gboolean bad_file = error->domain == LS_STORE_ERROR
                          && (error->code == LS_STORE_ERROR_INVALID || error->code == LS_STORE_ERROR_VERSION);
      fprintf (stderr, "loadscope import: %s\nloadscope import: nothing was imported; the store is as it was\n",
               error->message);
      return bad_file ? 2 : 1;
    }
  printf ("imported %u run%s (%u already present) from %s\n", counts.runs_imported, counts.runs_imported == 1 ? "" : "s",
          counts.runs_present, argv[1]);
  return 0;
}
