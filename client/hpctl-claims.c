/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* claim, release, claims: named claims that let several programs share
 * the pools (a PageSize's Claim and Release, the Manager's GetClaims).
 * suggest, which prints the claim command a consumer needs, is
 * hpctl-suggest.c. */
#include "config.h"

#include <unistd.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpctl.h"

#define CLAIM_HELP \
  "CONSUMER names who needs the pages: 1 to 64 characters of a-z, 0-9, '.',\n" \
  "'_' and '-' (postgresql, libvirt-vm42). SIZE is 2M, 1G, a number of bytes\n" \
  "or DEFAULT. AMOUNT is a number of pages or an amount of memory that is a\n" \
  "whole number of pages. A second claim of the same consumer, size and node\n" \
  "replaces the first. The pool's target is the administrator's base (set-min)\n" \
  "plus every claim; claiming grows the pool by what the claim adds.\n" \
  "\nExit status: 0 done, 1 error, 2 usage error, 3 the kernel did not give\n" \
  "all the claimed pages (the claim is recorded; explain shows the shortfall)."

#define RELEASE_HELP \
  "Removes the claim of CONSUMER on SIZE (with --node, on that node), saved or\n" \
  "not, and shrinks the pool by its pages, never below the administrator's\n" \
  "base plus the other claims: other consumers' pages stay.\n" \
  "\nExit status: 0 done, 1 error, 2 usage error."

static gboolean
parse_node (const char *text, guint32 *node, GError **error)
{
  if (!hp_parse_u32 (text, node, NULL) || *node == HP_CLAIM_ALL_NODES)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "'%s' is not a NUMA node", text);
      return FALSE;
    }
  return TRUE;
}

/* SIZE, resolved against the service's sizes. */
int
hpctl_claim (HpctlContext *ctx, GStrv args)
{
  g_autofree char *node_text = NULL;
  g_autofree char *timeout = NULL;
  gboolean persist = FALSE, hard = FALSE, drop_caches = FALSE, dry_run = FALSE;
  const GOptionEntry entries[] = {
    { "node", 0, 0, G_OPTION_ARG_STRING, &node_text, "Claim pages on this NUMA node only", "N" },
    { "persist", 0, 0, G_OPTION_ARG_NONE, &persist,
      "Keep the claim across reboots (hugepagesd --apply allocates it at boot)", NULL },
    { "hard", 0, 0, G_OPTION_ARG_NONE, &hard,
      "Keep trying, compacting memory in between, while the pool grows", NULL },
    { "timeout", 0, 0, G_OPTION_ARG_STRING, &timeout,
      "Give up trying hard after SECONDS (default 30, at most 600)", "SECONDS" },
    { "drop-caches", 0, 0, G_OPTION_ARG_NONE, &drop_caches,
      "With --hard: when tries stall, drop the clean page cache once and go on", NULL },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run, "Only check the claim; change nothing", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("CONSUMER SIZE AMOUNT");
  g_autoptr(GError) error = NULL;
  GVariantBuilder opts;
  guint32 node = HP_CLAIM_ALL_NODES;
  guint64 size, achieved, seconds = 0;
  HpAmount amount;
  g_autoptr(HpDBusManagerPageSize) pool = NULL;
  g_autofree char *size_name = NULL;
  g_autofree char *where = NULL;
  int status;

  g_option_context_set_summary (options, "Claim huge pages for a consumer of them.");
  g_option_context_set_description (options, CLAIM_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 4)
    return hpctl_usage_error ("usage: hugepagesctl claim CONSUMER SIZE AMOUNT");
  if (node_text != NULL && !parse_node (node_text, &node, &error))
    return hpctl_usage_error ("%s", error->message);
  if (timeout != NULL && (!hard || !hp_parse_u64 (timeout, &seconds, NULL) || seconds > 600))
    return hpctl_usage_error (hard ? "--timeout takes a number of seconds up to 600"
                                   : "--timeout only applies to --hard");
  if (drop_caches && !hard)
    return hpctl_usage_error ("--drop-caches only applies to --hard");
  if (!hpctl_resolve_size_arg (ctx, args[2], &size, &status))
    return status;
  /* relative amounts make no sense for a claim, which replaces the last */
  if (!hp_parse_amount (args[3], size, &amount, &error))
    return hpctl_usage_error ("%s", error->message);
  if (amount.kind != HP_AMOUNT_SET)
    return hpctl_usage_error ("a claim is an amount, not a change: '%s'", args[3]);
  /* a pool is addressed by its object */
  if ((pool = hpctl_get_page_size (ctx, size, &error)) == NULL)
    return hpctl_fail (error);

  g_variant_builder_init (&opts, G_VARIANT_TYPE_VARDICT);
  if (node != HP_CLAIM_ALL_NODES)
    g_variant_builder_add (&opts, "{sv}", HP_OPTION_NODE, g_variant_new_uint32 (node));
  hpctl_add_flag (&opts, HP_OPTION_PERSIST, persist);
  hpctl_add_flag (&opts, HP_OPTION_HARD, hard);
  if (timeout != NULL)
    g_variant_builder_add (&opts, "{sv}", HP_OPTION_TIMEOUT_MS, g_variant_new_uint32 ((guint32) seconds * 1000));
  hpctl_add_flag (&opts, HP_OPTION_DROP_CACHES, drop_caches);
  hpctl_add_flag (&opts, HP_OPTION_DRY_RUN, dry_run);

  if (!hp_dbus_manager_page_size_call_claim_sync (pool, args[1], amount.pages,
                                                  g_variant_builder_end (&opts),
                                                  hpctl_change_call_flags (ctx, dry_run),
                                                  dry_run ? -1 : HPCTL_CHANGE_TIMEOUT_MS, &achieved, NULL,
                                                  &error))
    return hpctl_fail (error);

  size_name = hp_size_name (size);
  where = node != HP_CLAIM_ALL_NODES ? g_strdup_printf (" on node %u", node) : g_strdup ("");
  if (dry_run)
    {
      g_print ("%s would claim %" G_GUINT64_FORMAT " pages of %s%s (nothing changed)\n",
               args[1], amount.pages, size_name, where);
      return HPCTL_EXIT_OK;
    }
  g_print ("%s: %" G_GUINT64_FORMAT " pages of %s%s (requested %" G_GUINT64_FORMAT ")%s\n",
           args[1], achieved, size_name, where, amount.pages, persist ? ", saved for boot" : "");
  if (achieved == amount.pages)
    return HPCTL_EXIT_OK;
  g_printerr ("%s: the kernel holds only %" G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT
              " pages claimed (memory is short or fragmented; the claim is recorded, "
              "see hugepagesctl explain)\n", g_get_prgname (), achieved, amount.pages);
  return HPCTL_EXIT_SHORTFALL;
}

int
hpctl_release (HpctlContext *ctx, GStrv args)
{
  g_autofree char *node_text = NULL;
  const GOptionEntry entries[] = {
    { "node", 0, 0, G_OPTION_ARG_STRING, &node_text, "Release the claim on this NUMA node", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("CONSUMER SIZE");
  g_autoptr(GError) error = NULL;
  GVariantBuilder opts;
  guint32 node = HP_CLAIM_ALL_NODES;
  guint64 size;
  g_autoptr(HpDBusManagerPageSize) pool = NULL;
  g_autofree char *size_name = NULL;
  guint64 held = 0;
  int status;

  g_option_context_set_summary (options, "Release a consumer's claim.");
  g_option_context_set_description (options, RELEASE_HELP);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 3)
    return hpctl_usage_error ("usage: hugepagesctl release CONSUMER SIZE");
  if (node_text != NULL && !parse_node (node_text, &node, &error))
    return hpctl_usage_error ("%s", error->message);
  if (!hpctl_resolve_size_arg (ctx, args[2], &size, &status))
    return status;
  if ((pool = hpctl_get_page_size (ctx, size, &error)) == NULL)
    return hpctl_fail (error);

  g_variant_builder_init (&opts, G_VARIANT_TYPE_VARDICT);
  if (node != HP_CLAIM_ALL_NODES)
    g_variant_builder_add (&opts, "{sv}", HP_OPTION_NODE, g_variant_new_uint32 (node));
  if (!hp_dbus_manager_page_size_call_release_sync (pool, args[1], g_variant_builder_end (&opts),
                                                    hpctl_prepare_interactive (ctx), HPCTL_CHANGE_TIMEOUT_MS,
                                                    &held, NULL, &error))
    return hpctl_fail (error);

  size_name = hp_size_name (size);
  if (node != HP_CLAIM_ALL_NODES)
    g_print ("%s: released its claim on %s pages on node %u; the node holds %" G_GUINT64_FORMAT
             " persistent pages\n", args[1], size_name, node, held);
  else
    g_print ("%s: released its claim on %s pages; the pool holds %" G_GUINT64_FORMAT
             " persistent pages\n", args[1], size_name, held);
  return HPCTL_EXIT_OK;
}

static const char *
user_text (guint32 uid, char *buf, gsize size)
{
  const char *name = g_get_user_name ();

  /* the service sends numbers; names are the client's to look up */
  if (uid == getuid () && name != NULL)
    g_snprintf (buf, size, "%s", name);
  else
    g_snprintf (buf, size, "%u", uid);
  return buf;
}

int
hpctl_claims (HpctlContext *ctx, GStrv args)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = { HPCTL_JSON_ENTRY (json), { NULL } };
  g_autoptr(GOptionContext) options = g_option_context_new (NULL);
  g_autoptr(GVariant) claims = NULL;
  g_autoptr(GError) error = NULL;
  GVariantIter iter;
  GVariant *claim;

  g_option_context_set_summary (options,
                                "List the claims: consumer, page size, pages, node, the uid\n"
                                "that made each, and whether it is saved for boot.");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!hpctl_parse_command (ctx, options, &args))
    return HPCTL_EXIT_USAGE;
  if (g_strv_length (args) != 1)
    return hpctl_usage_error ("usage: hugepagesctl claims");
  if (!hpctl_connect (ctx))
    return HPCTL_EXIT_ERROR;
  if (!hp_dbus_manager_call_get_claims_sync (ctx->manager,
                                             g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0),
                                             G_DBUS_CALL_FLAGS_NONE, -1, &claims, NULL, &error))
    return hpctl_fail (error);

  if (json)
    {
      g_autoptr(JsonBuilder) builder = hpctl_json_begin ();

      json_builder_set_member_name (builder, "claims");
      json_builder_begin_array (builder);
      g_variant_iter_init (&iter, claims);
      while ((claim = g_variant_iter_next_value (&iter)) != NULL)
        {
          G_GNUC_UNUSED g_autoptr(GVariant) owned = claim;
          g_autoptr(JsonNode) fields = hpctl_json_from_variant (claim);
          JsonObject *object = json_node_get_object (fields);

          /* a claim on the whole pool has no node: null, not absent */
          if (!json_object_has_member (object, "node"))
            json_object_set_null_member (object, "node");
          json_builder_add_value (builder, g_steal_pointer (&fields));
        }
      json_builder_end_array (builder);
      hpctl_json_print (builder);
      return HPCTL_EXIT_OK;
    }
  if (g_variant_n_children (claims) == 0)
    {
      g_print ("No claims.\n");
      return HPCTL_EXIT_OK;
    }
  g_print ("%-24s %6s %10s %6s %10s %s\n", "CONSUMER", "SIZE", "PAGES", "NODE", "UID", "KIND");
  g_variant_iter_init (&iter, claims);
  while ((claim = g_variant_iter_next_value (&iter)) != NULL)
    {
      const char *consumer = "";
      guint64 size = 0, pages = 0;
      guint32 node = HP_CLAIM_ALL_NODES, uid = 0;
      gboolean persisted = FALSE;
      g_autofree char *size_name = NULL;
      char node_buf[16], user_buf[64];

      g_variant_lookup (claim, "consumer", "&s", &consumer);
      g_variant_lookup (claim, "page-size", "t", &size);
      g_variant_lookup (claim, "pages", "t", &pages);
      g_variant_lookup (claim, "node", "u", &node);
      g_variant_lookup (claim, "uid", "u", &uid);
      g_variant_lookup (claim, "persisted", "b", &persisted);
      size_name = hp_size_name (size);
      if (node == HP_CLAIM_ALL_NODES)
        g_strlcpy (node_buf, "all", sizeof node_buf);
      else
        g_snprintf (node_buf, sizeof node_buf, "%u", node);
      g_print ("%-24s %6s %10" G_GUINT64_FORMAT " %6s %10s %s\n", consumer, size_name, pages,
               node_buf, user_text (uid, user_buf, sizeof user_buf),
               persisted ? "persisted" : "runtime");
      g_variant_unref (claim);
    }
  return HPCTL_EXIT_OK;
}
