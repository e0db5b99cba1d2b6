/* Translation helpers (app/core/i18n.h): terminal display widths, which
 * commands stay in the C locale, the sweep table padded by display width
 * so a wide (CJK) cell keeps the columns after it aligned, and English on
 * request (ls_i18n_set_english) for what is kept, on its thread only. */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "app/core/i18n.h"
#include "app/core/verdict.h"
#include "app/sweep/sweep-text.h"
#include "test-util.h"

static void
test_display_width (void)
{
  g_assert_cmpuint (ls_i18n_display_width (""), ==, 0);
  g_assert_cmpuint (ls_i18n_display_width ("workers"), ==, 7);
  g_assert_cmpuint (ls_i18n_display_width ("工作进程"), ==, 8);     /* 4 wide characters */
  g_assert_cmpuint (ls_i18n_display_width ("峰值 PSS"), ==, 8);
  g_assert_cmpuint (ls_i18n_display_width ("e\u0301"), ==, 1);     /* a combining accent takes no column */
  g_assert_cmpuint (ls_i18n_display_width ("（）"), ==, 4);         /* full-width punctuation */
}

static void
test_machine_output (void)
{
  char *json[] = { "loadscope", "sweep", "--workers", "0,1", "--json", NULL };
  char *events[] = { "loadscope", "run", "--events=3", NULL };
  char *table[] = { "loadscope", "sweep", "--workers", "0,1", NULL };
  g_assert_true (ls_i18n_machine_output (5, json));
  g_assert_true (ls_i18n_machine_output (3, events));
  g_assert_false (ls_i18n_machine_output (4, table));
  /* argv[0] is never an option, whatever its name */
  char *named[] = { "--json", "demo", NULL };
  g_assert_false (ls_i18n_machine_output (2, named));
}

/* Display widths of the table's lines (header and rows) as printed. */
static GArray *
table_line_widths (JsonArray *summaries)
{
  FILE *f = tmpfile ();
  g_assert_nonnull (f);
  ls_sweep_print_table (f, summaries);
  rewind (f);
  GArray *widths = g_array_new (FALSE, FALSE, sizeof (gsize));
  char line[1024];
  while (fgets (line, sizeof line, f) && line[0] != '*' && line[0] != '\n')
    {
      line[strcspn (line, "\n")] = '\0';
      gsize w = ls_i18n_display_width (line);
      g_array_append_val (widths, w);
    }
  fclose (f);
  return widths;
}

static void
test_table_aligned_with_wide_cells (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser,
    "[{\"run_id\": 1, \"workers\": 0, \"batch_size\": 64, \"pin\": \"off\", \"sink\": \"sim\", \"status\": \"done\","
    "  \"throughput_sps\": 100},"
    " {\"run_id\": 2, \"workers\": 2, \"batch_size\": 64, \"pin\": \"锁页\", \"sink\": \"sim\", \"status\": \"完成\","
    "  \"start\": \"fork\", \"prefetch\": 2, \"throughput_sps\": 90}]", -1, NULL));
  JsonArray *summaries = json_node_get_array (json_parser_get_root (parser));
  g_autoptr (GArray) widths = table_line_widths (summaries);
  g_assert_cmpuint (widths->len, ==, 3);
  /* the last column is right-aligned: equal widths mean every column lines up */
  g_assert_cmpuint (g_array_index (widths, gsize, 1), ==, g_array_index (widths, gsize, 0));
  g_assert_cmpuint (g_array_index (widths, gsize, 2), ==, g_array_index (widths, gsize, 0));
}

/* The build's catalogue (BUILD/po, beside BUILD/app/loadscope) under
 * zh_CN.UTF-8; FALSE (the test skipped) where either is missing. */
static gboolean
use_chinese (void)
{
  const char *exe = g_getenv ("LOADSCOPE");
  if (!exe)
    {
      g_test_skip ("LOADSCOPE is not set (the build's catalogue is found beside it)");
      return FALSE;
    }
  g_autofree char *app = g_path_get_dirname (exe);
  g_autofree char *po = g_build_filename (app, "..", "po", NULL);
  g_autofree char *mo = g_build_filename (po, "zh_CN", "LC_MESSAGES", GETTEXT_PACKAGE ".mo", NULL);
  if (!g_file_test (mo, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the zh_CN catalogue is not built (gettext's msgfmt)");
      return FALSE;
    }
  if (!setlocale (LC_ALL, "zh_CN.UTF-8"))
    {
      g_test_skip ("the zh_CN.UTF-8 locale is not generated (scripts/setup.sh --tests)");
      return FALSE;
    }
  g_unsetenv ("LANGUAGE");
  bindtextdomain (GETTEXT_PACKAGE, po);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  return TRUE;
}

static gpointer
translate_in_thread (gpointer data)
{
  return g_strdup (_((const char *) data));
}

static void
test_english_on_request (void)
{
  if (!use_chinese ())
    return;
  g_assert_cmpstr (_("Verdict: %s"), ==, "结论：%s");
  g_assert_cmpstr (ngettext ("%lld worker (%s)", "%lld workers (%s)", 4), ==, "%lld 个工作进程（%s）");

  g_assert_false (ls_i18n_set_english (TRUE));
  g_assert_cmpstr (_("Verdict: %s"), ==, "Verdict: %s");
  g_assert_cmpstr (ngettext ("%lld worker (%s)", "%lld workers (%s)", 1), ==, "%lld worker (%s)");
  g_assert_cmpstr (ngettext ("%lld worker (%s)", "%lld workers (%s)", 4), ==, "%lld workers (%s)");
  /* another thread still reads the catalogue */
  GThread *other = g_thread_new ("translate", translate_in_thread, (gpointer) "Verdict: %s");
  g_autofree char *there = g_thread_join (other);
  g_assert_cmpstr (there, ==, "结论：%s");

  /* a verdict built now is English; after, in Chinese */
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, "[{\"status\": \"failed\", \"workers\": 0}]", -1, NULL));
  JsonArray *summaries = json_node_get_array (json_parser_get_root (parser));
  ls_verdict v;
  ls_verdict_for_sweep (summaries, 2, &v);
  g_autofree char *english = ls_verdict_text (&v);
  ls_verdict_clear (&v);
  g_assert_true (ls_i18n_set_english (FALSE));
  ls_verdict_for_sweep (summaries, 2, &v);
  g_autofree char *chinese = ls_verdict_text (&v);
  ls_verdict_clear (&v);
  g_assert_cmpstr (english, ==, "Recommendation: No run finished, so there is nothing to recommend.\n"
                                "Verdict: no run finished: no verdict\n");
  g_assert_cmpstr (chinese, ==, "建议：没有运行完成，因此无可建议。\n结论：没有运行完成：没有结论\n");
  setlocale (LC_ALL, "C");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/app/i18n/display-width", test_display_width);
  g_test_add_func ("/app/i18n/machine-output", test_machine_output);
  g_test_add_func ("/app/i18n/table-aligned-with-wide-cells", test_table_aligned_with_wide_cells);
  g_test_add_func ("/app/i18n/english-on-request", test_english_on_request);
  return g_test_run ();
}
