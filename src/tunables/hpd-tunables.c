/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "hp-names.h"
#include <grp.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-hugetlbfs.h"
#include "hpd-parse.h"
#include "hpd-tunables.h"

const char *const hpd_thp_numeric_settings[] = {
  HP_THP_NUMERIC_SETTINGS,
  NULL,
};

/* hugepages_treat_as_movable went away in 4.16; movable_gigantic_pages
 * brings the idea back for gigantic pages on newer kernels. */
static const char *const zone_movable_files[] = {
  "proc/sys/vm/hugepages_treat_as_movable",
  "proc/sys/vm/movable_gigantic_pages",
};

static void
thp_choice_free (HpdThpChoice *choice)
{
  g_free (choice->current);
  g_strfreev (choice->choices);
  g_free (choice);
}

void
hpd_tunables_clear (HpdTunables *t)
{
  g_clear_pointer (&t->thp, g_hash_table_unref);
  memset (t, 0, sizeof *t);
}

static void
read_thp_text (HpdKernel *kernel, GPtrArray *texts, const char *name)
{
  g_autofree char *path = g_build_filename (HPD_THP_DIR, name, NULL);
  char *text = NULL;

  /* an mTHP size may lack a file (anonymous mTHP starts at order 2, so an
   * order-1 size has shmem_enabled alone), which would otherwise be
   * looked for again at every read */
  if (!hpd_kernel_exists_fixed_at_boot (kernel, path) ||
      !hpd_kernel_read_text (kernel, path, &text, NULL))
    return;
  g_ptr_array_add (texts, g_strdup (name));
  g_ptr_array_add (texts, text);
}

GPtrArray *
hpd_tunables_read_thp_texts (HpdKernel *kernel)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) entries = NULL;

  read_thp_text (kernel, texts, "enabled");
  read_thp_text (kernel, texts, "defrag");
  read_thp_text (kernel, texts, "shmem_enabled");
  /* the mTHP sizes are made at boot */
  entries = hpd_kernel_list_dir_fixed_at_boot (kernel, HPD_THP_DIR, NULL);
  for (guint i = 0; entries != NULL && i < entries->len; i++)
    {
      const char *dir = g_ptr_array_index (entries, i);
      guint64 kb;
      g_autofree char *enabled = NULL;
      g_autofree char *shmem = NULL;

      /* mTHP sizes use the same names as the hugetlb pools */
      if (!hpd_parse_hugepages_dir (dir, &kb))
        continue;
      enabled = g_strconcat (dir, "/enabled", NULL);
      shmem = g_strconcat (dir, "/shmem_enabled", NULL);
      read_thp_text (kernel, texts, enabled);
      read_thp_text (kernel, texts, shmem);
    }
  return texts;
}

/* Each with its NUL: "a" "bc" and "ab" "c" differ. */
GBytes *
hpd_tunables_join_thp_texts (GPtrArray *texts)
{
  GString *joined = g_string_new (NULL);

  for (guint i = 0; i < texts->len; i++)
    {
      const char *text = g_ptr_array_index (texts, i);

      g_string_append_len (joined, text, (gssize) strlen (text) + 1);
    }
  return g_string_free_to_bytes (joined);
}

GHashTable *
hpd_tunables_parse_thp (GPtrArray *texts)
{
  GHashTable *thp = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           (GDestroyNotify) thp_choice_free);

  for (guint i = 0; i + 1 < texts->len; i += 2)
    {
      HpdThpChoice *choice = g_new0 (HpdThpChoice, 1);

      if (!hpd_parse_thp_choice (g_ptr_array_index (texts, i + 1), &choice->current,
                                 &choice->choices))
        {
          thp_choice_free (choice);
          continue;
        }
      g_hash_table_insert (thp, g_strdup (g_ptr_array_index (texts, i)), choice);
    }
  return thp;
}

gboolean
hpd_tunables_thp_number (HpdKernel *kernel, const char *name, guint32 *value)
{
  g_autofree char *path = g_build_filename (HPD_THP_DIR, name, NULL);
  guint64 v;

  if (!hpd_kernel_read_counter (kernel, path, &v, NULL) || v > G_MAXUINT32)
    return FALSE;
  *value = (guint32) v;
  return TRUE;
}

void
hpd_tunables_read_scalars (HpdKernel *kernel, HpdTunables *t)
{
  guint64 v;

  hpd_tunables_clear (t);
  hpd_kernel_read_counter (kernel, HPD_SHMMAX, &t->shmmax, NULL);
  hpd_kernel_read_counter (kernel, HPD_SHMALL, &t->shmall, NULL);
  hpd_kernel_read_counter (kernel, HPD_MIN_FREE_KBYTES, &t->min_free_kbytes, NULL);
  /* the kernel stores any int here, -1 included: show what a gid can be */
  if (hpd_kernel_read_counter (kernel, HPD_SHM_GROUP, &v, NULL) && v <= G_MAXINT32)
    t->shm_group = (guint32) v;

  for (guint i = 0; i < G_N_ELEMENTS (zone_movable_files); i++)
    if (hpd_kernel_exists_fixed_at_boot (kernel, zone_movable_files[i]))
      {
        t->zone_movable_file = zone_movable_files[i];
        t->zone_movable = hpd_kernel_read_counter (kernel, zone_movable_files[i], &v, NULL) && v != 0;
        break;
      }

  hpd_tunables_thp_number (kernel, hpd_thp_numeric_settings[0], &t->khugepaged_pages_to_scan);
  hpd_tunables_thp_number (kernel, hpd_thp_numeric_settings[1], &t->khugepaged_scan_sleep_ms);
  hpd_tunables_thp_number (kernel, hpd_thp_numeric_settings[2], &t->khugepaged_alloc_sleep_ms);
}

void
hpd_tunables_read (HpdKernel *kernel, HpdTunables *t)
{
  g_autoptr(GPtrArray) texts = NULL;

  hpd_tunables_read_scalars (kernel, t);
  texts = hpd_tunables_read_thp_texts (kernel);
  t->thp = hpd_tunables_parse_thp (texts);
}

void
hpd_zone_count_init (HpdZoneCount *self)
{
  g_mutex_init (&self->lock);
  self->key = NULL;
  self->zones = 0;
}

void
hpd_zone_count_clear (HpdZoneCount *self)
{
  g_clear_pointer (&self->key, g_free);
  g_mutex_clear (&self->lock);
}

/* Whether a zone counts depends on its managed pages, and the kernel
 * changes those only in adjust_managed_page_count() (memory onlined or
 * offlined, a balloon driver, reserved memory given back), which moves
 * totalram, that is MemTotal, by the same amount. Offlining memory of one
 * zone and onlining as much into another between two reads would leave
 * MemTotal as it was; it changes the zones' present pages, though, and
 * buddyinfo lists the zones with present pages (one short line each, far
 * cheaper for the kernel than zoneinfo). So while both are as they were,
 * so is the count, and the value is as fresh as a read of zoneinfo. */
gboolean
hpd_tunables_populated_zones (HpdZoneCount *cache, HpdKernel *kernel, guint64 mem_total_kb,
                              guint *zones)
{
  g_autofree char *buddyinfo = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *key = NULL;
  g_autofree char *zoneinfo = NULL;
  g_autoptr(GMutexLocker) locker = NULL;

  if (hpd_kernel_read_text_part (kernel, "proc/buddyinfo", hpd_parse_buddyinfo_zones, &buddyinfo,
                                 NULL))
    listed = hpd_parse_buddyinfo_zones (buddyinfo);
  key = g_strdup_printf ("%" G_GUINT64_FORMAT "\n%s", mem_total_kb, listed ? listed : "");
  locker = g_mutex_locker_new (&cache->lock);
  if (g_strcmp0 (cache->key, key) == 0)
    {
      *zones = cache->zones;
      return TRUE;
    }
  /* read under the lock: another thread would only read it as well */
  if (!hpd_kernel_read_text (kernel, "proc/zoneinfo", &zoneinfo, NULL))
    {
      g_clear_pointer (&cache->key, g_free);
      return FALSE;
    }
  cache->zones = hpd_parse_zoneinfo_populated (zoneinfo);
  g_free (cache->key);
  cache->key = g_steal_pointer (&key);
  *zones = cache->zones;
  return TRUE;
}

guint64
hpd_tunables_pageblock_kb (HpdKernel *kernel)
{
  g_autofree char *pagetypeinfo = NULL;
  guint64 pages = 0, pmd = 0;

  /* pageblock_order is set at boot and never changes */
  if (hpd_kernel_read_fixed_at_boot (kernel, "proc/pagetypeinfo", &pagetypeinfo, NULL))
    pages = hpd_parse_pagetypeinfo_block_pages (pagetypeinfo);
  if (pages > 0 && pages < (G_GUINT64_CONSTANT (1) << 40))
    return pages * (guint64) sysconf (_SC_PAGESIZE) / 1024;
  if (hpd_kernel_read_counter (kernel, HPD_THP_DIR "/hpage_pmd_size", &pmd, NULL) && pmd >= 1024)
    return pmd / 1024;
  return 2048;
}

guint64
hpd_recommend_min_free_kbytes (guint populated_zones, guint64 pageblock_kb,
                               guint64 mem_total_kb)
{
  /* 2 pageblocks for the reserve plus 3 × 3 for the migrate types, per
   * zone, as the kernel's khugepaged does; never more than 5% of memory */
  guint64 wanted = 11 * pageblock_kb * populated_zones;

  return MIN (wanted, mem_total_kb / 20);
}

guint64
hpd_recommend_shmall (guint64 shmmax, guint64 base_page_size)
{
  return shmmax / base_page_size + (shmmax % base_page_size != 0);
}

gboolean
hpd_tunables_resolve_shm_group (const char *text, guint32 *gid, GError **error)
{
  struct group *gr = NULL;
  guint64 id;

  if (g_ascii_isdigit (text[0]) && strspn (text, "0123456789") == strlen (text))
    {
      if (!hp_parse_u64 (text, &id, NULL) || id > G_MAXINT32)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "The gid is out of range (at most %d)", G_MAXINT32);
          return FALSE;
        }
      gr = getgrgid ((gid_t) id);
    }
  else if (hpd_mount_name_is_valid (text))
    gr = getgrnam (text);
  else
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "The group must be a group name or a decimal gid");
      return FALSE;
    }

  if (gr == NULL)
    {
      g_autofree char *shown = g_strescape (text, NULL);
      g_set_error (error, HP_ERROR, HP_ERROR_NO_SUCH_GROUP, "No such group: %s", shown);
      return FALSE;
    }
  *gid = gr->gr_gid;
  return TRUE;
}

gboolean
hpd_tunables_check_min_free_kbytes (HpdKernel *kernel, guint64 value, GError **error)
{
  g_autofree char *meminfo = NULL;
  guint64 kb = 0;

  if (value < HPD_MIN_FREE_KBYTES_FLOOR)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "min_free_kbytes below %u kB breaks the system", HPD_MIN_FREE_KBYTES_FLOOR);
      return FALSE;
    }
  if (hpd_kernel_read_text_part (kernel, "proc/meminfo", hpd_parse_meminfo_sizes, &meminfo, NULL))
    hpd_parse_meminfo (meminfo, "MemTotal", &kb);
  if (value > kb / 20)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED,
                   "min_free_kbytes above 5%% of MemTotal (%" G_GUINT64_FORMAT
                   " kB) risks out-of-memory kills", kb / 20);
      return FALSE;
    }
  return TRUE;
}
