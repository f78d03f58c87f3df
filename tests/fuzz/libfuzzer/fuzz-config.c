/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The configuration file (src/config/hpd-config.c): hugepagesd.conf and its
 * drop-ins, written by admins and, for 90-persisted.conf, rewritten by
 * the service from hpd_config_to_text. Checks that the canonical text
 * parses back without errors to an equal configuration (what hpd-persist
 * relies on), that every message and origin is text a bus string and a
 * log line can carry, whatever the file's name, and that the boot
 * parameters the configuration asks for read back, as the kernel reads
 * its command line, as the same pages.
 *
 * Input: the file's text; or, with a NUL in it, the file's name, a NUL,
 * and the text. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "hpd-boot.h"
#include "hpd-config.h"

static HpdConfig *
parse (const char *name, const char *text, gssize length)
{
  HpdConfig *config = hpd_config_new ();

  hpd_config_parse_text (name, text, length, config);
  return config;
}

static void
check_value (const HpdConfigValue *v)
{
  g_autofree char *text = hpd_config_value_to_string (v);

  FUZZ_CHECK ((text != NULL) == (v->kind != HPD_CONFIG_UNSET), "kind %d", v->kind);
  FUZZ_CHECK (v->kind == HPD_CONFIG_UNSET ||
              (v->origin.file != NULL && fuzz_is_clean_text (v->origin.file)), "origin");
  FUZZ_CHECK (text == NULL || (fuzz_is_clean_text (text) && g_str_is_ascii (text)), "'%s'", text);
}

static void
check_values (const HpdConfig *c)
{
  for (GTreeNode *n = g_tree_node_first (c->pools); n != NULL; n = g_tree_node_next (n))
    {
      const HpdConfigPool *pool = g_tree_node_value (n);

      FUZZ_CHECK (pool->page_size == 0 || (pool->page_size & (pool->page_size - 1)) == 0,
                  "pool size %" G_GUINT64_FORMAT, pool->page_size);
      check_value (&pool->minimum);
      check_value (&pool->maximum);
      for (GTreeNode *m = g_tree_node_first (pool->nodes); m != NULL; m = g_tree_node_next (m))
        {
          FUZZ_CHECK (GPOINTER_TO_UINT (g_tree_node_key (m)) < HPD_CONFIG_MAX_NODES, "node");
          check_value (g_tree_node_value (m));
        }
    }
  for (GTreeNode *n = g_tree_node_first (c->mounts); n != NULL; n = g_tree_node_next (n))
    {
      const HpdConfigMount *m = g_tree_node_value (n);

      check_value (&m->page_size);
      check_value (&m->max_size);
      check_value (&m->min_size);
      check_value (&m->max_inodes);
      check_value (&m->mode);
      FUZZ_CHECK (m->mode.kind == HPD_CONFIG_UNSET || (m->mode.value & ~(guint64) 01777) == 0,
                  "mode %" G_GUINT64_FORMAT, m->mode.value);
      FUZZ_CHECK (m->max_inodes.kind == HPD_CONFIG_UNSET ||
                  (m->max_inodes.value >= 1 && m->max_inodes.value <= (G_GUINT64_CONSTANT (1) << 31)),
                  "max-inodes");
    }
  check_value (&c->shmmax);
  check_value (&c->min_free_kbytes);
  check_value (&c->zone_movable);
  check_value (&c->boot_default_page_size);
}

/* ConfigurationErrors is a bus property of strings, one log line each. */
static void
check_messages (GPtrArray *messages, guint limit)
{
  FUZZ_CHECK (messages->len <= limit, "%u messages", messages->len);
  for (guint i = 0; i < messages->len; i++)
    {
      const char *text = g_ptr_array_index (messages, i);

      FUZZ_CHECK (text != NULL && fuzz_is_clean_text (text), "message %u: '%s'", i, text);
    }
}

/* What hpd-persist does: write the configuration out and read it back. */
static void
check_round_trip (const HpdConfig *config)
{
  g_autofree char *text = hpd_config_to_text (config);
  g_autoptr(HpdConfig) again = parse ("canonical.conf", text, -1);
  g_autofree char *text_again = NULL;

  FUZZ_CHECK (fuzz_is_clean_lines (text), "canonical text is not clean");
  FUZZ_CHECK (again->errors->len == 0, "canonical text has errors: %s\n%s",
              (const char *) g_ptr_array_index (again->errors, 0), text);
  FUZZ_CHECK (hpd_config_equal (config, again), "canonical text parses to another configuration:\n%s",
              text);
  text_again = hpd_config_to_text (again);
  FUZZ_CHECK (g_str_equal (text, text_again), "canonical text not stable:\n%s\n---\n%s",
              text, text_again);
}

static void
check_boot (const HpdConfig *config)
{
  const guint64 defaults[] = { G_GUINT64_CONSTANT (2) << 20, G_GUINT64_CONSTANT (1) << 30 };
  GPtrArray *pools = fuzz_machine_pools ();

  for (gsize i = 0; i < G_N_ELEMENTS (defaults); i++)
    {
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(HpdBootParams) wanted = hpd_boot_params_from_config (config, pools, defaults[i],
                                                                     problems);

      check_messages (problems, G_MAXUINT);
      fuzz_check_boot_params (wanted, pools, defaults[i]);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* Bytes up to a first NUL name the file (the loader passes any name a
   * directory lists); without a NUL, all of it is the file. */
  const uint8_t *nul = memchr (data, '\0', size);
  g_autofree char *name = nul != NULL ? fuzz_take (&data, &size, (size_t) (nul - data))
                                      : g_strdup ("fuzz.conf");
  g_autoptr(HpdConfig) config = NULL;
  g_autoptr(HpdConfig) twice = hpd_config_new ();

  if (nul != NULL)
    {
      data++;
      size--;
    }
  /* the loader hands over a file's bytes with their length, NULs and all */
  config = parse (name, (const char *) data, (gssize) size);

  check_values (config);
  check_messages (config->errors, HPD_CONFIG_MAX_ERRORS_PER_FILE + 1);
  check_round_trip (config);
  check_boot (config);

  /* the same file read twice (as two drop-ins) sets the same */
  hpd_config_parse_text (name, (const char *) data, (gssize) size, twice);
  hpd_config_parse_text ("b.conf", (const char *) data, (gssize) size, twice);
  FUZZ_CHECK (hpd_config_equal (config, twice), "reading it twice changes it");
  FUZZ_CHECK (twice->errors->len == 2 * config->errors->len, "errors");

  /* as a C string (hpd_persist_merge's snippets), up to the first NUL */
  if (memchr (data, '\0', size) == NULL)
    {
      g_autofree char *text = fuzz_cstring (data, size);
      g_autoptr(HpdConfig) from_string = parse (name, text, -1);

      FUZZ_CHECK (hpd_config_equal (config, from_string), "-1 and the length differ");
      FUZZ_CHECK (from_string->errors->len == config->errors->len, "errors");
    }

  /* hpd-persist's edits keep the text canonical */
  if (g_tree_nnodes (config->pools) > 0)
    {
      const HpdConfigPool *pool = g_tree_node_value (g_tree_node_first (config->pools));
      guint64 page_size = pool->page_size;

      hpd_config_unset_pool_minimum (config, page_size);
      hpd_config_unset_pool_nodes (config, page_size);
    }
  if (g_tree_nnodes (config->mounts) > 0)
    {
      g_autofree char *key = g_strdup (g_tree_node_key (g_tree_node_first (config->mounts)));

      hpd_config_remove_mount (config, key);
    }
  check_round_trip (config);
  return 0;
}
