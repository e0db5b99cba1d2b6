/* Setup's ranks and threads per rank for a script (ls-setup-page-private.h):
 * a DDP script runs one process per GPU, each with its own DataLoader, and
 * `loadscope sweep --ranks N` starts them as torchrun does (docs/ranks.md);
 * --threads sets each rank's intra-op threads, a list swept like workers.
 * The group is made here, in code, and follows the script group's
 * visibility, so the page's template and its other files stay as they are. */
#include "ui/ls-setup-page-private.h"

#include "app/core/i18n.h"
#include "app/core/run-options.h"

void
ls_setup_page_ranks_init (LsSetupPage *self)
{
  self->ranks_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->ranks_group, _("Ranks and threads"));
  adw_preferences_group_set_description (
      self->ranks_group, _("For a multi-GPU (DDP) script: one process per GPU, each with its own DataLoader, all on "
                           "this machine's cores. Loadscope starts the ranks as torchrun does and measures every "
                           "one; worker counts are per rank."));

  AdwActionRow *ranks_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (ranks_row), _("Ranks"));
  adw_action_row_set_subtitle (ranks_row, _("1: the script alone; 2 or more: started as `torchrun --standalone "
                                            "--nproc-per-node N` starts them"));
  adw_action_row_set_subtitle_lines (ranks_row, 2);
  GtkAdjustment *adj = gtk_adjustment_new (1, 1, LS_RUN_MAX_RANKS, 1, 1, 0);
  self->ranks = GTK_SPIN_BUTTON (gtk_spin_button_new (adj, 1, 0));
  gtk_spin_button_set_numeric (self->ranks, TRUE);
  gtk_widget_set_valign (GTK_WIDGET (self->ranks), GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ranks_row, GTK_WIDGET (self->ranks));
  adw_action_row_set_activatable_widget (ranks_row, GTK_WIDGET (self->ranks));
  adw_preferences_group_add (self->ranks_group, GTK_WIDGET (ranks_row));

  self->threads = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->threads),
                                 _("Threads per rank (comma list; empty: the script's own)"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->threads),
                               _("OMP_NUM_THREADS and torch.set_num_threads in each rank (--threads); torchrun "
                                 "gives each rank 1 when there are several"));
  adw_preferences_group_add (self->ranks_group, GTK_WIDGET (self->threads));

  g_signal_connect_swapped (self->ranks, "value-changed", G_CALLBACK (ls_setup_page_update_estimate), self);
  g_signal_connect_swapped (self->threads, "changed", G_CALLBACK (ls_setup_page_update_estimate), self);

  /* Below the script's group, shown with it. */
  GtkWidget *script = GTK_WIDGET (self->script_group);
  gtk_widget_insert_after (GTK_WIDGET (self->ranks_group), gtk_widget_get_parent (script), script);
  g_object_bind_property (script, "visible", self->ranks_group, "visible", G_BINDING_SYNC_CREATE);
}

void
ls_setup_page_ranks_bind (LsSetupPage *self, GSettings *settings)
{
  g_settings_bind (settings, "ranks", self->ranks, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "threads", self->threads, "text", G_SETTINGS_BIND_DEFAULT);
}

static gboolean
is_script (LsSetupPage *self)
{
  return ls_setup_page_get_target (self) == LS_SETUP_TARGET_PYTORCH;
}

/* 1 rank is the script alone (no --ranks: its own process, no launcher);
 * the threads as typed, empty ones left out (check says so). */
void
ls_setup_page_ranks_add (LsSetupPage *self, ls_sweep_request *request)
{
  if (!is_script (self))
    return;
  int ranks = gtk_spin_button_get_value_as_int (self->ranks);
  if (ranks > 1)
    ls_sweep_request_add_int (request, LS_SWEEP_KNOB_RANKS, ranks);
  g_auto (GStrv) threads = g_strsplit (gtk_editable_get_text (GTK_EDITABLE (self->threads)), ",", -1);
  for (char **t = threads; *t; t++)
    if (*g_strstrip (*t) != '\0')
      ls_sweep_request_add (request, LS_SWEEP_KNOB_THREADS, *t);
}

gboolean
ls_setup_page_ranks_check (LsSetupPage *self, ls_sweep_request *request, GError **error)
{
  g_autofree char *text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->threads)));
  if (!is_script (self) || *g_strstrip (text) == '\0')
    return TRUE;
  /* As `loadscope sweep --threads` takes it: an empty value in the list is refused, named. */
  return ls_sweep_request_set_text (request, "threads", text, error);
}

char *
ls_setup_page_ranks_factor (LsSetupPage *self, ls_sweep_request *request)
{
  guint n = ls_sweep_request_count (request, LS_SWEEP_KNOB_THREADS);
  if (!is_script (self) || n < 2)
    return NULL;
  return g_strdup_printf (ngettext (" × %u thread count", " × %u thread counts", n), n);
}

void
ls_setup_page_set_ranks (LsSetupPage *self, int ranks)
{
  gtk_spin_button_set_value (self->ranks, ranks);
}

void
ls_setup_page_set_threads (LsSetupPage *self, const char *threads)
{
  gtk_editable_set_text (GTK_EDITABLE (self->threads), threads ? threads : "");
}
