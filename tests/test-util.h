/* Shared by the GLib test programs. */
#pragma once

#include <glib.h>

/* Path of tests/helper-child (from LS_HELPER_CHILD, set by meson). */
const char *ls_test_helper_path (void);

/* Runs g_test_run() and fails the program if it left a Loadscope shared
 * memory segment in /dev/shm or leaked file descriptors. */
int ls_test_run_checked (void);

/* The same, without the descriptor check: for tests whose GLib machinery
 * (GSubprocess, worker threads) keeps descriptors of its own. */
int ls_test_run_checked_shm_only (void);

/* The program's scratch folder: made by ls_test_tmp_dir_make (a
 * g_dir_make_tmp pattern such as "loadscope-store-XXXXXX"; once), its paths
 * from ls_test_tmp_path (free them), removed with all it holds by
 * ls_test_tmp_dir_remove. */
const char *ls_test_tmp_dir_make (const char *pattern);
char *ls_test_tmp_path (const char *name);
void ls_test_tmp_dir_remove (void);

/* Deletes a file or a folder with everything in it (test scratch space). */
void ls_test_remove_tree (const char *path);

/* This machine's name as Loadscope records it (platform/sysinfo): on Windows
 * the DNS host name, where GLib's g_get_host_name() is the NetBIOS one. */
const char *ls_test_host_name (void);

/* Under Wine only: Pango's warnings about fonts Wine cannot describe stop
 * being fatal for the current test case (call it first in a test that
 * draws text). Does nothing elsewhere. */
void ls_test_allow_wine_font_warnings (void);
