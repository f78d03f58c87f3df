/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "hpd-allocators.h"

/* A reply of GetManagedObjects on a machine of many nodes is tens of
 * kilobytes, grown by doubling (g_dbus_message_to_blob()) while other
 * memory is allocated around it. From mmap() such buffers go back to the
 * kernel when freed instead of leaving holes that push the heap up during
 * a burst of calls: under bench/run's load of 50 clients on 64 nodes,
 * RssAnon at the end of the load was 1.5-1.7 MB in 8 runs of 9 with 8 kB
 * here (1.9 MB in one), and 1.5-3.4 MB in some 18 runs with 32 kB, whose
 * steps of 8 and 16 kB stayed in the heap. Not lower: the reply of the
 * Manager's GetAll (some 3 kB) grows to a 4 kB buffer, which would then
 * cost an mmap() per call.
 * Fixing the threshold also stops glibc from raising it after a large
 * block is freed (up to 32 MiB: after a flood of huge messages every
 * later reply would come from the heap again). */
#define MMAP_THRESHOLD_BYTES (8 << 10)

/* The value of @name in @envp, or NULL when it is not set: the first
 * NAME=, as getenv() finds it. */
static const char *
env_value (char **envp, const char *name)
{
  gsize length = strlen (name);

  for (char **e = envp; e != NULL && *e != NULL; e++)
    if (strncmp (*e, name, length) == 0 && (*e)[length] == '=')
      return *e + length + 1;
  return NULL;
}

/* The value @glibc_tunables (that of GLIBC_TUNABLES, or NULL) gives
 * @tunable, with its length in @length unless that is NULL, or NULL when
 * the list does not name @tunable. glibc reads the list in order, so a
 * tunable named twice takes its last value. Allocates nothing: the service
 * calls it before GSlice's configuration is chosen. */
static const char *
tunable_value (const char *glibc_tunables, const char *tunable, gsize *length)
{
  gsize name_length = strlen (tunable);
  const char *value = NULL;

  for (const char *item = glibc_tunables; item != NULL;)
    {
      gsize item_length = strcspn (item, ":");

      if (item_length > name_length && strncmp (item, tunable, name_length) == 0 &&
          item[name_length] == '=')
        {
          value = item + name_length + 1;
          if (length != NULL)
            *length = item_length - name_length - 1;
        }
      item = item[item_length] == ':' ? item + item_length + 1 : NULL;
    }
  return value;
}

/* Whether @envp sets malloc's @tunable itself, in GLIBC_TUNABLES or with
 * the older variable @variable: an administrator's own setting wins, and
 * only that one. The unit's GLIBC_TUNABLES (below) sets none of these. */
static gboolean
env_sets (char **envp, const char *tunable, const char *variable)
{
  return tunable_value (env_value (envp, "GLIBC_TUNABLES"), tunable, NULL) != NULL ||
         env_value (envp, variable) != NULL;
}

/* glibc also keeps, per thread, freed blocks for that thread's next
 * allocations (the tcache, below), and a block freed by another thread
 * than the one that allocated it waits there for a malloc that thread
 * may never make: the GDBus worker frees the replies the main thread
 * builds. Under bench/run's 50-client load that grew the heap, and the
 * blocks cached at the end kept their pages from the trim. mallopt() has
 * no setting for it, only the environment at exec: the unit sets
 * GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (data/systemd), which in
 * bench/run's runs, by hand, left RssAnon some 250 kB lower 3 s after the
 * load, with no change in the read path's round trips. Started otherwise
 * (an init script, a shell) the service runs with the cache, and empties
 * the main thread's before each trim (hpd_allocators_empty_thread_cache()). */
static void
tune_malloc (char **envp)
{
  /* One arena for every thread: GDBus's worker thread allocates the
   * messages it reads in an arena of its own, whose free top malloc_trim()
   * does not return (only the main arena's), and the main thread frees
   * them there. The threads seldom allocate at the same moment. */
  if (!env_sets (envp, "glibc.malloc.arena_max", "MALLOC_ARENA_MAX"))
    mallopt (M_ARENA_MAX, 1);
  if (!env_sets (envp, "glibc.malloc.mmap_threshold", "MALLOC_MMAP_THRESHOLD_"))
    mallopt (M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
}

void
hpd_allocators_tune (char **envp)
{
  tune_malloc (envp);
  if (env_value (envp, "G_SLICE") != NULL)
    return;
#if !GLIB_CHECK_VERSION (2, 76, 0)
  /* The configuration G_SLICE would give, without a second exec of the
   * program with it set: only a plain variable is written here, GLib is
   * not initialized yet. */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_slice_set_config (G_SLICE_CONFIG_ALWAYS_MALLOC, TRUE);
  G_GNUC_END_IGNORE_DEPRECATIONS
#endif
}

/* glibc keeps, per thread, up to 7 freed blocks of each size up to 1032
 * bytes (the defaults of glibc.malloc.tcache_count and tcache_max) for
 * that thread's next allocations. To the heap these blocks are in use:
 * malloc_trim() leaves their pages alone. After a burst of calls the main
 * thread's cache is nearly full (bench/run's 50-client load left 417
 * blocks, 225 kB, spread over the pages the calls grew the heap by), and
 * dropping the read snapshots fills whatever room is left. glibc has no
 * call to empty the cache, but a thread's cache goes back to the heap when
 * the thread ends. So the calling thread takes every cached block back by
 * allocating the cache's worth of each size, and a thread of the moment
 * frees them all and ends: its own cache, filled by those frees, then goes
 * back to the heap as well. With a smaller cache (an administrator's
 * GLIBC_TUNABLES) some of the blocks simply come from the heap; with a
 * larger one part of the cache stays. */
#define CACHED_BLOCKS_PER_SIZE 7
#define CACHED_SIZES 64
#define SMALLEST_CACHED_REQUEST 24  /* a block of 32 bytes with its header */
#define CACHED_SIZE_STEP 16

static gpointer
free_blocks (gpointer blocks)
{
  void **block = blocks;

  for (guint i = 0; i < CACHED_SIZES * CACHED_BLOCKS_PER_SIZE; i++)
    free (block[i]);
  return NULL;
}

gboolean
hpd_allocators_thread_cache_off (const char *glibc_tunables)
{
  g_autofree char *text = NULL;
  const char *value;
  guint64 count;
  gsize length;

  value = tunable_value (glibc_tunables, "glibc.malloc.tcache_count", &length);
  if (value == NULL)
    return FALSE;
  text = g_strndup (value, length);
  return g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &count, NULL) && count == 0;
}

void
hpd_allocators_empty_thread_cache (const char *glibc_tunables)
{
  void *blocks[CACHED_SIZES * CACHED_BLOCKS_PER_SIZE];
  g_autoptr(GError) error = NULL;
  GThread *thread;

  if (hpd_allocators_thread_cache_off (glibc_tunables))
    return;

  for (guint size = 0; size < CACHED_SIZES; size++)
    for (guint i = 0; i < CACHED_BLOCKS_PER_SIZE; i++)
      blocks[size * CACHED_BLOCKS_PER_SIZE + i] =
        malloc (SMALLEST_CACHED_REQUEST + size * CACHED_SIZE_STEP);
  thread = g_thread_try_new ("hpd-free", free_blocks, blocks, &error);
  if (thread == NULL)
    {
      g_debug ("Calls stopped: the blocks glibc caches are kept: %s", error->message);
      free_blocks (blocks);
      return;
    }
  g_thread_join (thread);
}
