/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Kernel command lines as the kernel reads them: split into parameters
 * (lib/cmdline.c), and the hugetlb pages they give (mm/hugetlb.c), quirks
 * included, so that RebootRequired compares meanings, not spellings. */
#include "config.h"

#include <string.h>

#include "hpd-boot.h"
#include "hpd-parse.h"

/* The kernel's MAX_NUMNODES at most: a larger node makes hugepages= invalid. */
#define MAX_NODES HPD_CONFIG_MAX_NODES

static const char *const parameter_names[] = { HPD_BOOT_PARAMETER_NAMES, NULL };

static GArray *
copy_nodes (const GArray *nodes)
{
  GArray *copy;

  if (nodes == NULL)
    return NULL;
  copy = g_array_sized_new (FALSE, FALSE, sizeof (HpdBootNode), nodes->len);
  g_array_append_vals (copy, nodes->data, nodes->len);
  return copy;
}

static gint
compare_boot_pools (gconstpointer a, gconstpointer b)
{
  const HpdBootPool *x = *(HpdBootPool *const *) a, *y = *(HpdBootPool *const *) b;

  return x->size < y->size ? -1 : x->size > y->size;
}

void
hpd_boot_arg_free (HpdBootArg *arg)
{
  g_free (arg->name);
  g_free (arg->value);
  g_free (arg);
}

static char *
skip_spaces (char *p)
{
  while (g_ascii_isspace (*p))
    p++;
  return p;
}

/* lib/cmdline.c next_arg(), quirks included: the kernel, not a shell,
 * decides what the parameters are. */
static char *
next_arg (char *args, char **param, char **val)
{
  guint i, equals = 0;
  gboolean in_quote = FALSE, quoted = FALSE;

  if (*args == '"')
    {
      args++;
      in_quote = quoted = TRUE;
    }

  for (i = 0; args[i] != '\0'; i++)
    {
      if (g_ascii_isspace (args[i]) && !in_quote)
        break;
      if (equals == 0 && args[i] == '=')
        equals = i;
      if (args[i] == '"')
        in_quote = !in_quote;
    }

  *param = args;
  if (equals == 0)
    *val = NULL;
  else
    {
      args[equals] = '\0';
      *val = args + equals + 1;
      /* no quotes in the value */
      if (**val == '"')
        {
          (*val)++;
          if (args[i - 1] == '"')
            args[i - 1] = '\0';
        }
    }
  if (quoted && i > 0 && args[i - 1] == '"')
    args[i - 1] = '\0';

  if (args[i] != '\0')
    {
      args[i] = '\0';
      args += i + 1;
    }
  else
    args += i;
  return skip_spaces (args);
}

GPtrArray *
hpd_boot_cmdline_split (const char *cmdline)
{
  GPtrArray *args = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_boot_arg_free);
  g_autofree char *buffer = g_strdup (cmdline != NULL ? cmdline : "");
  char *p = skip_spaces (buffer);

  while (*p != '\0')
    {
      HpdBootArg *arg;
      char *param, *val;

      p = next_arg (p, &param, &val);
      if (val == NULL && strcmp (param, "--") == 0)
        break;
      arg = g_new0 (HpdBootArg, 1);
      arg->name = g_strdup (param);
      arg->value = g_strdup (val);
      g_ptr_array_add (args, arg);
    }
  return args;
}

/* The name as the kernel matches it: '-' and '_' are the same (parameq). */
static const char *
known_name (const char *name)
{
  for (guint i = 0; parameter_names[i] != NULL; i++)
    {
      const char *known = parameter_names[i];
      gsize j;

      for (j = 0; known[j] != '\0'; j++)
        if (name[j] != known[j] && !(name[j] == '-' && known[j] == '_'))
          break;
      if (known[j] == '\0' && name[j] == '\0')
        return known;
    }
  return NULL;
}

static gboolean
has_blank (const char *text)
{
  for (const char *c = text; *c != '\0'; c++)
    if (g_ascii_isspace (*c))
      return TRUE;
  return FALSE;
}

char *
hpd_boot_cmdline_huge_pages (const char *cmdline)
{
  g_autoptr(GPtrArray) args = hpd_boot_cmdline_split (cmdline);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < args->len; i++)
    {
      const HpdBootArg *arg = g_ptr_array_index (args, i);
      g_autofree char *shown = NULL;

      /* every one of them is registered with its '=' */
      if (arg->value == NULL || known_name (arg->name) == NULL)
        continue;
      /* KernelCommandLine is a bus string, but the kernel takes any bytes */
      shown = hpd_parse_printable (arg->value);
      g_string_append_printf (out, has_blank (arg->value) ? "%s%s=\"%s\"" : "%s%s=%s",
                              out->len > 0 ? " " : "", arg->name, shown);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* memparse(): simple_strtoull() with base 0 (0x is hex, a leading 0 octal),
 * then an optional K, M, G, T, P or E in either case; the rest is ignored.
 * 0 when there is no number or it overflows. */
static guint64
memparse (const char *s)
{
  guint base = 10, shift = 0;
  guint64 value = 0;
  const char *p = s;

  if (p[0] == '0')
    {
      if (g_ascii_tolower (p[1]) == 'x' && g_ascii_isxdigit (p[2]))
        {
          base = 16;
          p += 2;
        }
      else
        base = 8;
    }
  for (; g_ascii_isxdigit (*p); p++)
    {
      guint digit = (guint) g_ascii_xdigit_value (*p);

      if (digit >= base)
        break;
      if (!g_uint64_checked_mul (&value, value, base) ||
          !g_uint64_checked_add (&value, value, digit))
        return 0;
    }
  switch (g_ascii_toupper (*p))
    {
    case 'E':
      shift += 10;
      G_GNUC_FALLTHROUGH;
    case 'P':
      shift += 10;
      G_GNUC_FALLTHROUGH;
    case 'T':
      shift += 10;
      G_GNUC_FALLTHROUGH;
    case 'G':
      shift += 10;
      G_GNUC_FALLTHROUGH;
    case 'M':
      shift += 10;
      G_GNUC_FALLTHROUGH;
    case 'K':
      shift += 10;
      break;
    default:
      break;
    }
  if (shift > 0 && value > (G_MAXUINT64 >> shift))
    return 0;
  return value << shift;
}

/* sscanf ("%lu%n"), decimal digits only. */
static gboolean
scan_number (const char *s, guint64 *value, gsize *length)
{
  gsize n = 0;

  *value = 0;
  while (g_ascii_isdigit (s[n]))
    {
      if (!g_uint64_checked_mul (value, *value, 10) ||
          !g_uint64_checked_add (value, *value, (guint64) (s[n] - '0')))
        return FALSE;
      n++;
    }
  *length = n;
  return n > 0;
}

/* The state of mm/hugetlb.c while it parses the command line. */
typedef struct {
  GPtrArray *machine;       /* HpdPool *: the sizes the kernel takes */
  GPtrArray *hstates;       /* HpdBootPool *, owned: sizes registered so far */
  HpdBootPool *leading;     /* default_hstate_max_huge_pages (size 0) */
  HpdBootPool *parsed;      /* parsed_hstate: where hugepages= goes */
  HpdBootPool *last;        /* last_mhp: hugepages= twice in a row is ignored */
  HpdBootPool *chosen_default; /* default_hugepagesz=, NULL until given */
  gboolean valid;           /* parsed_valid_hugepagesz */
} Model;

static HpdBootPool *
model_find (Model *m, guint64 size)
{
  for (guint i = 0; i < m->hstates->len; i++)
    {
      HpdBootPool *pool = g_ptr_array_index (m->hstates, i);
      if (pool->size == size)
        return pool;
    }
  return NULL;
}

/* hugetlb_add_hstate(): registers a size once; only a new one becomes the
 * target of the next hugepages=. */
static HpdBootPool *
model_register (Model *m, guint64 size)
{
  HpdBootPool *pool = model_find (m, size);

  if (pool != NULL)
    return pool;
  pool = hpd_boot_pool_new (size);
  g_ptr_array_add (m->hstates, pool);
  m->parsed = pool;
  return pool;
}

/* Pages of the default size given before any size: they replace whatever
 * the default size had. */
static void
model_take_leading (Model *m, HpdBootPool *pool)
{
  pool->pages = m->leading->pages;
  g_clear_pointer (&pool->nodes, g_array_unref);
  pool->nodes = copy_nodes (m->leading->nodes);
  m->leading->pages = 0;
  g_clear_pointer (&m->leading->nodes, g_array_unref);
}

/* arch_hugetlb_valid_size(): the running kernel has every size it accepts. */
static gboolean
model_takes_size (Model *m, guint64 size)
{
  for (guint i = 0; size != 0 && i < m->machine->len; i++)
    if (((const HpdPool *) g_ptr_array_index (m->machine, i))->size == size)
      return TRUE;
  return FALSE;
}

static void
model_hugepagesz (Model *m, const char *value)
{
  guint64 size = memparse (value);
  HpdBootPool *pool;

  m->valid = FALSE;
  if (!model_takes_size (m, size))
    return;
  pool = model_find (m, size);
  if (pool != NULL)
    {
      /* only the default size, named first by default_hugepagesz= without
       * pages, may be named again */
      if (pool != m->chosen_default || pool->pages != 0)
        return;
      m->parsed = pool;
    }
  else
    model_register (m, size);
  m->valid = TRUE;
}

static void
model_default_hugepagesz (Model *m, const char *value)
{
  guint64 size = memparse (value);

  m->valid = FALSE;
  if (m->chosen_default != NULL || !model_takes_size (m, size))
    return;
  m->chosen_default = model_register (m, size);
  m->valid = TRUE;
  if (m->leading->pages != 0)
    model_take_leading (m, m->chosen_default);
}

/* The pages of the node form: each node's count once. The kernel keeps
 * the last count of a node named twice (max_huge_pages_node[]) and
 * allocates those, although its max_huge_pages adds both up. FALSE when
 * the sum overflows. */
static gboolean
sum_nodes (HpdBootPool *pool)
{
  guint64 sum = 0;

  for (guint i = 0; i < pool->nodes->len; i++)
    if (!g_uint64_checked_add (&sum, sum, g_array_index (pool->nodes, HpdBootNode, i).pages))
      return FALSE;
  pool->pages = sum;
  return TRUE;
}

static void
model_hugepages (Model *m, const char *value)
{
  HpdBootPool *target;
  const char *p = value;

  if (!m->valid)
    {
      m->valid = TRUE;
      return;
    }
  target = m->hstates->len == 0 ? m->leading : m->parsed;
  if (target == m->last)
    return;

  while (*p != '\0')
    {
      guint64 number, pages;
      gsize length;

      if (!scan_number (p, &number, &length))
        goto invalid;
      if (p[length] == ':')
        {
          if (number >= MAX_NODES)
            goto invalid;
          p += length + 1;
          if (!scan_number (p, &pages, &length))
            goto invalid;
          hpd_boot_pool_set_node (target, (guint) number, pages);
          if (!sum_nodes (target))
            goto invalid;
          if (p[length] != ',')
            break;
          p += length + 1;
        }
      else
        {
          if (p != value)
            goto invalid;
          /* the plain form replaces nodes that leading pages brought */
          target->pages = number;
          g_clear_pointer (&target->nodes, g_array_unref);
          break;
        }
    }
  m->last = target;
  return;

invalid:
  target->pages = 0;
  g_clear_pointer (&target->nodes, g_array_unref);
}

HpdBootParams *
hpd_boot_params_from_cmdline (const char *cmdline, GPtrArray *pools, guint64 default_size)
{
  g_autoptr(GPtrArray) args = hpd_boot_cmdline_split (cmdline);
  g_autoptr(HpdBootParams) params = hpd_boot_params_new ();
  g_autoptr(GPtrArray) hstates = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_boot_pool_free);
  Model m = { pools, hstates, hpd_boot_pool_new (0), NULL, NULL, NULL, TRUE };

  for (guint i = 0; i < args->len; i++)
    {
      const HpdBootArg *arg = g_ptr_array_index (args, i);
      const char *name = known_name (arg->name);

      if (arg->value == NULL || name == NULL)
        continue;
      if (g_str_equal (name, "hugepagesz"))
        model_hugepagesz (&m, arg->value);
      else if (g_str_equal (name, "default_hugepagesz"))
        model_default_hugepagesz (&m, arg->value);
      else if (g_str_equal (name, "hugepages"))
        model_hugepages (&m, arg->value);
    }

  /* hugetlb_init(): without default_hugepagesz= the leading pages go to the
   * architecture's default size, which is the running default */
  if (m.leading->pages != 0 && m.chosen_default == NULL && model_takes_size (&m, default_size))
    model_take_leading (&m, model_register (&m, default_size));
  hpd_boot_pool_free (m.leading);

  params->default_size = m.chosen_default != NULL ? m.chosen_default->size : default_size;
  while (hstates->len > 0)
    g_ptr_array_add (params->pools, g_ptr_array_steal_index (hstates, 0));
  g_ptr_array_sort (params->pools, compare_boot_pools);
  return g_steal_pointer (&params);
}
