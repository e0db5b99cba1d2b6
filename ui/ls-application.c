#include "ui/ls-application.h"

#include "app/core/i18n.h"
#include "app/core/settings.h"

#include "ui/ls-font-fallback.h"
#include "ui/ls-window.h"

struct _LsApplication {
  AdwApplication parent_instance;
  GSettings *settings;
};

G_DEFINE_FINAL_TYPE (LsApplication, ls_application, ADW_TYPE_APPLICATION)

static void
ls_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));
  if (!window)
    window = GTK_WINDOW (ls_window_new (LS_APPLICATION (app)));
  gtk_window_present (window);
}

static void
quit_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
}

static void
apply_color_scheme (LsApplication *self)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_autofree char *scheme = g_settings_get_string (self->settings, "color-scheme");
  adw_style_manager_set_color_scheme (style, g_strcmp0 (scheme, "dark") == 0    ? ADW_COLOR_SCHEME_FORCE_DARK
                                             : g_strcmp0 (scheme, "light") == 0 ? ADW_COLOR_SCHEME_FORCE_LIGHT
                                                                                 : ADW_COLOR_SCHEME_DEFAULT);
}

static void
ls_application_startup (GApplication *app)
{
  LsApplication *self = LS_APPLICATION (app);
  static const GActionEntry actions[] = {
    { "quit", quit_activated, NULL, NULL, NULL, { 0 } },
  };

  G_APPLICATION_CLASS (ls_application_parent_class)->startup (app);
  ls_font_fallback_apply (gtk_settings_get_default ());
  g_action_map_add_action_entries (G_ACTION_MAP (app), actions, G_N_ELEMENTS (actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", (const char *[]){ "<Control>q", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.run", (const char *[]){ "<Control>r", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.cancel", (const char *[]){ "<Control>period", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.export", (const char *[]){ "<Control>e", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.import", (const char *[]){ "<Control>o", NULL });

  /* Dark mode follows the setting (default: the desktop's); the menu's
   * Style choice writes the setting, and a change applies at once. */
  g_autoptr (GAction) scheme = g_settings_create_action (self->settings, "color-scheme");
  g_action_map_add_action (G_ACTION_MAP (app), scheme);
  g_signal_connect_object (self->settings, "changed::color-scheme", G_CALLBACK (apply_color_scheme), self,
                           G_CONNECT_SWAPPED);
  apply_color_scheme (self);
}

static void
ls_application_dispose (GObject *object)
{
  LsApplication *self = LS_APPLICATION (object);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (ls_application_parent_class)->dispose (object);
}

static void
ls_application_class_init (LsApplicationClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ls_application_dispose;
  G_APPLICATION_CLASS (klass)->activate = ls_application_activate;
  G_APPLICATION_CLASS (klass)->startup = ls_application_startup;
}

static void
ls_application_init (LsApplication *self)
{
}

LsApplication *
ls_application_new (GSettings *settings)
{
  LsApplication *self = g_object_new (LS_TYPE_APPLICATION, "application-id", LS_SETTINGS_SCHEMA_ID, "flags",
                                      G_APPLICATION_NON_UNIQUE, NULL);
  self->settings = g_object_ref (settings);
  return self;
}

GSettings *
ls_application_get_settings (LsApplication *self)
{
  return self->settings;
}

int
ls_ui_main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSettings) settings = ls_settings_new (&error);
  if (!settings) {
    g_printerr (_("loadscope: cannot open the workbench: %s\n"), error->message);
    return 1;
  }
  g_autoptr (LsApplication) app = ls_application_new (settings);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
