/* A run folder's manifest (slurm.json) and its tasks' states: what Slurm
 * says (sacct where accounting is on, else scontrol, which remembers
 * finished jobs for MinJobAge, else squeue), what the tasks left in the
 * folder (tasks/task-N.exit), and what was seen before (states.tsv: Slurm
 * forgets). */
#include "app/slurm/slurm.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

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
                   err && *g_strstrip (err) ? err : "(no message)");
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
  g_set_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR, "%s: not a Loadscope Slurm manifest (%s)", path, what);
  return FALSE;
}

ls_slurm_run *
ls_slurm_run_load (const char *run_dir, GError **error)
{
  g_autofree char *path = g_build_filename (run_dir, "slurm.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) why = NULL;
  if (!json_parser_load_from_file (parser, path, &why))
    {
      g_set_error (error, LS_SLURM_ERROR, LS_SLURM_ERROR_RUN_DIR, "%s: not a run folder of `loadscope sweep --slurm` (%s)",
                   run_dir, why->message);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  if (!o || g_strcmp0 (json_object_get_string_member_with_default (o, "format", ""), "loadscope-slurm") != 0)
    return bad_manifest (error, path, "no format \"loadscope-slurm\""), NULL;
  gint64 configurations = json_object_get_int_member_with_default (o, "configurations", 0);
  gint64 tasks = json_object_get_int_member_with_default (o, "tasks", 0);
  JsonArray *labels = json_object_has_member (o, "labels") ? json_object_get_array_member (o, "labels") : NULL;
  JsonArray *jobs = json_object_has_member (o, "jobs") ? json_object_get_array_member (o, "jobs") : NULL;
  if (configurations < 1 || tasks < configurations || tasks > 1000000 || !labels || !jobs
      || json_array_get_length (labels) != (guint) configurations)
    return bad_manifest (error, path, "configurations, tasks, labels or jobs missing or inconsistent"), NULL;

  g_autoptr (ls_slurm_run) run = g_new0 (ls_slurm_run, 1);
  run->dir = g_strdup (run_dir);
  run->sweep_uuid = g_strdup (json_object_get_string_member_with_default (o, "sweep_uuid", NULL));
  run->configurations = (guint) configurations;
  run->tasks = (guint) tasks;
  run->labels = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < json_array_get_length (labels); i++)
    g_ptr_array_add (run->labels, g_strdup (json_array_get_string_element (labels, i)));
  run->jobs = g_array_new (FALSE, TRUE, sizeof (job));
  for (guint i = 0; i < json_array_get_length (jobs); i++)
    {
      JsonObject *j = json_array_get_object_element (jobs, i);
      const char *id = j ? json_object_get_string_member_with_default (j, "id", NULL) : NULL;
      if (!id || !*id || strspn (id, "0123456789") != strlen (id))
        return bad_manifest (error, path, "a job without a numeric id"), NULL;
      job one = { g_strdup (id), (guint) json_object_get_int_member_with_default (j, "first", 0),
                  (guint) json_object_get_int_member_with_default (j, "last", 0) };
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

/* states.tsv: "task<TAB>slurm state<TAB>node<TAB>exit" per line. */
static void
states_load (ls_slurm_run *run)
{
  g_autofree char *path = g_build_filename (run->dir, "states.tsv", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) f = g_strsplit (*l, "\t", 4);
      if (g_strv_length (f) == 4 && (guint64) g_ascii_strtoull (f[0], NULL, 10) < run->tasks && *f[1])
        info_set (&run->infos[g_ascii_strtoull (f[0], NULL, 10)], f[1], f[2], atoi (f[3]));
    }
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

void
ls_slurm_run_refresh (ls_slurm_run *run)
{
  static gboolean no_sacct = FALSE; /* accounting off: do not ask again */
  states_load (run);
  for (guint j = 0; j < run->jobs->len; j++)
    {
      const job *one = &g_array_index (run->jobs, job, j);
      g_autofree char *text = NULL;
      if (!no_sacct)
        {
          const char *argv[] = { "sacct", "-n", "-P", "-X", "-j", one->id, "-o", "JobID,State,ExitCode,NodeList", NULL };
          text = ls_slurm_command (argv, NULL);
          if (text && *text)
            ls_slurm_parse_sacct (text, one->id, run->infos, run->tasks);
          else
            no_sacct = TRUE;
        }
      if (no_sacct)
        {
          const char *argv[] = { "scontrol", "-o", "show", "job", one->id, NULL };
          g_free (text);
          text = ls_slurm_command (argv, NULL);
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
    }

  /* What the tasks left: their exit status settles what Slurm no longer
   * knows (and gives the code where Slurm said only COMPLETED/FAILED). */
  for (guint t = 0; t < run->tasks; t++)
    {
      ls_task_info *info = &run->infos[t];
      g_autofree char *name = g_strdup_printf ("task-%u.exit", t);
      g_autofree char *path = g_build_filename (run->dir, "tasks", name, NULL);
      g_autofree char *text = NULL;
      if (g_file_get_contents (path, &text, NULL, NULL) && *g_strstrip (text))
        {
          int code = atoi (text);
          info->exit_code = code;
          if (!ls_task_state_final (info->state) || info->state == LS_TASK_DONE || info->state == LS_TASK_FAILED)
            {
              gboolean known = info->slurm_state && ls_task_state_final (info->state);
              if (!known)
                {
                  g_free (info->slurm_state);
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
          info->slurm_state = g_strdup (submitted ? "not known to Slurm any more, and it left no exit status"
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
