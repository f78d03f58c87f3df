/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hpd_allocators_tune(): the service's mmap threshold is set unless the
 * environment sets that tunable itself.
 * hpd_allocators_empty_thread_cache(): the freed blocks glibc keeps for
 * this thread's next allocations go back to the heap, where malloc_trim()
 * can return their pages, unless the environment turned the cache off. To
 * mallinfo2() blocks in that cache are in use, in the heap they are free. */
#include "config.h"

#include <malloc.h>
#include <stdlib.h>

#include "hpd-allocators.h"

/* The sizes glibc caches by default (7 blocks each of 32 to 1040 bytes
 * with their headers), as hpd-allocators.c reckons them. */
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

/* Fills the calling thread's cache and empties it with
 * hpd_allocators_empty_thread_cache(), telling it the process's
 * environment set @glibc_tunables. Returns the bytes the emptying gave
 * back to the heap, with the cache's size in @filled; skips the test and
 * returns 0 when malloc keeps no per-thread cache. */
static gint64
fill_and_empty (const char *glibc_tunables, size_t *filled)
{
  size_t before, cached, after;

  before = in_use ();
  *filled = fill_thread_cache ();
  cached = in_use () - before;
  if (cached < *filled * 9 / 10)
    {
      g_test_skip ("this malloc keeps no per-thread cache of freed blocks (not glibc's, "
                   "or GLIBC_TUNABLES changes the cache)");
      return 0;
    }
  hpd_allocators_empty_thread_cache (glibc_tunables);
  after = in_use ();
  g_test_message ("cache of %zu bytes: in use %zu, after filling %zu, after emptying %zu",
                  *filled, before, before + cached, after);
  return (gint64) (before + cached) - (gint64) after;
}

/* In a thread of its own, whose cache starts empty whatever the test
 * program's main thread did before. */
static gpointer
cached_blocks_go_back (gpointer unused)
{
  size_t filled;
  gint64 given_back = fill_and_empty (NULL, &filled);

  if (!g_test_failed () && given_back != 0)
    g_assert_cmpint (given_back, >=, filled * 9 / 10);
  return NULL;
}

static void
test_cached_blocks_go_back_to_the_heap (void)
{
  g_thread_join (g_thread_new ("test", cached_blocks_go_back, NULL));
}

static gpointer
cache_left_alone (gpointer unused)
{
  size_t filled;

  g_assert_cmpint (fill_and_empty ("glibc.malloc.arena_max=1:glibc.malloc.tcache_count=0",
                                   &filled), <, filled / 10);
  return NULL;
}

/* An environment that turned the cache off at exec has nothing to empty:
 * no thread is started for it. This process runs with the cache, so
 * telling the emptying otherwise shows whether it looked. */
static void
test_cache_turned_off_is_left_alone (void)
{
  g_thread_join (g_thread_new ("test", cache_left_alone, NULL));
}

static void
test_cache_off_read_from_tunables (void)
{
  static const struct { const char *tunables; gboolean off; } cases[] = {
    { NULL, FALSE },
    { "", FALSE },
    { "glibc.malloc.tcache_count=0", TRUE },
    { "glibc.malloc.tcache_count=00", TRUE },
    { "glibc.malloc.tcache_count=7", FALSE },
    { "glibc.malloc.arena_max=1:glibc.malloc.tcache_count=0", TRUE },
    { "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=8192", TRUE },
    /* the last of a tunable named twice wins, as in glibc */
    { "glibc.malloc.tcache_count=0:glibc.malloc.tcache_count=3", FALSE },
    { "glibc.malloc.tcache_count=3:glibc.malloc.tcache_count=0", TRUE },
    /* only the count turns the cache off */
    { "glibc.malloc.tcache_max=0", FALSE },
    { "glibc.malloc.tcache_count_x=0", FALSE },
    { "xglibc.malloc.tcache_count=0", FALSE },
    /* what cannot be read counts as on: emptying an empty cache only costs a thread */
    { "glibc.malloc.tcache_count=", FALSE },
    { "glibc.malloc.tcache_count=0x0", FALSE },
    { "glibc.malloc.tcache_count=-0", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("GLIBC_TUNABLES=%s", cases[i].tunables ? cases[i].tunables : "(unset)");
      g_assert_cmpint (hpd_allocators_thread_cache_off (cases[i].tunables), ==, cases[i].off);
    }
}

static void
test_twice_in_a_row (void)
{
  size_t before;

  hpd_allocators_empty_thread_cache (NULL);
  before = in_use ();
  /* an empty cache stays empty, and nothing is lost on the way */
  hpd_allocators_empty_thread_cache (NULL);
  g_assert_cmpuint (in_use (), <=, before + 4096);
}

/* An environment hpd_allocators_tune() is given, and whether a block of
 * 64 kB then comes from mmap(): it does under the service's threshold
 * (8 kB), not under glibc's default (128 kB), which an administrator's own
 * setting here leaves in place (glibc itself never read these). malloc
 * looks at the threshold only when the heap's free top is too small, so
 * the top is trimmed first. G_SLICE is set in each, as GLib is running
 * already. */
typedef struct
{
  const char *glibc_tunables;
  const char *malloc_variable;
  gboolean mmapped;
} ThresholdCase;

static const ThresholdCase threshold_cases[] = {
  { NULL, NULL, TRUE },
  { "glibc.malloc.tcache_count=0", NULL, TRUE },
  { "glibc.malloc.mmap_threshold=131072", NULL, FALSE },
  { "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=131072", NULL, FALSE },
  { NULL, "MALLOC_MMAP_THRESHOLD_=131072", FALSE },
  /* names that only begin or end like it are another tunable */
  { "glibc.malloc.mmap_threshold_x=131072", NULL, TRUE },
  { "xglibc.malloc.mmap_threshold=131072", NULL, TRUE },
  { NULL, "MALLOC_MMAP_THRESHOLD_X=131072", TRUE },
};

static void
test_threshold_left_to_the_environment (gconstpointer data)
{
  const ThresholdCase *c = data;

#ifdef __SANITIZE_ADDRESS__
  g_test_skip ("AddressSanitizer brings its own malloc");
  return;
#endif
  if (g_test_subprocess ())
    {
      g_autofree char *tunables = c->glibc_tunables == NULL ? NULL :
                                  g_strconcat ("GLIBC_TUNABLES=", c->glibc_tunables, NULL);
      char *envp[4] = { (char *) "G_SLICE=always-malloc", NULL, NULL, NULL };
      guint n = 1;
      size_t before;
      void *volatile block;  /* a malloc() and free() the compiler cannot drop */

      if (tunables != NULL)
        envp[n++] = tunables;
      if (c->malloc_variable != NULL)
        envp[n++] = (char *) c->malloc_variable;
      hpd_allocators_tune (envp);
      malloc_trim (0);
      before = mallinfo2 ().hblks;
      block = malloc (64 << 10);
      g_assert_cmpuint (mallinfo2 ().hblks - before, ==, c->mmapped ? 1 : 0);
      free (block);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/allocators/thread-cache/emptied", test_cached_blocks_go_back_to_the_heap);
  g_test_add_func ("/allocators/thread-cache/twice", test_twice_in_a_row);
  g_test_add_func ("/allocators/thread-cache/off-left-alone", test_cache_turned_off_is_left_alone);
  g_test_add_func ("/allocators/thread-cache/off-read", test_cache_off_read_from_tunables);
  for (guint i = 0; i < G_N_ELEMENTS (threshold_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/allocators/tune/mmap-threshold/%u", i);

      g_test_add_data_func (path, &threshold_cases[i], test_threshold_left_to_the_environment);
    }
  return g_test_run ();
}
