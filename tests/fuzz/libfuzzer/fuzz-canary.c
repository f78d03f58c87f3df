/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Not a parser: planted bugs behind fixed inputs, so that
 * tests/fuzz/test_libfuzzer.py can show that the harnesses are built with
 * AddressSanitizer, UndefinedBehaviorSanitizer (which stops at the first
 * error) and LeakSanitizer, and that each makes the run fail:
 *   "CANARY-ASAN"  reads a heap block after freeing it
 *   "CANARY-UBSAN" overflows a signed integer
 *   "CANARY-LEAK"  leaks a heap block */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "fuzz-common.h"

/* Where the planted bugs put what they read and allocate, so that
 * nothing is optimised away. */
static volatile int observed;
static void *volatile leaked;

static gboolean
is (const uint8_t *data, size_t size, const char *word)
{
  return size == strlen (word) && memcmp (data, word, size) == 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (is (data, size, "CANARY-ASAN"))
    {
      char *copy = g_memdup2 (data, size);

      g_free (copy);
      observed = copy[0];
    }
  else if (is (data, size, "CANARY-UBSAN"))
    {
      volatile int big = INT_MAX;

      observed = big + (int) size;
    }
  else if (is (data, size, "CANARY-LEAK"))
    {
      leaked = g_memdup2 (data, size);
      leaked = NULL;
    }
  return 0;
}
