/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The method table against the interface XML: every method of the XML has
 * exactly one row, no row names a method the XML lacks, every mutating
 * method asks polkit, and the option keys a row accepts are exactly the
 * ones the method's "@options:" line documents (or, for "As for X" alone,
 * the ones X documents), each with its documented type. A method added
 * without a row, an option documented but refused, or one accepted but
 * undocumented fails here. */
#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "hp-names.h"
#include "hpd-methods.h"

/* Methods that read only: they ask polkit nothing (GetUsage asks, but a
 * refusal narrows what it shows). */
static const char *const read_only_methods[] = {
  "Explain",
  "GetClaims",
  NULL,
};

static char *
read_xml (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "dbus",
                                                 "org.hugepages.Manager.xml", NULL);
  g_autoptr(GError) error = NULL;
  char *xml = NULL;

  g_assert_true (g_file_get_contents (path, &xml, NULL, &error));
  g_assert_no_error (error);
  return xml;
}

static GDBusNodeInfo *
read_node (const char *xml)
{
  g_autoptr(GError) error = NULL;
  GDBusNodeInfo *node = g_dbus_node_info_new_for_xml (xml, &error);

  g_assert_no_error (error);
  return node;
}

static void
test_every_method_has_one_row (void)
{
  g_autofree char *xml = read_xml ();
  g_autoptr(GDBusNodeInfo) node = read_node (xml);
  gsize n_rows;
  const HpdMethod *rows = hpd_methods_get (&n_rows);
  guint checked = 0;

  for (guint i = 0; node->interfaces[i] != NULL; i++)
    {
      GDBusInterfaceInfo *iface = node->interfaces[i];

      for (guint j = 0; iface->methods != NULL && iface->methods[j] != NULL; j++)
        {
          GDBusMethodInfo *m = iface->methods[j];
          const HpdMethod *row = NULL;
          guint found = 0, n_in = 0;

          for (gsize r = 0; r < n_rows; r++)
            if (g_str_equal (rows[r].interface_name, iface->name) &&
                g_str_equal (rows[r].method_name, m->name))
              {
                row = &rows[r];
                found++;
              }
          g_test_message ("%s.%s: %u row(s)", iface->name, m->name, found);
          g_assert_cmpuint (found, ==, 1);
          g_assert_true (hpd_method_lookup (iface->name, m->name) == row);
          g_assert_nonnull (row->handler);
          g_assert_nonnull (row->options);

          /* the dispatcher checks the last in-argument against the row */
          while (m->in_args != NULL && m->in_args[n_in] != NULL)
            n_in++;
          g_assert_cmpuint (n_in, >, 0);
          g_assert_cmpstr (m->in_args[n_in - 1]->name, ==, "options");
          g_assert_cmpstr (m->in_args[n_in - 1]->signature, ==, "a{sv}");

          if (g_strv_contains (read_only_methods, m->name))
            {
              g_assert_cmpint (row->auth, ==, HPD_AUTH_NONE);
              g_assert_null (row->action);
            }
          else
            {
              g_assert_cmpint (row->auth, !=, HPD_AUTH_NONE);
              g_assert_nonnull (row->action);
              g_assert_true (g_str_has_prefix (row->action, "org.hugepages.manager."));
            }
          checked++;
        }
    }

  /* and nothing else: a row for no method is one the bus never calls */
  g_assert_cmpuint (checked, ==, n_rows);
  g_assert_cmpuint (checked, >=, 20);
}

static void
test_no_row_without_method (void)
{
  g_autofree char *xml = read_xml ();
  g_autoptr(GDBusNodeInfo) node = read_node (xml);
  gsize n_rows;
  const HpdMethod *rows = hpd_methods_get (&n_rows);

  for (gsize r = 0; r < n_rows; r++)
    {
      GDBusInterfaceInfo *iface = g_dbus_node_info_lookup_interface (node, rows[r].interface_name);

      g_test_message ("%s.%s", rows[r].interface_name, rows[r].method_name);
      g_assert_nonnull (iface);
      g_assert_nonnull (g_dbus_interface_info_lookup_method (iface, rows[r].method_name));
      g_assert_true ((rows[r].auth == HPD_AUTH_NONE) == (rows[r].action == NULL));
    }
  g_assert_null (hpd_method_lookup (HP_PAGE_SIZE_INTERFACE, "NoSuchMethod"));
  g_assert_null (hpd_method_lookup ("org.example.Other", "SetMinimum"));
  g_assert_null (hpd_method_lookup (HP_MANAGER_INTERFACE, "Claim"));
  g_assert_null (hpd_method_lookup (NULL, NULL));
}

/* The "@options:" line of the gtk-doc comment right before
 * <method name="@name">, NULL when it has none. */
static char *
options_doc (const char *xml, const char *name)
{
  g_autofree char *tag = g_strdup_printf ("<method name=\"%s\">", name);
  const char *method = strstr (xml, tag);
  const char *comment_end, *comment, *line, *end;

  g_assert_nonnull (method);
  comment_end = g_strrstr_len (xml, method - xml, "-->");
  g_assert_nonnull (comment_end);
  /* only blank space between the comment and the method */
  for (const char *p = comment_end + 3; p < method; p++)
    g_assert_true (g_ascii_isspace (*p));
  comment = g_strrstr_len (xml, comment_end - xml, "<!--");
  g_assert_nonnull (comment);
  line = g_strstr_len (comment, comment_end - comment, "@options:");
  if (line == NULL)
    return NULL;
  end = strchr (line, '\n');
  return g_strndup (line, end - line);
}

static gboolean
is_key_of_any_row (const char *key)
{
  gsize n_rows;
  const HpdMethod *rows = hpd_methods_get (&n_rows);

  for (gsize r = 0; r < n_rows; r++)
    for (const HpdOptionSpec *o = rows[r].options; o->key != NULL; o++)
      if (g_str_equal (o->key, key))
        return TRUE;
  return FALSE;
}

/* key -> documented type letter ("" when the line gives none): a quoted
 * word followed by " (" is a key; any other quoted word is one when some
 * row knows it as a key (a line may list keys it describes elsewhere, and
 * quote values such as "recommended" or "N%"). */
static GHashTable *
documented_keys (const char *doc)
{
  GHashTable *keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GRegex) quoted = g_regex_new ("\"([a-z][a-z-]*)\"( \\(([a-z]))?", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  g_regex_match (quoted, doc, 0, &match);
  while (g_match_info_matches (match))
    {
      g_autofree char *key = g_match_info_fetch (match, 1);
      g_autofree char *type = g_match_info_fetch (match, 3);

      if ((type != NULL && *type != '\0') || is_key_of_any_row (key))
        {
          const char *known = g_hash_table_lookup (keys, key);

          if (known == NULL || *known == '\0')
            g_hash_table_replace (keys, g_strdup (key), g_strdup (type != NULL ? type : ""));
        }
      g_match_info_next (match, NULL);
    }
  return keys;
}

/* "As for X" or "As for org.hugepages.Manager.X()": X */
static char *
referred_method (const char *doc)
{
  g_autoptr(GRegex) as_for = g_regex_new ("[Aa]s for (?:org\\.hugepages\\.Manager\\.)?([A-Z][A-Za-z]*)",
                                          0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  if (!g_regex_match (as_for, doc, 0, &match))
    return NULL;
  return g_match_info_fetch (match, 1);
}

static GHashTable *
keys_of_method (const char *xml, const char *name)
{
  g_autofree char *doc = options_doc (xml, name);
  g_autofree char *referred = NULL;
  GHashTable *keys;

  if (doc == NULL)
    return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  keys = documented_keys (doc);
  if (g_hash_table_size (keys) == 0 && (referred = referred_method (doc)) != NULL)
    {
      g_hash_table_unref (keys);
      return keys_of_method (xml, referred);
    }
  return keys;
}

static void
test_options_as_documented (void)
{
  g_autofree char *xml = read_xml ();
  gsize n_rows;
  const HpdMethod *rows = hpd_methods_get (&n_rows);
  guint with_options = 0;

  for (gsize r = 0; r < n_rows; r++)
    {
      g_autoptr(GHashTable) documented = keys_of_method (xml, rows[r].method_name);
      guint n_row = 0;
      GHashTableIter iter;
      gpointer key;

      g_test_message ("%s: %u documented option(s)", rows[r].method_name,
                      g_hash_table_size (documented));
      for (const HpdOptionSpec *o = rows[r].options; o->key != NULL; o++)
        {
          const char *type = g_hash_table_lookup (documented, o->key);

          g_test_message ("  %s (%s) accepted, documented as (%s)", o->key, o->type, type);
          g_assert_nonnull (type);
          /* "v" takes more than one type; the line names them */
          if (*type != '\0' && !g_str_equal (o->type, "v"))
            g_assert_cmpstr (type, ==, o->type);
          n_row++;
        }
      /* every documented key is accepted */
      g_hash_table_iter_init (&iter, documented);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        {
          gboolean in_row = FALSE;

          for (const HpdOptionSpec *o = rows[r].options; o->key != NULL; o++)
            in_row |= g_str_equal (o->key, key);
          g_test_message ("  %s documented", (const char *) key);
          g_assert_true (in_row);
        }
      g_assert_cmpuint (n_row, ==, g_hash_table_size (documented));
      with_options += n_row > 0;
    }
  g_assert_cmpuint (with_options, >=, 15);
}

/* The keys of the table are the contract's (hp-names.h), which clients
 * build their calls from, and the contract names no key that no method
 * takes. */
static void
test_option_keys_are_the_contracts (void)
{
  const char *const contract[] = { HP_OPTION_KEYS, NULL };
  g_autoptr(GHashTable) used = g_hash_table_new (g_str_hash, g_str_equal);
  gsize n_rows;
  const HpdMethod *rows = hpd_methods_get (&n_rows);

  for (gsize r = 0; r < n_rows; r++)
    for (const HpdOptionSpec *o = rows[r].options; o->key != NULL; o++)
      {
        g_test_message ("%s: %s", rows[r].method_name, o->key);
        g_assert_true (g_strv_contains (contract, o->key));
        g_hash_table_add (used, (gpointer) o->key);
      }
  for (guint i = 0; contract[i] != NULL; i++)
    {
      g_test_message ("%s taken by a method", contract[i]);
      g_assert_true (g_hash_table_contains (used, contract[i]));
    }
}

/* A pool is addressed by its object (docs/api.md): every method that
 * changes one pool is on the PageSize interface, and no method takes a page
 * size as an argument or an option; sizes appear only as data in records. */
static void
test_pools_addressed_by_object (void)
{
  g_autofree char *xml = read_xml ();
  g_autoptr(GDBusNodeInfo) node = read_node (xml);
  const char *const pool_methods[] = { "SetMinimum", "SetMaximum", "SetNodePages", "Demote",
                                       "CreateMount", "Claim", "Release", NULL };
  gsize n_rows;
  const HpdMethod *rows = hpd_methods_get (&n_rows);

  for (guint i = 0; node->interfaces[i] != NULL; i++)
    for (guint m = 0; node->interfaces[i]->methods[m] != NULL; m++)
      {
        GDBusMethodInfo *method = node->interfaces[i]->methods[m];

        for (guint a = 0; method->in_args != NULL && method->in_args[a] != NULL; a++)
          {
            g_test_message ("%s.%s(%s)", node->interfaces[i]->name, method->name,
                            method->in_args[a]->name);
            g_assert_cmpstr (method->in_args[a]->name, !=, "page_size");
          }
      }
  for (gsize r = 0; r < n_rows; r++)
    for (const HpdOptionSpec *o = rows[r].options; o->key != NULL; o++)
      g_assert_cmpstr (o->key, !=, "page-size");
  for (guint i = 0; pool_methods[i] != NULL; i++)
    {
      g_test_message ("%s", pool_methods[i]);
      g_assert_nonnull (hpd_method_lookup (HP_PAGE_SIZE_INTERFACE, pool_methods[i]));
      g_assert_null (hpd_method_lookup (HP_MANAGER_INTERFACE, pool_methods[i]));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/methods/every-method-has-one-row", test_every_method_has_one_row);
  g_test_add_func ("/methods/no-row-without-method", test_no_row_without_method);
  g_test_add_func ("/methods/options-as-documented", test_options_as_documented);
  g_test_add_func ("/methods/option-keys-are-the-contracts", test_option_keys_are_the_contracts);
  g_test_add_func ("/methods/pools-addressed-by-object", test_pools_addressed_by_object);
  return g_test_run ();
}
