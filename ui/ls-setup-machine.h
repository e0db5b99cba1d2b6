/* Setup's Machine choice: where the sweep runs. "This computer", each host
 * of ~/.ssh/config (read in a thread, app/remote/remote-ssh-config.h) as
 * ssh:HOST, or another target typed once and remembered (ssh:HOST or
 * exec:COMMAND, a container's command prefix). On another machine the
 * dataset or the script is that machine's path, typed here (it cannot be
 * checked from this one); what went wrong there is shown under the row. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define LS_TYPE_SETUP_MACHINE (ls_setup_machine_get_type ())
G_DECLARE_FINAL_TYPE (LsSetupMachine, ls_setup_machine, LS, SETUP_MACHINE, AdwPreferencesGroup)

/* Keeps the choice, the typed target and the path there in these settings
 * (keys machine, machine-other, machine-path), and reads the hosts of
 * ssh_config (NULL: ~/.ssh/config) in a thread. */
void ls_setup_machine_bind (LsSetupMachine *self, GSettings *settings, const char *ssh_config);

/* Which path the row asks for: the script's (TRUE) or the dataset's. */
void ls_setup_machine_set_script (LsSetupMachine *self, gboolean script);

/* TRUE for this computer. */
gboolean ls_setup_machine_is_local (LsSetupMachine *self);

/* The chosen target as `--on` takes it ("ssh:gpu1", "exec:docker exec -i
 * t"), NULL for this computer; and the dataset's or script's path there.
 * FALSE with an error a user can act on: a typed target that is not one,
 * no path given. */
gboolean ls_setup_machine_get_choice (LsSetupMachine *self, char **target, char **path, GError **error);

/* Chooses a target: this computer (NULL or ""), a host offered, or any
 * other text (typed as "another target"). */
void ls_setup_machine_set_target (LsSetupMachine *self, const char *target);
void ls_setup_machine_set_path (LsSetupMachine *self, const char *path);

/* What went wrong on the machine (it did not answer or lacks this
 * version's bundle when chosen; a sweep there failed: no bundle, a
 * password asked, the connection dropped), shown under the row until the
 * choice changes; NULL hides it. */
void ls_setup_machine_show_problem (LsSetupMachine *self, const char *message);
const char *ls_setup_machine_get_problem (LsSetupMachine *self);

/* For the tests: the hosts read are there, and what is offered. */
gboolean ls_setup_machine_is_reading (LsSetupMachine *self);
GListModel *ls_setup_machine_get_offered (LsSetupMachine *self); /* GtkStringObject: the row's items */

/* For the tests: the chosen machine is being asked whether it is ready
 * (its answer goes under the row: the problem, or "Ready" as the row's
 * subtitle). */
gboolean ls_setup_machine_is_checking (LsSetupMachine *self);
/* Whether the Install button's install is running (for tests). */
gboolean ls_setup_machine_is_installing (LsSetupMachine *self);

G_END_DECLS
