/* hugepagesctl: shared pieces of the command-line client. Every command is
 * one function taking the context and its own arguments (command name
 * first) and returning the exit status. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "hp-dbus-generated.h"

G_BEGIN_DECLS

/* Documented in --help; scripts rely on them. */
typedef enum {
  HPCTL_EXIT_OK = 0,
  HPCTL_EXIT_ERROR = 1,
  HPCTL_EXIT_USAGE = 2,
  HPCTL_EXIT_SHORTFALL = 3,
} HpctlExit;

/* A pkttyagent we started, if any. */
typedef struct _HpctlAgent HpctlAgent;

HpctlAgent *hpctl_agent_start (void);
void hpctl_agent_stop (HpctlAgent *agent);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpctlAgent, hpctl_agent_stop)

typedef struct {
  gboolean ask_password;
  GDBusConnection *bus;       /* set by hpctl_connect () */
  HpDBusManager *manager;     /* set by hpctl_connect () */
  char *owner;                /* the service's unique name, set by hpctl_connect () */
  GVariant *objects;          /* its GetManagedObjects, set by hpctl_connect () */
  HpctlAgent *agent;
} HpctlContext;

void hpctl_context_clear (HpctlContext *ctx);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HpctlContext, hpctl_context_clear)

/* Messages: one line on stderr, prefixed with the program name. */
int hpctl_usage_error (const char *format, ...) G_GNUC_PRINTF (1, 2);
int hpctl_fail (const GError *error);
/* Prints @root pretty, as UTF-8 whatever the locale, with a newline. */
void hpctl_print_json (JsonNode *root);

/* Parses a command's options. @args holds the command name and its
 * arguments; afterwards it holds the command name and the positional
 * arguments. Adds --no-ask-password. Prints the error itself. */
gboolean hpctl_parse_command (HpctlContext *ctx, GOptionContext *options, GStrv *args);

/* Connects to hugepagesd; prints why not itself. */
gboolean hpctl_connect (HpctlContext *ctx);

/* Syntax of a SIZE, checked without the service. */
gboolean hpctl_check_size_syntax (const char *text, GError **error);

/* A SIZE argument: "DEFAULT" or hp_parse_size (), and one of PageSizes. */
gboolean hpctl_resolve_size (HpctlContext *ctx, const char *text, guint64 *size,
                             GError **error);

HpDBusManagerPageSize *hpctl_get_page_size (HpctlContext *ctx, guint64 size,
                                            GError **error);

/* Every PageSize proxy, ascending by size. */
GPtrArray *hpctl_get_page_sizes (HpctlContext *ctx, GError **error);

/* "1.5 GiB (1610612736 bytes)", or "512 bytes" below 1 KiB. */
char *hpctl_describe_bytes (guint64 bytes);

/* --persist of every changing command */
#define HPCTL_PERSIST_HELP "Also save the change, so hugepagesd --apply makes it again at boot"

/* Flags for a call that may need authorization; starts an agent first if
 * one may be needed. */
GDBusCallFlags hpctl_prepare_interactive (HpctlContext *ctx);

/* A progress bar on stderr fed by AllocationProgress of the PageSize
 * object at @object_path for a call asking for @target pages; NULL (and
 * nothing drawn) when stderr is not a terminal. Signals arrive while the
 * main context runs. Stopping clears the line. */
typedef struct _HpctlProgress HpctlProgress;

HpctlProgress *hpctl_progress_start (GDBusConnection *bus, const char *object_path,
                                     guint64 target);
void hpctl_progress_stop (HpctlProgress *progress);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpctlProgress, hpctl_progress_stop)

/* The commands. */
int hpctl_status (HpctlContext *ctx, GStrv args);
int hpctl_config (HpctlContext *ctx, GStrv args);
int hpctl_page_sizes (HpctlContext *ctx, GStrv args);
int hpctl_pools (HpctlContext *ctx, GStrv args);
int hpctl_set_min (HpctlContext *ctx, GStrv args);
int hpctl_set_max (HpctlContext *ctx, GStrv args);
int hpctl_set_node (HpctlContext *ctx, GStrv args);
int hpctl_demote (HpctlContext *ctx, GStrv args);
int hpctl_mounts (HpctlContext *ctx, GStrv args);
int hpctl_mount_create (HpctlContext *ctx, GStrv args);
int hpctl_unmount (HpctlContext *ctx, GStrv args);
int hpctl_shm_max (HpctlContext *ctx, GStrv args);
int hpctl_shm_group (HpctlContext *ctx, GStrv args);
int hpctl_min_free_kbytes (HpctlContext *ctx, GStrv args);
int hpctl_zone_movable (HpctlContext *ctx, GStrv args);
int hpctl_thp (HpctlContext *ctx, GStrv args);
int hpctl_explain (HpctlContext *ctx, GStrv args);
int hpctl_boot (HpctlContext *ctx, GStrv args);
int hpctl_usage (HpctlContext *ctx, GStrv args);
int hpctl_remove_orphan (HpctlContext *ctx, GStrv args);
int hpctl_monitor (HpctlContext *ctx, GStrv args);

G_END_DECLS
