/* `loadscope report`: the HTML page is self-contained (a CSP, no request
 * of any kind, charts inline as SVG) and holds the answer (verdict,
 * DataLoader line), the runs with the knobs that differ highlighted and
 * the machines; text from an imported bundle reads as text in HTML and in
 * Markdown; Markdown links its PNG charts beside it; runs from two
 * machines are put side by side; bad input is refused by name, leaving no
 * file behind. Runs are recorded with the sim sink through the CLI. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "app/report/report-escape.h"
#include "app/store/store.h"
#include "test-cli-util.h"
#include "test-util.h"

#define HOSTILE_DATASET "<script>alert(1)</script>"
#define HOSTILE_CPU "Evil <img src=x onerror=alert(2)> | *CPU* [x](y) `z`"
#define OTHER_HOST "win-box"
#define OTHER_OS "Windows (Wine 8.0)"

static const char *tmp_dir;

static void
assert_cli_ok (ls_test_cli *r)
{
  if (r->status != 0)
    g_error ("loadscope exited with %d\nstdout:\n%s\nstderr:\n%s", r->status, r->out, r->err);
  ls_test_cli_clear (r);
}

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

static guint
count (const char *text, const char *needle)
{
  guint n = 0;
  for (const char *p = strstr (text, needle); p; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* The sweep's export as recorded on another machine (a Windows box under
 * Wine) with hostile names: the same sweep (its uuid kept), new runs,
 * spawned workers that start ten times slower. */
static void
write_other_machine_bundle (const char *from, const char *to)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (parser, from, &error));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  JsonObject *m = json_array_get_object_element (json_object_get_array_member (o, "machines"), 0);
  json_object_set_string_member (m, "hostname", OTHER_HOST);
  json_object_set_string_member (m, "os", OTHER_OS);
  json_object_set_string_member (m, "kernel", "10.0.19045");
  json_object_set_string_member (m, "cpu_model", HOSTILE_CPU);
  JsonNode *container = json_object_get_member (m, "container");
  g_autofree char *fp = ls_machine_fingerprint (OTHER_HOST, OTHER_OS, HOSTILE_CPU,
                                                json_object_get_int_member (m, "logical_cores"),
                                                json_object_get_int_member (m, "ram_bytes"),
                                                container && JSON_NODE_HOLDS_VALUE (container)
                                                    ? json_node_get_string (container)
                                                    : NULL);
  json_object_set_string_member (m, "fingerprint", fp);
  JsonArray *sweeps = json_object_get_array_member (o, "sweeps");
  for (guint i = 0; i < json_array_get_length (sweeps); i++)
    json_object_set_string_member (json_array_get_object_element (sweeps, i), "machine_fingerprint", fp);
  JsonArray *runs = json_object_get_array_member (o, "runs");
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      g_autofree char *uuid = g_uuid_string_random ();
      json_object_set_string_member (run, "uuid", uuid);
      json_object_set_string_member (run, "machine_fingerprint", fp);
      json_object_set_string_member (run, "dataset", HOSTILE_DATASET);
      json_object_set_string_member (run, "start_method", "spawn");
      JsonArray *workers = json_object_get_array_member (run, "worker_processes");
      for (guint w = 0; w < json_array_get_length (workers); w++)
        {
          JsonObject *wk = json_array_get_object_element (workers, w);
          json_object_set_double_member (wk, "startup_ms", json_object_get_double_member (wk, "startup_ms") * 10 + 50);
        }
    }
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, to, &error));
  g_assert_no_error (error);
}

/* One store, recorded once: sweep 1, six runs on this machine
 * (workers 0,1,2 x pin off,staging, simulated GPU), then the same sweep
 * from "win-box" imported into it: twelve runs on two machines. */
static const char *
recorded_store (void)
{
  static char *path;
  if (path)
    return path;
  path = ls_test_tmp_path ("runs.sqlite");
  ls_test_cli r = ls_test_loadscope ("sweep", "--dataset", "synthetic", "--count", "640", "--size", "16x16", "--workers", "0,1,2",
                          "--pin", "off,staging", "--batches", "10", "--sink", "sim", "--model-ms", "1", "--db", path,
                          "--quiet", NULL);
  assert_cli_ok (&r);
  g_autofree char *mine = ls_test_tmp_path ("mine.json");
  g_autofree char *other = ls_test_tmp_path ("other.json");
  r = ls_test_loadscope ("export", "--sweep", "1", "--format", "json", "-o", mine, "--db", path, NULL);
  assert_cli_ok (&r);
  write_other_machine_bundle (mine, other);
  r = ls_test_loadscope ("import", other, "--db", path, NULL);
  assert_cli_ok (&r);
  return path;
}

/* Every src= and href= (and CSS url()) points inside the page: a
 * fragment or a data: URL, never http:, https: or a scheme-relative //. */
static void
assert_no_outside_reference (const char *html)
{
  static const char *const attrs[] = { "src=", "href=", "url(" };
  for (guint a = 0; a < G_N_ELEMENTS (attrs); a++)
    for (const char *p = strstr (html, attrs[a]); p; p = strstr (p + 1, attrs[a]))
      {
        const char *v = p + strlen (attrs[a]);
        if (*v == '"' || *v == '\'')
          v++;
        if (g_ascii_strncasecmp (v, "http:", 5) == 0 || g_ascii_strncasecmp (v, "https:", 6) == 0
            || strncmp (v, "//", 2) == 0)
          g_error ("a reference outside the page: %.80s", p);
      }
  g_assert_null (strstr (html, "@import"));
  g_assert_null (strstr (html, "<link"));
  g_assert_null (strstr (html, "<iframe"));
}

static void
test_escape (void)
{
  g_autofree char *html = ls_report_html_escape ("<b>\"x\" & 'y'</b>\x01\nz", 0);
  g_assert_cmpstr (html, ==, "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;\xEF\xBF\xBD z");
  g_autofree char *md = ls_report_md_escape ("a|b*c_d`e<f>[g](h)\\i\nj #k", 0);
  g_assert_cmpstr (md, ==, "a\\|b\\*c\\_d\\`e\\<f\\>\\[g\\](h)\\\\i j \\#k");
  g_autofree char *list = ls_report_md_escape ("- 1. https://x www.y", 0);
  g_assert_cmpstr (list, ==, "\\- 1. https\\://x www\\.y");
  g_autofree char *number = ls_report_md_escape ("1. first", 0);
  g_assert_cmpstr (number, ==, "1\\. first");
  /* Long text is cut and says how long it was; invalid UTF-8 is made valid. */
  g_autofree char *big = g_strnfill (5000, 'a');
  g_autofree char *cut = ls_report_plain_text (big, 10);
  g_assert_cmpstr (cut, ==, "aaaaaaaaaa… (5000 characters)");
  g_autofree char *valid = ls_report_plain_text ("a\xff" "b", 0);
  g_assert_true (g_utf8_validate (valid, -1, NULL));
  g_autofree char *none = ls_report_plain_text (NULL, 0);
  g_assert_cmpstr (none, ==, "-");
}

static void
test_html_sweep_two_machines (void)
{
  const char *db = recorded_store ();
  g_autofree char *out = ls_test_tmp_path ("sweep-1.html");
  ls_test_cli r = ls_test_loadscope ("report", "--sweep", "1", "--db", db, "-o", out, NULL);
  g_assert_nonnull (strstr (r.out, "wrote the report of sweep 1 (12 runs on 2 machines"));
  assert_cli_ok (&r);
  g_autofree char *html = read_text (out);

  /* Self-contained: the policy forbids any request; nothing points outside. */
  g_assert_nonnull (strstr (html, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "));
  assert_no_outside_reference (html);
  /* Charts inline, each drawn light and dark, with the simulated mark. */
  g_assert_cmpuint (count (html, "<svg"), >=, 8);
  g_assert_cmpuint (count (html, "<img"), ==, 0);
  g_assert_nonnull (strstr (html, "SIMULATED GPU"));
  g_assert_nonnull (strstr (html, "prefers-color-scheme:dark"));
  g_assert_nonnull (strstr (html, "@media print"));
  /* The answer: recommendation, verdict, the DataLoader line. */
  g_assert_nonnull (strstr (html, "<strong>Recommendation:</strong>"));
  g_assert_nonnull (strstr (html, "Verdict: "));
  g_assert_nonnull (strstr (html, "<pre class=\"dataloader\"><code>DataLoader(dataset, batch_size=64"));
  /* The knobs that differ, highlighted; those that do not, said once. */
  g_assert_nonnull (strstr (html, "<th class=\"differs\" title=\"differs between the runs\">workers</th>"));
  g_assert_nonnull (strstr (html, "<th class=\"differs\" title=\"differs between the runs\">pin</th>"));
  g_assert_nonnull (strstr (html, "<th class=\"differs\" title=\"differs between the runs\">start</th>"));
  g_assert_null (strstr (html, "<th class=\"differs\" title=\"differs between the runs\">batch size</th>"));
  g_assert_nonnull (strstr (html, "<li><span class=\"k\">batch size</span> 64</li>"));
  g_assert_cmpuint (count (html, "class=\"recommended\""), >=, 1);
  g_assert_nonnull (strstr (html, "throughput (samples/s)"));
  /* The machines: this one and the other, Wine marked. */
  g_assert_nonnull (strstr (html, "<section id=\"machines\">"));
  g_assert_nonnull (strstr (html, ls_test_host_name ()));
  g_assert_nonnull (strstr (html, OTHER_HOST));
  g_assert_nonnull (strstr (html, "Wine: its timings are not Windows'"));
  /* Side by side: start-up per platform and start method, in words too. */
  g_assert_nonnull (strstr (html, "<section id=\"side-by-side\">"));
  g_assert_nonnull (strstr (html, "Linux fork"));
  g_assert_nonnull (strstr (html, OTHER_OS " spawn"));
  g_assert_nonnull (strstr (html, "spawn on " OTHER_OS " costs "));
  g_assert_nonnull (strstr (html, "Throughput and memory at the same knobs"));
  /* The hostile bundle's text reads as text. */
  g_assert_null (strstr (html, HOSTILE_DATASET));
  g_assert_nonnull (strstr (html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  g_assert_null (strstr (html, "<img src=x"));
  g_assert_nonnull (strstr (html, "Evil &lt;img src=x onerror=alert(2)&gt;"));
  /* The one script is ours (sorting), at the end. */
  g_assert_cmpuint (count (html, "<script"), ==, 1);
  /* The version and the store. */
  g_assert_nonnull (strstr (html, " · Loadscope 0."));
  g_assert_nonnull (strstr (html, db));

  /* Kept for a person (and a browser) to look at. */
  const char *artifacts = g_getenv ("LS_ARTIFACTS");
  if (artifacts)
    {
      g_autofree char *kept = g_build_filename (artifacts, "report-sweep-two-machines.html", NULL);
      g_assert_cmpint (g_mkdir_with_parents (artifacts, 0755), ==, 0);
      g_assert_true (g_file_set_contents (kept, html, -1, NULL));
      g_test_message ("report: %s", kept);
    }
}

static void
test_markdown (void)
{
  const char *db = recorded_store ();
  g_autofree char *dir = ls_test_tmp_path ("md out");
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_autofree char *out = g_build_filename (dir, "review.md", NULL);
  ls_test_cli r = ls_test_loadscope ("report", "--sweep", "1", "--db", db, "--format", "md", "-o", out, NULL);
  g_assert_nonnull (strstr (r.out, "as PNG files beside it"));
  assert_cli_ok (&r);
  g_autofree char *md = read_text (out);
  g_assert_true (g_str_has_prefix (md, "# Loadscope report: sweep 1\n"));
  g_assert_nonnull (strstr (md, "**Verdict:** "));
  g_assert_nonnull (strstr (md, "```python\nDataLoader(dataset, batch_size=64"));
  g_assert_nonnull (strstr (md, "## Machines side by side"));
  g_assert_nonnull (strstr (md, "| run |"));
  g_assert_nonnull (strstr (md, "**workers**"));
  /* Each chart a PNG beside the file, linked by its bare name. */
  static const char *const charts[] = { "utilization", "wait", "memory", "stages" };
  for (guint i = 0; i < G_N_ELEMENTS (charts); i++)
    {
      g_autofree char *file = g_strdup_printf ("review-sweep-1-%s.png", charts[i]);
      g_autofree char *link = g_strdup_printf ("](%s)", file);
      g_autofree char *png = g_build_filename (dir, file, NULL);
      g_assert_nonnull (strstr (md, link));
      g_autofree char *bytes = read_text (png);
      g_assert_true (memcmp (bytes, "\x89PNG", 4) == 0);
    }
  /* Hostile names: escaped, never markup. */
  g_assert_null (strstr (md, "<script>"));
  g_assert_nonnull (strstr (md, "\\<script\\>alert(1)\\</script\\>"));
  for (const char *lt = strchr (md, '<'); lt; lt = strchr (lt + 1, '<'))
    g_assert_true (lt > md && lt[-1] == '\\'); /* every < escaped: no HTML in the Markdown */
  g_assert_nonnull (strstr (md, "Evil \\<img src=x onerror=alert(2)\\> \\| \\*CPU\\* \\[x\\](y) \\`z\\`"));
}

static void
test_one_run_and_some_runs (void)
{
  const char *db = recorded_store ();
  g_autofree char *one = ls_test_tmp_path ("run-3.html");
  ls_test_cli r = ls_test_loadscope ("report", "--run", "3", "--db", db, "-o", one, NULL);
  g_assert_nonnull (strstr (r.out, "run 3 (1 run on 1 machine, 4 charts)"));
  assert_cli_ok (&r);
  g_autofree char *html = read_text (one);
  g_assert_nonnull (strstr (html, "Verdict: "));
  g_assert_null (strstr (html, "<strong>Recommendation:</strong>")); /* one run: nothing to choose between */
  g_assert_cmpuint (count (html, "<svg"), ==, 8);
  g_assert_nonnull (strstr (html, "training loop")); /* the run's lanes, inline */
  g_assert_null (strstr (html, "id=\"side-by-side\""));

  g_autofree char *some = ls_test_tmp_path ("some.html");
  r = ls_test_loadscope ("report", "--runs", "2, 4,4", "--db", db, "-o", some, NULL);
  g_assert_nonnull (strstr (r.out, "runs 2 and 4 (2 runs on 1 machine"));
  assert_cli_ok (&r);

  g_autofree char *all = ls_test_tmp_path ("all.html");
  r = ls_test_loadscope ("report", "--all", "--db", db, "-o", all, NULL);
  g_assert_nonnull (strstr (r.out, "all runs (12 runs on 2 machines"));
  assert_cli_ok (&r);
  g_autofree char *all_html = read_text (all);
  g_assert_nonnull (strstr (all_html, "On " OTHER_HOST));
}

static void
expect_refused (int status, const char *says, const char *out, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  va_list ap;
  g_ptr_array_add (argv, (char *) g_getenv ("LOADSCOPE"));
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *stdout_text = NULL, *stderr_text = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv ((const char *const *) argv->pdata,
                                                    G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                                    &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &stdout_text, &stderr_text, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  if (g_subprocess_get_exit_status (proc) != status || !strstr (stderr_text, says))
    g_error ("expected exit %d saying '%s'; got %d:\n%s", status, says, g_subprocess_get_exit_status (proc),
             stderr_text);
  g_assert_true (g_str_has_prefix (stderr_text, "loadscope report: "));
  /* Nothing written, not even half. */
  if (out)
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

static void
test_errors (void)
{
  const char *db = recorded_store ();
  g_autofree char *out = ls_test_tmp_path ("refused.html");
  g_autofree char *md = ls_test_tmp_path ("refused.md");
  g_autofree char *empty = ls_test_tmp_path ("empty.sqlite");
  g_autofree char *missing = ls_test_tmp_path ("missing.sqlite");
  g_autofree char *no_dir = ls_test_tmp_path ("no-such-folder/r.html");
  g_autoptr (GError) error = NULL;
  ls_store *s = ls_store_open (empty, &error);
  g_assert_no_error (error);
  ls_store_close (s);

  expect_refused (2, "no run '999'", out, "report", "--run", "999", "--db", db, "-o", out, NULL);
  expect_refused (2, "no sweep '42'", out, "report", "--sweep", "42", "--db", db, "-o", out, NULL);
  expect_refused (2, "no run '77'", out, "report", "--runs", "1,77", "--db", db, "-o", out, NULL);
  expect_refused (2, "no runs recorded yet", out, "report", "--all", "--db", empty, "-o", out, NULL);
  expect_refused (2, "no store there", out, "report", "--all", "--db", missing, "-o", out, NULL);
  expect_refused (2, "--format pdf: must be html or md", out, "report", "--all", "--db", db, "--format", "pdf", "-o",
                  out, NULL);
  expect_refused (2, "say what to report", out, "report", "--db", db, "-o", out, NULL);
  expect_refused (2, "say what to report", out, "report", "--all", "--run", "1", "--db", db, "-o", out, NULL);
  expect_refused (2, "-o FILE is required", NULL, "report", "--all", "--db", db, NULL);
  expect_refused (1, "its folder", no_dir, "report", "--all", "--db", db, "-o", no_dir, NULL);
  expect_refused (2, "is a folder", NULL, "report", "--all", "--db", db, "-o", tmp_dir, NULL);
  expect_refused (2, "the store being reported on", NULL, "report", "--all", "--db", db, "--force", "-o", db, NULL);
  /* An existing file is kept unless --force. */
  g_assert_true (g_file_set_contents (out, "keep", -1, NULL));
  ls_test_cli r = ls_test_loadscope ("report", "--all", "--db", db, "-o", out, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "already exists (--force replaces it)"));
  ls_test_cli_clear (&r);
  g_autofree char *kept = read_text (out);
  g_assert_cmpstr (kept, ==, "keep");
  r = ls_test_loadscope ("report", "--all", "--db", db, "--force", "-o", out, NULL);
  assert_cli_ok (&r);
  g_unlink (out);
  (void) md;

  r = ls_test_loadscope ("report", "--help", NULL);
  g_assert_nonnull (strstr (r.out, "--format"));
  g_assert_nonnull (strstr (r.out, "Content-Security-Policy"));
  assert_cli_ok (&r);
}

/* Requests the page made while a headless browser showed it: URL
 * requests in its net log whose initiator is an origin (the browser's own
 * update and account checks have none). -1 when the log cannot be read. */
static int
page_requests (const char *net_log)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_file (parser, net_log, NULL))
    return -1;
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonObject *types = json_object_get_object_member (json_object_get_object_member (root, "constants"),
                                                     "logEventTypes");
  gint64 start_job = json_object_get_int_member (types, "URL_REQUEST_START_JOB");
  JsonArray *events = json_object_get_array_member (root, "events");
  int n = 0;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      JsonObject *params = json_object_has_member (e, "params") ? json_object_get_object_member (e, "params") : NULL;
      const char *initiator = params ? json_object_get_string_member_with_default (params, "initiator", NULL) : NULL;
      if (json_object_get_int_member (e, "type") == start_job && initiator && strcmp (initiator, "not an origin") != 0)
        {
          g_test_message ("the page asked for %s", json_object_get_string_member_with_default (params, "url", "?"));
          n++;
        }
    }
  return n;
}

/* Shows page in headless Chromium, writes its screenshot to png; returns
 * the page's own requests (page_requests). */
static int
browse (const char *browser, const char *page, const char *png, const char *name)
{
  g_autofree char *profile = ls_test_tmp_path (name);
  g_autofree char *net_log = g_strconcat (profile, "-net.json", NULL);
  g_autofree char *net_arg = g_strconcat ("--log-net-log=", net_log, NULL);
  g_autofree char *shot_arg = g_strconcat ("--screenshot=", png, NULL);
  g_autofree char *profile_arg = g_strconcat ("--user-data-dir=", profile, NULL);
  g_autofree char *url = g_filename_to_uri (page, NULL, NULL);
  const char *argv[] = { browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update", profile_arg, net_arg,
                         shot_arg, "--window-size=1280,2400", url, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                                              | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_wait_check (proc, NULL, &error));
  g_assert_no_error (error);
  g_autofree char *bytes = read_text (png);
  g_assert_true (memcmp (bytes, "\x89PNG", 4) == 0);
  return page_requests (net_log);
}

/* A real browser shows the page and asks for nothing; the same check
 * sees the request of a page that does ask (so it can see one). */
static void
test_browser (void)
{
  g_autofree char *browser = g_find_program_in_path ("chromium");
  if (!browser)
    {
      g_test_skip ("no chromium here (scripts/setup.sh --tests installs it)");
      return;
    }
  const char *db = recorded_store ();
  g_autofree char *page = ls_test_tmp_path ("browsed.html");
  ls_test_cli r = ls_test_loadscope ("report", "--sweep", "1", "--db", db, "-o", page, NULL);
  assert_cli_ok (&r);
  const char *artifacts = g_getenv ("LS_ARTIFACTS");
  g_autofree char *png = artifacts ? g_build_filename (artifacts, "report-sweep-two-machines.png", NULL)
                                   : ls_test_tmp_path ("report.png");
  if (artifacts)
    g_assert_cmpint (g_mkdir_with_parents (artifacts, 0755), ==, 0);
  int requests = browse (browser, page, png, "chromium-report");
  g_assert_cmpint (requests, ==, 0);
  g_test_message ("screenshot: %s", png);

  g_autofree char *control = ls_test_tmp_path ("asks.html");
  g_autofree char *control_png = ls_test_tmp_path ("asks.png");
  g_assert_true (g_file_set_contents (control, "<!DOCTYPE html><p>x<img src=\"http://127.0.0.1:9/x.png\">", -1, NULL));
  g_assert_cmpint (browse (browser, control, control_png, "chromium-control"), >=, 1);
}

/* A sweep of 20 runs makes a page well under 2 MB. */
static void
test_twenty_runs_size (void)
{
  g_autofree char *db = ls_test_tmp_path ("twenty.sqlite");
  ls_test_cli r = ls_test_loadscope ("sweep", "--dataset", "synthetic", "--count", "256", "--size", "8x8", "--workers", "0,1",
                          "--pin", "off,staging", "--prefetch", "1,2,3,4,5", "--batches", "8", "--sink", "sim",
                          "--model-ms", "1", "--db", db, "--quiet", NULL);
  assert_cli_ok (&r);
  g_autofree char *out = ls_test_tmp_path ("twenty.html");
  r = ls_test_loadscope ("report", "--sweep", "1", "--db", db, "-o", out, NULL);
  g_assert_nonnull (strstr (r.out, "(20 runs on 1 machine"));
  assert_cli_ok (&r);
  GStatBuf st;
  g_assert_cmpint (g_stat (out, &st), ==, 0);
  g_test_message ("a 20-run sweep's report: %lld bytes", (long long) st.st_size);
  g_assert_cmpint (st.st_size, <, 2 * 1000 * 1000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = ls_test_tmp_dir_make ("loadscope-report-XXXXXX");
  g_assert_nonnull (tmp_dir);
  g_setenv ("XDG_DATA_HOME", tmp_dir, TRUE);

  g_test_add_func ("/app/report/escape", test_escape);
  g_test_add_func ("/app/report/html/sweep-from-two-machines", test_html_sweep_two_machines);
  g_test_add_func ("/app/report/markdown/pngs-beside-it", test_markdown);
  g_test_add_func ("/app/report/one-run-and-some-runs", test_one_run_and_some_runs);
  g_test_add_func ("/app/report/errors", test_errors);
  g_test_add_func ("/app/report/twenty-runs-under-2mb", test_twenty_runs_size);
  g_test_add_func ("/app/report/browser/shows-it-and-asks-for-nothing", test_browser);

  int rc = ls_test_run_checked_shm_only ();
  ls_test_tmp_dir_remove ();
  return rc;
}
