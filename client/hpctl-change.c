/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The commands that change a pool: set-min, set-max, set-node, demote.
 * They share one path: check the arguments' syntax, connect, resolve SIZE
 * and a relative AMOUNT against the pool, call, and report what the
 * kernel actually did, which is not always what was asked. */
#include "config.h"

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpctl.h"

typedef enum {
  CHANGE_MINIMUM,
  CHANGE_MAXIMUM,
  CHANGE_NODE,
  CHANGE_DEMOTE,
} ChangeKind;

typedef struct {
  ChangeKind kind;
  const char *parameters;
  const char *summary;
  gboolean allow_hard;     /* the service refuses "hard" for the others */
  const char *arguments;   /* --help text on SIZE, AMOUNT, ... */
} ChangeCommand;

#define SIZE_HELP "SIZE is 2M, 1G, a number of bytes or DEFAULT (the default size).\n"
#define AMOUNT_HELP(what) \
  "AMOUNT is a number of pages (512) or of bytes (1G, 512M) that is a whole\n" \
  "number of pages; with a leading + or - it is added to or taken from\n" \
  what ". Numbers are decimal.\n"
#define EXIT_HELP \
  "\nExit status: 0 done, 1 error, 2 usage error, 3 the kernel did not give\n" \
  "the requested number of pages (what it gave is printed all the same)."

static const ChangeCommand set_min_command = {
  CHANGE_MINIMUM, "set-min SIZE AMOUNT",
  "Set the persistent pool of SIZE to AMOUNT pages, keeping the maximum\n"
  "(raised to AMOUNT if lower), like hugeadm --pool-pages-min.", TRUE,
  SIZE_HELP AMOUNT_HELP ("the current minimum") EXIT_HELP,
};
static const ChangeCommand set_max_command = {
  CHANGE_MAXIMUM, "set-max SIZE AMOUNT",
  "Set how far the pool of SIZE may grow on demand (its minimum plus its\n"
  "overcommit) to AMOUNT pages; a lower value also shrinks the persistent\n"
  "pool, like hugeadm --pool-pages-max.", FALSE,
  SIZE_HELP AMOUNT_HELP ("the current maximum") EXIT_HELP,
};
static const ChangeCommand set_node_command = {
  CHANGE_NODE, "set-node NODE SIZE AMOUNT",
  "Set the persistent pool of SIZE on NUMA node NODE to AMOUNT pages,\n"
  "taking pages from that node only.", TRUE,
  "NODE is a NUMA node number.\n" SIZE_HELP AMOUNT_HELP ("the node's current pool") EXIT_HELP,
};
static const ChangeCommand demote_command = {
  CHANGE_DEMOTE, "demote SIZE COUNT",
  "Split COUNT free pages of SIZE into pages of its demote size.", FALSE,
  SIZE_HELP "COUNT is a decimal number of pages of SIZE.\n" EXIT_HELP,
};

/* A change on its way: the parsed arguments and what they resolve to. */
typedef struct {
  const ChangeCommand *command;
  gboolean hard;
  gboolean drop_caches;
  gboolean dry_run;
  gboolean persist;
  guint32 timeout_ms;
  gboolean has_timeout;
  guint32 node;
  guint64 requested;
  HpDBusManagerPageSize *page_size;
} Change;

static void
change_clear (Change *change)
{
  g_clear_object (&change->page_size);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Change, change_clear)

static gboolean
parse_timeout (const char *text, guint32 *ms, GError **error)
{
  guint64 seconds;

  /* A value like "-5" reaches us as " -5" (see hpctl_parse_command). */
  if (!hp_parse_u64 (text, &seconds, NULL) || seconds > G_MAXUINT32 / 1000)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "--timeout takes a number of seconds, not '%s'",
                   text[0] == ' ' ? text + 1 : text);
      return FALSE;
    }
  *ms = (guint32) (seconds * 1000);
  return TRUE;
}

static gboolean
parse_node (const char *text, guint32 *node, GError **error)
{
  guint64 value;

  if (!hp_parse_u64 (text, &value, error))
    return FALSE;
  if (value > G_MAXUINT32)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "'%s' is not a NUMA node", text);
      return FALSE;
    }
  *node = (guint32) value;
  return TRUE;
}

/* Everything that can be said about the arguments without the service, so
 * that typos are usage errors even when it is not running. */
static gboolean
check_syntax (Change *change, const char *node, const char *size, const char *amount,
              GError **error)
{
  HpAmount parsed;
  guint64 count;

  if (node != NULL && !parse_node (node, &change->node, error))
    return FALSE;
  if (!hpctl_check_size_syntax (size, error))
    return FALSE;
  if (change->command->kind == CHANGE_DEMOTE)
    return hp_parse_u64 (amount, &count, error);
  /* With 1-byte pages every amount of memory is whole pages: this checks
   * the rest now, whole pages of the real size once it is known. */
  return hp_parse_amount (amount, 1, &parsed, error);
}

/* The node's persistent pool, from the Nodes property; also proves that the
 * size has a pool on that node. */
static gboolean
node_minimum (Change *change, guint64 *minimum, GError **error)
{
  GVariant *nodes = hp_dbus_manager_page_size_get_nodes (change->page_size);
  g_autoptr(GString) known = g_string_new (NULL);

  for (gsize i = 0; nodes != NULL && i < g_variant_n_children (nodes); i++)
    {
      g_autoptr(GVariant) record = g_variant_get_child_value (nodes, i);
      guint32 node = 0;

      g_variant_lookup (record, "node", "u", &node);
      if (node == change->node)
        {
          *minimum = hpctl_record_uint64 (record, "minimum");
          return TRUE;
        }
      g_string_append_printf (known, "%s%u", known->len > 0 ? ", " : "", node);
    }

  g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
               "NUMA node %u has no %s pool (nodes: %s)", change->node,
               hp_dbus_manager_page_size_get_name (change->page_size),
               known->len > 0 ? known->str : "none");
  return FALSE;
}

/* AMOUNT in pages, relative amounts applied to the value they change. */
static gboolean
resolve_amount (Change *change, const char *text, GError **error)
{
  HpDBusManagerPageSize *p = change->page_size;
  HpAmount amount;
  guint64 current = 0;

  if (change->command->kind == CHANGE_DEMOTE)
    return hp_parse_u64 (text, &change->requested, error);

  if (!hp_parse_amount (text, hp_dbus_manager_page_size_get_size (p), &amount, error))
    return FALSE;

  switch (change->command->kind)
    {
    case CHANGE_MINIMUM:
      current = hp_dbus_manager_page_size_get_minimum (p);
      break;
    case CHANGE_MAXIMUM:
      current = hp_dbus_manager_page_size_get_maximum (p);
      break;
    case CHANGE_NODE:
      if (!node_minimum (change, &current, error))
        return FALSE;
      break;
    case CHANGE_DEMOTE:
    default:
      g_assert_not_reached ();
    }

  return hp_amount_resolve (&amount, current, &change->requested, error);
}

static GVariant *
build_options (const Change *change)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  hpctl_add_flag (&builder, HP_OPTION_DRY_RUN, change->dry_run);
  hpctl_add_flag (&builder, HP_OPTION_HARD, change->hard);
  hpctl_add_flag (&builder, HP_OPTION_PERSIST, change->persist);
  if (change->has_timeout)
    g_variant_builder_add (&builder, "{sv}", HP_OPTION_TIMEOUT_MS, g_variant_new_uint32 (change->timeout_ms));
  hpctl_add_flag (&builder, HP_OPTION_DROP_CACHES, change->drop_caches);
  return g_variant_builder_end (&builder);
}

/* The reply of the call, taken while the main context runs so that
 * progress signals are drawn meanwhile. */
typedef struct {
  GMainLoop *loop;
  GAsyncResult *result;
} Reply;

static void
got_reply (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Reply *reply = user_data;

  reply->result = g_object_ref (result);
  g_main_loop_quit (reply->loop);
}

static void
start_call (const Change *change, GVariant *options, GDBusCallFlags flags, int timeout,
            Reply *reply)
{
  HpDBusManagerPageSize *p = change->page_size;

  switch (change->command->kind)
    {
    case CHANGE_MINIMUM:
      hp_dbus_manager_page_size_call_set_minimum (p, change->requested, options, flags, timeout,
                                                  NULL, got_reply, reply);
      break;
    case CHANGE_MAXIMUM:
      hp_dbus_manager_page_size_call_set_maximum (p, change->requested, options, flags, timeout,
                                                  NULL, got_reply, reply);
      break;
    case CHANGE_NODE:
      hp_dbus_manager_page_size_call_set_node_pages (p, change->node, change->requested, options,
                                                     flags, timeout, NULL, got_reply, reply);
      break;
    case CHANGE_DEMOTE:
      hp_dbus_manager_page_size_call_demote (p, change->requested, options, flags, timeout,
                                             NULL, got_reply, reply);
      break;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
finish_call (const Change *change, GAsyncResult *result, guint64 *pages, GError **error)
{
  HpDBusManagerPageSize *p = change->page_size;

  switch (change->command->kind)
    {
    case CHANGE_MINIMUM:
      return hp_dbus_manager_page_size_call_set_minimum_finish (p, pages, result, error);
    case CHANGE_MAXIMUM:
      return hp_dbus_manager_page_size_call_set_maximum_finish (p, pages, result, error);
    case CHANGE_NODE:
      return hp_dbus_manager_page_size_call_set_node_pages_finish (p, pages, result, error);
    case CHANGE_DEMOTE:
      return hp_dbus_manager_page_size_call_demote_finish (p, pages, result, error);
    default:
      g_assert_not_reached ();
    }
}

static gboolean
call (HpctlContext *ctx, const Change *change, guint64 *result, GError **error)
{
  GDBusCallFlags flags = hpctl_change_call_flags (ctx, change->dry_run);
  GVariant *options = build_options (change);
  g_autoptr(HpctlProgress) progress = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Reply reply = { loop, NULL };
  gboolean ok;
  /* --hard may also keep the kernel busy for minutes */
  int timeout = -1;

  if (!change->dry_run)
    timeout = HPCTL_CHANGE_TIMEOUT_MS;
  /* subscribed before the call, so that its first signal is seen */
  if (change->hard && !change->dry_run)
    progress = hpctl_progress_start (ctx->bus,
                                     g_dbus_proxy_get_object_path (G_DBUS_PROXY (change->page_size)),
                                     change->requested);

  start_call (change, options, flags, timeout, &reply);
  g_main_loop_run (loop);
  ok = finish_call (change, reply.result, result, error);
  g_object_unref (reply.result);
  return ok;
}

/* "2MB pool minimum", "2MB pool on node 0", ... */
static char *
describe_target (const Change *change)
{
  const char *name = hp_dbus_manager_page_size_get_name (change->page_size);

  switch (change->command->kind)
    {
    case CHANGE_MINIMUM:
      return g_strdup_printf ("%s pool minimum", name);
    case CHANGE_MAXIMUM:
      return g_strdup_printf ("%s pool maximum", name);
    case CHANGE_NODE:
      return g_strdup_printf ("%s pool on node %u", name, change->node);
    case CHANGE_DEMOTE:
    default:
      g_assert_not_reached ();
    }
}

static int
report_dry_run (const Change *change, guint64 result)
{
  g_autofree char *demote_name = NULL;
  g_autofree char *target = NULL;

  if (change->command->kind != CHANGE_DEMOTE)
    {
      target = describe_target (change);
      g_print ("would set the %s to %" G_GUINT64_FORMAT " pages\n", target, result);
      return HPCTL_EXIT_OK;
    }

  demote_name = hp_size_name (hp_dbus_manager_page_size_get_demote_size (change->page_size));
  g_print ("would demote %" G_GUINT64_FORMAT " pages of %s into pages of %s", result,
           hp_dbus_manager_page_size_get_name (change->page_size), demote_name);
  if (result < change->requested)
    g_print (" (only %" G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT
             " requested are free and unreserved)", result, change->requested);
  g_print ("\n");
  return HPCTL_EXIT_OK;
}

/* Why the kernel's answer differs from the request, and what to do. */
static void
explain_difference (const Change *change, guint64 achieved)
{
  const char *name = hp_dbus_manager_page_size_get_name (change->page_size);
  g_autofree char *where = change->command->kind == CHANGE_NODE
    ? g_strdup_printf (" on node %u", change->node) : g_strdup ("");
  const char *advice = !change->command->allow_hard ? ""
    : change->hard ? "; a longer --timeout may help"
    : "; try --hard";

  switch (change->command->kind)
    {
    case CHANGE_MINIMUM:
    case CHANGE_NODE:
      if (achieved < change->requested)
        g_printerr ("%s: the kernel gave only %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                    " pages of %s%s (memory is fragmented or short)%s\n",
                    g_get_prgname (), achieved, change->requested, name, where, advice);
      else
        g_printerr ("%s: the kernel kept %" G_GUINT64_FORMAT " pages of %s%s, not %" G_GUINT64_FORMAT
                    ": pages in use are freed only when they are unmapped\n",
                    g_get_prgname (), achieved, name, where, change->requested);
      break;
    case CHANGE_MAXIMUM:
      g_printerr ("%s: the kernel left the %s pool maximum at %" G_GUINT64_FORMAT
                  " pages, not %" G_GUINT64_FORMAT "\n",
                  g_get_prgname (), name, achieved, change->requested);
      break;
    case CHANGE_DEMOTE:
      g_printerr ("%s: the kernel demoted only %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                  " pages of %s (only free pages that nobody reserved can be demoted)\n",
                  g_get_prgname (), achieved, change->requested, name);
      break;
    default:
      g_assert_not_reached ();
    }
}

static int
report (const Change *change, guint64 achieved)
{
  if (change->dry_run)
    return report_dry_run (change, achieved);

  if (change->command->kind == CHANGE_DEMOTE)
    {
      g_autofree char *demote_name =
        hp_size_name (hp_dbus_manager_page_size_get_demote_size (change->page_size));
      g_print ("%s pages demoted into pages of %s: %" G_GUINT64_FORMAT
               " (requested %" G_GUINT64_FORMAT ")\n",
               hp_dbus_manager_page_size_get_name (change->page_size), demote_name,
               achieved, change->requested);
    }
  else
    {
      g_autofree char *target = describe_target (change);
      g_print ("%s: %" G_GUINT64_FORMAT " pages (requested %" G_GUINT64_FORMAT ")\n",
               target, achieved, change->requested);
    }

  if (achieved == change->requested)
    return HPCTL_EXIT_OK;
  explain_difference (change, achieved);
  return HPCTL_EXIT_SHORTFALL;
}

static int
run_change (HpctlContext *ctx, GStrv args, const ChangeCommand *command)
{
  g_auto(Change) change = { .command = command };
  g_autofree char *timeout = NULL;
  const GOptionEntry entries[] = {
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &change.dry_run,
      "Only show what would be set; needs no authorization", NULL },
    { "persist", 0, 0, G_OPTION_ARG_NONE, &change.persist, HPCTL_PERSIST_HELP, NULL },
    { NULL }
  };
  const GOptionEntry hard_entries[] = {
    { "hard", 0, 0, G_OPTION_ARG_NONE, &change.hard,
      "Keep trying, compacting memory in between, while the pool grows", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_STRING, &timeout,
      "Give up trying hard after SECONDS (default 30, at most 600)", "SECONDS" },
    { "drop-caches", 0, 0, G_OPTION_ARG_NONE, &change.drop_caches,
      "With --hard: when tries stall, drop the clean page cache once and go on", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new (command->parameters);
  g_autoptr(GError) error = NULL;
  guint n_arguments = command->kind == CHANGE_NODE ? 3 : 2;
  const char *node_text, *size_text, *amount_text;
  guint64 size, result;

  g_option_context_set_summary (options, command->summary);
  g_option_context_set_description (options, command->arguments);
  g_option_context_add_main_entries (options, entries, NULL);
  if (command->allow_hard)
    g_option_context_add_main_entries (options, hard_entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;

  if (g_strv_length (args) != n_arguments + 1)
    return hpctl_usage_error ("usage: hugepagesctl %s", command->parameters);
  node_text = command->kind == CHANGE_NODE ? args[1] : NULL;
  size_text = args[n_arguments - 1];
  amount_text = args[n_arguments];

  if (timeout != NULL)
    {
      if (!change.hard)
        return hpctl_usage_error ("--timeout only applies to --hard");
      if (!parse_timeout (timeout, &change.timeout_ms, &error))
        return hpctl_usage_error ("%s", error->message);
      change.has_timeout = TRUE;
    }
  if (change.drop_caches && !change.hard)
    return hpctl_usage_error ("--drop-caches only applies to --hard");
  if (!check_syntax (&change, node_text, size_text, amount_text, &error))
    return hpctl_usage_error ("%s", error->message);

  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  if (!hpctl_resolve_size (ctx, size_text, &size, &error))
    return hpctl_usage_error ("%s", error->message);
  change.page_size = hpctl_get_page_size (ctx, size, &error);
  if (change.page_size == NULL)
    return hpctl_fail (error);
  if (!resolve_amount (&change, amount_text, &error))
    return hpctl_usage_error ("%s", error->message);

  if (!call (ctx, &change, &result, &error))
    return hpctl_fail (error);
  return report (&change, result);
}

int
hpctl_set_min (HpctlContext *ctx, GStrv args)
{
  return run_change (ctx, args, &set_min_command);
}

int
hpctl_set_max (HpctlContext *ctx, GStrv args)
{
  return run_change (ctx, args, &set_max_command);
}

int
hpctl_set_node (HpctlContext *ctx, GStrv args)
{
  return run_change (ctx, args, &set_node_command);
}

int
hpctl_demote (HpctlContext *ctx, GStrv args)
{
  return run_change (ctx, args, &demote_command);
}
