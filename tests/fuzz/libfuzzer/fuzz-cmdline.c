/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The kernel command line (src/config/hpd-boot-cmdline.c): split as the kernel
 * splits it, the hugetlb parameters shown in KernelCommandLine, and the
 * pages the kernel's rules give. Checks that what goes onto the bus is
 * valid UTF-8, that the subset means what the whole line means, and that
 * the result written back as parameters reads back the same. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "hpd-boot.h"
#include "hpd-parse.h"

/* UTF-8 without control characters (of any kind: C0, DEL or C1). */
static gboolean
is_printable (const char *text)
{
  if (!g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

static gboolean
same_params (const HpdBootParams *a, const HpdBootParams *b)
{
  return a->default_size == b->default_size &&
         !hpd_boot_params_differ (a, b) && !hpd_boot_params_differ (b, a);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const guint64 defaults[] = { G_GUINT64_CONSTANT (2) << 20, G_GUINT64_CONSTANT (1) << 30 };
  g_autofree char *text = fuzz_cstring (data, size);
  g_autoptr(GPtrArray) args = hpd_boot_cmdline_split (text);
  g_autofree char *subset = hpd_boot_cmdline_huge_pages (text);
  g_autofree char *subset_again = hpd_boot_cmdline_huge_pages (subset);
  GPtrArray *pools = fuzz_machine_pools ();
  /* values shown as they are: no quotes in them, nothing escaped */
  gboolean verbatim = TRUE;

  for (guint i = 0; i < args->len; i++)
    {
      const HpdBootArg *arg = g_ptr_array_index (args, i);

      FUZZ_CHECK (arg->name != NULL, "argument %u without a name", i);
      FUZZ_CHECK (strlen (arg->name) <= strlen (text), "argument %u", i);
      if (arg->value != NULL)
        verbatim &= strchr (arg->value, '"') == NULL && is_printable (arg->value);
    }

  /* what shows values (and file names) is printable, and leaves printable
   * text alone */
  {
    g_autofree char *printable = hpd_parse_printable (text);

    FUZZ_CHECK (is_printable (printable), "hpd_parse_printable");
    FUZZ_CHECK (!is_printable (text) || g_str_equal (printable, text), "hpd_parse_printable");
  }

  /* KernelCommandLine is a bus string, and part of an Explain message */
  FUZZ_CHECK (is_printable (subset), "KernelCommandLine is not printable UTF-8");
  /* a value with a quote inside reads back otherwise once the subset puts
   * it in quotes; without such quotes (and without escapes) the subset is
   * its own subset */
  if (verbatim)
    FUZZ_CHECK (g_str_equal (subset, subset_again), "'%s' -> '%s'", subset, subset_again);

  for (gsize i = 0; i < G_N_ELEMENTS (defaults); i++)
    {
      g_autoptr(HpdBootParams) params = hpd_boot_params_from_cmdline (text, pools, defaults[i]);

      fuzz_check_boot_params (params, pools, defaults[i]);
      if (verbatim)
        {
          g_autoptr(HpdBootParams) from_subset = hpd_boot_params_from_cmdline (subset, pools,
                                                                               defaults[i]);
          FUZZ_CHECK (same_params (params, from_subset), "'%s' means other pages than '%s'",
                      subset, text);
        }
    }
  return 0;
}
