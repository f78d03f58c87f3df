/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hp-error.h"
#include "hp-files.h"
#include "hp-units.h"
#include "hpd-claims.h"
#include "hpd-stat-state.h"

/* A claim file holds a few lines; anything bigger is not one. */
#define MAX_FILE_SIZE (64u << 10)

static const char header[] =
  "# Huge page claims of one consumer, kept by hugepagesd (hugepagesctl claims).\n"
  "# One group per claim: [SIZE] for the pool, [SIZE nodeN] for one NUMA node.\n\n";

void
hpd_claim_free (HpdClaim *claim)
{
  if (claim == NULL)
    return;
  g_free (claim->consumer);
  g_free (claim);
}

static HpdClaim *
claim_copy (const HpdClaim *claim)
{
  HpdClaim *copy = g_memdup2 (claim, sizeof *claim);

  copy->consumer = g_strdup (claim->consumer);
  return copy;
}

gboolean
hpd_claim_consumer_valid (const char *name, GError **error)
{
  gsize length = strlen (name);

  if (length == 0 || length > HPD_CLAIM_MAX_NAME ||
      !(g_ascii_islower (name[0]) || g_ascii_isdigit (name[0])))
    goto bad;
  for (gsize i = 1; i < length; i++)
    if (!(g_ascii_islower (name[i]) || g_ascii_isdigit (name[i]) ||
          name[i] == '.' || name[i] == '_' || name[i] == '-'))
      goto bad;
  return TRUE;

bad:
  g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
               "A consumer name is 1 to %u characters of a-z, 0-9, '.', '_' and '-', "
               "starting with a letter or digit", HPD_CLAIM_MAX_NAME);
  return FALSE;
}

static int
compare_claims (gconstpointer a, gconstpointer b)
{
  const HpdClaim *x = *(HpdClaim *const *) a, *y = *(HpdClaim *const *) b;
  int c = strcmp (x->consumer, y->consumer);

  if (c != 0)
    return c;
  if (x->page_size != y->page_size)
    return x->page_size < y->page_size ? -1 : 1;
  /* the pool as a whole (G_MAXUINT32) before the nodes */
  if (x->node != y->node)
    return x->node == HPD_CLAIM_ALL_NODES ? -1
         : y->node == HPD_CLAIM_ALL_NODES ? 1
         : x->node < y->node ? -1 : 1;
  return 0;
}

static gboolean
same_place (const HpdClaim *claim, guint64 page_size, guint32 node)
{
  return claim->page_size == page_size && claim->node == node;
}

/* "2MB" or "2MB node1" */
static gboolean
parse_group (const char *group, guint64 *page_size, guint32 *node)
{
  g_auto(GStrv) words = g_strsplit (group, " ", -1);
  guint n = g_strv_length (words);

  if (n < 1 || n > 2 || !hp_parse_size (words[0], page_size, NULL) || *page_size == 0)
    return FALSE;
  *node = HPD_CLAIM_ALL_NODES;
  if (n == 2)
    return g_str_has_prefix (words[1], "node") &&
           hp_parse_u32 (words[1] + strlen ("node"), node, NULL) &&
           *node != HPD_CLAIM_ALL_NODES;
  return TRUE;
}

static char *
group_name (guint64 page_size, guint32 node)
{
  g_autofree char *size = hp_size_name (page_size);

  return node == HPD_CLAIM_ALL_NODES ? g_steal_pointer (&size)
                                     : g_strdup_printf ("%s node%u", size, node);
}

static gboolean
parse_claim (GKeyFile *file, const char *group, HpdClaim *claim, GError **error)
{
  g_auto(GStrv) keys = g_key_file_get_keys (file, group, NULL, NULL);
  gboolean has_pages = FALSE;

  if (!parse_group (group, &claim->page_size, &claim->node))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "[%s] is not SIZE or SIZE nodeN", group);
      return FALSE;
    }
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autofree char *value = g_key_file_get_value (file, group, keys[i], NULL);
      gboolean ok;

      if (g_str_equal (keys[i], "pages"))
        ok = has_pages = value != NULL && hp_parse_u64 (value, &claim->pages, NULL) &&
                         claim->pages > 0;
      else if (g_str_equal (keys[i], "uid"))
        ok = value != NULL && hp_parse_u32 (value, &claim->uid, NULL);
      else
        ok = FALSE;
      if (!ok)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "[%s]: bad key or value '%s'", group, keys[i]);
          return FALSE;
        }
    }
  if (!has_pages)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "[%s]: no pages", group);
      return FALSE;
    }
  return TRUE;
}

/* The claims of one file; an absent file has none. A file that cannot be
 * read is logged and counts as empty; a bad group is logged and skipped. */
static GPtrArray *
read_file (const char *path, const char *consumer, gboolean persisted)
{
  g_autoptr(GPtrArray) claims = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_claim_free);
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) groups = NULL;
  g_autofree char *text = NULL;
  gsize length;
  struct stat st;

  if (stat (path, &st) < 0)
    return g_steal_pointer (&claims);
  if (!S_ISREG (st.st_mode) || st.st_size > MAX_FILE_SIZE)
    {
      /* /dev/null masks a shipped claim, as for the configuration */
      if (!S_ISCHR (st.st_mode))
        g_warning ("Ignoring the claims in %s: not a regular file of at most %u bytes",
                   path, MAX_FILE_SIZE);
      return g_steal_pointer (&claims);
    }
  if (!g_file_get_contents (path, &text, &length, &error) ||
      !g_key_file_load_from_data (file, text, length, G_KEY_FILE_NONE, &error))
    {
      g_warning ("Ignoring the claims in %s: %s", path, error->message);
      return g_steal_pointer (&claims);
    }

  groups = g_key_file_get_groups (file, NULL);
  for (guint i = 0; groups[i] != NULL && claims->len < HPD_CLAIMS_MAX_PER_CONSUMER; i++)
    {
      g_autoptr(HpdClaim) claim = g_new0 (HpdClaim, 1);
      g_autoptr(GError) group_error = NULL;

      if (!parse_claim (file, groups[i], claim, &group_error))
        {
          g_warning ("%s: %s; skipped", path, group_error->message);
          continue;
        }
      claim->consumer = g_strdup (consumer);
      claim->persisted = persisted;
      g_ptr_array_add (claims, g_steal_pointer (&claim));
    }
  return g_steal_pointer (&claims);
}

static char *
layer_path (const char *root, const char *dir, const char *consumer)
{
  g_autofree char *name = g_strconcat (consumer, ".conf", NULL);

  return g_build_filename (root, dir, name, NULL);
}

/* The persisted claims of @consumer: the file in etc/ if there is one
 * (which masks the shipped one), else the shipped one. */
static GPtrArray *
read_persisted (const char *root, const char *consumer)
{
  g_autofree char *admin = layer_path (root, HPD_CLAIMS_ADMIN_DIR, consumer);
  g_autofree char *vendor = layer_path (root, HPD_CLAIMS_VENDOR_DIR, consumer);
  struct stat st;

  return read_file (lstat (admin, &st) == 0 ? admin : vendor, consumer, TRUE);
}

static GPtrArray *
read_runtime (const char *root, const char *consumer)
{
  g_autofree char *path = layer_path (root, HPD_CLAIMS_RUNTIME_DIR, consumer);

  return read_file (path, consumer, FALSE);
}

static void
list_consumers (const char *root, const char *dir, GHashTable *names)
{
  g_autofree char *path = g_build_filename (root, dir, NULL);
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL &&
         g_hash_table_size (names) < HPD_CLAIMS_MAX_CONSUMERS)
    {
      g_autofree char *consumer = NULL;

      if (!g_str_has_suffix (name, ".conf"))
        continue;
      consumer = g_strndup (name, strlen (name) - strlen (".conf"));
      if (hpd_claim_consumer_valid (consumer, NULL))
        g_hash_table_add (names, g_steal_pointer (&consumer));
      else
        g_debug ("Ignoring %s/%s: not a consumer name", path, name);
    }
}

/* The claims of one consumer in force: runtime ones override persisted
 * ones of the same (size, node). */
static void
add_consumer (const char *root, const char *consumer, GPtrArray *claims)
{
  g_autoptr(GPtrArray) runtime = read_runtime (root, consumer);
  g_autoptr(GPtrArray) persisted = read_persisted (root, consumer);

  for (guint i = 0; i < runtime->len; i++)
    g_ptr_array_add (claims, claim_copy (g_ptr_array_index (runtime, i)));
  for (guint i = 0; i < persisted->len; i++)
    {
      const HpdClaim *p = g_ptr_array_index (persisted, i);
      gboolean overridden = FALSE;

      for (guint j = 0; j < runtime->len && !overridden; j++)
        overridden = same_place (g_ptr_array_index (runtime, j), p->page_size, p->node);
      if (!overridden)
        g_ptr_array_add (claims, claim_copy (p));
    }
}

GPtrArray *
hpd_claims_load (const char *root)
{
  GPtrArray *claims = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_claim_free);
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer name;

  list_consumers (root, HPD_CLAIMS_RUNTIME_DIR, names);
  list_consumers (root, HPD_CLAIMS_ADMIN_DIR, names);
  list_consumers (root, HPD_CLAIMS_VENDOR_DIR, names);

  g_hash_table_iter_init (&iter, names);
  while (g_hash_table_iter_next (&iter, &name, NULL))
    add_consumer (root, name, claims);
  g_ptr_array_sort (claims, compare_claims);
  return claims;
}

struct _HpdClaimsCache
{
  GMutex lock;            /* the main thread and the worker read claims */
  char *root;
  char *dirs[3];          /* hpd_claims_load's directories */
  HpdStatState seen[3];
  gboolean trusted;       /* every time in @seen had settled when taken */
  GPtrArray *claims;      /* NULL until the first call */
  gint64 settle_us;
  guint64 loads;
};

HpdClaimsCache *
hpd_claims_cache_new (const char *root, gint64 settle_us)
{
  HpdClaimsCache *self = g_new0 (HpdClaimsCache, 1);

  g_mutex_init (&self->lock);
  self->root = g_strdup (root);
  self->dirs[0] = g_build_filename (root, HPD_CLAIMS_RUNTIME_DIR, NULL);
  self->dirs[1] = g_build_filename (root, HPD_CLAIMS_ADMIN_DIR, NULL);
  self->dirs[2] = g_build_filename (root, HPD_CLAIMS_VENDOR_DIR, NULL);
  self->settle_us = settle_us;
  return self;
}

void
hpd_claims_cache_free (HpdClaimsCache *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->claims, g_ptr_array_unref);
  for (guint i = 0; i < G_N_ELEMENTS (self->dirs); i++)
    g_free (self->dirs[i]);
  g_free (self->root);
  g_mutex_clear (&self->lock);
  g_free (self);
}

GPtrArray *
hpd_claims_cache_get (HpdClaimsCache *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  gboolean unchanged = self->claims != NULL && self->trusted;

  for (guint i = 0; i < G_N_ELEMENTS (self->dirs) && unchanged; i++)
    {
      HpdStatState now;

      hpd_stat_state_take (self->dirs[i], &now);
      unchanged = hpd_stat_state_equal (&self->seen[i], &now);
    }
  if (!unchanged)
    {
      gint64 now = g_get_real_time ();

      /* the state before the contents: a change while they are read
       * shows as a difference next time */
      self->trusted = TRUE;
      for (guint i = 0; i < G_N_ELEMENTS (self->dirs); i++)
        {
          hpd_stat_state_take (self->dirs[i], &self->seen[i]);
          self->trusted = self->trusted &&
                          hpd_stat_state_settled (&self->seen[i], now, self->settle_us);
        }
      g_clear_pointer (&self->claims, g_ptr_array_unref);
      self->claims = hpd_claims_load (self->root);
      self->loads++;
    }
  return g_ptr_array_ref (self->claims);
}

GArray *
hpd_claims_cache_dup_paths (HpdClaimsCache *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  GArray *paths;

  if (self->claims == NULL || !self->trusted)
    return NULL;
  paths = hpd_stat_paths_new ();
  for (guint i = 0; i < G_N_ELEMENTS (self->dirs); i++)
    hpd_stat_paths_add (paths, self->dirs[i], &self->seen[i]);
  return paths;
}

guint64
hpd_claims_cache_get_loads (HpdClaimsCache *self)
{
  G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  return self->loads;
}

const HpdClaim *
hpd_claims_find (GPtrArray *claims, const char *consumer, guint64 page_size, guint32 node)
{
  for (guint i = 0; i < claims->len; i++)
    {
      const HpdClaim *c = g_ptr_array_index (claims, i);

      if (g_str_equal (c->consumer, consumer) && same_place (c, page_size, node))
        return c;
    }
  return NULL;
}

guint64
hpd_claims_sum (GPtrArray *claims, guint64 page_size, guint32 node)
{
  guint64 sum = 0;

  for (guint i = 0; i < claims->len; i++)
    {
      const HpdClaim *c = g_ptr_array_index (claims, i);

      if (c->page_size != page_size || (node != HPD_CLAIM_ALL_NODES && c->node != node))
        continue;
      sum = hp_add_saturating (sum, c->pages);
    }
  return sum;
}

gboolean
hpd_claims_check_room (GPtrArray *claims, const char *consumer, guint64 page_size,
                       guint32 node, GError **error)
{
  guint held = 0;

  if (hpd_claims_find (claims, consumer, page_size, node) != NULL)
    return TRUE;
  for (guint i = 0; i < claims->len; i++)
    if (g_str_equal (((HpdClaim *) g_ptr_array_index (claims, i))->consumer, consumer))
      held++;
  if (held == 0 && hpd_claims_count_consumers (claims) >= HPD_CLAIMS_MAX_CONSUMERS)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED,
                   "There are already %u consumers with claims", HPD_CLAIMS_MAX_CONSUMERS);
      return FALSE;
    }
  if (held >= HPD_CLAIMS_MAX_PER_CONSUMER)
    {
      g_set_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED,
                   "A consumer may hold at most %u claims", HPD_CLAIMS_MAX_PER_CONSUMER);
      return FALSE;
    }
  return TRUE;
}

guint
hpd_claims_count_consumers (GPtrArray *claims)
{
  guint n = 0;

  /* sorted by consumer: count the changes */
  for (guint i = 0; i < claims->len; i++)
    if (i == 0 || !g_str_equal (((HpdClaim *) g_ptr_array_index (claims, i))->consumer,
                                ((HpdClaim *) g_ptr_array_index (claims, i - 1))->consumer))
      n++;
  return n;
}

static char *
to_text (GPtrArray *claims)
{
  GString *text = g_string_new (header);

  g_ptr_array_sort (claims, compare_claims);
  for (guint i = 0; i < claims->len; i++)
    {
      const HpdClaim *c = g_ptr_array_index (claims, i);
      g_autofree char *group = group_name (c->page_size, c->node);

      g_string_append_printf (text, "[%s]\npages = %" G_GUINT64_FORMAT "\nuid = %u\n\n",
                              group, c->pages, c->uid);
    }
  return g_string_free (text, FALSE);
}

static gboolean
write_layer (const char *path, GPtrArray *claims, gboolean keep_empty, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *text = NULL;
  g_autoptr(GError) local_error = NULL;

  if (claims->len == 0 && !keep_empty)
    {
      if (unlink (path) < 0 && errno != ENOENT)
        {
          int e = errno;
          g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "Cannot remove %s: %s",
                       path, g_strerror (e));
          return FALSE;
        }
      return TRUE;
    }
  if (hp_mkdir_with_parents (dir, 0755) < 0)
    {
      int e = errno;
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "Cannot create %s: %s",
                   dir, g_strerror (e));
      return FALSE;
    }
  text = to_text (claims);
  if (!hp_file_set_contents (path, text, -1,
                             G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                             0644, &local_error))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_FAILED, "Cannot write %s: %s",
                   path, local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Drops the claim of (@page_size, @node) from @claims; TRUE if there was one. */
static gboolean
drop (GPtrArray *claims, guint64 page_size, guint32 node)
{
  for (guint i = 0; i < claims->len; i++)
    if (same_place (g_ptr_array_index (claims, i), page_size, node))
      {
        g_ptr_array_remove_index (claims, i);
        return TRUE;
      }
  return FALSE;
}

static gboolean
vendor_exists (const char *root, const char *consumer)
{
  g_autofree char *vendor = layer_path (root, HPD_CLAIMS_VENDOR_DIR, consumer);
  struct stat st;

  return lstat (vendor, &st) == 0;
}

static gboolean
write_runtime (const char *root, const char *consumer, GPtrArray *claims, GError **error)
{
  g_autofree char *path = layer_path (root, HPD_CLAIMS_RUNTIME_DIR, consumer);

  return write_layer (path, claims, FALSE, error);
}

/* An empty file in etc/ still masks the shipped one: keep it then. */
static gboolean
write_persisted (const char *root, const char *consumer, GPtrArray *claims, GError **error)
{
  g_autofree char *path = layer_path (root, HPD_CLAIMS_ADMIN_DIR, consumer);

  return write_layer (path, claims, vendor_exists (root, consumer), error);
}

/* More would not be read back (read_file stops there). */
static gboolean
check_count (GPtrArray *claims, GError **error)
{
  if (claims->len <= HPD_CLAIMS_MAX_PER_CONSUMER)
    return TRUE;
  g_set_error (error, HP_ERROR, HP_ERROR_LIMIT_EXCEEDED,
               "A consumer may hold at most %u claims", HPD_CLAIMS_MAX_PER_CONSUMER);
  return FALSE;
}

gboolean
hpd_claims_store (const char *root, const HpdClaim *claim, gboolean persist, GError **error)
{
  g_autoptr(GPtrArray) runtime = read_runtime (root, claim->consumer);
  gboolean had_runtime = drop (runtime, claim->page_size, claim->node);
  HpdClaim *copy = claim_copy (claim);

  copy->persisted = persist;
  if (persist)
    {
      g_autoptr(GPtrArray) persisted = read_persisted (root, claim->consumer);

      drop (persisted, claim->page_size, claim->node);
      g_ptr_array_add (persisted, copy);
      if (!check_count (persisted, error) ||
          !write_persisted (root, claim->consumer, persisted, error))
        return FALSE;
      return !had_runtime || write_runtime (root, claim->consumer, runtime, error);
    }

  g_ptr_array_add (runtime, copy);
  return check_count (runtime, error) && write_runtime (root, claim->consumer, runtime, error);
}

gboolean
hpd_claims_remove (const char *root, const char *consumer, guint64 page_size, guint32 node,
                   GError **error)
{
  g_autoptr(GPtrArray) runtime = read_runtime (root, consumer);
  g_autoptr(GPtrArray) persisted = read_persisted (root, consumer);

  if (drop (runtime, page_size, node) && !write_runtime (root, consumer, runtime, error))
    return FALSE;
  if (drop (persisted, page_size, node) && !write_persisted (root, consumer, persisted, error))
    return FALSE;
  return TRUE;
}
