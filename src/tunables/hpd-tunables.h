/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The kernel settings around huge pages: SysV shared memory limits and
 * group, min_free_kbytes, zone movable, transparent huge pages. Every file
 * is probed (kernels add and remove them); every write is one write() that
 * the caller reads back. */
#pragma once

#include <gio/gio.h>

#include "hpd-kernel.h"

G_BEGIN_DECLS

#define HPD_SHMMAX          "proc/sys/kernel/shmmax"
#define HPD_SHMALL          "proc/sys/kernel/shmall"
#define HPD_SHM_GROUP       "proc/sys/vm/hugetlb_shm_group"
#define HPD_MIN_FREE_KBYTES "proc/sys/vm/min_free_kbytes"
#define HPD_THP_DIR         "sys/kernel/mm/transparent_hugepage"

/* Below this min_free_kbytes breaks the system. */
#define HPD_MIN_FREE_KBYTES_FLOOR 1024

typedef struct {
  char *current;
  GStrv choices;
} HpdThpChoice;

typedef struct {
  guint64 shmmax;
  guint64 shmall;
  guint32 shm_group;
  guint64 min_free_kbytes;
  const char *zone_movable_file;   /* NULL: no such sysctl on this kernel */
  gboolean zone_movable;
  GHashTable *thp;                 /* "enabled", "hugepages-64kB/enabled" -> HpdThpChoice */
  guint32 khugepaged_pages_to_scan;
  guint32 khugepaged_scan_sleep_ms;
  guint32 khugepaged_alloc_sleep_ms;
} HpdTunables;

void hpd_tunables_clear (HpdTunables *t);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HpdTunables, hpd_tunables_clear)

/* Reads what exists; what does not keeps its zero value. */
void hpd_tunables_read (HpdKernel *kernel, HpdTunables *t);
/* The same without the THP choices (@t->thp stays NULL), for a reader
 * that parses them only when their texts changed: */
void hpd_tunables_read_scalars (HpdKernel *kernel, HpdTunables *t);
/* The THP choice files as they are now: name, text, name, text... of every
 * file that could be read. Equal texts parse to equal choices. */
GPtrArray *hpd_tunables_read_thp_texts (HpdKernel *kernel);
/* @texts in one block, for whoever keeps what a value was made from: equal
 * texts give equal bytes. */
GBytes *hpd_tunables_join_thp_texts (GPtrArray *texts);
/* "enabled", "hugepages-64kB/enabled" -> HpdThpChoice, of the files whose
 * text parses. */
GHashTable *hpd_tunables_parse_thp (GPtrArray *texts);

/* The numeric THP settings SetThp accepts, relative to HPD_THP_DIR. */
extern const char *const hpd_thp_numeric_settings[];

/* A numeric THP setting's current value; FALSE if absent. */
gboolean hpd_tunables_thp_number (HpdKernel *kernel, const char *name, guint32 *value);

/* The size of a pageblock in kB: pagetypeinfo, else the PMD size THP
 * reports, else 2 MiB (x86-64). */
guint64 hpd_tunables_pageblock_kb (HpdKernel *kernel);

/* The populated zones the min_free_kbytes advice counts
 * (hpd_parse_zoneinfo_populated), kept between reads: proc/zoneinfo makes
 * the kernel walk every zone and print its per-CPU statistics, the most
 * costly file a property read needs, and the count changes only when
 * memory is onlined or offlined. */
typedef struct {
  GMutex lock;
  char *key;       /* MemTotal and buddyinfo's zones when counted; NULL: none */
  guint zones;
} HpdZoneCount;

void hpd_zone_count_init (HpdZoneCount *self);
void hpd_zone_count_clear (HpdZoneCount *self);

/* The populated zones now, from @cache while MemTotal (@mem_total_kb) and
 * the zones proc/buddyinfo lists are as when proc/zoneinfo was last read,
 * else from proc/zoneinfo. FALSE when zoneinfo cannot be read. Any thread. */
gboolean hpd_tunables_populated_zones (HpdZoneCount *cache, HpdKernel *kernel,
                                       guint64 mem_total_kb, guint *zones);

/* 11 pageblocks per populated zone, at most 5% of MemTotal (kB). */
guint64 hpd_recommend_min_free_kbytes (guint populated_zones, guint64 pageblock_kb,
                                       guint64 mem_total_kb);

/* The gid of an existing group named by @text (a name or a decimal gid up
 * to INT_MAX): the kernel would store any int, -1 included. InvalidArgs or
 * NoSuchGroup otherwise. Reads the group database: main thread only. */
gboolean hpd_tunables_resolve_shm_group (const char *text, guint32 *gid, GError **error);

/* min_free_kbytes from 1024 kB (less breaks the system, InvalidArgs) to 5%
 * of MemTotal (more risks out-of-memory kills, LimitExceeded). */
gboolean hpd_tunables_check_min_free_kbytes (HpdKernel *kernel, guint64 value, GError **error);

/* Base pages needed for segments of @shmmax bytes, rounded up. */
guint64 hpd_recommend_shmall (guint64 shmmax, guint64 base_page_size);

G_END_DECLS
