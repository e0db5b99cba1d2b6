#include "ui/ls-timeline-window.h"

#include "app/core/i18n.h"
#include "app/report/lanes-job.h"

#define HINT _("Point at a span for its figures · Ctrl+scroll or pinch to zoom (+ and −), drag to pan")

struct _LsTimelineWindow {
  AdwWindow parent_instance;
  GCancellable *cancellable;
  GtkStack *stack;
  LsTimelineView *view;
  AdwStatusPage *failed;
  GtkLabel *hovered;
  GtkLabel *range;
  gboolean loaded;
  char *error;
};

G_DEFINE_FINAL_TYPE (LsTimelineWindow, ls_timeline_window, ADW_TYPE_WINDOW)

static void
on_hovered (LsTimelineView *view, GParamSpec *pspec, LsTimelineWindow *self)
{
  g_autofree char *text = NULL;
  g_object_get (view, "hovered", &text, NULL);
  gtk_label_set_text (self->hovered, text ? text : HINT);
  gtk_widget_set_opacity (GTK_WIDGET (self->hovered), text ? 1.0 : 0.7);
}

static void
on_range (LsTimelineView *view, GParamSpec *pspec, LsTimelineWindow *self)
{
  g_autofree char *text = NULL;
  g_object_get (view, "range-text", &text, NULL);
  gtk_label_set_text (self->range, text ? text : "");
}

static void
on_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (GError) error = NULL;
  ls_chart *chart = ls_lanes_job_finish (result, &error);
  g_autoptr (LsTimelineWindow) self = data;
  if (!chart && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return; /* the window has gone */
  self->loaded = TRUE;
  if (!chart)
    {
      self->error = g_strdup (error->message);
      adw_status_page_set_description (self->failed, error->message);
      gtk_stack_set_visible_child_name (self->stack, "failed");
      return;
    }
  ls_timeline_view_set_chart (self->view, chart);
  gtk_stack_set_visible_child_name (self->stack, "lanes");
  gtk_widget_grab_focus (GTK_WIDGET (self->view));
}

static void
zoom_action (GtkWidget *widget, const char *name, GVariant *parameter)
{
  LsTimelineWindow *self = LS_TIMELINE_WINDOW (widget);
  if (g_str_equal (name, "timeline.zoom-in"))
    ls_timeline_view_zoom_by (self->view, 2, 0.5);
  else if (g_str_equal (name, "timeline.zoom-out"))
    ls_timeline_view_zoom_by (self->view, 0.5, 0.5);
  else
    ls_timeline_view_zoom_reset (self->view);
}

static GtkWidget *
icon_button (const char *icon, const char *action, const char *tip)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (b), action);
  gtk_widget_set_tooltip_text (b, tip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (b), GTK_ACCESSIBLE_PROPERTY_LABEL, tip, -1);
  return b;
}

static void
ls_timeline_window_dispose (GObject *object)
{
  LsTimelineWindow *self = LS_TIMELINE_WINDOW (object);
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->error, g_free);
  G_OBJECT_CLASS (ls_timeline_window_parent_class)->dispose (object);
}

static void
ls_timeline_window_class_init (LsTimelineWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = ls_timeline_window_dispose;
  gtk_widget_class_install_action (widget_class, "timeline.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-reset", NULL, zoom_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "timeline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "timeline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "timeline.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "timeline.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0, "timeline.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, 0, "timeline.zoom-reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ls_timeline_window_init (LsTimelineWindow *self)
{
  self->cancellable = g_cancellable_new ();
  gtk_window_set_default_size (GTK_WINDOW (self), 1100, 560);

  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  adw_header_bar_pack_end (ADW_HEADER_BAR (header),
                           icon_button ("zoom-fit-best-symbolic", "timeline.zoom-reset", _("Show the whole run (0)")));
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), icon_button ("zoom-in-symbolic", "timeline.zoom-in", _("Zoom in (+)")));
  adw_header_bar_pack_end (ADW_HEADER_BAR (header),
                           icon_button ("zoom-out-symbolic", "timeline.zoom-out", _("Zoom out (−)")));
  gtk_box_append (GTK_BOX (box), header);

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);
  GtkWidget *spinner = gtk_spinner_new ();
  gtk_spinner_start (GTK_SPINNER (spinner));
  gtk_widget_set_size_request (spinner, 32, 32);
  gtk_widget_set_halign (spinner, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (spinner, GTK_ALIGN_CENTER);
  gtk_stack_add_named (self->stack, spinner, "loading");
  self->view = ls_timeline_view_new ();
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->view), "lanes");
  self->failed = ADW_STATUS_PAGE (adw_status_page_new ());
  adw_status_page_set_icon_name (self->failed, "dialog-warning-symbolic");
  adw_status_page_set_title (self->failed, _("The timeline could not be read"));
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->failed), "failed");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->stack));

  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_margin_start (bar, 12);
  gtk_widget_set_margin_end (bar, 12);
  gtk_widget_set_margin_top (bar, 6);
  gtk_widget_set_margin_bottom (bar, 8);
  self->hovered = GTK_LABEL (gtk_label_new (HINT));
  gtk_label_set_xalign (self->hovered, 0);
  gtk_label_set_ellipsize (self->hovered, PANGO_ELLIPSIZE_END);
  gtk_label_set_selectable (self->hovered, FALSE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->hovered), TRUE);
  gtk_widget_set_opacity (GTK_WIDGET (self->hovered), 0.7);
  gtk_widget_add_css_class (GTK_WIDGET (self->hovered), "numeric");
  self->range = GTK_LABEL (gtk_label_new (""));
  gtk_widget_add_css_class (GTK_WIDGET (self->range), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->range), "numeric");
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->hovered));
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->range));
  gtk_box_append (GTK_BOX (box), bar);
  adw_window_set_content (ADW_WINDOW (self), box);

  g_signal_connect (self->view, "notify::hovered", G_CALLBACK (on_hovered), self);
  g_signal_connect (self->view, "notify::range-text", G_CALLBACK (on_range), self);
}

LsTimelineWindow *
ls_timeline_window_new (GtkWindow *parent, const char *db, gint64 run_id)
{
  LsTimelineWindow *self = g_object_new (LS_TYPE_TIMELINE_WINDOW, "transient-for", parent, NULL);
  g_autofree char *title = g_strdup_printf (_("Timeline of run %lld"), (long long) run_id);
  gtk_window_set_title (GTK_WINDOW (self), title);
  /* The window object stays alive until the read has come back; closing
   * the window cancels it. */
  ls_lanes_job (db, run_id, self->cancellable, on_loaded, g_object_ref (self));
  return self;
}

LsTimelineView *
ls_timeline_window_get_view (LsTimelineWindow *self)
{
  g_return_val_if_fail (LS_IS_TIMELINE_WINDOW (self), NULL);
  return self->view;
}

gboolean
ls_timeline_window_is_loaded (LsTimelineWindow *self, const char **error)
{
  g_return_val_if_fail (LS_IS_TIMELINE_WINDOW (self), FALSE);
  if (error)
    *error = self->error;
  return self->loaded;
}
