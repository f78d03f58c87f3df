#include "config.h"

#include <malloc.h>
#include <stdlib.h>
#include <unistd.h>

#include "hpd-memory.h"

#define CHECK_INTERVAL_S 2
/* Below this much free memory in the arenas trimming is not worth it. */
#define KEEP_FREE_BYTES (8u << 20)

static gboolean
trim_if_worth_it (gpointer user_data)
{
  struct mallinfo2 info = mallinfo2 ();

  /* fordblks: bytes in free chunks, over all arenas (the GDBus reader
   * thread has an arena of its own) */
  if (info.fordblks > KEEP_FREE_BYTES)
    {
      g_debug ("Returning %zu bytes of freed memory to the kernel", info.fordblks);
      malloc_trim (0);
    }
  return G_SOURCE_CONTINUE;
}

void
hpd_memory_prefer_malloc (char **argv)
{
#if !GLIB_CHECK_VERSION (2, 76, 0)
  if (getenv ("G_SLICE") != NULL)
    return;
  if (setenv ("G_SLICE", "always-malloc", 1) == 0)
    execv ("/proc/self/exe", argv);
  /* no /proc: go on with GSlice, which only keeps memory longer */
#else
  (void) argv;
#endif
}

guint
hpd_memory_watch (void)
{
  return g_timeout_add_seconds (CHECK_INTERVAL_S, trim_if_worth_it, NULL);
}
