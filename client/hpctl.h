/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugepagesctl: shared pieces of the command-line client. Every command is
 * one function taking the context and its own arguments (command name
 * first) and returning the exit status. */
#pragma once

#include <gio/gio.h>
#include <glib/gi18n.h>
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

/* The SSH link to another machine's bus (-H), see hpctl-remote.c. */
typedef struct _HpctlRemote HpctlRemote;

void hpctl_remote_free (HpctlRemote *remote);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpctlRemote, hpctl_remote_free)

typedef struct {
  gboolean ask_password;
  char *host;                 /* -H [USER@]HOST, NULL for this machine */
  HpctlRemote *remote;        /* set by hpctl_open_bus () with a host */
  GDBusConnection *bus;       /* set by hpctl_connect () */
  HpDBusManager *manager;     /* set by hpctl_connect () */
  char *owner;                /* the service's unique name, set by hpctl_connect () */
  GVariant *objects;          /* its GetManagedObjects, set by hpctl_connect () */
  HpctlAgent *agent;
  /* atomic: the polkit action of a NotAuthorized reply from the service
   * of this machine, "" if it named none; set by a filter of ctx->bus */
  const char *refused_action;
} HpctlContext;

void hpctl_context_clear (HpctlContext *ctx);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HpctlContext, hpctl_context_clear)

/* Messages: one line on stderr, prefixed with the program name. */
int hpctl_usage_error (const char *format, ...) G_GNUC_PRINTF (1, 2);
/* Exit status 2 (usage) when the service found an argument wrong
 * (InvalidArgs, NoSuchUser, NoSuchGroup), else 1. */
int hpctl_fail (const GError *error);
/* A PATH argument: absolute (else a usage error, printed); trailing
 * slashes, which name the same directory, are dropped in place. */
gboolean hpctl_path_argument (char *path);
/* Prints @root pretty, as UTF-8 whatever the locale, with a newline. */
void hpctl_print_json (JsonNode *root);
/* Prints @root pretty or on one line, UTF-8, with a newline, flushed. */
void hpctl_print_json_text (JsonNode *root, gboolean pretty);

/* Parses a command's options. @args holds the command name and its
 * arguments; afterwards it holds the command name and the positional
 * arguments. Adds --no-ask-password. Prints the error itself. */
gboolean hpctl_parse_command (HpctlContext *ctx, GOptionContext *options, GStrv *args);

/* The D-Bus timeout of a change: authorization may wait for a person
 * typing a password, and update-grub or a hard allocation take a while,
 * so none. */
#define HPCTL_CHANGE_TIMEOUT_MS G_MAXINT

/* A command's option context: "hugepagesctl PARAMETERS", @summary, and
 * @description (may be NULL) after the options. */
GOptionContext *hpctl_command_options (const char *parameters, const char *summary,
                                       const char *description);

/* Connects to hugepagesd; prints why not itself. */
gboolean hpctl_connect (HpctlContext *ctx);
/* The same without the Manager's properties (one call): for commands that
 * read only the page sizes (hpctl_get_page_sizes). */
gboolean hpctl_connect_page_sizes (HpctlContext *ctx);

/* The system bus of this machine, or with ctx->host that of the host,
 * through ssh and systemd-stdio-bridge there. The error says what failed
 * (ssh, the bridge, the bus) in words for people. */
GDBusConnection *hpctl_open_bus (HpctlContext *ctx, GError **error);

/* -H/--host, before and after the command. */
#define HPCTL_HOST_ENTRY(host) \
  { "host", 'H', 0, G_OPTION_ARG_STRING, &(host), \
    N_("Operate on hugepagesd of another machine, over ssh (see hugepagesctl --help)"), "[USER@]HOST" }

/* An empty HOST is a usage error (printed). */
gboolean hpctl_check_host (HpctlContext *ctx);

/* "the system bus" or "the system bus of HOST", for messages. */
char *hpctl_describe_bus (HpctlContext *ctx);

/* After a command failed: if the remote service refused authorization,
 * says why a password could not be asked for and what to do instead. */
void hpctl_remote_explain_denial (HpctlContext *ctx);

/* Watches ctx->bus (of this machine) for refusals, see refused_action. */
void hpctl_watch_refusals (HpctlContext *ctx);
/* After a command failed: if the service refused authorization, names the
 * ways that need no polkit agent (root, a polkit rule, -H root@HOST). */
void hpctl_explain_refusal (HpctlContext *ctx);

/* JSON output (hpctl-json.c; the format is described in README.md, "JSON
 * output"). Every --json document is one object that starts with
 * "format_version": HPCTL_JSON_FORMAT_VERSION. Fields are only added within
 * a version; a field renamed, removed or changing meaning raises it. */
#define HPCTL_JSON_FORMAT_VERSION 1

/* The --json option of a reading command. */
#define HPCTL_JSON_ENTRY(flag) \
  { "json", 0, 0, G_OPTION_ARG_NONE, &(flag), \
    N_("Print the result as one JSON object (see README.md, JSON output)"), NULL }

/* A builder with the top-level object begun and format_version added. */
JsonBuilder *hpctl_json_begin (void);
/* Ends the top-level object and prints it pretty, as hpctl_print_json (). */
void hpctl_json_print (JsonBuilder *builder);
/* Prints @root on one line (for monitor --json), UTF-8, with a newline,
 * and flushes. */
void hpctl_print_json_line (JsonNode *root);

/* @value exactly, also above G_MAXINT64 where json-glib's integers end:
 * every unsigned value goes through this node (or hpctl_json_add_uint ()),
 * and every document is printed by hpctl_print_json () or
 * hpctl_print_json_line (), which write it as a number. */
JsonNode *hpctl_json_uint_node (guint64 value);
void hpctl_json_add_uint (JsonBuilder *builder, const char *name, guint64 value);
void hpctl_json_add_bool (JsonBuilder *builder, const char *name, gboolean value);
/* A string member; NULL gives null. */
void hpctl_json_add_string (JsonBuilder *builder, const char *name, const char *value);
/* A member holding @value as json-glib serializes GVariants, with the keys
 * of every dictionary in it written with '_' for '-' (the D-Bus names are
 * kebab-case, the JSON ones snake_case). */
void hpctl_json_add_variant (JsonBuilder *builder, const char *name, GVariant *value);
/* The same conversion for a whole value. */
JsonNode *hpctl_json_from_variant (GVariant *value);
/* @value with its dictionary keys as they are (some are data). */
JsonNode *hpctl_json_from_variant_raw (GVariant *value);
/* A member holding an array of objects, one per record of @records
 * (aa{sv}, NULL for none), with the record's keys @fields (NULL-terminated)
 * as members in that order, '-' written '_'; missing keys are left out. */
void hpctl_json_add_records (JsonBuilder *builder, const char *name, GVariant *records,
                             const char *const *fields);
/* A string or a number of an a{sv} record: "" or 0 where it is missing. */
const char *hpctl_record_string (GVariant *record, const char *key);
guint64 hpctl_record_uint64 (GVariant *record, const char *key);

/* One pool of a PageSize object: every counter, as in status --json. */
void hpctl_json_add_pool (JsonBuilder *builder, HpDBusManagerPageSize *page_size);

/* Syntax of a SIZE, checked without the service. */
gboolean hpctl_check_size_syntax (const char *text, GError **error);

/* A SIZE argument: "DEFAULT" or hp_parse_size (), and one of PageSizes. */
gboolean hpctl_resolve_size (HpctlContext *ctx, const char *text, guint64 *size,
                             GError **error);
/* The same for a command's SIZE argument, connecting first: FALSE with
 * @status set (a usage error for a bad or unknown size). */
gboolean hpctl_resolve_size_arg (HpctlContext *ctx, const char *text, guint64 *size,
                                 int *status);

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
/* Flags for a changing call: a dry run needs no authorization (the
 * service authorizes only what it would change), so it gets no interactive
 * flag and starts no agent; otherwise hpctl_prepare_interactive(). */
GDBusCallFlags hpctl_change_call_flags (HpctlContext *ctx, gboolean dry_run);

/* Adds the boolean option @name (an HP_OPTION_*) as true when @set; the
 * service takes an absent flag as false, so only what was asked is sent. */
void hpctl_add_flag (GVariantBuilder *options, const char *name, gboolean set);

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
/* When ApplyAtBoot says nothing applies the configuration at boot: a
 * warning on stderr with the command that fixes it. Returns whether it
 * warned. Needs hpctl_connect (). */
gboolean hpctl_warn_apply_at_boot (HpctlContext *ctx);
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
int hpctl_metrics (HpctlContext *ctx, GStrv args);
int hpctl_claim (HpctlContext *ctx, GStrv args);
int hpctl_release (HpctlContext *ctx, GStrv args);
int hpctl_claims (HpctlContext *ctx, GStrv args);
int hpctl_suggest (HpctlContext *ctx, GStrv args);

/* hugeadm and pagesize compatibility (hpctl-hugeadm.c): hugeadm's options
 * and pagesize's, with their syntax and output formats. */
int hpctl_hugeadm (HpctlContext *ctx, GStrv args);
int hpctl_pagesize (HpctlContext *ctx, GStrv args);

typedef enum {
  HPCTL_COMPAT_NONE,
  HPCTL_COMPAT_HUGEADM_OPTIONS,  /* hugepagesctl --pool-list … */
  HPCTL_COMPAT_HUGEADM,          /* called as hugeadm (a symlink) */
  HPCTL_COMPAT_PAGESIZE,         /* called as pagesize */
} HpctlCompatMode;

/* How main () should read @argv: as hugepagesctl's, hugeadm's or pagesize's. */
HpctlCompatMode hpctl_compat_mode (char **argv);
/* Runs @argv, whose first element is the program, in @mode. */
int hpctl_compat_run (HpctlContext *ctx, HpctlCompatMode mode, GStrv argv);

G_END_DECLS
