/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-config.h"
#include "hpd-parse.h"

/* The parser is written by hand rather than with GKeyFile: GKeyFile rejects
 * a whole file for one syntax error and keeps no line numbers, and we must
 * report every bad line with its number and apply the rest. */

#define MAX_SHOWN 64
#define MAX_INODES (G_GUINT64_CONSTANT (1) << 31)

typedef enum {
  SECTION_NONE,     /* before the first header */
  SECTION_INVALID,  /* after a bad header: its keys are skipped quietly */
  SECTION_POOL,
  SECTION_MOUNT,
  SECTION_TUNABLES,
  SECTION_THP,
  SECTION_BOOT,
} SectionKind;

typedef struct {
  HpdConfig *config;
  const char *file;
  guint line;
  guint n_errors;
  SectionKind section;
  HpdConfigPool *pool;
  HpdConfigMount *mount;
  char *section_key;        /* "pool 2MB", "mount user alice", "thp" */
} Parser;

static const char *const scope_names[] = { "system", "user", "group", "global" };

/* ---- the configuration ---- */

static int
compare_u64 (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

static int
compare_uint (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guint x = GPOINTER_TO_UINT (a), y = GPOINTER_TO_UINT (b);
  return x < y ? -1 : x > y;
}

static int
compare_str (gconstpointer a, gconstpointer b, gpointer user_data)
{
  return strcmp (a, b);
}

static void
pool_free (HpdConfigPool *pool)
{
  g_tree_unref (pool->nodes);
  g_free (pool);
}

static void
mount_free (HpdConfigMount *mount)
{
  g_free (mount->owner);
  g_free (mount);
}

static void
string_free (HpdConfigString *s)
{
  g_free (s->value);
  g_free (s);
}

static void
override_free (HpdConfigOverride *o)
{
  g_free (o->key);
  g_free (o->value);
  g_free (o->overridden);
  g_free (o);
}

HpdConfig *
hpd_config_new (void)
{
  HpdConfig *config = g_new0 (HpdConfig, 1);

  /* pool keys point into the pool */
  config->pools = g_tree_new_full (compare_u64, NULL, NULL, (GDestroyNotify) pool_free);
  config->mounts = g_tree_new_full (compare_str, NULL, g_free, (GDestroyNotify) mount_free);
  config->thp = g_tree_new_full (compare_str, NULL, g_free, (GDestroyNotify) string_free);
  /* NULL-terminated: the bus property takes it as it is */
  config->errors = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  config->files = g_ptr_array_new_with_free_func (g_free);
  config->overrides = g_ptr_array_new_with_free_func ((GDestroyNotify) override_free);
  config->assigned = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                            (GDestroyNotify) override_free);
  return config;
}

void
hpd_config_free (HpdConfig *config)
{
  if (config == NULL)
    return;
  g_tree_unref (config->pools);
  g_tree_unref (config->mounts);
  g_tree_unref (config->thp);
  g_free (config->shm_group.value);
  g_ptr_array_unref (config->errors);
  g_ptr_array_unref (config->files);
  g_ptr_array_unref (config->overrides);
  g_hash_table_unref (config->assigned);
  g_free (config);
}

/* ---- messages ---- */

/* Caller text in a message: lines reaching here are valid UTF-8 without
 * control characters; only their length needs bounding. */
static char *
shown (const char *text)
{
  if (g_utf8_strlen (text, -1) <= MAX_SHOWN)
    return g_strdup (text);
  {
    g_autofree char *head = g_utf8_substring (text, 0, MAX_SHOWN - 3);
    return g_strconcat (head, "...", NULL);
  }
}

static void
add_error (Parser *p, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
add_error (Parser *p, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list args;

  p->n_errors++;
  if (p->n_errors > HPD_CONFIG_MAX_ERRORS_PER_FILE)
    return;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (p->config->errors, g_strdup_printf ("%s:%u: %s", p->file, p->line, text));
}

/* Every line that sets @key (@text as written) is remembered; one that
 * sets it again, in the same file or a later one, is an override. */
static void
record (Parser *p, const char *key, const char *text)
{
  g_autofree char *full = g_strdup_printf ("%s %s", p->section_key, key);
  HpdConfigOverride *last = g_hash_table_lookup (p->config->assigned, full);
  HpdConfigOverride *now = g_new0 (HpdConfigOverride, 1);

  now->key = g_steal_pointer (&full);
  now->value = shown (text);
  now->origin.file = p->file;
  now->origin.line = p->line;
  if (last != NULL && p->config->overrides->len >= HPD_CONFIG_MAX_OVERRIDES)
    p->config->overrides_not_listed++;
  else if (last != NULL)
    {
      HpdConfigOverride *o = g_new0 (HpdConfigOverride, 1);

      o->key = g_strdup (now->key);
      o->value = g_strdup (now->value);
      o->origin = now->origin;
      o->overridden = g_strdup (last->value);
      o->overridden_origin = last->origin;
      g_ptr_array_add (p->config->overrides, o);
    }
  g_hash_table_replace (p->config->assigned, now->key, now);
}

static void
set_value (Parser *p, const char *key, const char *text, HpdConfigValue *target,
           HpdConfigKind kind, guint64 value)
{
  record (p, key, text);
  target->kind = kind;
  target->value = value;
  target->origin.file = p->file;
  target->origin.line = p->line;
}

static void
set_string (Parser *p, const char *key, const char *text, HpdConfigString *target, char *value)
{
  record (p, key, text);
  g_free (target->value);
  target->value = value;
  target->origin.file = p->file;
  target->origin.line = p->line;
}

/* ---- values ---- */

static gboolean
is_power_of_two (guint64 v)
{
  return v != 0 && (v & (v - 1)) == 0;
}

static gboolean
parse_page_size (const char *text, guint64 *bytes, GError **error)
{
  if (!hp_parse_size (text, bytes, error))
    return FALSE;
  if (!is_power_of_two (*bytes))
    {
      g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                   "page size '%s' is not a power of two", text);
      return FALSE;
    }
  return TRUE;
}

/* Pages ("512") or memory ("1G"), as hp_parse_amount takes them but without
 * a sign. For [pool DEFAULT] the page size is not known yet: memory is kept
 * in bytes and checked to be whole pages when applied. */
static gboolean
parse_pool_amount (const char *text, guint64 page_size, HpdConfigKind *kind,
                   guint64 *value, GError **error)
{
  HpAmount amount;
  guint64 bytes;

  if (text[0] == '+' || text[0] == '-')
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "relative amounts have no place in a configuration");
      return FALSE;
    }
  if (hp_parse_u64 (text, value, NULL))
    {
      if (page_size != 0 && !hp_pages_to_bytes (*value, page_size, &bytes))
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS, "'%s' pages is too much memory", text);
          return FALSE;
        }
      *kind = HPD_CONFIG_NUMBER;
      return TRUE;
    }
  if (!hp_parse_amount (text, page_size != 0 ? page_size : 1, &amount, error))
    return FALSE;
  *kind = HPD_CONFIG_BYTES;
  *value = page_size != 0 ? amount.pages * page_size : amount.pages;
  return TRUE;
}

/* Bytes with a unit ("4G", "4194304") or a percentage of the pool from 1%
 * to 100%; whole pages are checked when the page size is known. */
static gboolean
parse_limit (const char *text, HpdConfigKind *kind, guint64 *value, GError **error)
{
  gsize len = strlen (text);

  if (len > 0 && text[len - 1] == '%')
    {
      g_autofree char *digits = g_strndup (text, len - 1);

      if (digits[0] == '0' || !hp_parse_u64 (digits, value, NULL) || *value == 0 || *value > 100)
        {
          g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                               "a percentage must be from 1% to 100%");
          return FALSE;
        }
      *kind = HPD_CONFIG_PERCENT;
      return TRUE;
    }
  if (!hp_parse_size (text, value, error))
    return FALSE;
  *kind = HPD_CONFIG_BYTES;
  return TRUE;
}

static gboolean
parse_mode (const char *text, guint64 *mode, GError **error)
{
  guint64 v = 0;

  if (*text == '\0')
    goto bad;
  for (const char *c = text; *c; c++)
    {
      if (*c < '0' || *c > '7')
        goto bad;
      v = v * 8 + (guint64) (*c - '0');
      if (v > 07777)
        goto bad;
    }
  if ((v & ~(guint64) 01777) != 0)
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "only permission bits and the sticky bit may be set "
                           "(setuid and setgid are not allowed)");
      return FALSE;
    }
  *mode = v;
  return TRUE;

bad:
  g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "a mode is an octal number such as 0770 or 1777");
  return FALSE;
}

static gboolean
is_all_digits (const char *text)
{
  return g_ascii_isdigit (text[0]) && strspn (text, "0123456789") == strlen (text);
}

/* A user or group: a name that may stand in a path, or a decimal id below
 * @max_id. Returns the canonical text (ids without leading zeros). */
static char *
parse_owner (const char *text, guint64 max_id, GError **error)
{
  guint64 id;

  if (is_all_digits (text))
    {
      if (!hp_parse_u64 (text, &id, NULL) || id > max_id)
        {
          g_set_error (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "id is out of range (at most %" G_GUINT64_FORMAT ")", max_id);
          return NULL;
        }
      return g_strdup_printf ("%" G_GUINT64_FORMAT, id);
    }
  if (!hpd_mount_name_is_valid (text))
    {
      g_set_error_literal (error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                           "a name has 1 to 32 letters, digits, '_', '-' or '.' "
                           "and does not start with '-' or '.'");
      return NULL;
    }
  return g_strdup (text);
}

static gboolean
is_thp_word (const char *text, gsize len, const char *also)
{
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (text[i]) && strchr (also, text[i]) == NULL)
      return FALSE;
  return TRUE;
}

/* "enabled", "hugepages-64kB/enabled", "khugepaged/pages_to_scan": a name
 * below the THP directory that cannot leave it. */
static gboolean
is_thp_name (const char *name)
{
  const char *slash = strchr (name, '/');
  gsize len = strlen (name);

  if (len > 128)
    return FALSE;
  if (slash == NULL)
    return is_thp_word (name, len, "_-");
  return is_thp_word (name, (gsize) (slash - name), "_-") &&
         is_thp_word (slash + 1, strlen (slash + 1), "_-");
}

/* ---- sections ---- */

static void
parse_header (Parser *p, const char *line)
{
  gsize len = strlen (line);
  g_autofree char *inner = NULL;
  g_auto(GStrv) words = NULL;
  g_autoptr(GError) error = NULL;
  guint n;

  p->section = SECTION_INVALID;
  if (line[len - 1] != ']')
    {
      add_error (p, "a section header ends with ']'");
      return;
    }
  inner = g_strndup (line + 1, len - 2);
  words = g_strsplit_set (g_strstrip (inner), " \t", -1);
  /* drop the empty words that runs of blanks leave */
  n = 0;
  for (guint i = 0; words[i] != NULL; i++)
    if (*words[i] != '\0')
      words[n++] = words[i];
    else
      g_free (words[i]);
  words[n] = NULL;

  if (n == 0)
    {
      add_error (p, "empty section header");
      return;
    }

  if (g_str_equal (words[0], "pool"))
    {
      guint64 size = 0;
      HpdConfigPool *pool;

      if (n != 2)
        {
          add_error (p, "a pool section is [pool SIZE], such as [pool 2MB] or [pool DEFAULT]");
          return;
        }
      if (g_ascii_strcasecmp (words[1], "DEFAULT") != 0 && !parse_page_size (words[1], &size, &error))
        {
          g_autofree char *s = shown (words[1]);
          add_error (p, "bad pool size '%s': %s", s, error->message);
          return;
        }
      pool = g_tree_lookup (p->config->pools, &size);
      if (pool == NULL)
        {
          pool = g_new0 (HpdConfigPool, 1);
          pool->page_size = size;
          pool->origin.file = p->file;
          pool->origin.line = p->line;
          pool->nodes = g_tree_new_full (compare_uint, NULL, NULL, g_free);
          g_tree_insert (p->config->pools, &pool->page_size, pool);
        }
      p->pool = pool;
      p->section = SECTION_POOL;
      g_free (p->section_key);
      if (size != 0)
        {
          g_autofree char *name = hp_size_name (size);
          p->section_key = g_strdup_printf ("pool %s", name);
        }
      else
        p->section_key = g_strdup ("pool DEFAULT");
    }
  else if (g_str_equal (words[0], "mount"))
    {
      HpdMountScope scope;
      g_autofree char *owner = NULL;
      g_autofree char *key = NULL;
      g_autofree char *section_key = NULL;
      HpdConfigMount *mount;
      gboolean has_owner;

      if (n < 2 || n > 3 || !hpd_mount_scope_parse (words[1], &scope, NULL))
        {
          add_error (p, "a mount section is [mount system], [mount global], "
                     "[mount user NAME] or [mount group NAME]");
          return;
        }
      has_owner = scope == HPD_MOUNT_SCOPE_USER || scope == HPD_MOUNT_SCOPE_GROUP;
      if (has_owner != (n == 3))
        {
          add_error (p, has_owner ? "[mount %s] needs a name" : "[mount %s] takes no name",
                     words[1]);
          return;
        }
      if (has_owner)
        {
          /* (u32)-1 is "no id" to the kernel */
          owner = parse_owner (words[2], G_MAXUINT32 - 1, &error);
          if (owner == NULL)
            {
              g_autofree char *s = shown (words[2]);
              add_error (p, "bad %s '%s': %s", words[1], s, error->message);
              return;
            }
        }
      key = owner ? g_strdup_printf ("%s %s", scope_names[scope], owner)
                  : g_strdup (scope_names[scope]);
      section_key = g_strdup_printf ("mount %s", key);
      mount = g_tree_lookup (p->config->mounts, key);
      if (mount == NULL)
        {
          mount = g_new0 (HpdConfigMount, 1);
          mount->scope = scope;
          mount->owner = g_steal_pointer (&owner);
          mount->origin.file = p->file;
          mount->origin.line = p->line;
          g_tree_insert (p->config->mounts, g_steal_pointer (&key), mount);
        }
      p->mount = mount;
      p->section = SECTION_MOUNT;
      g_free (p->section_key);
      p->section_key = g_steal_pointer (&section_key);
    }
  else if (g_str_equal (words[0], "tunables") || g_str_equal (words[0], "thp") ||
           g_str_equal (words[0], "boot"))
    {
      if (n != 1)
        {
          add_error (p, "[%s] takes no argument", words[0]);
          return;
        }
      g_free (p->section_key);
      p->section_key = g_strdup (words[0]);
      p->section = g_str_equal (words[0], "thp") ? SECTION_THP
                   : g_str_equal (words[0], "boot") ? SECTION_BOOT : SECTION_TUNABLES;
    }
  else
    {
      g_autofree char *s = shown (words[0]);
      add_error (p, "unknown section '%s' (known: pool, mount, tunables, thp, boot)", s);
    }
}

/* ---- keys ---- */

/* gcc -fanalyzer (tests/run-all --tier analyze) takes g_strdup(), declared
 * G_GNUC_MALLOC, for a call that can return NULL, and so finds a path where
 * parse_owner() returns NULL without setting the error passed here. There is
 * none: g_strdup() of a string aborts rather than fail. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-null-dereference"
#endif
static void
bad_value (Parser *p, const char *key, const char *value, const GError *error)
{
  g_autofree char *k = shown (key);
  g_autofree char *v = shown (value);

  add_error (p, "bad value '%s' for '%s': %s", v, k, error->message);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static void
unknown_key (Parser *p, const char *key, const char *section)
{
  g_autofree char *k = shown (key);

  add_error (p, "unknown key '%s' in [%s]", k, section);
}

static void
parse_pool_key (Parser *p, const char *key, const char *value)
{
  g_autoptr(GError) error = NULL;
  HpdConfigValue *target;
  HpdConfigKind kind;
  guint64 v, node = 0;

  if (g_str_equal (key, "minimum"))
    target = &p->pool->minimum;
  else if (g_str_equal (key, "maximum"))
    target = &p->pool->maximum;
  else if (g_str_has_prefix (key, "node") && hp_parse_u64 (key + 4, &node, NULL))
    {
      if (node >= HPD_CONFIG_MAX_NODES)
        {
          add_error (p, "node %" G_GUINT64_FORMAT " is out of range (at most %u)",
                     node, HPD_CONFIG_MAX_NODES - 1);
          return;
        }
      target = NULL;
    }
  else
    {
      unknown_key (p, key, "pool");
      return;
    }

  if (!parse_pool_amount (value, p->pool->page_size, &kind, &v, &error))
    {
      bad_value (p, key, value, error);
      return;
    }
  if (target == NULL)
    {
      target = g_tree_lookup (p->pool->nodes, GUINT_TO_POINTER ((guint) node));
      if (target == NULL)
        {
          target = g_new0 (HpdConfigValue, 1);
          g_tree_insert (p->pool->nodes, GUINT_TO_POINTER ((guint) node), target);
        }
    }
  set_value (p, key, value, target, kind, v);
}

static void
parse_mount_key (Parser *p, const char *key, const char *value)
{
  g_autoptr(GError) error = NULL;
  HpdConfigMount *m = p->mount;
  HpdConfigKind kind = HPD_CONFIG_NUMBER;
  HpdConfigValue *target;
  gboolean ok;
  guint64 v = 0;

  if (g_str_equal (key, "page-size"))
    {
      target = &m->page_size;
      kind = HPD_CONFIG_BYTES;
      ok = parse_page_size (value, &v, &error);
    }
  else if (g_str_equal (key, "max-size") || g_str_equal (key, "min-size"))
    {
      target = g_str_equal (key, "max-size") ? &m->max_size : &m->min_size;
      ok = parse_limit (value, &kind, &v, &error);
    }
  else if (g_str_equal (key, "max-inodes"))
    {
      target = &m->max_inodes;
      ok = hp_parse_u64 (value, &v, &error);
      if (ok && (v == 0 || v > MAX_INODES))
        {
          g_set_error (&error, HP_ERROR, HP_ERROR_INVALID_ARGS,
                       "max-inodes must be from 1 to %" G_GUINT64_FORMAT, MAX_INODES);
          ok = FALSE;
        }
    }
  else if (g_str_equal (key, "mode"))
    {
      target = &m->mode;
      ok = parse_mode (value, &v, &error);
    }
  else
    {
      unknown_key (p, key, "mount");
      return;
    }

  if (!ok)
    bad_value (p, key, value, error);
  else
    set_value (p, key, value, target, kind, v);
}

static void
parse_tunables_key (Parser *p, const char *key, const char *value)
{
  g_autoptr(GError) error = NULL;
  HpdConfig *c = p->config;
  guint64 v;

  if (g_str_equal (key, "shmmax") || g_str_equal (key, "min-free-kbytes"))
    {
      gboolean is_shmmax = key[0] == 's';
      HpdConfigValue *target = is_shmmax ? &c->shmmax : &c->min_free_kbytes;

      if (g_str_equal (value, "recommended"))
        set_value (p, key, value, target, HPD_CONFIG_RECOMMENDED, 0);
      else if (is_shmmax ? hp_parse_size (value, &v, &error) : hp_parse_u64 (value, &v, &error))
        set_value (p, key, value, target, is_shmmax ? HPD_CONFIG_BYTES : HPD_CONFIG_NUMBER, v);
      else
        bad_value (p, key, value, error);
    }
  else if (g_str_equal (key, "shm-group"))
    {
      /* the kernel takes an int */
      char *group = parse_owner (value, G_MAXINT32, &error);

      if (group != NULL)
        set_string (p, key, value, &c->shm_group, group);
      else
        bad_value (p, key, value, error);
    }
  else if (g_str_equal (key, "zone-movable"))
    {
      if (g_str_equal (value, "yes") || g_str_equal (value, "no"))
        set_value (p, key, value, &c->zone_movable, HPD_CONFIG_NUMBER, value[0] == 'y');
      else
        {
          g_set_error_literal (&error, HP_ERROR, HP_ERROR_INVALID_ARGS, "use yes or no");
          bad_value (p, key, value, error);
        }
    }
  else
    unknown_key (p, key, "tunables");
}

static void
parse_thp_key (Parser *p, const char *key, const char *value)
{
  HpdConfigString *target;

  if (!is_thp_name (key))
    {
      g_autofree char *k = shown (key);
      add_error (p, "'%s' is not a THP setting name", k);
      return;
    }
  /* "defer+madvise" is a defrag value */
  if (strlen (value) > MAX_SHOWN || !is_thp_word (value, strlen (value), "_-+"))
    {
      g_autoptr(GError) error = g_error_new_literal (HP_ERROR, HP_ERROR_INVALID_ARGS,
                                                     "a THP value is one word or number");
      bad_value (p, key, value, error);
      return;
    }
  target = g_tree_lookup (p->config->thp, key);
  if (target == NULL)
    {
      target = g_new0 (HpdConfigString, 1);
      g_tree_insert (p->config->thp, g_strdup (key), target);
    }
  set_string (p, key, value, target, g_strdup (value));
}

static void
parse_boot_key (Parser *p, const char *key, const char *value)
{
  g_autoptr(GError) error = NULL;
  guint64 size;

  if (!g_str_equal (key, "default-page-size"))
    unknown_key (p, key, "boot");
  else if (!parse_page_size (value, &size, &error))
    bad_value (p, key, value, error);
  else
    set_value (p, key, value, &p->config->boot_default_page_size, HPD_CONFIG_BYTES, size);
}

/* ---- lines ---- */

static void
parse_line (Parser *p, const char *start, gsize len)
{
  g_autofree char *line = NULL;
  char *eq;

  if (len > 0 && start[len - 1] == '\r')
    len--;
  if (len > HPD_CONFIG_MAX_LINE)
    {
      add_error (p, "line too long (%zu bytes, at most %u)", len, HPD_CONFIG_MAX_LINE);
      return;
    }
  /* NUL first: g_utf8_validate_len calls it invalid UTF-8 */
  for (gsize i = 0; i < len; i++)
    if (g_ascii_iscntrl (start[i]) && start[i] != '\t')
      {
        add_error (p, "control character 0x%02x", (guint) (guchar) start[i]);
        return;
      }
  if (!g_utf8_validate_len (start, len, NULL))
    {
      add_error (p, "not UTF-8");
      return;
    }

  line = g_strstrip (g_strndup (start, len));
  if (*line == '\0' || *line == '#' || *line == ';')
    return;
  if (*line == '[')
    {
      parse_header (p, line);
      return;
    }

  eq = strchr (line, '=');
  if (eq == NULL || eq == line)
    {
      add_error (p, "expected [section] or key = value");
      return;
    }
  *eq = '\0';
  g_strchomp (line);
  {
    const char *key = line;
    const char *value = g_strchug (eq + 1);

    switch (p->section)
      {
      case SECTION_NONE:
        {
          g_autofree char *k = shown (key);
          add_error (p, "key '%s' outside a section", k);
        }
        break;
      case SECTION_INVALID:
        break;
      case SECTION_POOL:
        parse_pool_key (p, key, value);
        break;
      case SECTION_MOUNT:
        parse_mount_key (p, key, value);
        break;
      case SECTION_TUNABLES:
        parse_tunables_key (p, key, value);
        break;
      case SECTION_THP:
        parse_thp_key (p, key, value);
        break;
      case SECTION_BOOT:
        parse_boot_key (p, key, value);
        break;
      default:
        g_assert_not_reached ();
      }
  }
}

void
hpd_config_parse_text (const char *name, const char *text, gssize length,
                       HpdConfig *config)
{
  Parser p = { 0, };
  gsize len = length < 0 ? strlen (text) : (gsize) length;
  const char *end = text + len;
  /* a file name is bytes; messages and origins go onto the bus and into
   * the log */
  char *file = hpd_parse_printable (name);

  g_ptr_array_add (config->files, file);
  p.config = config;
  p.file = file;
  p.section = SECTION_NONE;

  for (const char *start = text; start < end;)
    {
      const char *nl = memchr (start, '\n', (gsize) (end - start));
      const char *stop = nl ? nl : end;

      p.line++;
      parse_line (&p, start, (gsize) (stop - start));
      start = nl ? nl + 1 : end;
    }

  g_free (p.section_key);
  if (p.n_errors > HPD_CONFIG_MAX_ERRORS_PER_FILE)
    g_ptr_array_add (config->errors,
                     g_strdup_printf ("%s: %u more errors not shown", file,
                                      p.n_errors - HPD_CONFIG_MAX_ERRORS_PER_FILE));
}

/* ---- writing ---- */

char *
hpd_config_value_to_string (const HpdConfigValue *v)
{
  switch (v->kind)
    {
    case HPD_CONFIG_UNSET:
      return NULL;
    case HPD_CONFIG_NUMBER:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, v->value);
    case HPD_CONFIG_BYTES:
      return hp_size_name (v->value);
    case HPD_CONFIG_PERCENT:
      return g_strdup_printf ("%" G_GUINT64_FORMAT "%%", v->value);
    case HPD_CONFIG_RECOMMENDED:
      return g_strdup ("recommended");
    default:
      g_assert_not_reached ();
    }
}

static void
append_amount (GString *out, const char *key, const HpdConfigValue *v)
{
  g_autofree char *text = hpd_config_value_to_string (v);

  if (text != NULL)
    g_string_append_printf (out, "%s = %s\n", key, text);
}

static gboolean
append_node (gpointer key, gpointer value, gpointer data)
{
  g_autofree char *name = g_strdup_printf ("node%u", GPOINTER_TO_UINT (key));

  append_amount (data, name, value);
  return FALSE;
}

static gboolean
append_pool (gpointer key, gpointer value, gpointer data)
{
  const HpdConfigPool *pool = value;
  GString *out = data;
  g_autofree char *size = pool->page_size ? hp_size_name (pool->page_size) : g_strdup ("DEFAULT");

  g_string_append_printf (out, "[pool %s]\n", size);
  append_amount (out, "minimum", &pool->minimum);
  append_amount (out, "maximum", &pool->maximum);
  g_tree_foreach (pool->nodes, append_node, out);
  g_string_append_c (out, '\n');
  return FALSE;
}

static gboolean
append_mount (gpointer key, gpointer value, gpointer data)
{
  const HpdConfigMount *m = value;
  GString *out = data;

  g_string_append_printf (out, "[mount %s]\n", (const char *) key);
  append_amount (out, "page-size", &m->page_size);
  append_amount (out, "max-size", &m->max_size);
  append_amount (out, "min-size", &m->min_size);
  append_amount (out, "max-inodes", &m->max_inodes);
  if (m->mode.kind != HPD_CONFIG_UNSET)
    g_string_append_printf (out, "mode = %04o\n", (guint) m->mode.value);
  g_string_append_c (out, '\n');
  return FALSE;
}

static gboolean
append_thp (gpointer key, gpointer value, gpointer data)
{
  g_string_append_printf (data, "%s = %s\n", (const char *) key,
                          ((const HpdConfigString *) value)->value);
  return FALSE;
}

char *
hpd_config_to_text (const HpdConfig *c)
{
  GString *out = g_string_new (NULL);

  g_tree_foreach (c->pools, append_pool, out);
  g_tree_foreach (c->mounts, append_mount, out);

  if (c->shmmax.kind || c->shm_group.value || c->min_free_kbytes.kind || c->zone_movable.kind)
    {
      g_string_append (out, "[tunables]\n");
      append_amount (out, "shmmax", &c->shmmax);
      if (c->shm_group.value != NULL)
        g_string_append_printf (out, "shm-group = %s\n", c->shm_group.value);
      append_amount (out, "min-free-kbytes", &c->min_free_kbytes);
      if (c->zone_movable.kind != HPD_CONFIG_UNSET)
        g_string_append_printf (out, "zone-movable = %s\n", c->zone_movable.value ? "yes" : "no");
      g_string_append_c (out, '\n');
    }

  if (g_tree_nnodes (c->thp) > 0)
    {
      g_string_append (out, "[thp]\n");
      g_tree_foreach (c->thp, append_thp, out);
      g_string_append_c (out, '\n');
    }

  if (c->boot_default_page_size.kind != HPD_CONFIG_UNSET)
    {
      g_string_append (out, "[boot]\n");
      append_amount (out, "default-page-size", &c->boot_default_page_size);
      g_string_append_c (out, '\n');
    }

  /* no blank line at the end */
  if (out->len > 0)
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

/* ---- editing ---- */

void
hpd_config_unset_pool_minimum (HpdConfig *config, guint64 page_size)
{
  HpdConfigPool *pool = g_tree_lookup (config->pools, &page_size);

  if (pool != NULL)
    memset (&pool->minimum, 0, sizeof pool->minimum);
}

void
hpd_config_unset_pool_nodes (HpdConfig *config, guint64 page_size)
{
  HpdConfigPool *pool = g_tree_lookup (config->pools, &page_size);

  if (pool != NULL)
    g_tree_remove_all (pool->nodes);
}

void
hpd_config_remove_mount (HpdConfig *config, const char *key)
{
  g_tree_remove (config->mounts, key);
}

/* ---- comparing ---- */

static gboolean
value_equal (const HpdConfigValue *a, const HpdConfigValue *b)
{
  return a->kind == b->kind && a->value == b->value;
}

typedef gboolean (*EqualFunc) (gconstpointer a, gconstpointer b);

/* Same keys in the same order, values equal by @equal. */
static gboolean
tree_equal (GTree *a, GTree *b, GCompareDataFunc compare_keys, EqualFunc equal)
{
  GTreeNode *x, *y;

  if (g_tree_nnodes (a) != g_tree_nnodes (b))
    return FALSE;
  for (x = g_tree_node_first (a), y = g_tree_node_first (b); x != NULL && y != NULL;
       x = g_tree_node_next (x), y = g_tree_node_next (y))
    if (compare_keys (g_tree_node_key (x), g_tree_node_key (y), NULL) != 0 ||
        !equal (g_tree_node_value (x), g_tree_node_value (y)))
      return FALSE;
  return TRUE;
}

static gboolean
node_equal (gconstpointer a, gconstpointer b)
{
  return value_equal (a, b);
}

static gboolean
pool_equal (gconstpointer a, gconstpointer b)
{
  const HpdConfigPool *x = a, *y = b;

  return x->page_size == y->page_size &&
         value_equal (&x->minimum, &y->minimum) && value_equal (&x->maximum, &y->maximum) &&
         tree_equal (x->nodes, y->nodes, compare_uint, node_equal);
}

static gboolean
mount_equal (gconstpointer a, gconstpointer b)
{
  const HpdConfigMount *x = a, *y = b;

  return x->scope == y->scope && g_strcmp0 (x->owner, y->owner) == 0 &&
         value_equal (&x->page_size, &y->page_size) &&
         value_equal (&x->max_size, &y->max_size) &&
         value_equal (&x->min_size, &y->min_size) &&
         value_equal (&x->max_inodes, &y->max_inodes) &&
         value_equal (&x->mode, &y->mode);
}

static gboolean
string_equal (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (((const HpdConfigString *) a)->value,
                    ((const HpdConfigString *) b)->value) == 0;
}

gboolean
hpd_config_equal (const HpdConfig *a, const HpdConfig *b)
{
  return tree_equal (a->pools, b->pools, compare_u64, pool_equal) &&
         tree_equal (a->mounts, b->mounts, compare_str, mount_equal) &&
         value_equal (&a->shmmax, &b->shmmax) &&
         g_strcmp0 (a->shm_group.value, b->shm_group.value) == 0 &&
         value_equal (&a->min_free_kbytes, &b->min_free_kbytes) &&
         value_equal (&a->zone_movable, &b->zone_movable) &&
         tree_equal (a->thp, b->thp, compare_str, string_equal) &&
         value_equal (&a->boot_default_page_size, &b->boot_default_page_size);
}
