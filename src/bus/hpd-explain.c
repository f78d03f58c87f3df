/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hp-units.h"
#include "hpd-apply.h"
#include "hpd-boot.h"
#include "hpd-boot-calls.h"
#include "hpd-claim-calls.h"
#include "hpd-config.h"
#include "hpd-daemon.h"
#include "hpd-boot-hook.h"
#include "hpd-drift.h"
#include "hpd-explain.h"
#include "hpd-hugetlbfs.h"
#include "hpd-job.h"
#include "hpd-mounts.h"
#include "hpd-options.h"
#include "hpd-parse.h"
#include "hpd-pool-model.h"
#include "hpd-stat-state.h"
#include "hpd-tunable-calls.h"
#include "hpd-tunables.h"

/* Database vendors (Oracle, PostgreSQL, MongoDB, Redis) warn against THP
 * "always": latency spikes from khugepaged and page-fault compaction. */

typedef struct {
  GVariantBuilder builder;
  HpdDaemon *daemon;
  HpdKernel *kernel;
  char *meminfo;
} Explain;

static void
add (Explain *e, const char *severity, const char *id, const char *fix,
     const char *format, ...) G_GNUC_PRINTF (5, 6);

static void
add (Explain *e, const char *severity, const char *id, const char *fix,
     const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  hpd_record_add_strings (&e->builder, "severity", severity, "id", id, "message", message,
                          "fix", fix ? fix : "", NULL);
}

static guint64
meminfo_kb (Explain *e, const char *key)
{
  guint64 v = 0;

  if (e->meminfo != NULL)
    hpd_parse_meminfo (e->meminfo, key, &v);
  return v;
}

static char *
bytes_text (guint64 bytes)
{
  return hp_format_bytes (bytes);
}

static void
check_memory (Explain *e)
{
  g_autofree char *total = bytes_text (meminfo_kb (e, "MemTotal") * 1024);

  add (e, "info", "memory-total", NULL, "Total system memory: %s", total);
  if (meminfo_kb (e, "SwapTotal") == 0)
    add (e, "info", "no-swap", NULL,
         "There is no swap: growing a pool cannot push other memory out, so it may "
         "fall short; --hard compacts memory instead, and --hard --drop-caches also "
         "frees clean page cache when compaction is not enough");
}

static guint
order_of (guint64 size)
{
  guint64 base = (guint64) sysconf (_SC_PAGESIZE);
  guint order = 0;

  while ((base << order) < size && order < 63)
    order++;
  return order;
}

static void
check_pools (Explain *e, GPtrArray *mounts)
{
  GPtrArray *pools = hpd_daemon_get_pools (e->daemon);
  g_autofree char *buddyinfo = NULL;
  guint64 mem_free = 0;

  /* Free memory as the page allocator's free lists hold it, not MemFree:
   * with deferred struct page init most of a large machine's memory is
   * free but not yet in the lists, and comes in as it is needed. */
  if (hpd_kernel_read_text (e->kernel, "proc/buddyinfo", &buddyinfo, NULL))
    mem_free = hpd_parse_buddyinfo_blocks (buddyinfo, 0) * (guint64) sysconf (_SC_PAGESIZE);

  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_auto(HpdPoolCounters) c = { 0, };
      g_auto(GStrv) paths = NULL;
      g_autofree char *id = NULL;
      g_autofree char *fix = NULL;
      guint64 minimum, requested;

      hpd_daemon_lookup_requested (e->daemon, pool, &requested);
      if (!hpd_pool_read (e->kernel, pool, &c, NULL))
        continue;
      minimum = hpd_pool_counters_minimum (&c);

      if (requested > minimum)
        {
          guint64 missing = (requested - minimum) * pool->size;
          /* clean page cache is the memory that dropping caches gives
           * back; shared memory counts as cached but cannot be dropped */
          guint64 cached = meminfo_kb (e, "Cached"), shmem = meminfo_kb (e, "Shmem");
          guint64 droppable = cached > shmem ? (cached - shmem) * 1024 : 0;
          gboolean needs_cache = missing > mem_free && missing <= mem_free + droppable;

          id = g_strdup_printf ("pool-short-%s", pool->name);
          fix = g_strdup_printf ("hugepagesctl set-min %s %" G_GUINT64_FORMAT " --hard%s",
                                 pool->name, requested, needs_cache ? " --drop-caches" : "");
          add (e, "warning", id, fix,
               "The %s pool has %" G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT
               " pages asked for: memory was short or fragmented%s", pool->name, minimum, requested,
               needs_cache ? "; free memory cannot hold the rest, the page cache could" : "");
          g_clear_pointer (&id, g_free);
          g_clear_pointer (&fix, g_free);
        }

      if (c.surplus > c.overcommit)
        {
          id = g_strdup_printf ("surplus-above-maximum-%s", pool->name);
          /* the pages are in use: allowing them is the only change that helps now */
          fix = g_strdup_printf ("hugepagesctl set-max %s %" G_GUINT64_FORMAT,
                                 pool->name, minimum + c.surplus);
          add (e, "warning", id, fix,
               "%" G_GUINT64_FORMAT " surplus %s pages are above the overcommit limit of %"
               G_GUINT64_FORMAT ": they are in use and go back to the system when released",
               c.surplus, pool->name, c.overcommit);
          g_clear_pointer (&id, g_free);
          g_clear_pointer (&fix, g_free);
        }

      if (pool->gigantic && (minimum > 0 || requested > 0))
        {
          guint64 want = MAX (minimum, requested);
          g_autofree char *size = hpd_boot_size_text (pool->size);

          id = g_strdup_printf ("gigantic-at-boot-%s", pool->name);
          fix = g_strdup_printf ("add \"hugepagesz=%s hugepages=%" G_GUINT64_FORMAT
                                 "\" to the kernel command line", size, want);
          add (e, requested > minimum ? "warning" : "info", id, fix,
               "%s pages need contiguous memory that a running system rarely has; "
               "they are reliably reserved only at boot", pool->name);
          g_clear_pointer (&id, g_free);
          g_clear_pointer (&fix, g_free);
        }

      paths = hpd_mounts_paths_of_size (mounts, pool->size);
      if (hpd_pool_counters_maximum (&c) > 0 && paths[0] == NULL)
        {
          id = g_strdup_printf ("no-mount-%s", pool->name);
          fix = g_strdup_printf ("hugepagesctl mount-create system --page-size %s", pool->name);
          add (e, "warning", id, fix,
               "The %s pool has pages but no hugetlbfs mount: programs that use files "
               "(rather than MAP_HUGETLB or SHM_HUGETLB) cannot reach them", pool->name);
          g_clear_pointer (&id, g_free);
          g_clear_pointer (&fix, g_free);
        }

      if (!pool->gigantic && buddyinfo != NULL && mem_free > 0)
        {
          guint64 possible = hpd_parse_buddyinfo_blocks (buddyinfo, order_of (pool->size));
          guint64 by_memory = mem_free / pool->size;
          gboolean fragmented = by_memory > 0 && possible < by_memory / 2;
          g_autofree char *free_text = bytes_text (mem_free);

          id = g_strdup_printf ("allocatable-%s", pool->name);
          add (e, fragmented ? "warning" : "info", id,
               fragmented ? "echo 1 > /proc/sys/vm/compact_memory, or grow pools with "
               "hugepagesctl set-min --hard, which compacts between tries" : NULL,
               "About %" G_GUINT64_FORMAT " %s pages could be allocated right now from "
               "contiguous free blocks; the free memory in them (%s) would hold %" G_GUINT64_FORMAT "%s",
               possible, pool->name, free_text, by_memory,
               fragmented ? ": memory is fragmented" : "");
          g_clear_pointer (&id, g_free);
        }
    }
}

/* Who claimed what, and where the kernel is below what the claims and the
 * administrator's base add up to. */
static void
check_claims (Explain *e)
{
  GPtrArray *pools = hpd_daemon_get_pools (e->daemon);
  const HpdConfig *config = hpd_daemon_get_config (e->daemon, NULL);

  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      g_auto(HpdPoolModel) model = { 0, };
      GPtrArray *claims;
      guint64 claimed;
      g_auto(HpdPoolCounters) c = { 0, };
      g_autoptr(GString) who = g_string_new (NULL);
      g_autoptr(GError) error = NULL;
      g_autofree char *id = NULL;
      g_autofree char *fix = NULL;
      guint64 base, target, minimum, configured;
      gboolean has_configured = hpd_apply_configured_minimum (config, pool, &configured);

      hpd_pool_model_init (&model, e->daemon, pool, has_configured, configured);
      claims = model.claims;
      claimed = hpd_pool_model_claimed (&model, HPD_CLAIM_ALL_NODES);
      if (claimed == 0 || !hpd_pool_read (e->kernel, pool, &c, NULL))
        continue;
      /* unknown (no SetMinimum since boot, none configured): the claims alone */
      hpd_pool_model_base (&model, &base);
      target = hpd_pool_model_target (&model);
      minimum = hpd_pool_counters_minimum (&c);

      for (guint j = 0; j < claims->len; j++)
        {
          const HpdClaim *claim = g_ptr_array_index (claims, j);

          if (claim->page_size != pool->size)
            continue;
          g_string_append_printf (who, "%s%s %" G_GUINT64_FORMAT, who->len ? ", " : "",
                                  claim->consumer, claim->pages);
          if (claim->node != HPD_CLAIM_ALL_NODES)
            g_string_append_printf (who, " on node %u", claim->node);
          g_string_append_printf (who, " (uid %u%s)", claim->uid,
                                  claim->persisted ? ", persisted" : "");
        }
      id = g_strdup_printf ("claims-%s", pool->name);
      add (e, "info", id, NULL,
           "%" G_GUINT64_FORMAT " %s pages are claimed: %s; with the administrator's base of %"
           G_GUINT64_FORMAT " the pool's target is %" G_GUINT64_FORMAT,
           claimed, pool->name, who->str, base, target);
      g_clear_pointer (&id, g_free);

      if (!hpd_pool_model_check_memory (e->daemon, pool, target, &error))
        {
          id = g_strdup_printf ("claims-exceed-%s", pool->name);
          add (e, "warning", id, "hugepagesctl claims; release what is not needed",
               "The claims on the %s pool ask for more than the machine can give: %s",
               pool->name, error->message);
          g_clear_pointer (&id, g_free);
        }

      if (minimum < target)
        {
          id = g_strdup_printf ("claims-drift-%s", pool->name);
          fix = g_strdup_printf ("hugepagesctl set-min %s %" G_GUINT64_FORMAT " --hard",
                                 pool->name, base);
          add (e, "warning", id, fix,
               "The %s pool holds %" G_GUINT64_FORMAT " pages, %" G_GUINT64_FORMAT
               " fewer than the claims and the administrator's base add up to (%"
               G_GUINT64_FORMAT "): the kernel could not allocate a claim in full, or "
               "another program wrote nr_hugepages directly; setting the base again "
               "allocates the claims on top of it", pool->name, minimum, target - minimum,
               target);
          g_clear_pointer (&id, g_free);
          g_clear_pointer (&fix, g_free);
        }

      /* the nodes with claims, against the node target --apply and Nodes
       * have: a node with none is the configuration's alone, which the
       * config-drift finding covers */
      for (guint j = 0; c.nodes != NULL && j < c.nodes->len; j++)
        {
          const HpdNodeCounters *n = &g_array_index (c.nodes, HpdNodeCounters, j);
          guint64 on_node = hpd_pool_model_claimed (&model, n->node);
          guint64 node_target = hpd_apply_node_target (config, &model, n->node);
          guint64 node_minimum = hpd_node_counters_minimum (n);

          if (on_node == 0 || node_minimum >= node_target)
            continue;
          id = g_strdup_printf ("claims-drift-%s-node%u", pool->name, n->node);
          fix = g_strdup_printf ("hugepagesctl set-node %u %s %" G_GUINT64_FORMAT " --hard",
                                 n->node, pool->name, node_target);
          add (e, "warning", id, fix,
               "Node %u holds %" G_GUINT64_FORMAT " %s pages, fewer than its target of %"
               G_GUINT64_FORMAT " (its %" G_GUINT64_FORMAT " configured pages plus the %"
               G_GUINT64_FORMAT " claimed on it): the kernel could not allocate them, or "
               "another program shrank the node", n->node, node_minimum, pool->name, node_target,
               hpd_apply_configured_node_pages (config, pool, n->node), on_node);
          g_clear_pointer (&id, g_free);
          g_clear_pointer (&fix, g_free);
        }
    }
}

static void
check_boot (Explain *e)
{
  g_auto(HpdBootState) state = { 0, };
  g_autofree char *wanted = NULL;
  g_autofree char *got = NULL;

  hpd_boot_state_read (e->daemon, NULL, &state);
  if (!state.reboot_required)
    return;
  /* a configured pool of 0 pages asks for no parameters */
  wanted = *state.boot_parameters != '\0'
    ? g_strdup_printf ("the boot parameters \"%s\"", state.boot_parameters)
    : g_strdup ("no gigantic pages at boot");
  got = *state.kernel_command_line != '\0'
    ? g_strdup_printf ("with \"%s\"", state.kernel_command_line)
    : g_strdup ("without huge page parameters");
  add (e, "warning", "reboot-required", "hugepagesctl boot --write, then reboot",
       "The configuration asks for %s, but the kernel was booted %s: the huge pages "
       "reserved at boot differ until the boot loader passes them and the machine "
       "is rebooted", wanted, got);
}

static void
check_min_free_kbytes (Explain *e, const HpdTunables *t)
{
  guint64 recommended = hpd_tunables_recommended_min_free_kbytes (e->daemon);

  if (recommended > t->min_free_kbytes)
    add (e, "warning", "min-free-kbytes-low", "hugepagesctl min-free-kbytes recommended",
         "vm.min_free_kbytes is %" G_GUINT64_FORMAT " kB; %" G_GUINT64_FORMAT " kB keeps a "
         "free pageblock per zone and per migrate type, which helps huge page allocations",
         t->min_free_kbytes, recommended);
}

static void
check_shm (Explain *e, const HpdTunables *t, guint32 uid)
{
  guint64 recommended = hpd_tunables_recommended_shmmax (e->daemon);
  guint64 base = (guint64) sysconf (_SC_PAGESIZE);
  struct group *gr;
  struct passwd *pw;

  if (recommended > 0 && t->shmmax < recommended)
    add (e, "warning", "shmmax-low", "hugepagesctl shm-max recommended",
         "kernel.shmmax (%" G_GUINT64_FORMAT ") is below what the pools can back (%"
         G_GUINT64_FORMAT " bytes): SHM_HUGETLB segments that large fail with EINVAL",
         t->shmmax, recommended);
  if (t->shmall < hpd_recommend_shmall (MIN (t->shmmax, recommended ? recommended : t->shmmax), base))
    add (e, "warning", "shmall-low", "hugepagesctl shm-max recommended",
         "kernel.shmall (%" G_GUINT64_FORMAT " pages) cannot hold a segment as large as "
         "kernel.shmmax or the pools allow: large segments fail with ENOSPC", t->shmall);

  if (t->shm_group == 0)
    {
      if (uid != 0)
        add (e, "info", "shm-group-unset", "hugepagesctl shm-group GROUP",
             "vm.hugetlb_shm_group is 0: only processes with CAP_IPC_LOCK may create "
             "SHM_HUGETLB segments");
      return;
    }

  gr = getgrgid (t->shm_group);
  if (gr == NULL)
    {
      add (e, "warning", "shm-group-invalid", "hugepagesctl shm-group GROUP",
           "vm.hugetlb_shm_group is %u, which is no group", t->shm_group);
      return;
    }
  pw = getpwuid (uid);
  if (uid != 0 && (pw == NULL ||
                   (pw->pw_gid != gr->gr_gid &&
                    !g_strv_contains ((const char *const *) gr->gr_mem, pw->pw_name))))
    {
      g_autofree char *fix = g_strdup_printf ("usermod -aG %s %s", gr->gr_name,
                                              pw ? pw->pw_name : "USER");
      add (e, "warning", "shm-group-caller", fix,
           "You (uid %u) are not in the hugetlb_shm_group %s (gid %u): your SHM_HUGETLB "
           "segments fail with EPERM", uid, gr->gr_name, (guint) gr->gr_gid);
    }
}

static void
check_memlock (Explain *e, guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("proc/%u/limits", pid);
  g_autofree char *limits = NULL;
  g_auto(GStrv) lines = NULL;

  if (pid == 0 || !hpd_kernel_read_text (e->kernel, path, &limits, NULL))
    return;
  lines = g_strsplit (limits, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      guint64 soft;
      g_autofree char *text = NULL;

      if (!g_str_has_prefix (lines[i], "Max locked memory"))
        continue;
      fields = g_strsplit_set (lines[i] + strlen ("Max locked memory"), " \t", -1);
      for (guint j = 0; fields[j] != NULL; j++)
        {
          if (fields[j][0] == '\0')
            continue;
          if (g_str_equal (fields[j], "unlimited"))
            return;
          if (hp_parse_u64 (fields[j], &soft, NULL))
            {
              text = bytes_text (soft);
              add (e, "info", "memlock-limit", "raise memlock in /etc/security/limits.conf",
                   "Your memlock limit is %s: programs that lock huge page memory "
                   "(mlock, databases' lock_pages options) cannot lock more", text);
            }
          return;
        }
    }
}

static void
check_thp (Explain *e, const HpdTunables *t)
{
  HpdThpChoice *enabled = g_hash_table_lookup (t->thp, "enabled");
  HpdThpChoice *defrag = g_hash_table_lookup (t->thp, "defrag");

  if (enabled != NULL && g_str_equal (enabled->current, "always"))
    add (e, "warning", "thp-enabled-always", "hugepagesctl thp enabled=madvise",
         "Transparent huge pages are 'always': Oracle, PostgreSQL, MongoDB and Redis "
         "advise 'madvise' or 'never' against latency spikes and memory bloat");
  if (defrag != NULL && g_str_equal (defrag->current, "always"))
    add (e, "warning", "thp-defrag-always", "hugepagesctl thp defrag=madvise",
         "THP defrag is 'always': page faults may stall on compaction");
}

/* The first directory between the base and the mount point of @path that
 * hpd_hugetlbfs_mount would refuse (not root's, writable by others, or a
 * link), as lstat sees it; NULL when there is none. */
static char *
untrusted_parent (const char *root, const char *path)
{
  g_autofree char *base = g_build_filename (root, HPD_MOUNT_BASE, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_auto(GStrv) parts = NULL;
  g_autofree char *so_far = NULL;

  if (!g_str_has_prefix (dir, base))
    return NULL;
  so_far = g_strdup (base);
  parts = g_strsplit (dir + strlen (base), "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      struct stat st;
      char *next;

      if (*parts[i] == '\0' && i > 0)
        continue;
      next = *parts[i] ? g_build_filename (so_far, parts[i], NULL) : g_strdup (so_far);
      g_free (so_far);
      so_far = next;
      if (lstat (so_far, &st) < 0 || !S_ISDIR (st.st_mode) || !hpd_stat_only_root_writes (&st))
        return g_steal_pointer (&so_far);
    }
  return NULL;
}

/* Mounts at the service's mount points made the way hugeadm makes them:
 * owner and mode set after mounting (so the mount options do not say
 * them), the directories above left to the user or group. mount-create
 * with the same page size and limits takes such a mount over without a
 * remount, --secure-directories makes those directories root's, and
 * --persist saves it, so that --apply makes it again at boot. A taken-over
 * mount looks the same as before (nothing is remounted): what tells it is
 * taken over is its section in the configuration. */
static void
check_hugeadm_mounts (Explain *e, GPtrArray *mounts)
{
  const char *root = hpd_kernel_get_root (e->kernel);
  const HpdConfig *config = hpd_daemon_get_config (e->daemon, NULL);

  for (guint i = 0; i < mounts->len; i++)
    {
      const HpdMountInfo *m = g_ptr_array_index (mounts, i);
      g_autofree char *key = hpd_mount_path_config_key (root, m->path);
      g_autofree char *unsafe = NULL;
      g_autofree char *size = NULL;
      g_autoptr(GString) fix = NULL;
      const HpdConfigMount *configured;
      gboolean set_after;

      if (key == NULL || !m->has_root || !g_utf8_validate (m->path, -1, NULL))
        continue;
      unsafe = untrusted_parent (root, m->path);
      set_after = m->root_uid != m->uid || m->root_gid != m->gid || m->root_mode != m->mode;
      configured = g_tree_lookup (config->mounts, key);
      if (configured != NULL && configured->page_size.kind != HPD_CONFIG_UNSET &&
          configured->page_size.value != m->page_size)
        configured = NULL;
      if (unsafe == NULL && (!set_after || configured != NULL))
        continue;

      size = hp_size_name (m->page_size);
      fix = g_string_new ("hugepagesctl mount-create ");
      g_string_append_printf (fix, "%s --page-size %s", key, size);
      if (m->root_mode != (g_str_has_prefix (key, "user") ? 0700u
                           : g_str_has_prefix (key, "group") ? 0070u
                           : g_str_equal (key, "global") ? 01777u : 0770u))
        g_string_append_printf (fix, " --mode %04o", m->root_mode);
      if (m->has_size)
        g_string_append_printf (fix, " --size %" G_GUINT64_FORMAT, m->size);
      if (m->has_min_size)
        g_string_append_printf (fix, " --min-size %" G_GUINT64_FORMAT, m->min_size);
      if (m->has_nr_inodes)
        g_string_append_printf (fix, " --inodes %" G_GUINT64_FORMAT, m->nr_inodes);
      if (unsafe != NULL)
        g_string_append (fix, " --secure-directories");
      if (configured == NULL)
        g_string_append (fix, " --persist");

      if (unsafe != NULL)
        add (e, "warning", "hugeadm-mount", fix->str,
             "%s is below %s, which is not root's or is writable by others (as hugeadm "
             "leaves it): its owner could put a link in the way of a new mount there. "
             "mount-create with these page size and limits takes the mount over without "
             "a remount, and --secure-directories makes the directory root's with mode 0755",
             m->path, unsafe);
      else
        add (e, "info", "hugeadm-mount", fix->str,
             "%s was given owner %u:%u and mode %04o after mounting (as hugeadm does); its "
             "mount options say %u:%u %04o, and no [mount] section makes it at boot. "
             "mount-create with these page size and limits takes it over as it is, without "
             "a remount, and --persist saves it",
             m->path, m->root_uid, m->root_gid, m->root_mode, m->uid, m->gid, m->mode);
    }
}

/* How the service comes to run in PID 1's mount namespace: under systemd
 * its unit's sandboxing gave it one of its own; elsewhere whatever started
 * it did (unshare -m, a container's own namespace). */
static const char *
mount_namespace_fix (Explain *e)
{
  g_auto(HpdBootHook) hook = { 0, };

  hpd_boot_hook_read (e->kernel, &hook);
  if (g_str_equal (hook.mechanism, "systemd"))
    return "systemctl edit hugepagesd.service (drop ProtectSystem=, PrivateTmp=, "
           "ReadWritePaths= and the like), then systemctl restart hugepagesd.service";
  return "nsenter --mount=/proc/1/ns/mnt " LIBEXECDIR "/hugepagesd (start it in PID 1's "
         "mount namespace, not under unshare -m), or give it --allow-private-mount-namespace "
         "if its mounts need be seen only where it runs";
}

/* A unit that gives the service a mount namespace of its own makes every
 * mount it creates invisible to everybody else. */
static void
check_mount_namespace (Explain *e)
{
  const char *detail = NULL;
  HpdMountNs ns = hpd_daemon_get_mount_namespace (e->daemon, &detail);
  const char *refusal = hpd_daemon_get_mount_refusal (e->daemon);

  if (refusal != NULL)
    add (e, "error", "private-mount-namespace", mount_namespace_fix (e),
         "%s (%s); mounts are refused", refusal, detail);
  else if (ns != HPD_MOUNT_NS_SHARED)
    add (e, "info", "private-mount-namespace", NULL,
         "hugepagesd runs in a mount namespace other than PID 1's, as "
         "--allow-private-mount-namespace allows: its mounts are seen only there (%s)", detail);
}

/* The command that applies the configuration again on this machine. */
static const char *
reapply_command (const HpdBootHook *hook)
{
  if (g_str_equal (hook->mechanism, "systemd"))
    return "systemctl restart " HPD_APPLY_UNIT;
  if (g_str_equal (hook->mechanism, "sysvinit"))
    return "/" HPD_APPLY_INIT_SCRIPT " start";
  return LIBEXECDIR "/hugepagesd --apply";
}

/* The configuration applied at boot: bad lines, values set twice, whether
 * anything applies it at boot, and where the kernel no longer matches it
 * (someone wrote sysfs, a pool fell short). */
static void
check_configuration (Explain *e)
{
  const HpdConfig *config = hpd_daemon_get_config (e->daemon, NULL);
  g_auto(HpdBootHook) hook = { 0, };
  g_autoptr(GVariant) state = NULL;
  g_autoptr(GVariant) drift = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GPtrArray) claims = hpd_daemon_get_claims (e->daemon);
  GVariantIter iter;
  GVariant *record;

  hpd_boot_hook_read (e->kernel, &hook);
  hpd_drift_describe (e->daemon, config, claims, &state, &drift, &errors);
  g_variant_ref_sink (state);
  g_variant_ref_sink (drift);

  if (errors->len > 0)
    add (e, "warning", "config-errors", "hugepagesctl config --check",
         "The configuration has %u bad line(s), which are skipped; the first: %s",
         errors->len, (const char *) g_ptr_array_index (errors, 0));
  if (config->overrides->len > 0)
    {
      const HpdConfigOverride *o = g_ptr_array_index (config->overrides, 0);

      add (e, "info", "config-overrides", "hugepagesctl config",
           "%u configured value(s) are set again by a later line; the first: "
           "%s = %s (%s:%u) overrides %s (%s:%u)",
           config->overrides->len + config->overrides_not_listed, o->key,
           o->value, o->origin.file, o->origin.line, o->overridden,
           o->overridden_origin.file, o->overridden_origin.line);
    }
  if (!hook.enabled && g_variant_n_children (state) > 0)
    add (e, "warning", "apply-at-boot", hook.fix, "%s", hook.message);

  g_variant_iter_init (&iter, drift);
  while (g_variant_iter_next (&iter, "@a{sv}", &record))
    {
      G_GNUC_UNUSED g_autoptr(GVariant) owned = record;
      const char *key = "", *configured = "", *message = "";

      g_variant_lookup (record, "key", "&s", &key);
      g_variant_lookup (record, "configured", "&s", &configured);
      g_variant_lookup (record, "message", "&s", &message);
      add (e, "warning", "config-drift", reapply_command (&hook),
           "%s differs from the configuration (%s = %s): %s", key, key, configured, message);
    }
}

GVariant *
hpd_explain (HpdDaemon *daemon, guint32 uid, guint32 pid)
{
  Explain e = { 0, };
  g_auto(HpdTunables) t = { 0, };
  g_autoptr(GPtrArray) mounts = NULL;

  g_variant_builder_init (&e.builder, G_VARIANT_TYPE ("aa{sv}"));
  e.daemon = daemon;
  e.kernel = hpd_daemon_get_kernel (daemon);
  hpd_kernel_read_text (e.kernel, "proc/meminfo", &e.meminfo, NULL);
  hpd_tunables_read (e.kernel, &t);
  mounts = hpd_mounts_read (e.kernel, hpd_daemon_get_default_page_size (daemon));

  check_memory (&e);
  check_pools (&e, mounts);
  check_claims (&e);
  check_mount_namespace (&e);
  check_hugeadm_mounts (&e, mounts);
  check_boot (&e);
  check_min_free_kbytes (&e, &t);
  check_shm (&e, &t, uid);
  check_memlock (&e, pid);
  check_thp (&e, &t);
  check_configuration (&e);

  g_free (e.meminfo);
  return g_variant_builder_end (&e.builder);
}

typedef struct {
  HpdDaemon *daemon;
  guint32 uid;
  guint32 pid;
} ExplainCall;

static void
explain_call_free (ExplainCall *call)
{
  g_object_unref (call->daemon);
  g_free (call);
}

/* The caller's uid and pid tailor two checks (shm group, memlock); they
 * come from the bus daemon, as for authorization. */
static void
explain_identified (gpointer data, const HpdCaller *caller)
{
  ExplainCall *call = data;

  call->uid = caller->uid;
  call->pid = caller->pid;
}

/* Main thread (HPD_LANE_MAIN): the configuration cache is the main
 * thread's. */
static GVariant *
explain_work (gpointer data, GCancellable *cancellable, GError **error)
{
  ExplainCall *call = data;
  GVariant *findings = hpd_explain (call->daemon, call->uid, call->pid);

  return g_variant_new_tuple (&findings, 1);
}

void
hpd_explain_call (const HpdCall *method_call)
{
  ExplainCall *call = g_new0 (ExplainCall, 1);

  call->daemon = g_object_ref (method_call->daemon);
  hpd_job_run_full (method_call->daemon, method_call->invocation, NULL, explain_identified,
                    explain_work, NULL, NULL, call, (GDestroyNotify) explain_call_free);
}
