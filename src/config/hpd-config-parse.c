/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include <string.h>

#include "hp-error.h"
#include "hp-units.h"
#include "hpd-config.h"
#include "hpd-parse.h"
#include "hpd-config-private.h"

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
      if (g_ascii_strcasecmp (words[1], "DEFAULT") != 0 && !hpd_config_parse_page_size (words[1], &size, &error))
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
          pool->nodes = g_tree_new_full (hpd_config_compare_uint, NULL, NULL, g_free);
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
          owner = hpd_config_parse_owner (words[2], G_MAXUINT32 - 1, &error);
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

/* gcc -fanalyzer (tests/run-all --tier analyze) takes g_strdup(), declared
 * G_GNUC_MALLOC, for a call that can return NULL, and so finds a path where
 * hpd_config_parse_owner() returns NULL without setting the error passed here. There is
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

  if (!hpd_config_parse_pool_amount (value, p->pool->page_size, &kind, &v, &error))
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
      ok = hpd_config_parse_page_size (value, &v, &error);
    }
  else if (g_str_equal (key, "max-size") || g_str_equal (key, "min-size"))
    {
      target = g_str_equal (key, "max-size") ? &m->max_size : &m->min_size;
      ok = hpd_config_parse_limit (value, &kind, &v, &error);
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
      ok = hpd_config_parse_mode (value, &v, &error);
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
      char *group = hpd_config_parse_owner (value, G_MAXINT32, &error);

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

  if (!hpd_config_is_thp_name (key))
    {
      g_autofree char *k = shown (key);
      add_error (p, "'%s' is not a THP setting name", k);
      return;
    }
  /* "defer+madvise" is a defrag value */
  if (strlen (value) > MAX_SHOWN || !hpd_config_is_thp_word (value, strlen (value), "_-+"))
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
  else if (!hpd_config_parse_page_size (value, &size, &error))
    bad_value (p, key, value, error);
  else
    set_value (p, key, value, &p->config->boot_default_page_size, HPD_CONFIG_BYTES, size);
}

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
