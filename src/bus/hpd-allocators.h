/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* How the process's allocators are set up, so that what a burst of calls
 * freed can be given back to the kernel (hpd-memory.h does that when the
 * calls stop). The service (main.c) and the benchmark's floor
 * (bench/floor.c), a minimal GDBus service that is the least such a service
 * pays, both take their settings from here: the floor is measured as the
 * service runs. Needs nothing of the daemon but GLib. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Sets the allocators up, from the program's .preinit_array
 * (HPD_ALLOCATORS_TUNE_AT_PREINIT):
 * - glibc's malloc gets one arena for every thread and takes large blocks
 *   from mmap() at a fixed threshold (the why in hpd-allocators.c), each
 *   unless @envp sets that tunable itself (GLIBC_TUNABLES, MALLOC_*); its
 *   per-thread cache of freed blocks can only be turned off in the
 *   environment, which the unit does;
 * - before GLib 2.76 GVariants come from GSlice, which never gives memory
 *   back: GSlice is made to use malloc, unless G_SLICE is set in @envp.
 *   GSlice reads its configuration once, when GLib's own constructor
 *   first allocates (before main(), so setting G_SLICE in main() is too
 *   late). */
void hpd_allocators_tune (char **envp);

/* Written once at file scope in a program's main file: runs
 * hpd_allocators_tune() from the program's .preinit_array, which the
 * dynamic linker runs before the constructors of the libraries, GLib's
 * among them, which already allocate from GSlice: the one moment its
 * configuration can still be chosen, and before any thread exists, as
 * malloc's arena setting wants. Only an executable's .preinit_array is
 * run, never a shared library's. */
#define HPD_ALLOCATORS_TUNE_AT_PREINIT \
  static void \
  hpd_allocators_tune_at_preinit (int argc, char **argv, char **envp) \
  { \
    hpd_allocators_tune (envp); \
  } \
  __attribute__ ((section (".preinit_array"), used)) \
  static void (*const hpd_allocators_preinit_entry) (int, char **, char **) = \
    hpd_allocators_tune_at_preinit

/* Whether @glibc_tunables (the value of GLIBC_TUNABLES, or NULL) turns
 * glibc's per-thread cache of freed blocks off: its last
 * glibc.malloc.tcache_count is 0. Anything this cannot read counts as on. */
gboolean hpd_allocators_thread_cache_off (const char *glibc_tunables);

/* Gives the freed blocks glibc keeps for the calling thread's next
 * allocations (its tcache) back to the heap, where malloc_trim() can
 * return their pages (the how in hpd-allocators.c). Starts and joins a
 * thread, unless @glibc_tunables, the GLIBC_TUNABLES the process was
 * started with, turned the cache off. */
void hpd_allocators_empty_thread_cache (const char *glibc_tunables);

G_END_DECLS
