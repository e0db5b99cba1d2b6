#include "ui/ls-history-page-private.h"

#include "app/core/i18n.h"
#include "app/core/summary-keys.h"
#include "app/report/store-jobs.h"
#include "app/store/run-list.h"
#include "app/store/store-query.h"
#include "app/target/target-kind.h"
#include "ui/ls-compare-window.h"
#include "ui/ls-timeline-window.h"
#include "ui/ls-window.h"

/* ------------------------------------------------------------ the page */

struct _LsHistoryPage {
  GtkBox parent_instance;
  char *db;
  LsRunList *runs;            /* every run of the store, read in a thread */
  GCancellable *cancellable;  /* of the loads; cancelled when the page goes */
  GtkCustomFilter *filter;
  GtkMultiSelection *selection;
  GtkFilterListModel *filtered; /* incremental: a slice a frame (owned by the chain) */
  GtkSortListModel *sorted;
  GtkSearchEntry *search;
  GtkColumnView *view;
  GtkLabel *count;
  GtkLabel *folded;           /* "all 14 runs on vm, Debian 12, fork" */
  GtkWidget *nothing;         /* said when the filter matches no run */
  GtkLabel *nothing_label;
  GPtrArray *view_columns;    /* GtkColumnViewColumn, one per columns[] */
  guint fold_idle;            /* the fold, once a burst of changes is over */
  guint jobs;                 /* store work in a thread (store-jobs.h) */
  char *last_message;         /* what the page last said of one */
  GtkWindow *compare_window;  /* the last Compare opened (weak) */
};

G_DEFINE_FINAL_TYPE (LsHistoryPage, ls_history_page, GTK_TYPE_BOX)

typedef struct {
  const char *title;
  const char *member;
  gboolean numeric;
  double scale;
  int decimals;       /* for numbers */
  const char *suffix; /* after numbers */
  int width;          /* pixels; the columns fill 1280 together */
} column_spec;

/* The figures first (readable at 1024 px), then the knobs, then where
 * and when; a column with one value for every run shown folds into the
 * line above the table (fold_columns). */
static const column_spec columns[] = {
  { N_("Run"), "id", TRUE, 1, 0, "", 46 },
  { N_("Status"), "status", FALSE, 0, 0, NULL, 120 },
  { N_("img/s"), LS_KEY_THROUGHPUT, TRUE, 1, 0, "", 55 },
  { N_("Wait p50"), "wait_p50_ms", TRUE, 1, 1, " ms", 76 },
  { N_("Wait p95"), "wait_p95_ms", TRUE, 1, 1, " ms", 76 },
  { N_("GPU"), LS_KEY_GPU_UTIL_EXACT, TRUE, 100, 0, " %", 50 },
  { N_("Memory"), "memory_peak_bytes", TRUE, 1e-6, 0, " MB", 70 },
  { N_("Sweep"), "sweep_id", TRUE, 1, 0, "", 54 },
  { N_("Workers"), "workers", TRUE, 1, 0, "", 62 },
  /* a script's (the loader's runs show "–" and the columns fold away) */
  { N_("Ranks"), "ranks", TRUE, 1, 0, "", 52 },
  { N_("Threads"), "threads", TRUE, 1, 0, "", 62 },
  { N_("Batch"), "batch_size", TRUE, 1, 0, "", 50 },
  { N_("Pin"), "pin", FALSE, 0, 0, NULL, 56 },
  { N_("Start"), "start", FALSE, 0, 0, NULL, 48 },
  { N_("Prefetch"), "prefetch_shown", TRUE, 1, 0, "", 62 },
  { N_("Persistent"), "persistent_shown", FALSE, 0, 0, NULL, 74 },
  { N_("Model"), "model_ms", TRUE, 1, 0, " ms", 62 },
  { N_("Consumer"), "sink_shown", FALSE, 0, 0, NULL, 74 },
  { N_("Date (UTC)"), "started_at", FALSE, 0, 0, NULL, 136 },
  { N_("Machine"), "machine_shown", FALSE, 0, 0, NULL, 70 },
  { N_("OS"), "os", FALSE, 0, 0, NULL, 72 },
  { N_("Dataset"), "dataset", FALSE, 0, 0, NULL, 80 },
};

/* Columns that never fold: each run's own. */
static gboolean
column_folds (const column_spec *c)
{
  return !g_str_equal (c->member, "id") && !g_str_equal (c->member, "started_at");
}

static char *
cell_text (JsonObject *run, const column_spec *c)
{
  JsonNode *n = json_object_get_member (run, c->member);
  if (!n || json_node_is_null (n))
    return g_strdup ("–");
  if (c->numeric)
    return g_strdup_printf ("%.*f%s", c->decimals, json_node_get_double (n) * c->scale, c->suffix);
  if (g_str_equal (c->member, "started_at"))
    return ls_store_time_short (json_node_get_string (n));
  if (g_str_equal (c->member, "dataset"))
    return g_path_get_basename (json_node_get_string (n));
  /* a failed run says why where its status is */
  const char *reason = json_object_get_string_member_with_default (run, "error", NULL);
  if (g_str_equal (c->member, "status") && reason && reason[0])
    return g_strdup_printf ("%s: %s", json_node_get_string (n), reason);
  return g_strdup (json_node_get_string (n));
}

static void
setup_cell (GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (label), ((const column_spec *) data)->numeric ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
  LsRunRow *row = gtk_list_item_get_item (item);
  g_autofree char *text = cell_text (ls_run_row_get_run (row), data);
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text);
  gtk_widget_set_tooltip_text (gtk_list_item_get_child (item), text);
}

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer data)
{
  const column_spec *c = data;
  JsonObject *ra = ls_run_row_get_run (LS_RUN_ROW ((gpointer) a)), *rb = ls_run_row_get_run (LS_RUN_ROW ((gpointer) b));
  JsonNode *na = json_object_get_member (ra, c->member), *nb = json_object_get_member (rb, c->member);
  gboolean ea = !na || json_node_is_null (na), eb = !nb || json_node_is_null (nb);
  if (ea || eb)
    return ea == eb ? 0 : ea ? 1 : -1;
  if (c->numeric)
    {
      double x = json_node_get_double (na), y = json_node_get_double (nb);
      return x < y ? -1 : x > y;
    }
  return g_strcmp0 (json_node_get_string (na), json_node_get_string (nb));
}

/* The search: any part of the run's words (ls_run_row_matches), or
 * "machine:NAME [words]": only the runs recorded on the machine (node)
 * called NAME exactly, any case; a sweep spread over Slurm nodes is
 * compared node by node this way. */
static gboolean
matches (gpointer item, gpointer data)
{
  LsHistoryPage *self = data;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search));
  /* "target:pytorch [words]" or "target:loadscope [words]": the runs of
   * one target only (app/target/target-kind.h). */
  if (g_ascii_strncasecmp (text, "target:", 7) == 0)
    {
      const char *name = text + 7, *rest = name + strcspn (name, " ");
      g_autofree char *kind = g_strndup (name, (gsize) (rest - name));
      if (!ls_target_run_is (ls_run_row_get_run (LS_RUN_ROW (item)), kind))
        return FALSE;
      while (*rest == ' ')
        rest++;
      return ls_run_row_matches (LS_RUN_ROW (item), rest);
    }
  if (g_ascii_strncasecmp (text, "machine:", 8) == 0)
    {
      const char *name = text + 8, *rest = name + strcspn (name, " ");
      const char *machine = json_object_get_string_member_with_default (ls_run_row_get_run (LS_RUN_ROW (item)), "machine", "");
      if (strlen (machine) != (size_t) (rest - name) || g_ascii_strncasecmp (machine, name, (gsize) (rest - name)) != 0)
        return FALSE;
      while (*rest == ' ')
        rest++;
      return ls_run_row_matches (LS_RUN_ROW (item), rest);
    }
  return ls_run_row_matches (LS_RUN_ROW (item), text);
}

/* Whether two runs show the same in column c: their values compared as
 * stored, not as formatted (a 100,000-run store is scanned whole, and a
 * string a cell costs seconds there). Stricter than the text: values that
 * print alike may still differ, and then the column stays. */
static gboolean
same_value (JsonObject *a, JsonObject *b, const column_spec *c)
{
  JsonNode *na = json_object_get_member (a, c->member), *nb = json_object_get_member (b, c->member);
  gboolean ea = !na || json_node_is_null (na), eb = !nb || json_node_is_null (nb);
  if (ea || eb)
    return ea == eb;
  if (c->numeric)
    return json_node_get_double (na) == json_node_get_double (nb);
  if (g_strcmp0 (json_node_get_string (na), json_node_get_string (nb)) != 0)
    return FALSE;
  /* A failed run's status cell carries its reason. */
  return !g_str_equal (c->member, "status")
         || g_strcmp0 (json_object_get_string_member_with_default (a, "error", NULL),
                       json_object_get_string_member_with_default (b, "error", NULL))
                == 0;
}

/* One value for every run shown: the column folds into the line above.
 * One pass over the runs shown, each column dropped at its first
 * difference. */
static void
fold_columns (LsHistoryPage *self)
{
  GListModel *model = G_LIST_MODEL (self->selection);
  guint n = g_list_model_get_n_items (model);
  if (!self->view_columns)
    return; /* the page is going */
  gboolean fold[G_N_ELEMENTS (columns)];
  guint left = 0;
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    left += fold[c] = n > 1 && column_folds (&columns[c]);
  g_autoptr (LsRunRow) first = n > 0 ? g_list_model_get_item (model, 0) : NULL;
  JsonObject *first_run = first ? ls_run_row_get_run (first) : NULL;
  for (guint i = 1; i < n && left > 0; i++)
    {
      g_autoptr (LsRunRow) row = g_list_model_get_item (model, i);
      JsonObject *run = ls_run_row_get_run (row);
      for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
        if (fold[c] && !same_value (first_run, run, &columns[c]))
          {
            fold[c] = FALSE;
            left--;
          }
    }
  g_autoptr (GPtrArray) same = g_ptr_array_new_with_free_func (g_free);
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    {
      gtk_column_view_column_set_visible (self->view_columns->pdata[c], !fold[c]);
      g_autofree char *text = fold[c] ? cell_text (first_run, &columns[c]) : NULL;
      if (text && g_strcmp0 (text, "–") != 0)
        g_ptr_array_add (same, g_strdup_printf ("%s %s", _(columns[c].title), text));
    }
  g_autofree char *runs = g_strdup_printf (ngettext ("%u run", "%u runs", n), n);
  g_ptr_array_add (same, NULL);
  g_autofree char *joined = g_strjoinv (", ", (char **) same->pdata);
  g_autofree char *text = same->len > 1 ? g_strdup_printf (_("All %s shown: %s"), runs, joined) : NULL;
  gtk_label_set_text (self->folded, text ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->folded), text != NULL);
}

/* The statuses, machines, pin modes and start methods the store has, for
 * a filter that found none: "status done, failed; machine vm; ...". */
static char *
values_that_exist (LsHistoryPage *self)
{
  const char *members[] = { "status", "machine", "pin", "start" };
  GString *out = g_string_new (NULL);
  GListModel *runs = G_LIST_MODEL (self->runs);
  guint n = g_list_model_get_n_items (runs);
  for (guint m = 0; m < G_N_ELEMENTS (members); m++)
    {
      g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_autoptr (GPtrArray) values = g_ptr_array_new ();
      for (guint i = 0; i < n && values->len < 6; i++)
        {
          g_autoptr (LsRunRow) row = g_list_model_get_item (runs, i);
          const char *v = json_object_get_string_member_with_default (ls_run_row_get_run (row), members[m], NULL);
          if (v && v[0] && !g_hash_table_contains (seen, v))
            {
              char *copy = g_strdup (v);
              g_hash_table_add (seen, copy);
              g_ptr_array_add (values, copy);
            }
        }
      if (values->len == 0)
        continue;
      g_ptr_array_add (values, NULL);
      g_autofree char *joined = g_strjoinv (", ", (char **) values->pdata);
      g_string_append_printf (out, "%s%s %s", out->len ? "; " : "", members[m], joined);
    }
  return g_string_free (out, FALSE);
}

static void
update_count (LsHistoryPage *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->selection));
  guint all = g_list_model_get_n_items (G_LIST_MODEL (self->runs));
  g_autoptr (GtkBitset) picked = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  guint64 selected = gtk_bitset_get_size (picked);
  g_autofree char *runs = g_strdup_printf (ngettext ("%u run", "%u runs", all), all);
  g_autofree char *text = shown == all ? g_strdup (runs) : g_strdup_printf (_("%u of %s"), shown, runs);
  g_autofree char *with = selected > 0 ? g_strdup_printf (_("%llu selected · %s"), (unsigned long long) selected, text)
                                       : g_strdup (text);
  gtk_label_set_text (self->count, with);
}

static gboolean
fold_when_idle (gpointer data)
{
  LsHistoryPage *self = data;
  self->fold_idle = 0;
  /* Not while the table fills a slice a frame: once, when it is full
   * (notify::pending brings it back). */
  if (gtk_filter_list_model_get_pending (self->filtered) == 0 && gtk_sort_list_model_get_pending (self->sorted) == 0)
    fold_columns (self);
  return G_SOURCE_REMOVE;
}

/* What is shown changed (a load, the filter): the count, the folded
 * columns, and what a filter that found nothing says. */
static void
update_shown (LsHistoryPage *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->selection));
  guint all = g_list_model_get_n_items (G_LIST_MODEL (self->runs));
  update_count (self);
  /* A load changes the runs and what is shown one after the other: the
   * fold (a pass over every run shown) waits for both. */
  if (!self->fold_idle)
    self->fold_idle = g_idle_add_full (G_PRIORITY_DEFAULT, fold_when_idle, self, NULL);
  /* A filter that matches nothing says so, and what there is to match. */
  const char *filter = gtk_editable_get_text (GTK_EDITABLE (self->search));
  gboolean none = shown == 0 && all > 0 && filter[0] && gtk_filter_list_model_get_pending (self->filtered) == 0;
  gtk_widget_set_visible (self->nothing, none);
  if (none)
    {
      g_autofree char *exist = values_that_exist (self);
      g_autofree char *why = g_strdup_printf (_("No run matches “%s”: the filter looks in each run's machine, OS, "
                                                "dataset, date, consumer, status, pin and start. Values recorded: %s."),
                                              filter, exist);
      gtk_label_set_text (self->nothing_label, why);
    }
}

static void
on_search_changed (LsHistoryPage *self)
{
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void
toast (LsHistoryPage *self, const char *message)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  if (LS_IS_WINDOW (root))
    ls_window_toast (LS_WINDOW (root), message);
}

void
ls_history_page_set_db (LsHistoryPage *self, const char *db)
{
  g_free (self->db);
  self->db = g_strdup (db);
  ls_run_list_set_db (self->runs, db);
  ls_history_page_reload (self);
}

static void
reloaded (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (LsHistoryPage) self = data;
  g_autoptr (GError) error = NULL;
  if (!ls_run_list_load_finish (LS_RUN_LIST (source), result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    toast (self, error->message);
}

void
ls_history_page_reload (LsHistoryPage *self)
{
  if (self->db)
    ls_run_list_load_async (self->runs, self->cancellable, reloaded, g_object_ref (self));
}

gboolean
ls_history_page_is_loading (LsHistoryPage *self)
{
  return ls_run_list_is_loading (self->runs) || self->fold_idle != 0
         || gtk_filter_list_model_get_pending (self->filtered) > 0 || gtk_sort_list_model_get_pending (self->sorted) > 0;
}

guint
ls_history_page_count_runs (LsHistoryPage *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->runs));
}

/* The run ids selected, or every shown run when none is. */
static GArray *
chosen_ids (LsHistoryPage *self, gboolean all_if_none)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  GListModel *model = G_LIST_MODEL (self->selection);
  guint n = g_list_model_get_n_items (model);
  for (int pass = 0; pass < 2 && ids->len == 0; pass++)
    for (guint i = 0; i < n; i++)
      if ((pass == 1 && all_if_none) || gtk_selection_model_is_selected (GTK_SELECTION_MODEL (self->selection), i))
        {
          g_autoptr (LsRunRow) row = g_list_model_get_item (model, i);
          gint64 id = ls_run_row_get_id (row);
          g_array_append_val (ids, id);
        }
  return ids;
}

/* ------------------------------------------------------------ store work */

/* Compare, delete, export, import and report run in a thread
 * (app/report/store-jobs.h); the page shows the result when it comes and
 * stays alive until then. */
typedef struct {
  LsHistoryPage *self;
  char *done;    /* what to say when it worked ("Exported to ..."), or NULL */
  char *written; /* the file it wrote, offered to open, or NULL */
} job;

static job *
job_begin (LsHistoryPage *self, char *done)
{
  job *j = g_new0 (job, 1);
  j->self = g_object_ref (self);
  j->done = done;
  self->jobs++;
  return j;
}

/* Says message (NULL: nothing) and frees j. */
static void
job_end (job *j, const char *message)
{
  LsHistoryPage *self = j->self;
  self->jobs--;
  if (message)
    {
      g_free (self->last_message);
      self->last_message = g_strdup (message);
      GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
      if (j->written && message == j->done && LS_IS_WINDOW (root))
        ls_window_toast_file (LS_WINDOW (root), message, j->written);
      else
        toast (self, message);
    }
  g_free (j->done);
  g_free (j->written);
  g_object_unref (self);
  g_free (j);
}

gboolean
ls_history_page_is_busy (LsHistoryPage *self)
{
  return self->jobs > 0;
}

const char *
ls_history_page_last_message (LsHistoryPage *self)
{
  return self->last_message;
}

/* A job whose result is only whether it worked. */
static void
on_job_done (GObject *source, GAsyncResult *result, gpointer data)
{
  job *j = data;
  g_autoptr (GError) error = NULL;
  gboolean ok = ls_store_job_finish (result, &error);
  job_end (j, ok ? j->done : error->message);
}

/* ------------------------------------------------------------ compare */

static void
on_compare_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  job *j = data;
  LsHistoryPage *self = j->self;
  g_autoptr (GError) error = NULL;
  ls_compare_table *table = ls_store_job_compare_finish (result, &error);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  if (table && GTK_IS_WINDOW (root))
    {
      LsCompareWindow *win = ls_compare_window_new (GTK_WINDOW (root), table);
      g_set_weak_pointer (&self->compare_window, GTK_WINDOW (win));
      gtk_window_present (GTK_WINDOW (win));
    }
  else if (table)
    ls_compare_table_free (table); /* the page left its window meanwhile */
  job_end (j, table ? NULL : error->message);
}

/* The runs selected (or, all_if_none, every shown run) side by side. */
static void
compare (LsHistoryPage *self, gboolean all_if_none)
{
  g_autoptr (GArray) ids = chosen_ids (self, all_if_none);
  if (ids->len < 2)
    {
      toast (self, _("Select two runs or more to compare them (Ctrl+click)."));
      return;
    }
  ls_store_job_compare (self->db, ids, NULL, on_compare_loaded, job_begin (self, NULL));
}

void
ls_history_page_compare_shown (LsHistoryPage *self)
{
  compare (self, TRUE);
}

GtkWindow *
ls_history_page_compare_window (LsHistoryPage *self)
{
  return self->compare_window;
}

/* ------------------------------------------------------------ open */

enum { SIGNAL_OPEN_SWEEP, N_SIGNALS };
static guint signals[N_SIGNALS];

/* The sweep of the run at position in the table, in Results. */
static void
open_position (LsHistoryPage *self, guint position)
{
  g_autoptr (LsRunRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
  if (!row)
    return;
  gint64 sweep = ls_run_row_get_sweep_id (row);
  if (sweep <= 0)
    {
      g_autofree char *msg = g_strdup_printf (_("Run %lld was recorded on its own, not in a sweep: "
                                                "Results shows sweeps; Compare shows a run beside others."),
                                              (long long) ls_run_row_get_id (row));
      toast (self, msg);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_OPEN_SWEEP], 0, sweep);
}

static void
on_activate (GtkColumnView *view, guint position, LsHistoryPage *self)
{
  open_position (self, position);
}

static void
open_action (GtkWidget *widget, const char *name, GVariant *parameter)
{
  LsHistoryPage *self = LS_HISTORY_PAGE (widget);
  g_autoptr (GtkBitset) picked = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  if (gtk_bitset_is_empty (picked))
    {
      toast (self, _("Select a run first: its sweep opens in Results."));
      return;
    }
  open_position (self, gtk_bitset_get_minimum (picked));
}

void
ls_history_page_open_row (LsHistoryPage *self, guint position)
{
  open_position (self, position);
}

gint64
ls_history_page_row_sweep (LsHistoryPage *self, guint position)
{
  g_autoptr (LsRunRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
  return row ? ls_run_row_get_sweep_id (row) : -1;
}

const char *
ls_history_page_folded_text (LsHistoryPage *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->folded)) ? gtk_label_get_text (self->folded) : NULL;
}

gboolean
ls_history_page_column_shown (LsHistoryPage *self, const char *title)
{
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    if (g_str_equal (columns[c].title, title))
      return gtk_column_view_column_get_visible (self->view_columns->pdata[c]);
  return FALSE;
}

/* ------------------------------------------------------------ delete */

static void
on_deleted (GObject *source, GAsyncResult *result, gpointer data)
{
  job *j = data;
  g_autoptr (LsHistoryPage) self = g_object_ref (j->self);
  on_job_done (source, result, data);
  ls_history_page_reload (self);
}

static void
on_delete_response (AdwMessageDialog *dialog, const char *response, LsHistoryPage *self)
{
  if (g_strcmp0 (response, "delete") != 0)
    return;
  g_autoptr (GArray) ids = chosen_ids (self, FALSE);
  ls_store_job_delete (self->db, ids, NULL, on_deleted, job_begin (self, NULL));
}

static void
on_delete (LsHistoryPage *self)
{
  g_autoptr (GArray) ids = chosen_ids (self, FALSE);
  if (ids->len == 0)
    {
      toast (self, _("Select the runs to delete first."));
      return;
    }
  g_autofree char *body = g_strdup_printf (ngettext (
                                                       "%u run and every batch and sample recorded with it will be "
                                                       "removed from the store. This cannot be undone.",
                                                       "%u runs and every batch and sample recorded with them will be "
                                                       "removed from the store. This cannot be undone.",
                                                       ids->len),
                                           ids->len);
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), _("Delete runs?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "delete", _("_Delete"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "delete", ADW_RESPONSE_DESTRUCTIVE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_delete_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------ export, import, report */

void
ls_history_page_export_to (LsHistoryPage *self, const char *path)
{
  g_autoptr (GArray) ids = chosen_ids (self, TRUE);
  job *j = job_begin (self, g_strdup_printf (_("Exported to %s"), path));
  if (!g_str_has_suffix (path, ".sqlite")) /* a bundle is for Import, not for a viewer */
    j->written = g_strdup (path);
  ls_store_job_export (self->db, ids, path, adw_style_manager_get_dark (adw_style_manager_get_default ()), NULL,
                       on_job_done, j);
}

static void
on_imported (GObject *source, GAsyncResult *result, gpointer data)
{
  job *j = data;
  g_autoptr (LsHistoryPage) self = g_object_ref (j->self);
  g_autoptr (GError) error = NULL;
  ls_import_counts counts = { 0 };
  if (!ls_store_job_import_finish (result, &counts, &error))
    {
      job_end (j, error->message);
      return;
    }
  g_autofree char *imported = g_strdup_printf (ngettext ("Imported %u run", "Imported %u runs",
                                                           counts.runs_imported),
                                               counts.runs_imported);
  g_autofree char *msg = g_strdup_printf (_("%s (%u already present) from %s"), imported, counts.runs_present, j->done);
  job_end (j, msg);
  ls_history_page_reload (self);
}

void
ls_history_page_import_from (LsHistoryPage *self, const char *path)
{
  ls_store_job_import (self->db, path, NULL, on_imported, job_begin (self, g_strdup (path)));
}

static void
on_export_response (GtkNativeDialog *dialog, int response, LsHistoryPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      ls_history_page_export_to (self, path);
    }
  g_object_unref (dialog);
}

void
ls_history_page_export (LsHistoryPage *self)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
      _("Export the selected runs (or all shown): .csv, .json, .sqlite bundle, or the sweep's charts as .png, .svg, "
        ".pdf"),
      GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "loadscope-runs.sqlite");
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
ls_history_page_report_to (LsHistoryPage *self, const char *path)
{
  g_autoptr (GArray) ids = chosen_ids (self, TRUE);
  if (ids->len == 0)
    {
      g_autofree char *msg = g_strdup_printf (_("%s: no runs shown to report on"), path);
      job_end (job_begin (self, NULL), msg);
      return;
    }
  job *j = job_begin (self, g_strdup_printf (_("Report written to %s"), path));
  j->written = g_strdup (path);
  ls_store_job_report (self->db, ids, path, NULL, on_job_done, j);
}

static void
on_report_response (GtkNativeDialog *dialog, int response, LsHistoryPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      ls_history_page_report_to (self, path);
    }
  g_object_unref (dialog);
}

static void
report_action (GtkWidget *widget, const char *name, GVariant *parameter)
{
  LsHistoryPage *self = LS_HISTORY_PAGE (widget);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
      _("Export a report of the selected runs (or all shown): .html, or .md with its charts as PNG beside it"),
      GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "loadscope-report.html");
  g_signal_connect (dialog, "response", G_CALLBACK (on_report_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_import_response (GtkNativeDialog *dialog, int response, LsHistoryPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      ls_history_page_import_from (self, path);
    }
  g_object_unref (dialog);
}

void
ls_history_page_import (LsHistoryPage *self)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
      _("Import runs from another machine (.sqlite bundle or .json export)"),
      GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Import"), _("_Cancel"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_import_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ------------------------------------------------------------ life */

static void
compare_action (GtkWidget *widget, const char *name, GVariant *parameter)
{
  compare (LS_HISTORY_PAGE (widget), FALSE);
}

/* The selected run's timeline (ls-timeline-window.h), read in its thread. */
static void
timeline_action (GtkWidget *widget, const char *name, GVariant *parameter)
{
  LsHistoryPage *self = LS_HISTORY_PAGE (widget);
  g_autoptr (GArray) ids = chosen_ids (self, FALSE);
  GtkRoot *root = gtk_widget_get_root (widget);
  if (ids->len != 1)
    toast (self, _("Select one run to see its timeline."));
  else if (GTK_IS_WINDOW (root))
    gtk_window_present (GTK_WINDOW (ls_timeline_window_new (GTK_WINDOW (root), self->db, g_array_index (ids, gint64, 0))));
}

static void
delete_action (GtkWidget *widget, const char *name, GVariant *parameter)
{
  on_delete (LS_HISTORY_PAGE (widget));
}

static void
reload_action (GtkWidget *widget, const char *name, GVariant *parameter)
{
  ls_history_page_reload (LS_HISTORY_PAGE (widget));
}

static void
ls_history_page_dispose (GObject *object)
{
  LsHistoryPage *self = LS_HISTORY_PAGE (object);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->fold_idle, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), LS_TYPE_HISTORY_PAGE);
  g_clear_pointer (&self->db, g_free);
  g_clear_pointer (&self->last_message, g_free);
  g_clear_weak_pointer (&self->compare_window);
  g_clear_object (&self->runs);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->view_columns, g_ptr_array_unref);
  G_OBJECT_CLASS (ls_history_page_parent_class)->dispose (object);
}

static void
ls_history_page_class_init (LsHistoryPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = ls_history_page_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/loadscope/Loadscope/ui/ls-history-page.ui");
  gtk_widget_class_bind_template_child (widget_class, LsHistoryPage, search);
  gtk_widget_class_bind_template_child (widget_class, LsHistoryPage, count);
  gtk_widget_class_bind_template_child (widget_class, LsHistoryPage, view);
  gtk_widget_class_bind_template_child (widget_class, LsHistoryPage, folded);
  gtk_widget_class_bind_template_child (widget_class, LsHistoryPage, nothing);
  gtk_widget_class_bind_template_child (widget_class, LsHistoryPage, nothing_label);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_install_action (widget_class, "history.open", NULL, open_action);
  /* A run's sweep to show in Results (double-click, Enter, Open). */
  signals[SIGNAL_OPEN_SWEEP] = g_signal_new ("open-sweep", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                             NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT64);
  gtk_widget_class_install_action (widget_class, "history.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "history.delete", NULL, delete_action);
  gtk_widget_class_install_action (widget_class, "history.reload", NULL, reload_action);
  gtk_widget_class_install_action (widget_class, "history.report", NULL, report_action);
  gtk_widget_class_install_action (widget_class, "history.timeline", NULL, timeline_action);
}

static void
ls_history_page_init (LsHistoryPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->runs = ls_run_list_new (NULL);
  self->cancellable = g_cancellable_new ();

  /* runs -> filtered by the search -> sorted by the column view -> selection. */
  self->filter = gtk_custom_filter_new (matches, self, NULL);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->search),
                               _("Any part of a run's machine, OS, dataset, date, consumer, status, pin or start; "
                                 "machine:NAME for the runs of one machine (node) only; "
                                 "target:pytorch or target:loadscope for the runs of one target"));
  GtkFilterListModel *filtered = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (self->runs)),
                                                            GTK_FILTER (self->filter));
  GtkSortListModel *sorted = gtk_sort_list_model_new (G_LIST_MODEL (filtered),
                                                      g_object_ref (gtk_column_view_get_sorter (self->view)));
  /* A team's store (100,000 runs) is filtered and sorted a slice a frame,
   * so a load, a search or a click on a column never stalls the window. */
  gtk_filter_list_model_set_incremental (filtered, TRUE);
  gtk_sort_list_model_set_incremental (sorted, TRUE);
  self->filtered = filtered;
  self->sorted = sorted;
  g_signal_connect_object (filtered, "notify::pending", G_CALLBACK (update_shown), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (sorted, "notify::pending", G_CALLBACK (update_shown), self, G_CONNECT_SWAPPED);
  self->selection = gtk_multi_selection_new (G_LIST_MODEL (sorted));
  gtk_column_view_set_model (self->view, GTK_SELECTION_MODEL (self->selection));
  g_object_unref (self->selection); /* the view holds it */
  /* The count follows what is shown: a load, the search. */
  g_signal_connect_object (self->selection, "items-changed", G_CALLBACK (update_shown), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "items-changed", G_CALLBACK (update_shown), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  g_signal_connect_object (self->selection, "selection-changed", G_CALLBACK (update_count), self, G_CONNECT_SWAPPED);
  g_signal_connect (self->view, "activate", G_CALLBACK (on_activate), self);
  self->view_columns = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    {
      GtkListItemFactory *f = gtk_signal_list_item_factory_new ();
      g_signal_connect (f, "setup", G_CALLBACK (setup_cell), (gpointer) &columns[i]);
      g_signal_connect (f, "bind", G_CALLBACK (bind_cell), (gpointer) &columns[i]);
      GtkColumnViewColumn *col = gtk_column_view_column_new (_(columns[i].title), f);
      gtk_column_view_column_set_sorter (col, GTK_SORTER (gtk_custom_sorter_new (compare_rows, (gpointer) &columns[i], NULL)));
      gtk_column_view_column_set_resizable (col, TRUE);
      gtk_column_view_column_set_fixed_width (col, columns[i].width);
      if (g_str_equal (columns[i].member, "dataset") || g_str_equal (columns[i].member, "os"))
        gtk_column_view_column_set_expand (col, TRUE);
      gtk_column_view_append_column (self->view, col);
      g_ptr_array_add (self->view_columns, col);
    }
  update_shown (self);
}
