/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "hp-units.h"
#include "hpd-pool.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* A critical from GLib is a broken contract: make it a crash that
   * libFuzzer reports, as G_DEBUG=fatal-criticals does in the unit tests. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

void
fuzz_fail (const char *file, int line, const char *check, const char *format, ...)
{
  va_list args;

  fprintf (stderr, "%s:%d: check failed: %s: ", file, line, check);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  fflush (stderr);
  abort ();
}

char *
fuzz_cstring (const uint8_t *data, size_t size)
{
  const uint8_t *nul = memchr (data, '\0', size);
  size_t len = nul != NULL ? (size_t) (nul - data) : size;
  char *text = g_malloc (len + 1);

  memcpy (text, data, len);
  text[len] = '\0';
  return text;
}

char *
fuzz_take (const uint8_t **data, size_t *size, size_t n)
{
  char *text;

  if (n > *size)
    n = *size;
  text = fuzz_cstring (*data, n);
  *data += n;
  *size -= n;
  return text;
}

guint64
fuzz_take_u64 (const uint8_t **data, size_t *size)
{
  guint64 v = 0;

  for (guint i = 0; i < 8 && *size > 0; i++)
    {
      v |= (guint64) **data << (8 * i);
      (*data)++;
      (*size)--;
    }
  return v;
}

gboolean
fuzz_is_utf8 (const char *text)
{
  return g_utf8_validate (text, -1, NULL);
}

gboolean
fuzz_is_clean_text (const char *text)
{
  if (!g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (g_ascii_iscntrl (*p) && *p != '\t')
      return FALSE;
  return TRUE;
}

gboolean
fuzz_is_clean_lines (const char *text)
{
  if (!g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (g_ascii_iscntrl (*p) && *p != '\t' && *p != '\n')
      return FALSE;
  return TRUE;
}

GPtrArray *
fuzz_machine_pools (void)
{
  static GPtrArray *pools;
  const guint64 sizes[] = {
    G_GUINT64_CONSTANT (64) << 10, G_GUINT64_CONSTANT (2) << 20, G_GUINT64_CONSTANT (32) << 20,
      G_GUINT64_CONSTANT (1) << 30, G_GUINT64_CONSTANT (16) << 30,
  };

  if (pools != NULL)
    return pools;
  pools = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_pool_free);
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      HpdPool *pool = g_new0 (HpdPool, 1);
      guint n_nodes = sizes[i] > (G_GUINT64_CONSTANT (1) << 30) ? 2 : 4;

      pool->size = sizes[i];
      pool->name = hp_size_name (sizes[i]);
      pool->gigantic = sizes[i] > (G_GUINT64_CONSTANT (4) << 20);
      pool->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint node = 0; node < n_nodes; node++)
        g_array_append_val (pool->nodes, node);
      g_ptr_array_add (pools, pool);
    }
  return pools;
}

void
fuzz_check_boot_params (const HpdBootParams *params, GPtrArray *pools, guint64 default_size)
{
  g_autofree char *text = hpd_boot_params_to_string (params);
  g_autofree char *subset = NULL;
  g_autoptr(HpdBootParams) again = NULL;

  for (guint i = 0; i < params->pools->len; i++)
    {
      const HpdBootPool *pool = g_ptr_array_index (params->pools, i);
      gboolean known = FALSE;
      guint64 sum = 0;

      for (guint j = 0; j < pools->len; j++)
        known |= ((const HpdPool *) g_ptr_array_index (pools, j))->size == pool->size;
      FUZZ_CHECK (known, "size %" G_GUINT64_FORMAT, pool->size);
      if (i > 0)
        FUZZ_CHECK (pool->size > ((const HpdBootPool *) g_ptr_array_index (params->pools, i - 1))->size,
                    "sizes not ascending");
      if (pool->nodes == NULL)
        continue;
      for (guint j = 0; j < pool->nodes->len; j++)
        {
          const HpdBootNode *n = &g_array_index (pool->nodes, HpdBootNode, j);

          FUZZ_CHECK (n->node < HPD_CONFIG_MAX_NODES, "node %u", n->node);
          if (j > 0)
            FUZZ_CHECK (n->node > g_array_index (pool->nodes, HpdBootNode, j - 1).node,
                        "nodes not ascending");
          FUZZ_CHECK (g_uint64_checked_add (&sum, sum, n->pages), "node pages overflow");
        }
      FUZZ_CHECK (sum == pool->pages,
                  "%" G_GUINT64_FORMAT "-byte pool: %" G_GUINT64_FORMAT " pages, nodes add up to %"
                  G_GUINT64_FORMAT, pool->size, pool->pages, sum);
    }

  /* integers and fixed words only */
  FUZZ_CHECK (fuzz_is_clean_text (text) && g_str_is_ascii (text), "'%s'", text);
  FUZZ_CHECK (strchr (text, '"') == NULL && strchr (text, '\t') == NULL, "'%s'", text);
  subset = hpd_boot_cmdline_huge_pages (text);
  FUZZ_CHECK (g_str_equal (subset, text), "'%s' -> '%s'", text, subset);

  /* booting with it gives what it says */
  again = hpd_boot_params_from_cmdline (text, pools, default_size);
  FUZZ_CHECK (!hpd_boot_params_differ (params, again), "'%s' reads back differently", text);
}
