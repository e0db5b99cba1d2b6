/* A run folder's manifest (slurm.json) and its tasks' states: what Slurm
 * says (sacct where accounting is on, else scontrol, which remembers
 * finished jobs for MinJobAge, else squeue), what the tasks left in the
 * folder (tasks/task-N.exit), and what was seen before (states.tsv: Slurm
 * forgets). */
#include "app/slurm/slurm.h"
#include "app/core/i18n.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "app/core/sweep-grid.h"
#include "app/store/import-input.h"

typedef struct {
  char *id;
  guint first, last;
} job;

struct ls_slurm_run {
  char *dir;
  char *sweep_uuid;
  guint configurations, tasks;
  GPtrArray *labels; /* C */
  GArray *jobs;      /* job */
  ls_task_info *infos;
};

static const char *const state_words[] = {
  [LS_TASK_UNKNOWN] = "unknown", [LS_TASK_PENDING] = "pending",     [LS_TASK_RUNNING] = "running",
  [LS_TASK_DONE] = "done",       [LS_TASK_FAILED] = "failed",       [LS_TASK_CANCELLED] = "cancelled",
  [LS_TASK_TIMEOUT] = "timed out",
};

const char *
ls_task_state_word (ls_task_state state)
{
  return state_words[state];
}

gboolean
ls_task_state_final (ls_task_state state)
{
  return state >= LS_TASK_DONE;
}

ls_task_state
ls_slurm_state_from_word (const char *word)
{
  static const struct {
    const char *word;
    ls_task_state state;
  } map[] = {
    { "PENDING", LS_TASK_PENDING },       { "REQUEUED", LS_TASK_PENDING },      { "REQUEUE_HOLD", LS_TASK_PENDING },
    { "REQUEUE_FED", LS_TASK_PENDING },   { "RESV_DEL_HOLD", LS_TASK_PENDING }, { "RUNNING", LS_TASK_RUNNING },
    { "CONFIGURING", LS_TASK_RUNNING },   { "COMPLETING", LS_TASK_RUNNING },    { "SUSPENDED", LS_TASK_RUNNING },
    { "STOPPED", LS_TASK_RUNNING },       { "SIGNALING", LS_TASK_RUNNING },     { "STAGE_OUT", LS_TASK_RUNNING },
    { "RESIZING", LS_TASK_RUNNING },      { "COMPLETED", LS_TASK_DONE },        { "CANCELLED", LS_TASK_CANCELLED },
    { "PREEMPTED", LS_TASK_CANCELLED },   { "REVOKED", LS_TASK_CANCELLED },     { "TIMEOUT", LS_TASK_TIMEOUT },
    { "DEADLINE", LS_TASK_TIMEOUT },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (g_str_has_prefix (word, map[i].word))
      return map[i].state;
  /* FAILED, NODE_FAIL, BOOT_FAIL, OUT_OF_MEMORY, SPECIAL_EXIT, ... */
  return LS_TASK_FAILED;
}

static void
info_set (ls_task_info *info, const char *word, const char *node, int exit_code)
{
  info->state = ls_slurm_state_from_word (word);
  g_free (info->slurm_state);
  info->slurm_state = g_strdup (word);
  if (node && *node && strcmp (node, "None assigned") != 0 && strcmp (node, "(null)") != 0)
    {
      g_free (info->node);
      info->node = g_strdup (node);
    }
  if (exit_code >= 0)
    info->exit_code = exit_code;
}

/* "3", "3-5", "[3-5%2]", "0,2,4-5%1" after "<job>_": calls back for each
 * task id below n. */
static void
for_task_ids (const char *spec, guint n, void (*fn) (guint t, gpointer data), gpointer data)
{
  g_autofree char *s = g_strdup (spec);
  char *p = s;
  if (*p == '[')
    p++;
  p[strcspn (p, "]%")] = '\0';
  g_auto (GStrv) parts = g_strsplit (p, ",", -1);
  for (char **part = parts; *part; part++)
    {
      char *end = NULL;
      errno = 0;
      guint64 a = g_ascii_strtoull (*part, &end, 10), b = a;
      if (end == *part || errno)
        continue;
      if (*end == '-')
        b = g_ascii_strtoull (end + 1, NULL, 10);
      for (guint64 t = a; t <= b && t < n; t++)
        fn ((guint) t, data);
    }
}

typedef struct {
  ls_task_info *infos;
  const char *word, *node;
  int exit_code;
} setter;

static void
set_one (guint t, gpointer data)
{
  setter *s = data;
  info_set (&s->infos[t], s->word, s->node, s->exit_code);
}

/* "2:0" -> 2; "0:15" (a signal) -> 128 + 15. */
static int
exit_from_text (const char *text)
{
  if (!text || !*text)
    return -1;
  int code = atoi (text);
  const char *colon = strchr (text, ':');
  int sig = colon ? atoi (colon + 1) : 0;
  return sig ? 128 + sig : code;
}

/* One "JOB_TASKS|STATE|EXIT|NODE" record (sacct, squeue: exit "" there). */
static void
record (const char *id, const char *job_id, const char *word, const char *exit_text, const char *node,
        ls_task_info *infos, guint n_tasks)
{
  gsize len = strlen (job_id);
  if (strncmp (id, job_id, len) != 0 || id[len] != '_')
    return;
  setter s = { infos, word, node, exit_from_text (exit_text) };
  for_task_ids (id + len + 1, n_tasks, set_one, &s);
}

void
ls_slurm_parse_sacct (const char *text, const char *job_id, ls_task_info *infos, guint n_tasks)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) f = g_strsplit (g_strstrip (*l), "|", -1);
      if (g_strv_length (f) >= 4)
        record (f[0], job_id, f[1], f[2], f[3], infos, n_tasks);
    }
}

void
ls_slurm_parse_squeue (const char *text, const char *job_id, ls_task_info *infos, guint n_tasks)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) f = g_strsplit (g_strstrip (*l), "|", -1);
      if (g_strv_length (f) >= 3)
        record (f[0], job_id, f[1], NULL, f[2], infos, n_tasks);
    }
}

/* The value of " Key=" in a `scontrol -o` line, up to the next space. */
static char *
field (const char *line, const char *key)
{
  g_autofree char *pattern = g_strdup_printf (" %s=", key);
  const char *p = g_str_has_prefix (line, pattern + 1) ? line - 1 : strstr (line, pattern);
  if (!p)
    return NULL;
  p += strlen (pattern);
  return g_strndup (p, strcspn (p, " \n"));
}

void
ls_slurm_parse_scontrol (const char *text, const char *job_id, ls_task_info *infos, guint n_tasks)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_autofree char *array_job = field (*l, "ArrayJobId");
      g_autofree char *tasks = field (*l, "ArrayTaskId");
      g_autofree char *state = field (*l, "JobState");
      g_autofree char *exit_text = field (*l, "ExitCode");
      g_autofree char *node = field (*l, "NodeList");
      if (!array_job || !tasks || !state || strcmp (array_job, job_id) != 0)
        continue;
      setter s = { infos, state, node, ls_slurm_state_from_word (state) >= LS_TASK_DONE ? exit_from_text (exit_text) : -1 };
      for_task_ids (tasks, n_tasks, set_one, &s);
    }
}

char *
ls_slurm_command (const char *const *argv, GError **error)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr (GError) spawn_error = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &spawn_error))
    {
      g_set_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_COMMAND, "%s: %s", argv[0], spawn_error->message);
      return NULL;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_set_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_COMMAND, "%s failed: %s", argv[0],
                   err && *g_strstrip (err) ? err : _("(no message)"));
      return NULL;
    }
  return g_steal_pointer (&out);
}

void
ls_slurm_run_free (ls_slurm_run *run)
{
  if (!run)
    return;
  for (guint t = 0; run->infos && t < run->tasks; t++)
    {
      g_free (run->infos[t].slurm_state);
      g_free (run->infos[t].node);
    }
  g_free (run->infos);
  for (guint j = 0; run->jobs && j < run->jobs->len; j++)
    g_free (g_array_index (run->jobs, job, j).id);
  g_clear_pointer (&run->jobs, g_array_unref);
  g_clear_pointer (&run->labels, g_ptr_array_unref);
  g_free (run->dir);
  g_free (run->sweep_uuid);
  g_free (run);
}

static gboolean
bad_manifest (GError **error, const char *path, const char *what)
{
  g_set_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR, _("%s: not a Loadscope Slurm manifest (%s)"), path, what);
  return FALSE;
}

/* A member that must be a JSON integer within [min, max]. */
static gboolean
int_member (JsonObject *o, const char *where, const char *name, gint64 min, gint64 max, gint64 *out, const char *path,
            GError **error)
{
  JsonNode *n = json_object_get_member (o, name);
  if (!n || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    {
      g_autofree char *what = g_strdup_printf (_("%s\"%s\" missing or not an integer"), where, name);
      return bad_manifest (error, path, what);
    }
  *out = json_node_get_int (n);
  if (*out < min || *out > max)
    {
      g_autofree char *what = g_strdup_printf (_("%s\"%s\": %lld is not between %lld and %lld"), where, name,
                                                 (long long) *out, (long long) min, (long long) max);
      return bad_manifest (error, path, what);
    }
  return TRUE;
}

/* A member that must be a string when present (NULL when absent). */
static gboolean
string_member (JsonObject *o, const char *where, const char *name, const char **out, const char *path, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);
  *out = NULL;
  if (!n)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    {
      g_autofree char *what = g_strdup_printf (_("%s\"%s\" is not a string"), where, name);
      return bad_manifest (error, path, what);
    }
  *out = json_node_get_string (n);
  return TRUE;
}

static JsonArray *
array_member (JsonObject *o, const char *name, const char *path, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);
  if (!n || !JSON_NODE_HOLDS_ARRAY (n))
    {
      g_autofree char *what = g_strdup_printf (_("\"%s\" missing or not an array"), name);
      return bad_manifest (error, path, what), NULL;
    }
  return json_node_get_array (n);
}

/* The manifest text, parsed: read capped from a regular file (a FIFO or a
 * link to /dev/zero is refused), its nesting checked before json-glib,
 * which recurses once per level and has no limit of its own. */
static JsonParser *
manifest_parse (const char *run_dir, const char *path, GError **error)
{
  g_autoptr (GError) why = NULL;
  gsize len = 0;
  g_autofree char *text = ls_slurm_folder_read (path, LS_SLURM_MANIFEST_MAX_BYTES, FALSE, &len, NULL, &why);
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  if (text && !ls_json_text_check (text, len, &why))
    g_prefix_error (&why, "%s: ", path);
  else if (text && !json_parser_load_from_data (parser, text, (gssize) len, &why))
    g_prefix_error (&why, "%s: ", path);
  if (why)
    {
      g_set_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR, _("%s: not a run folder of `loadscope sweep --slurm` (%s)"),
                   run_dir, why->message);
      return NULL;
    }
  return g_steal_pointer (&parser);
}

/* One entry of "jobs": a numeric id (a Slurm job id: sacct's argument),
 * the task numbers it holds. */
static gboolean
job_load (JsonNode *n, guint i, guint tasks, job *out, const char *path, GError **error)
{
  g_autofree char *where = g_strdup_printf ("jobs[%u].", i);
  JsonObject *j = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
  const char *id = NULL;
  gint64 first = 0, last = 0;
  if (!j)
    {
      g_autofree char *what = g_strdup_printf (_("jobs[%u] is not an object"), i);
      return bad_manifest (error, path, what);
    }
  if (!string_member (j, where, "id", &id, path, error))
    return FALSE;
  if (!id || !*id || strlen (id) > 20 || strspn (id, "0123456789") != strlen (id))
    {
      g_autofree char *what = g_strdup_printf (_("%s\"id\" is not a Slurm job id (digits)"), where);
      return bad_manifest (error, path, what);
    }
  if (!int_member (j, where, "first", 0, (gint64) tasks - 1, &first, path, error)
      || !int_member (j, where, "last", first, (gint64) tasks - 1, &last, path, error))
    return FALSE;
  *out = (job){ g_strdup (id), (guint) first, (guint) last };
  return TRUE;
}

ls_slurm_run *
ls_slurm_run_load (const char *run_dir, GError **error)
{
  g_autofree char *path = g_build_filename (run_dir, "slurm.json", NULL);
  g_autoptr (JsonParser) parser = manifest_parse (run_dir, path, error);
  if (!parser)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  JsonObject *o = root && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  const char *format = NULL, *uuid = NULL;
  if (!o || !string_member (o, "", "format", &format, path, NULL) || g_strcmp0 (format, "loadscope-slurm") != 0)
    return bad_manifest (error, path, "no format \"loadscope-slurm\""), NULL;
  gint64 configurations = 0, tasks = 0;
  if (!int_member (o, "", "configurations", 1, LS_SWEEP_MAX_CONFIGURATIONS, &configurations, path, error)
      || !int_member (o, "", "tasks", configurations, LS_SLURM_MAX_TASKS, &tasks, path, error))
    return NULL;
  /* T = C x repeat x nodes. */
  if (tasks % configurations != 0)
    return bad_manifest (error, path, "\"tasks\" is not a multiple of \"configurations\""), NULL;
  /* The uuid finds the sweep to end in the home store: a whole uuid, never
   * an id or a prefix that could name another sweep there. */
  if (!string_member (o, "", "sweep_uuid", &uuid, path, error))
    return NULL;
  if (uuid && !g_uuid_string_is_valid (uuid))
    return bad_manifest (error, path, "\"sweep_uuid\" is not a uuid"), NULL;
  JsonArray *labels = array_member (o, "labels", path, error);
  JsonArray *jobs = labels ? array_member (o, "jobs", path, error) : NULL;
  if (!jobs)
    return NULL;
  if (json_array_get_length (labels) != (guint) configurations)
    {
      g_autofree char *what = g_strdup_printf (_("%u labels for %lld configurations"),
                                               json_array_get_length (labels), (long long) configurations);
      return bad_manifest (error, path, what), NULL;
    }
  if (json_array_get_length (jobs) > (guint) tasks)
    return bad_manifest (error, path, "more jobs than tasks"), NULL;

  g_autoptr (ls_slurm_run) run = g_new0 (ls_slurm_run, 1);
  run->dir = g_strdup (run_dir);
  run->sweep_uuid = g_strdup (uuid);
  run->configurations = (guint) configurations;
  run->tasks = (guint) tasks;
  run->labels = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < json_array_get_length (labels); i++)
    {
      JsonNode *n = json_array_get_element (labels, i);
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
        {
          g_autofree char *what = g_strdup_printf (_("labels[%u] is not a string"), i);
          return bad_manifest (error, path, what), NULL;
        }
      g_ptr_array_add (run->labels, g_strdup (json_node_get_string (n)));
    }
  run->jobs = g_array_new (FALSE, TRUE, sizeof (job));
  for (guint i = 0; i < json_array_get_length (jobs); i++)
    {
      job one;
      if (!job_load (json_array_get_element (jobs, i), i, run->tasks, &one, path, error))
        return NULL;
      g_array_append_val (run->jobs, one);
    }
  run->infos = g_new0 (ls_task_info, run->tasks);
  for (guint t = 0; t < run->tasks; t++)
    run->infos[t].exit_code = -1;
  return g_steal_pointer (&run);
}

guint
ls_slurm_run_n_tasks (const ls_slurm_run *run)
{
  return run->tasks;
}

const char *
ls_slurm_run_dir (const ls_slurm_run *run)
{
  return run->dir;
}

const char *
ls_slurm_run_sweep_uuid (const ls_slurm_run *run)
{
  return run->sweep_uuid;
}

const ls_task_info *
ls_slurm_run_task (const ls_slurm_run *run, guint t)
{
  return &run->infos[t];
}

const char *
ls_slurm_run_label (const ls_slurm_run *run, guint t)
{
  return run->labels->pdata[t % run->configurations];
}

char *
ls_slurm_run_job_ids (const ls_slurm_run *run)
{
  GString *s = g_string_new (NULL);
  for (guint j = 0; j < run->jobs->len; j++)
    g_string_append_printf (s, "%s%s", j ? " " : "", g_array_index (run->jobs, job, j).id);
  return g_string_free (s, FALSE);
}

char *
ls_slurm_run_jobs_text (const ls_slurm_run *run)
{
  GString *s = g_string_new (NULL);
  for (guint j = 0; j < run->jobs->len; j++)
    {
      const job *one = &g_array_index (run->jobs, job, j);
      g_string_append_printf (s, "%s%s:%u-%u", j ? " " : "", one->id, one->first, one->last);
    }
  return g_string_free (s, FALSE);
}

char *
ls_slurm_run_labels_text (const ls_slurm_run *run)
{
  GString *s = g_string_new (NULL);
  for (guint c = 0; c < run->labels->len; c++)
    g_string_append_printf (s, "%s%s", c ? "\n" : "", (const char *) run->labels->pdata[c]);
  return g_string_free (s, FALSE);
}

guint
ls_slurm_run_n_configurations (const ls_slurm_run *run)
{
  return run->configurations;
}

/* states.tsv: "task<TAB>slurm state<TAB>node<TAB>exit" per line; a cache
 * of this program's own, read as capped as the rest of the folder. */
static void
states_load (ls_slurm_run *run)
{
  g_autofree char *path = g_build_filename (run->dir, "states.tsv", NULL);
  g_autofree char *text = ls_slurm_folder_read (path, LS_SLURM_MANIFEST_MAX_BYTES, FALSE, NULL, NULL, NULL);
  if (!text)
    return;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) f = g_strsplit (*l, "\t", 4);
      int code = -1;
      if (g_strv_length (f) == 4 && (guint64) g_ascii_strtoull (f[0], NULL, 10) < run->tasks && *f[1]
          && (!*f[3] || strcmp (f[3], "-1") == 0 || ls_slurm_exit_status_parse (f[3], &code)))
        info_set (&run->infos[g_ascii_strtoull (f[0], NULL, 10)], f[1], f[2], code);
    }
}

gboolean
ls_slurm_exit_status_parse (const char *text, int *code)
{
  /* What the script writes: `echo $?`, 0 to 255 and a line end. */
  gsize n = strspn (text, "0123456789");
  if (n == 0 || n > 3 || strspn (text + n, " \t\r\n") != strlen (text + n))
    return FALSE;
  int v = atoi (text);
  if (v > 255)
    return FALSE;
  *code = v;
  return TRUE;
}

static void
states_save (const ls_slurm_run *run)
{
  g_autofree char *path = g_build_filename (run->dir, "states.tsv", NULL);
  GString *s = g_string_new (NULL);
  for (guint t = 0; t < run->tasks; t++)
    if (run->infos[t].slurm_state && ls_task_state_final (run->infos[t].state)
        && ls_slurm_state_from_word (run->infos[t].slurm_state) == run->infos[t].state)
      g_string_append_printf (s, "%u\t%s\t%s\t%d\n", t, run->infos[t].slurm_state,
                              run->infos[t].node ? run->infos[t].node : "", run->infos[t].exit_code);
  g_file_set_contents (path, s->str, (gssize) s->len, NULL); /* a cache: losing it costs only words */
  g_string_free (s, TRUE);
}

static gboolean
job_has_task (const job *j, guint t)
{
  return t >= j->first && t <= j->last;
}

/* Job ids per sacct call: one call for many jobs (a manifest may hold
 * thousands; a call each took 20 s for 500), the command line kept short. */
#define SACCT_JOBS_PER_CALL 256

/* The job id a line of sacct's output is about ("123_4|..." -> "123"). */
static char *
line_job (const char *line)
{
  gsize n = strcspn (line, "_.|[ \t");
  return n ? g_strndup (line, n) : NULL;
}

static void
free_text (gpointer s)
{
  g_string_free (s, TRUE);
}

/* sacct for jobs [from, to) in one call, its lines handed to each job's
 * parser (grouped by job id first: never each job over all the lines).
 * FALSE when sacct said nothing (accounting off, or no sacct). */
static gboolean
sacct_jobs (ls_slurm_run *run, guint from, guint to)
{
  g_autoptr (GString) ids = g_string_new (NULL);
  for (guint j = from; j < to; j++)
    g_string_append_printf (ids, "%s%s", j > from ? "," : "", g_array_index (run->jobs, job, j).id);
  const char *argv[] = { "sacct", "-n", "-P", "-X", "-j", ids->str, "-o", "JobID,State,ExitCode,NodeList", NULL };
  g_autofree char *text = ls_slurm_command (argv, NULL);
  if (!text || !*text)
    return FALSE;
  g_autoptr (GHashTable) by_job = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, free_text);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_autofree char *id = line_job (*l);
      if (!id)
        continue;
      GString *mine = g_hash_table_lookup (by_job, id);
      if (!mine)
        g_hash_table_insert (by_job, g_strdup (id), mine = g_string_new (NULL));
      g_string_append (mine, *l);
      g_string_append_c (mine, '\n');
    }
  for (guint j = from; j < to; j++)
    {
      const job *one = &g_array_index (run->jobs, job, j);
      const GString *mine = g_hash_table_lookup (by_job, one->id);
      if (mine)
        ls_slurm_parse_sacct (mine->str, one->id, run->infos, run->tasks);
    }
  return TRUE;
}

void
ls_slurm_run_refresh (ls_slurm_run *run)
{
  static gboolean no_sacct = FALSE; /* accounting off: do not ask again */
  states_load (run);
  for (guint j = 0; !no_sacct && j < run->jobs->len; j += SACCT_JOBS_PER_CALL)
    if (!sacct_jobs (run, j, MIN (j + SACCT_JOBS_PER_CALL, run->jobs->len)))
      no_sacct = TRUE;
  for (guint j = 0; no_sacct && j < run->jobs->len; j++)
    {
      const job *one = &g_array_index (run->jobs, job, j);
      /* Without accounting: scontrol, one job at a time (it takes one). */
      const char *argv[] = { "scontrol", "-o", "show", "job", one->id, NULL };
      g_autofree char *text = ls_slurm_command (argv, NULL);
      if (text)
        ls_slurm_parse_scontrol (text, one->id, run->infos, run->tasks);
      else
        {
          /* Forgotten by scontrol (or not allowed): what is still queued. */
          const char *q[] = { "squeue", "-h", "-r", "-j", one->id, "-o", "%i|%T|%N", NULL };
          g_autofree char *queued = ls_slurm_command (q, NULL);
          if (queued)
            ls_slurm_parse_squeue (queued, one->id, run->infos, run->tasks);
        }
    }

  /* What the tasks left: their exit status settles what Slurm no longer
   * knows (and gives the code where Slurm said only COMPLETED/FAILED). */
  for (guint t = 0; t < run->tasks; t++)
    {
      ls_task_info *info = &run->infos[t];
      g_autofree char *name = g_strdup_printf ("task-%u.exit", t);
      g_autofree char *path = g_build_filename (run->dir, "tasks", name, NULL);
      g_autoptr (GError) why = NULL;
      gboolean missing = FALSE;
      int code = -1;
      g_autofree char *text = ls_slurm_folder_read (path, LS_SLURM_EXIT_MAX_BYTES, FALSE, NULL, &missing, &why);
      if (text && !*g_strstrip (text))
        missing = TRUE; /* being written, or never: as if not there */
      else if (text && !ls_slurm_exit_status_parse (text, &code))
        why = g_error_new (LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR, "%s: not an exit status (a number 0 to 255)", path);
      if (why && !missing)
        {
          /* A file there, but no status from it: say so, decide nothing by it. */
          if (!ls_task_state_final (info->state))
            {
              g_free (info->slurm_state);
              /* untranslated: kept in the run folder's task states (slurm.json), read back */
              info->slurm_state = g_strdup_printf ("no exit status: %s", why->message);
            }
        }
      else if (code >= 0)
        {
          info->exit_code = code;
          if (!ls_task_state_final (info->state) || info->state == LS_TASK_DONE || info->state == LS_TASK_FAILED)
            {
              gboolean known = info->slurm_state && ls_task_state_final (info->state);
              if (!known)
                {
                  g_free (info->slurm_state);
                  /* untranslated: kept in the run folder's task states (slurm.json), read back */
                  info->slurm_state = g_strdup_printf ("exited with status %d", code);
                }
              info->state = code == 0 ? LS_TASK_DONE : LS_TASK_FAILED;
            }
        }
      else if (info->state == LS_TASK_UNKNOWN)
        {
          gboolean submitted = FALSE;
          for (guint j = 0; j < run->jobs->len; j++)
            submitted |= job_has_task (&g_array_index (run->jobs, job, j), t);
          g_free (info->slurm_state);
          /* untranslated: kept in the run folder's task states (slurm.json), read back */
          info->slurm_state = g_strdup (submitted ? "not known to Slurm any more, and it left no exit status"
                                                  /* untranslated: as above */
                                                  : "never started (not submitted; no exit status)");
        }
    }
  states_save (run);
}

char *
ls_slurm_run_progress_text (const ls_slurm_run *run, guint *n_active)
{
  guint n[LS_TASK_TIMEOUT + 1] = { 0 };
  for (guint t = 0; t < run->tasks; t++)
    n[run->infos[t].state]++;
  guint bad = n[LS_TASK_FAILED] + n[LS_TASK_CANCELLED] + n[LS_TASK_TIMEOUT] + n[LS_TASK_UNKNOWN];
  if (n_active)
    *n_active = n[LS_TASK_PENDING] + n[LS_TASK_RUNNING];
  g_autofree char *ids = ls_slurm_run_job_ids (run);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s %s: %u task%s: %u pending, %u running, %u done, %u failed",
                          run->jobs->len == 1 ? "job" : "jobs", *ids ? ids : "(none)", run->tasks,
                          run->tasks == 1 ? "" : "s", n[LS_TASK_PENDING], n[LS_TASK_RUNNING], n[LS_TASK_DONE], bad);
  if (n[LS_TASK_CANCELLED] || n[LS_TASK_TIMEOUT])
    /* untranslated: continues the progress line, whose other parts (job/jobs, task/s) are English words */
    g_string_append_printf (s, " (%u cancelled, %u timed out)", n[LS_TASK_CANCELLED], n[LS_TASK_TIMEOUT]);
  return g_string_free (s, FALSE);
}

gboolean
ls_slurm_run_cancel (ls_slurm_run *run, GError **error)
{
  for (guint j = 0; j < run->jobs->len; j++)
    {
      const char *argv[] = { "scancel", g_array_index (run->jobs, job, j).id, NULL };
      g_autofree char *out = ls_slurm_command (argv, error);
      if (!out)
        return FALSE;
    }
  return TRUE;
}
