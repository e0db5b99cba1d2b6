/* The hosts of ~/.ssh/config that the window offers (app/remote/
 * remote-ssh-config.h): names in order and once, patterns and names ssh
 * would not take left out, Include followed (plain and pattern, with a
 * depth and file cap), and a hostile file (huge, binary, long lines,
 * thousands of hosts) refused or capped with its name in the message. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "app/remote/remote-ssh-config.h"
#include "test-util.h"

static char *
write_file (const char *name, const char *text, gssize len)
{
  char *path = ls_test_tmp_path (name);
  g_autofree char *dir = g_path_get_dirname (path);
  g_mkdir_with_parents (dir, 0700);
  g_assert_true (g_file_set_contents (path, text, len, NULL));
  return path;
}

static GPtrArray *
hosts_of (const char *path)
{
  g_autoptr (GError) error = NULL;
  GPtrArray *hosts = ls_ssh_config_hosts (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (hosts);
  return hosts;
}

static void
assert_hosts (GPtrArray *hosts, const char *const *want)
{
  g_autoptr (GString) got = g_string_new (NULL);
  for (guint i = 0; i < hosts->len; i++)
    g_string_append_printf (got, "%s%s", i ? " " : "", (char *) hosts->pdata[i]);
  g_autofree char *expected = g_strjoinv (" ", (char **) want);
  g_assert_cmpstr (got->str, ==, expected);
}

static void
test_hosts (void)
{
  g_autofree char *path = write_file ("a/config",
                                      "# a comment\n"
                                      "Host gpu1 gpu2\n"
                                      "  HostName 10.0.0.1\n"
                                      "host=trainer\r\n"
                                      "HOST \"quoted name\" quoted\n"
                                      "Host * !bad ?x gpu*\n"
                                      "Host -oProxyCommand=x\n"
                                      "Host gpu1\n"
                                      "Match host foo\n"
                                      "\tHost  tabbed\n"
                                      "Hostname notahost\n",
                                      -1);
  g_autoptr (GPtrArray) hosts = hosts_of (path);
  const char *want[] = { "gpu1", "gpu2", "trainer", "quoted", "tabbed", NULL };
  assert_hosts (hosts, want);

  /* No file: no hosts, no error (most people have none). */
  g_autofree char *none = ls_test_tmp_path ("nowhere/config");
  g_autoptr (GPtrArray) empty = hosts_of (none);
  g_assert_cmpuint (empty->len, ==, 0);

  g_assert_true (ls_ssh_config_host_ok ("user@gpu1.example"));
  g_assert_false (ls_ssh_config_host_ok ("-x"));
  g_assert_false (ls_ssh_config_host_ok ("a b"));
  g_assert_false (ls_ssh_config_host_ok ("a\x01"));
  g_assert_false (ls_ssh_config_host_ok ("\xff"));
  g_assert_false (ls_ssh_config_host_ok (""));
}

static void
test_include (void)
{
  g_autofree char *d1 = write_file ("b/conf.d/10-lab", "Host lab1\nInclude ../deeper\n", -1);
  g_autofree char *d2 = write_file ("b/conf.d/20-cloud", "Host cloud\n", -1);
  g_autofree char *d3 = write_file ("b/conf.d/README", "Host notincluded\n", -1);
  g_autofree char *deep = write_file ("b/deeper", "Host deep\n", -1);
  g_autofree char *self = write_file ("b/loop", "Host looped\nInclude loop\n", -1);
  g_autofree char *path = write_file ("b/config", "Host first\nInclude conf.d/*-* missing-file\nInclude loop\n", -1);
  g_autoptr (GPtrArray) hosts = hosts_of (path);
  /* The loop is followed to the depth cap, then left: its host once. */
  const char *want[] = { "first", "lab1", "cloud", "looped", NULL };
  assert_hosts (hosts, want);
  (void) d1, (void) d2, (void) d3, (void) deep, (void) self;
}

static void
test_hostile (void)
{
  g_autoptr (GError) error = NULL;

  /* Too large: refused, naming the file and the cap. */
  g_autofree char *big_text = g_malloc (LS_SSH_CONFIG_FILE_MAX + 10);
  memset (big_text, '#', LS_SSH_CONFIG_FILE_MAX + 10);
  g_autofree char *big = write_file ("c/big", big_text, LS_SSH_CONFIG_FILE_MAX + 10);
  g_autoptr (GPtrArray) none = ls_ssh_config_hosts (big, &error);
  g_assert_null (none);
  g_assert_nonnull (strstr (error->message, big));
  g_assert_nonnull (strstr (error->message, "larger than"));
  g_clear_error (&error);

  /* A folder where the file should be. */
  g_autofree char *dir = ls_test_tmp_path ("c/adir");
  g_mkdir_with_parents (dir, 0700);
  g_autoptr (GPtrArray) none2 = ls_ssh_config_hosts (dir, &error);
  g_assert_null (none2);
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);

  /* Binary bytes, a NUL, an endless line, thousands of hosts: the good
   * ones up to the cap, nothing else. */
  GString *s = g_string_new ("Host ok1\n");
  static const char binary[] = "Host \xff\xfe bin\0Host afternul\n";
  g_string_append_len (s, binary, sizeof binary - 1);
  g_string_append (s, "Host ");
  for (int i = 0; i < 5000; i++)
    g_string_append_c (s, 'x');
  g_string_append (s, "\nHost ok2\n");
  for (int i = 0; i < 1000; i++)
    g_string_append_printf (s, "Host h%d\n", i);
  gsize len = s->len;
  g_autofree char *text = g_string_free (s, FALSE);
  g_autofree char *many = write_file ("c/many", text, (gssize) len);
  g_autoptr (GPtrArray) hosts = hosts_of (many);
  g_assert_cmpuint (hosts->len, ==, LS_SSH_CONFIG_HOSTS_MAX);
  g_assert_cmpstr (hosts->pdata[0], ==, "ok1");
  g_assert_cmpstr (hosts->pdata[1], ==, "afternul");
  g_assert_cmpstr (hosts->pdata[2], ==, "ok2");
  for (guint i = 0; i < hosts->len; i++)
    g_assert_true (ls_ssh_config_host_ok (hosts->pdata[i]));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ls_test_tmp_dir_make ("ls-ssh-config-XXXXXX");
  g_test_add_func ("/remote/ssh-config/hosts", test_hosts);
  g_test_add_func ("/remote/ssh-config/include", test_include);
  g_test_add_func ("/remote/ssh-config/hostile", test_hostile);
  int rc = ls_test_run_checked ();
  ls_test_tmp_dir_remove ();
  return rc;
}
