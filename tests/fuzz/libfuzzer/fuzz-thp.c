/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Transparent huge page choice files such as "always [madvise] never\n"
 * (hpd_parse_thp_choice in src/kernel/hpd-parse.c): the current value and the
 * allowed ones become bus properties and the values SetThp accepts. */
#include "config.h"

#include <string.h>

#include "fuzz-common.h"
#include "hpd-parse.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_cstring (data, size);
  g_autofree char *current = NULL;
  g_auto(GStrv) choices = NULL;
  g_autofree char *again_current = NULL;
  g_auto(GStrv) again_choices = NULL;
  g_autoptr(GString) back = NULL;
  guint selected = 0;

  if (!hpd_parse_thp_choice (text, &current, &choices))
    return 0;

  FUZZ_CHECK (g_strv_length (choices) >= 2, "'%s'", text);
  FUZZ_CHECK (g_strv_contains ((const char *const *) choices, current), "'%s'", text);
  back = g_string_new (NULL);
  for (guint i = 0; choices[i] != NULL; i++)
    {
      const char *word = choices[i];

      /* words reach the bus, the log and sysfs writes */
      FUZZ_CHECK (*word != '\0', "empty choice in '%s'", text);
      for (const char *p = word; *p != '\0'; p++)
        FUZZ_CHECK (g_ascii_isalnum (*p) || strchr ("_-+", *p) != NULL, "'%s'", word);
      if (i > 0)
        g_string_append_c (back, ' ');
      /* the kernel brackets one of them */
      if (selected == 0 && g_str_equal (word, current))
        {
          g_string_append_printf (back, "[%s]", word);
          selected++;
        }
      else
        g_string_append (back, word);
    }
  g_string_append_c (back, '\n');

  FUZZ_CHECK (hpd_parse_thp_choice (back->str, &again_current, &again_choices), "'%s'", back->str);
  FUZZ_CHECK (g_str_equal (again_current, current), "'%s'", back->str);
  FUZZ_CHECK (g_strv_equal ((const char *const *) again_choices, (const char *const *) choices),
              "'%s'", back->str);
  return 0;
}
