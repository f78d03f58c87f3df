/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hpd_memory_empty_thread_cache(): the freed blocks glibc keeps for this
 * thread's next allocations go back to the heap, where malloc_trim() can
 * return their pages. To mallinfo2() blocks in that cache are in use, in
 * the heap they are free. */
#include "config.h"

#include <malloc.h>
#include <stdlib.h>

#include "hpd-memory.h"

/* The sizes glibc caches by default (7 blocks each of 32 to 1040 bytes
 * with their headers), as hpd-memory.c reckons them. */
#define PER_SIZE 7
#define SIZES 64
#define SMALLEST_REQUEST 24
#define STEP 16

static size_t
in_use (void)
{
  return mallinfo2 ().uordblks;
}

/* Allocates and frees PER_SIZE blocks of every cached size: the frees
 * fill this thread's cache. Returns the bytes of the blocks with their
 * headers. */
static size_t
fill_thread_cache (void)
{
  void *blocks[SIZES * PER_SIZE];
  size_t bytes = 0;

  for (guint size = 0; size < SIZES; size++)
    for (guint i = 0; i < PER_SIZE; i++)
      {
        blocks[size * PER_SIZE + i] = malloc (SMALLEST_REQUEST + size * STEP);
        bytes += SMALLEST_REQUEST + size * STEP + sizeof (size_t);
      }
  for (guint i = 0; i < SIZES * PER_SIZE; i++)
    free (blocks[i]);
  return bytes;
}

/* In a thread of its own, whose cache starts empty whatever the test
 * program's main thread did before. */
static gpointer
cached_blocks_go_back (gpointer unused)
{
  size_t before, filled, cached, after;

  before = in_use ();
  filled = fill_thread_cache ();
  cached = in_use () - before;
  if (cached < filled * 9 / 10)
    {
      g_test_skip ("this malloc keeps no per-thread cache of freed blocks (not glibc's, "
                   "or GLIBC_TUNABLES changes the cache)");
      return NULL;
    }
  hpd_memory_empty_thread_cache ();
  after = in_use ();
  g_test_message ("cache of %zu bytes: in use %zu, after filling %zu, after emptying %zu",
                  filled, before, before + cached, after);
  g_assert_cmpuint (before + cached - after, >=, filled * 9 / 10);
  return NULL;
}

static void
test_cached_blocks_go_back_to_the_heap (void)
{
  g_thread_join (g_thread_new ("test", cached_blocks_go_back, NULL));
}

static void
test_twice_in_a_row (void)
{
  size_t before;

  hpd_memory_empty_thread_cache ();
  before = in_use ();
  /* an empty cache stays empty, and nothing is lost on the way */
  hpd_memory_empty_thread_cache ();
  g_assert_cmpuint (in_use (), <=, before + 4096);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/thread-cache/emptied", test_cached_blocks_go_back_to_the_heap);
  g_test_add_func ("/memory/thread-cache/twice", test_twice_in_a_row);
  return g_test_run ();
}
