/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-names.h"
#include "hp-units.h"
#include "hpd-daemon.h"
#include "hpd-hugetlbfs.h"
#include "hpd-job.h"
#include "hpd-parse.h"
#include "hpd-persist.h"
#include "hpd-tunable-calls.h"
#include "hpd-tunables.h"

#define MAX_THP_SETTINGS 64

/* A list of writes to apply in order, and what to put back if one fails. */
typedef struct {
  char *file;         /* relative to the kernel root */
  char *value;        /* as written: "123" or a keyword */
  char *previous;     /* read by the worker just before writing */
  gboolean numeric;
  gboolean raise_only; /* skip if the kernel already holds as much */
  gboolean written;
} Write;

typedef struct {
  HpdDaemon *daemon;
  GPtrArray *writes;  /* Write */
  char *what;         /* for the log: "kernel.shmmax" */
  char *reply_file;   /* the file whose value the reply carries */
  char reply_type;    /* and its type: 't', 'u' or 'b' */
  GPtrArray *settings; /* Write: for SetThp, every setting asked, read back for the reply */
  char *persist;      /* configuration text to save, NULL: runtime only */
} TunableCall;

static void
write_free (Write *w)
{
  g_free (w->file);
  g_free (w->value);
  g_free (w->previous);
  g_free (w);
}

static void
tunable_call_free (TunableCall *call)
{
  g_clear_object (&call->daemon);
  g_clear_pointer (&call->writes, g_ptr_array_unref);
  g_clear_pointer (&call->settings, g_ptr_array_unref);
  g_free (call->what);
  g_free (call->reply_file);
  g_free (call->persist);
  g_free (call);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TunableCall, tunable_call_free)

/* Every change replies what the kernel holds afterwards: @reply_file
 * read back as @reply_type ('t', 'u' or 'b'); NULL for SetThp, whose
 * reply is its settings read back (thp_reply). */
static TunableCall *
tunable_call_new (HpdDaemon *daemon, const char *what, const char *reply_file, char reply_type)
{
  TunableCall *call = g_new0 (TunableCall, 1);

  call->daemon = g_object_ref (daemon);
  call->writes = g_ptr_array_new_with_free_func ((GDestroyNotify) write_free);
  call->settings = g_ptr_array_new_with_free_func ((GDestroyNotify) write_free);
  call->what = g_strdup (what);
  call->reply_file = g_strdup (reply_file);
  call->reply_type = reply_type;
  return call;
}

/* The reply of a change whose kernel value is @value. */
static GVariant *
reply_value (char type, guint64 value)
{
  switch (type)
    {
    case 'u':
      return g_variant_new ("(u)", (guint32) MIN (value, G_MAXUINT32));
    case 'b':
      return g_variant_new ("(b)", value != 0);
    default:
      return g_variant_new ("(t)", value);
    }
}

static Write *
write_new (const char *file, const char *value, gboolean numeric, gboolean raise_only)
{
  Write *w = g_new0 (Write, 1);

  w->file = g_strdup (file);
  w->value = g_strdup (value);
  w->numeric = numeric;
  w->raise_only = raise_only;
  return w;
}

static void
add_write (TunableCall *call, const char *file, const char *value, gboolean numeric,
           gboolean raise_only)
{
  g_ptr_array_add (call->writes, write_new (file, value, numeric, raise_only));
}

static gboolean
do_write (HpdKernel *kernel, const char *file, const char *value, gboolean numeric,
          GError **error)
{
  guint64 n;

  if (numeric && hp_parse_u64 (value, &n, NULL))
    return hpd_kernel_write_counter (kernel, file, n, error);
  return hpd_kernel_write_text (kernel, file, value, error);
}

/* Reads a file back the way it was written: a number, or the bracketed
 * keyword of a THP choice. */
static char *
read_back (HpdKernel *kernel, const Write *w)
{
  g_autofree char *text = NULL;
  g_autofree char *current = NULL;
  g_auto(GStrv) choices = NULL;
  guint64 n;

  if (w->numeric)
    return hpd_kernel_read_counter (kernel, w->file, &n, NULL)
      ? g_strdup_printf ("%" G_GUINT64_FORMAT, n) : NULL;
  if (!hpd_kernel_read_text (kernel, w->file, &text, NULL) ||
      !hpd_parse_thp_choice (text, &current, &choices))
    return NULL;
  return g_steal_pointer (&current);
}

/* SetThp's reply: each setting asked, by its ThpSettings name, as the
 * kernel holds it (@kernel), or as asked (NULL: a dry run, or nothing to
 * write). Choices are s, the khugepaged numbers u, as SetThp takes them. */
static GVariant *
thp_reply (const TunableCall *call, HpdKernel *kernel)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a{sv}"));
  for (guint i = 0; i < call->settings->len; i++)
    {
      const Write *w = g_ptr_array_index (call->settings, i);
      g_autofree char *now = kernel != NULL ? read_back (kernel, w) : g_strdup (w->value);
      const char *name = w->file + strlen (HPD_THP_DIR "/");
      guint64 n;

      if (now == NULL)
        continue;
      if (w->numeric && hp_parse_u64 (now, &n, NULL))
        g_variant_builder_add (&b, "{sv}", name,
                               g_variant_new_uint32 ((guint32) MIN (n, G_MAXUINT32)));
      else if (!w->numeric)
        g_variant_builder_add (&b, "{sv}", name, g_variant_new_string (now));
    }
  return g_variant_new ("(a{sv})", &b);
}

/* Worker thread: all writes or none. */
static GVariant *
tunable_work (gpointer data, GCancellable *cancellable, GError **error)
{
  TunableCall *call = data;
  HpdKernel *kernel = hpd_daemon_get_kernel (call->daemon);
  gboolean failed = FALSE;

  for (guint i = 0; i < call->writes->len && !failed; i++)
    {
      Write *w = g_ptr_array_index (call->writes, i);
      g_autofree char *now = NULL;

      /* put back what the kernel holds now, not what it held when the call
       * was checked: changes queued before this one may have run since */
      g_free (w->previous);
      w->previous = read_back (kernel, w);
      if (w->raise_only && w->previous != NULL)
        {
          guint64 held, wanted;

          if (hp_parse_u64 (w->previous, &held, NULL) && hp_parse_u64 (w->value, &wanted, NULL) &&
              held >= wanted)
            continue;
        }
      if (!do_write (kernel, w->file, w->value, w->numeric, error))
        {
          failed = TRUE;
          break;
        }
      w->written = TRUE;
      now = read_back (kernel, w);
      if (g_strcmp0 (now, w->value) != 0)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_FAILED,
                       "The kernel took %s for %s but reads back %s",
                       w->value, w->file, now ? now : "nothing");
          failed = TRUE;
        }
    }

  if (!failed)
    {
      guint64 value = 0;

      /* Applied: a failure to save is reported, not undone, so the
       * caller knows the kernel has the change and the file has not. */
      if (call->persist != NULL &&
          !hpd_persist_text (hpd_kernel_get_root (kernel), call->persist, error))
        return NULL;
      if (call->reply_file == NULL)
        return thp_reply (call, kernel);
      hpd_kernel_read_counter (kernel, call->reply_file, &value, NULL);
      return reply_value (call->reply_type, value);
    }

  /* put back what was already written, newest first */
  for (guint i = call->writes->len; i > 0; i--)
    {
      Write *w = g_ptr_array_index (call->writes, i - 1);
      g_autoptr(GError) undo_error = NULL;

      if (w->written && w->previous != NULL &&
          !do_write (kernel, w->file, w->previous, w->numeric, &undo_error))
        g_warning ("Could not put %s back to %s: %s", w->file, w->previous, undo_error->message);
    }
  return NULL;
}

static void
tunable_done (gpointer data, const HpdCaller *caller, GVariant *reply, const GError *error)
{
  TunableCall *call = data;
  g_autoptr(GString) what = g_string_new (NULL);

  hpd_daemon_refresh_tunables (call->daemon);
  for (guint i = 0; i < call->writes->len; i++)
    {
      Write *w = g_ptr_array_index (call->writes, i);
      g_string_append_printf (what, "%s%s=%s", i ? ", " : "", w->file, w->value);
    }
  /* nothing written: a recommendation below the kernel's value only saved */
  if (what->len == 0)
    g_string_append (what, "the kernel's value kept");
  if (reply != NULL && call->writes->len == 0)
    g_message ("uid %u (pid %u) saved %s for boot, %s", caller->uid, caller->pid, call->what,
               what->str);
  else if (reply != NULL)
    g_message ("uid %u (pid %u) set %s: %s%s", caller->uid, caller->pid, call->what, what->str,
               call->persist ? " (saved for boot)" : "");
  else
    g_warning ("uid %u (pid %u): setting %s (%s) failed: %s", caller->uid, caller->pid,
               call->what, what->str, error->message);
}

static void
run (TunableCall *call, GDBusMethodInvocation *invocation, const char *detail_value)
{
  g_autoptr(GHashTable) details = hpd_auth_details_new ();
  HpdDaemon *daemon = call->daemon;

  hpd_auth_details_set (details, "tunable", call->what);
  if (call->persist != NULL)
    hpd_auth_details_set (details, "persist", "true");
  if (detail_value != NULL)
    hpd_auth_details_set (details, "value", detail_value);
  hpd_job_run (daemon, invocation, details, tunable_work, tunable_done,
               call, (GDestroyNotify) tunable_call_free);
}

typedef struct {
  gboolean dry_run;
  gboolean persist;
  gboolean allow_lower;
} TunableOptions;

/* The keys a method accepts are its row's (hpd-methods.c), checked. */
static void
read_options (const HpdCall *call, TunableOptions *out)
{
  *out = (TunableOptions) { FALSE, FALSE, FALSE };
  g_variant_lookup (call->options, HP_OPTION_DRY_RUN, "b", &out->dry_run);
  g_variant_lookup (call->options, HP_OPTION_PERSIST, "b", &out->persist);
  g_variant_lookup (call->options, HP_OPTION_ALLOW_LOWER, "b", &out->allow_lower);
}

/* Answers at once what needs no authorization: a dry run, or a call that
 * changes neither the kernel nor the saved configuration. */
static gboolean
answered_at_once (GDBusMethodInvocation *invocation, const TunableOptions *opts,
                  gboolean kernel_has_it, GVariant *reply)
{
  if (!opts->dry_run && (!kernel_has_it || opts->persist))
    {
      g_variant_unref (g_variant_ref_sink (reply));
      return FALSE;
    }
  g_dbus_method_invocation_return_value (invocation, reply);
  return TRUE;
}

/* A name the configuration parser takes back unchanged, else the id. */
static char *
group_for_config (const char *group, guint32 gid)
{
  if (hpd_mount_name_is_valid (group))
    return g_strdup (group);
  return g_strdup_printf ("%u", gid);
}

static char *
u64_text (guint64 v)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT, v);
}

/* The pool-wide counters Maximum needs, and no per-node file: on a machine
 * with many nodes those would be nearly all of what reading the Manager's
 * properties costs (64 nodes: 192 files per size, against 3). */
static gboolean
read_pool_maximum_counters (HpdKernel *kernel, const HpdPool *pool, HpdPoolCounters *c)
{
  g_autofree char *total = g_build_filename (pool->dir, "nr_hugepages", NULL);
  g_autofree char *surplus = g_build_filename (pool->dir, "surplus_hugepages", NULL);
  g_autofree char *overcommit = g_build_filename (pool->dir, "nr_overcommit_hugepages", NULL);

  if (!hpd_kernel_read_counter (kernel, total, &c->total, NULL) ||
      !hpd_kernel_read_counter (kernel, surplus, &c->surplus, NULL))
    return FALSE;
  /* as hpd_pool_read: a missing overcommit file is 0 */
  if (!hpd_kernel_read_counter (kernel, overcommit, &c->overcommit, NULL))
    c->overcommit = 0;
  return TRUE;
}

guint64
hpd_tunables_recommended_shmmax (HpdDaemon *daemon)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  GPtrArray *pools = hpd_daemon_get_pools (daemon);
  /* one for all pools (hpd_pool_read() clears it first): gcc 12's
   * -fanalyzer takes the cleanup of one in the loop body for a use of an
   * uninitialized value when the loop goes round again */
  g_auto(HpdPoolCounters) c = { 0, };
  guint64 total = 0;

  /* hugeadm: the largest segment all pools together could back */
  for (guint i = 0; i < pools->len; i++)
    {
      const HpdPool *pool = g_ptr_array_index (pools, i);
      guint64 bytes;

      if (!read_pool_maximum_counters (kernel, pool, &c))
        continue;
      if (!hp_pages_to_bytes (hpd_pool_counters_maximum (&c), pool->size, &bytes))
        return G_MAXUINT64;
      total = hp_add_saturating (total, bytes);
    }
  return total;
}

guint64
hpd_tunables_recommended_min_free_kbytes (HpdDaemon *daemon)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  g_autofree char *meminfo = NULL;
  guint64 mem_total_kb = 0;
  guint zones = 0;

  if (hpd_kernel_read_text_part (kernel, "proc/meminfo", hpd_parse_meminfo_sizes, &meminfo, NULL))
    hpd_parse_meminfo (meminfo, "MemTotal", &mem_total_kb);
  if (!hpd_tunables_populated_zones (hpd_daemon_get_zone_count (daemon), kernel, mem_total_kb,
                                     &zones))
    zones = 0;
  return hpd_recommend_min_free_kbytes (zones, hpd_tunables_pageblock_kb (kernel), mem_total_kb);
}

/* What SetRecommendedShmMax and SetRecommendedMinFreeKbytes set: what
 * @recommend gives, at least @floor. A current value above it (the
 * tunable at @offset of HpdTunables) is someone's choice, or the kernel's
 * generous default, and stays unless allow-lower. FALSE, the call answered
 * with an error, when persist and allow-lower come together (the saved
 * keyword never lowers at boot, so saving it would not keep what the call
 * does) or when there is nothing to recommend (0: @none says why). */
static gboolean
recommended_value (const HpdCall *call, TunableOptions *opts,
                   guint64 (*recommend)(HpdDaemon *daemon), guint64 floor, glong offset,
                   const char *none, guint64 *value)
{
  g_auto(HpdTunables) t = { 0, };
  guint64 current;

  read_options (call, opts);
  if (opts->persist && opts->allow_lower)
    {
      g_dbus_method_invocation_return_error_literal (call->invocation, HP_ERROR,
                                                     HP_ERROR_INVALID_ARGS,
                                                     "persist and allow-lower cannot be combined: "
                                                     "set the value itself to save a lower one");
      return FALSE;
    }
  *value = recommend (call->daemon);
  if (*value == 0)
    {
      g_dbus_method_invocation_return_error_literal (call->invocation, HP_ERROR,
                                                     HP_ERROR_NOT_SUPPORTED, none);
      return FALSE;
    }
  *value = MAX (*value, floor);
  hpd_tunables_read (hpd_daemon_get_kernel (call->daemon), &t);
  current = G_STRUCT_MEMBER (guint64, &t, offset);
  if (current > *value && !opts->allow_lower)
    *value = current;
  return TRUE;
}

/* shmmax, with shmall raised when it would block a segment that size. */
/* @recommended: the call was SetRecommendedShmMax, which saves the keyword,
 * so the next boot recomputes it. */
static void
set_shmmax (HpdDaemon *daemon, GDBusMethodInvocation *invocation, guint64 value,
            const TunableOptions *opts, gboolean recommended)
{
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  g_auto(HpdTunables) t = { 0, };
  g_autoptr(TunableCall) call = NULL;
  g_autofree char *text = u64_text (value);
  guint64 shmall;

  hpd_tunables_read (kernel, &t);
  shmall = hpd_recommend_shmall (value, (guint64) sysconf (_SC_PAGESIZE));

  if (answered_at_once (invocation, opts, value == t.shmmax && shmall <= t.shmall,
                        reply_value ('t', value)))
    return;

  call = tunable_call_new (daemon, "kernel.shmmax", HPD_SHMMAX, 't');
  if (value != t.shmmax)
    add_write (call, HPD_SHMMAX, text, TRUE, FALSE);
  /* decided again in the worker: shmall may have grown by then */
  if (shmall > t.shmall)
    {
      g_autofree char *all = u64_text (shmall);
      add_write (call, HPD_SHMALL, all, TRUE, TRUE);
    }
  if (opts->persist)
    call->persist = recommended ? g_strdup ("[tunables]\nshmmax = recommended\n")
                                : g_strdup_printf ("[tunables]\nshmmax = %s\n", text);
  run (g_steal_pointer (&call), invocation, text);
}

void
hpd_tunable_calls_set_shm_max (const HpdCall *call)
{
  HpdDaemon *daemon = call->daemon;
  GDBusMethodInvocation *invocation = call->invocation;
  TunableOptions opts;
  guint64 value;

  g_variant_get (call->parameters, "(t@a{sv})", &value, NULL);
  read_options (call, &opts);
  if (value < (guint64) sysconf (_SC_PAGESIZE))
    {
      g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_INVALID_ARGS,
                                             "shmmax of %" G_GUINT64_FORMAT " bytes is smaller "
                                             "than a page: no segment could be created", value);
      return;
    }
  set_shmmax (daemon, invocation, value, &opts, FALSE);
}

void
hpd_tunable_calls_set_recommended_shm_max (const HpdCall *call)
{
  TunableOptions opts;
  guint64 value;

  if (recommended_value (call, &opts, hpd_tunables_recommended_shmmax, 0,
                         G_STRUCT_OFFSET (HpdTunables, shmmax),
                         "No pool is configured, so there is nothing to recommend for shmmax",
                         &value))
    set_shmmax (call->daemon, call->invocation, value, &opts, TRUE);
}

void
hpd_tunable_calls_set_shm_group (const HpdCall *method_call)
{
  HpdDaemon *daemon = method_call->daemon;
  GDBusMethodInvocation *invocation = method_call->invocation;
  g_autoptr(GError) error = NULL;
  g_autoptr(TunableCall) call = NULL;
  g_auto(HpdTunables) t = { 0, };
  g_autofree char *text = NULL;
  TunableOptions opts;
  const char *group;
  guint32 gid;

  g_variant_get (method_call->parameters, "(&s@a{sv})", &group, NULL);
  read_options (method_call, &opts);

  if (!hpd_tunables_resolve_shm_group (group, &gid, &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }

  hpd_tunables_read (hpd_daemon_get_kernel (daemon), &t);
  if (answered_at_once (invocation, &opts, gid == t.shm_group, reply_value ('u', gid)))
    return;

  text = g_strdup_printf ("%u", gid);
  call = tunable_call_new (daemon, "vm.hugetlb_shm_group", HPD_SHM_GROUP, 'u');
  if (gid != t.shm_group)
    add_write (call, HPD_SHM_GROUP, text, TRUE, FALSE);
  if (opts.persist)
    {
      g_autofree char *saved = group_for_config (group, gid);
      call->persist = g_strdup_printf ("[tunables]\nshm-group = %s\n", saved);
    }
  run (g_steal_pointer (&call), invocation, text);
}

/* @recommended: as for set_shmmax */
static void
set_min_free_kbytes (HpdDaemon *daemon, GDBusMethodInvocation *invocation, guint64 value,
                     const TunableOptions *opts, gboolean recommended)
{
  g_autoptr(TunableCall) call = NULL;
  g_auto(HpdTunables) t = { 0, };
  g_autofree char *text = u64_text (value);

  hpd_tunables_read (hpd_daemon_get_kernel (daemon), &t);
  if (answered_at_once (invocation, opts, value == t.min_free_kbytes, reply_value ('t', value)))
    return;

  call = tunable_call_new (daemon, "vm.min_free_kbytes", HPD_MIN_FREE_KBYTES, 't');
  if (value != t.min_free_kbytes)
    add_write (call, HPD_MIN_FREE_KBYTES, text, TRUE, FALSE);
  if (opts->persist)
    call->persist = g_strdup_printf ("[tunables]\nmin-free-kbytes = %s\n",
                                     recommended ? "recommended" : text);
  run (g_steal_pointer (&call), invocation, text);
}

void
hpd_tunable_calls_set_min_free_kbytes (const HpdCall *call)
{
  HpdDaemon *daemon = call->daemon;
  GDBusMethodInvocation *invocation = call->invocation;
  g_autoptr(GError) error = NULL;
  TunableOptions opts;
  guint64 value;

  g_variant_get (call->parameters, "(t@a{sv})", &value, NULL);
  read_options (call, &opts);
  if (!hpd_tunables_check_min_free_kbytes (hpd_daemon_get_kernel (daemon), value, &error))
    {
      hpd_job_return_error (invocation, error);
      return;
    }
  set_min_free_kbytes (daemon, invocation, value, &opts, FALSE);
}

void
hpd_tunable_calls_set_recommended_min_free_kbytes (const HpdCall *call)
{
  TunableOptions opts;
  guint64 value;

  /* nothing to count (no zoneinfo, no MemTotal): no recommendation, and
   * above all no "lowering" to the floor */
  if (recommended_value (call, &opts, hpd_tunables_recommended_min_free_kbytes,
                         HPD_MIN_FREE_KBYTES_FLOOR, G_STRUCT_OFFSET (HpdTunables, min_free_kbytes),
                         "The memory zones (/proc/zoneinfo) or MemTotal cannot be read, so "
                         "there is nothing to recommend for min_free_kbytes", &value))
    set_min_free_kbytes (call->daemon, call->invocation, value, &opts, TRUE);
}

void
hpd_tunable_calls_set_zone_movable (const HpdCall *method_call)
{
  HpdDaemon *daemon = method_call->daemon;
  GDBusMethodInvocation *invocation = method_call->invocation;
  g_autoptr(TunableCall) call = NULL;
  g_auto(HpdTunables) t = { 0, };
  TunableOptions opts;
  gboolean enabled;

  g_variant_get (method_call->parameters, "(b@a{sv})", &enabled, NULL);
  read_options (method_call, &opts);

  hpd_tunables_read (hpd_daemon_get_kernel (daemon), &t);
  if (t.zone_movable_file == NULL)
    {
      g_dbus_method_invocation_return_error_literal (invocation, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                                                     "This kernel has no setting for huge pages in "
                                                     "ZONE_MOVABLE (hugepages_treat_as_movable was "
                                                     "removed in Linux 4.16; migratable huge pages use "
                                                     "ZONE_MOVABLE by themselves)");
      return;
    }
  if (answered_at_once (invocation, &opts, enabled == t.zone_movable, reply_value ('b', enabled)))
    return;

  call = tunable_call_new (daemon, "zone movable", t.zone_movable_file, 'b');
  if (enabled != t.zone_movable)
    add_write (call, t.zone_movable_file, enabled ? "1" : "0", TRUE, FALSE);
  if (opts.persist)
    call->persist = g_strdup_printf ("[tunables]\nzone-movable = %s\n", enabled ? "yes" : "no");
  run (g_steal_pointer (&call), invocation, enabled ? "1" : "0");
}

static gboolean
is_numeric_thp (const char *name)
{
  return g_strv_contains (hpd_thp_numeric_settings, name);
}

void
hpd_tunable_calls_set_thp (const HpdCall *method_call)
{
  HpdDaemon *daemon = method_call->daemon;
  GDBusMethodInvocation *invocation = method_call->invocation;
  HpdKernel *kernel = hpd_daemon_get_kernel (daemon);
  g_autoptr(TunableCall) call = tunable_call_new (daemon, "transparent huge pages", NULL, 0);
  g_autoptr(GString) saved = g_string_new ("[thp]\n");
  g_auto(HpdTunables) t = { 0, };
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GVariant) settings = g_variant_get_child_value (method_call->parameters, 0);
  gsize n = g_variant_n_children (settings);
  TunableOptions opts;

  read_options (method_call, &opts);
  if (n == 0 || n > MAX_THP_SETTINGS)
    {
      g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_INVALID_ARGS,
                                             "Give between 1 and %u THP settings", MAX_THP_SETTINGS);
      return;
    }

  hpd_tunables_read (kernel, &t);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GVariant) value = NULL;
      g_autofree char *file = NULL;
      g_autofree char *shown = NULL;
      HpdThpChoice *choice;

      g_variant_get_child (settings, i, "{sv}", &name, &value);
      shown = g_strescape (name, NULL);
      if (strlen (shown) > 64)
        strcpy (shown + 61, "...");
      if (!g_hash_table_add (seen, g_strdup (name)))
        {
          g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_INVALID_ARGS,
                                                 "THP setting '%s' given twice", shown);
          return;
        }
      file = g_build_filename (HPD_THP_DIR, name, NULL);

      choice = g_hash_table_lookup (t.thp, name);
      if (choice != NULL)
        {
          const char *wanted;

          if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ||
              !g_strv_contains ((const char *const *) choice->choices,
                                (wanted = g_variant_get_string (value, NULL))))
            {
              g_autofree char *allowed = g_strjoinv (", ", choice->choices);
              g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_INVALID_ARGS,
                                                     "THP setting '%s' takes one of: %s",
                                                     shown, allowed);
              return;
            }
          if (!g_str_equal (wanted, choice->current))
            add_write (call, file, wanted, FALSE, FALSE);
          g_ptr_array_add (call->settings, write_new (file, wanted, FALSE, FALSE));
          g_string_append_printf (saved, "%s = %s\n", name, wanted);
        }
      else if (is_numeric_thp (name))
        {
          guint32 current, wanted;
          g_autofree char *text = NULL;

          if (!hpd_tunables_thp_number (kernel, name, &current))
            {
              g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_NOT_SUPPORTED,
                                                     "This kernel has no THP setting '%s'", shown);
              return;
            }
          if (!g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32) ||
              ((wanted = g_variant_get_uint32 (value)) == 0 &&
               g_str_equal (name, "khugepaged/pages_to_scan")))
            {
              g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_INVALID_ARGS,
                                                     "THP setting '%s' takes a whole number%s", shown,
                                                     g_str_equal (name, "khugepaged/pages_to_scan")
                                                       ? " of at least 1" : "");
              return;
            }
          text = g_strdup_printf ("%u", wanted);
          if (wanted != current)
            add_write (call, file, text, TRUE, FALSE);
          g_ptr_array_add (call->settings, write_new (file, text, TRUE, FALSE));
          g_string_append_printf (saved, "%s = %s\n", name, text);
        }
      else
        {
          g_dbus_method_invocation_return_error (invocation, HP_ERROR, HP_ERROR_INVALID_ARGS,
                                                 "Unknown THP setting '%s'", shown);
          return;
        }
    }

  if (answered_at_once (invocation, &opts, call->writes->len == 0, thp_reply (call, NULL)))
    return;
  /* names the kernel offers and values it lists, nothing else */
  if (opts.persist)
    call->persist = g_string_free (g_steal_pointer (&saved), FALSE);
  {
    /* only names the kernel offers and values it lists reach this string */
    g_autoptr(GString) value = g_string_new (NULL);

    for (guint i = 0; i < call->writes->len; i++)
      {
        Write *w = g_ptr_array_index (call->writes, i);
        g_string_append_printf (value, "%s%s=%s", i ? "," : "",
                                w->file + strlen (HPD_THP_DIR "/"), w->value);
      }
    run (g_steal_pointer (&call), invocation, value->str);
  }
}
