/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The boot parameters: what a configuration asks for (gigantic pools only,
 * plain and node form, DEFAULT, bytes, default-page-size, what cannot be
 * used), the huge page subset of a command line (blanks, quotes, "--",
 * dashes), the kernel's rules for what a command line gives, and when a
 * reboot is required. */
#include "config.h"

#include <string.h>

#include "hp-units.h"
#include "hpd-boot.h"

#define MB (G_GUINT64_CONSTANT (1) << 20)
#define GB (G_GUINT64_CONSTANT (1) << 30)

/* An x86-64 machine with two nodes: 2 MB pages and the gigantic 1 GB and
 * (as on some ppc64) 16 GB pages; @default_size is the default. */
static GPtrArray *
machine (guint64 default_size)
{
  const guint64 sizes[] = { 2 * MB, GB, 16 * GB };
  GPtrArray *pools = g_ptr_array_new_with_free_func ((GDestroyNotify) hpd_pool_free);

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      HpdPool *pool = g_new0 (HpdPool, 1);
      guint nodes[] = { 0, 1 };

      pool->size = sizes[i];
      pool->name = hp_size_name (sizes[i]);
      pool->gigantic = sizes[i] > 4 * MB;
      pool->is_default = sizes[i] == default_size;
      pool->nodes = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_vals (pool->nodes, nodes, G_N_ELEMENTS (nodes));
      g_ptr_array_add (pools, pool);
    }
  return pools;
}

static HpdConfig *
parse (const char *text)
{
  HpdConfig *config = hpd_config_new ();

  hpd_config_parse_text ("t.conf", text, -1, config);
  for (guint i = 0; i < config->errors->len; i++)
    g_test_message ("config error: %s", (const char *) g_ptr_array_index (config->errors, i));
  g_assert_cmpuint (config->errors->len, ==, 0);
  return config;
}

/* BootParameters for @text on the machine with @default_size; @problems
 * (NULL-terminated, or NULL for none) are the problems expected. */
static char *
boot_string (const char *text, guint64 default_size, const char *const *problems)
{
  g_autoptr(GPtrArray) pools = machine (default_size);
  g_autoptr(HpdConfig) config = parse (text);
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(HpdBootParams) params = hpd_boot_params_from_config (config, pools, default_size, found);
  guint n = problems != NULL ? g_strv_length ((GStrv) problems) : 0;

  for (guint i = 0; i < found->len; i++)
    g_test_message ("problem: %s", (const char *) g_ptr_array_index (found, i));
  g_assert_cmpuint (found->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (g_ptr_array_index (found, i), ==, problems[i]);
  return hpd_boot_params_to_string (params);
}

static void
assert_boot_string (const char *text, guint64 default_size, const char *expected)
{
  g_autofree char *got = boot_string (text, default_size, NULL);

  g_test_message ("%s-> %s", text, got);
  g_assert_cmpstr (got, ==, expected);
}

static void
test_size_text (void)
{
  static const struct { guint64 bytes; const char *text; } cases[] = {
    { GB, "1G" }, { 16 * GB, "16G" }, { 2 * MB, "2M" }, { 32 * MB, "32M" },
    { 1536 * MB, "1536M" }, { 64 * 1024, "64K" }, { 512, "512" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = hpd_boot_size_text (cases[i].bytes);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

static void
test_from_config (void)
{
  /* plain, node form, several sizes ascending */
  assert_boot_string ("[pool 1G]\nminimum = 4\n", 2 * MB, "hugepagesz=1G hugepages=4");
  assert_boot_string ("[pool 1GB]\nnode0 = 2\nnode1 = 2\n", 2 * MB,
                      "hugepagesz=1G hugepages=0:2,1:2");
  assert_boot_string ("[pool 16G]\nminimum = 1\n[pool 1G]\nminimum = 2\n", 2 * MB,
                      "hugepagesz=1G hugepages=2 hugepagesz=16G hugepages=1");
  /* nodes win over the minimum; nodes with 0 pages are left out */
  assert_boot_string ("[pool 1G]\nminimum = 8\nnode1 = 3\n", 2 * MB, "hugepagesz=1G hugepages=1:3");
  assert_boot_string ("[pool 1G]\nnode0 = 0\nnode1 = 3\n", 2 * MB, "hugepagesz=1G hugepages=1:3");
  /* bytes become pages */
  assert_boot_string ("[pool 1G]\nminimum = 4G\n", 2 * MB, "hugepagesz=1G hugepages=4");
  assert_boot_string ("[pool 16G]\nnode1 = 32G\n", 2 * MB, "hugepagesz=16G hugepages=1:2");
  /* non-gigantic pools are --apply's: allocated at runtime */
  assert_boot_string ("[pool 2M]\nminimum = 512\nnode0 = 4\n", 2 * MB, "");
  assert_boot_string ("[pool 2M]\nminimum = 512\n[pool 1G]\nminimum = 1\n", 2 * MB,
                      "hugepagesz=1G hugepages=1");
  /* the maximum is no boot parameter; 0 pages ask for nothing */
  assert_boot_string ("[pool 1G]\nmaximum = 4\n", 2 * MB, "");
  assert_boot_string ("[pool 1G]\nminimum = 0\n", 2 * MB, "");
  /* sizes this kernel lacks are for --apply to report */
  assert_boot_string ("[pool 4M]\nminimum = 2\n[pool 64G]\nminimum = 1\n", 2 * MB, "");
  /* nothing at all */
  assert_boot_string ("", 2 * MB, "");
  assert_boot_string ("[thp]\nenabled = never\n", 2 * MB, "");
}

static void
test_from_config_default (void)
{
  /* DEFAULT is the running default size... */
  assert_boot_string ("[pool DEFAULT]\nminimum = 2\n", GB, "hugepagesz=1G hugepages=2");
  assert_boot_string ("[pool DEFAULT]\nminimum = 2\n", 2 * MB, "");
  assert_boot_string ("[pool DEFAULT]\nminimum = 2G\n", GB, "hugepagesz=1G hugepages=2");
  /* ...unless the configuration chooses the next one */
  assert_boot_string ("[boot]\ndefault-page-size = 1G\n[pool DEFAULT]\nminimum = 3\n", 2 * MB,
                      "default_hugepagesz=1G hugepagesz=1G hugepages=3");
  assert_boot_string ("[boot]\ndefault-page-size = 2M\n[pool DEFAULT]\nminimum = 3\n", GB,
                      "default_hugepagesz=2M");
  assert_boot_string ("[boot]\ndefault-page-size = 16GB\n", 2 * MB, "default_hugepagesz=16G");
  assert_boot_string ("[boot]\ndefault-page-size = 2M\n[pool 16G]\nminimum = 1\n[pool 1G]\nminimum = 2\n",
                      2 * MB, "default_hugepagesz=2M hugepagesz=1G hugepages=2 hugepagesz=16G hugepages=1");
  /* a section naming the size wins key by key over DEFAULT */
  assert_boot_string ("[pool DEFAULT]\nminimum = 3\n[pool 1G]\nminimum = 5\n", GB,
                      "hugepagesz=1G hugepages=5");
  assert_boot_string ("[pool 1G]\nminimum = 5\n[pool DEFAULT]\nminimum = 3\n", GB,
                      "hugepagesz=1G hugepages=5");
  assert_boot_string ("[pool DEFAULT]\nnode0 = 1\nnode1 = 1\n[pool 1G]\nnode1 = 2\n", GB,
                      "hugepagesz=1G hugepages=0:1,1:2");
  assert_boot_string ("[pool DEFAULT]\nminimum = 3\n[pool 1G]\nnode1 = 2\n", GB,
                      "hugepagesz=1G hugepages=1:2");
}

static void
test_from_config_problems (void)
{
  const char *node5[] = { "t.conf:4: pool 1GB node 5: no such NUMA node", NULL };
  const char *bytes[] = { "t.conf:2: pool 1GB minimum: not a whole number of pages", NULL };
  const char *node_bytes[] = { "t.conf:3: pool 1GB node 1: not a whole number of pages", NULL };
  const char *size[] = { "t.conf:2: default-page-size 4MB is not a huge page size of this kernel",
                         NULL };
  g_autofree char *a = boot_string ("[pool 1G]\nnode0 = 1\nnode1 = 1\nnode5 = 1\n", 2 * MB, node5);
  /* DEFAULT keeps bytes until it meets the size */
  g_autofree char *b = boot_string ("[pool DEFAULT]\nminimum = 1536M\n", GB, bytes);
  g_autofree char *d = boot_string ("[pool DEFAULT]\nnode0 = 2\nnode1 = 1536M\n", GB, node_bytes);
  g_autofree char *e = boot_string ("[boot]\ndefault-page-size = 4M\n[pool DEFAULT]\nminimum = 2\n",
                                    GB, size);

  /* what can be used still is */
  g_assert_cmpstr (a, ==, "hugepagesz=1G hugepages=0:1,1:1");
  g_assert_cmpstr (b, ==, "");
  g_assert_cmpstr (d, ==, "hugepagesz=1G hugepages=0:2");
  /* DEFAULT falls back to the running default */
  g_assert_cmpstr (e, ==, "hugepagesz=1G hugepages=2");
}

/* ---- the command line ---- */

static void
assert_subset (const char *cmdline, const char *expected)
{
  g_autofree char *got = hpd_boot_cmdline_huge_pages (cmdline);
  /* escaped: some cases are not UTF-8, which meson's TAP reader refuses */
  g_autofree char *shown_cmdline = cmdline ? g_strescape (cmdline, NULL) : g_strdup ("(null)");
  g_autofree char *shown_got = g_strescape (got, NULL);

  g_test_message ("[%s] -> [%s]", shown_cmdline, shown_got);
  g_assert_cmpstr (got, ==, expected);
}

static void
test_cmdline_subset (void)
{
  assert_subset ("BOOT_IMAGE=/boot/vmlinuz-6.1.0-13-amd64 root=UUID=0f3c ro quiet "
                 "hugepagesz=1G hugepages=4 default_hugepagesz=2M\n",
                 "hugepagesz=1G hugepages=4 default_hugepagesz=2M");
  assert_subset (NULL, "");
  assert_subset ("", "");
  assert_subset ("\n", "");
  assert_subset ("ro quiet splash\n", "");
  /* odd blanks */
  assert_subset ("  hugepagesz=1G\t\thugepages=4 \n  default_hugepagesz=1G   \n",
                 "hugepagesz=1G hugepages=4 default_hugepagesz=1G");
  /* quotes, as the kernel removes them */
  assert_subset ("\"hugepagesz=1G\" hugepages=\"2\" foo=\"a b c\" hugetlb_cma=\"2G\"",
                 "hugepagesz=1G hugepages=2 hugetlb_cma=2G");
  assert_subset ("hugetlb_cma=\"0:1G 1:1G\" x", "hugetlb_cma=\"0:1G 1:1G\"");
  /* the whole family, in order, and '-' for '_' as written */
  assert_subset ("hugetlb_free_vmemmap=on hugepage_alloc_threads=8 hugetlb_cma=4G "
                 "hugetlb_cma_only=1 default-hugepagesz=1G hugetlb-cma=2G",
                 "hugetlb_free_vmemmap=on hugepage_alloc_threads=8 hugetlb_cma=4G "
                 "hugetlb_cma_only=1 default-hugepagesz=1G hugetlb-cma=2G");
  /* not ours: no '=', other names, THP */
  assert_subset ("hugepages hugepagesx=1 xhugepages=1 hugepages_=1 transparent_hugepage=never "
                 "thp_anon=64K:always", "");
  /* an empty value is still given */
  assert_subset ("hugepages=", "hugepages=");
  /* "--" ends the kernel's parameters: the rest is init's */
  assert_subset ("hugepages=4 -- hugepages=8 single", "hugepages=4");
  assert_subset ("hugepages=4 --=x hugepages=8", "hugepages=4 hugepages=8");
  /* KernelCommandLine is a bus string: the kernel takes any bytes, but
   * what is not UTF-8 text, and control characters, are shown as \xNN
   * (found by tests/fuzz/libfuzzer/fuzz-cmdline) */
  assert_subset ("ro hugepages=4\xff quiet hugepagesz=\x13pa\xe3 hugetlb_cma=\"1G\t\xc3\xa9\"",
                 "hugepages=4\\xff hugepagesz=\\x13pa\\xe3 hugetlb_cma=\"1G\\x09\xc3\xa9\"");
  assert_subset ("hugepages=\xc2\x85\x7f\xed\xa0\x80", "hugepages=\\xc2\\x85\\x7f\\xed\\xa0\\x80");
}

static void
test_cmdline_split (void)
{
  g_autoptr(GPtrArray) args = hpd_boot_cmdline_split ("a \"b=c d\" e= f=\"g\"h \"i\" j=\"k l\"m");
  const char *expected[][2] = {
    { "a", NULL }, { "b", "c d" }, { "e", "" }, { "f", "g\"h" }, { "i", NULL },
    { "j", "k l\"m" },
  };

  g_assert_cmpuint (args->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < args->len; i++)
    {
      const HpdBootArg *arg = g_ptr_array_index (args, i);

      g_assert_cmpstr (arg->name, ==, expected[i][0]);
      g_assert_cmpstr (arg->value, ==, expected[i][1]);
    }
}

/* ---- the kernel's rules ---- */

/* The pages of @size that @cmdline gives, with the nodes as "0:2,1:2". */
static char *
running (const char *cmdline, guint64 default_size, guint64 size, guint64 *kernel_default)
{
  g_autoptr(GPtrArray) pools = machine (default_size);
  g_autoptr(HpdBootParams) params = hpd_boot_params_from_cmdline (cmdline, pools, default_size);
  g_autoptr(GString) out = g_string_new (NULL);

  if (kernel_default != NULL)
    *kernel_default = params->default_size;
  for (guint i = 0; i < params->pools->len; i++)
    {
      const HpdBootPool *pool = g_ptr_array_index (params->pools, i);

      if (i > 0)
        g_assert_cmpuint (pool->size, >, ((HpdBootPool *) g_ptr_array_index (params->pools, i - 1))->size);
      if (pool->size != size)
        continue;
      g_string_append_printf (out, "%" G_GUINT64_FORMAT, pool->pages);
      for (guint j = 0; pool->nodes != NULL && j < pool->nodes->len; j++)
        {
          const HpdBootNode *n = &g_array_index (pool->nodes, HpdBootNode, j);
          g_string_append_printf (out, "%s%u:%" G_GUINT64_FORMAT, j ? "," : " ", n->node, n->pages);
        }
    }
  return g_strdup (out->len > 0 ? out->str : "none");
}

static void
assert_running (const char *cmdline, guint64 default_size, guint64 size, const char *expected)
{
  g_autofree char *got = running (cmdline, default_size, size, NULL);
  g_autofree char *name = hp_size_name (size);

  g_test_message ("[%s] %s -> %s", cmdline, name, got);
  g_assert_cmpstr (got, ==, expected);
}

static void
test_cmdline_rules (void)
{
  guint64 chosen;
  g_autofree char *got = NULL;

  /* sizes as memparse() reads them */
  assert_running ("hugepagesz=1G hugepages=2", 2 * MB, GB, "2");
  assert_running ("hugepagesz=1GB hugepages=2", 2 * MB, GB, "2");
  assert_running ("hugepagesz=1g hugepages=2", 2 * MB, GB, "2");
  assert_running ("hugepagesz=1073741824 hugepages=2", 2 * MB, GB, "2");
  assert_running ("hugepagesz=0x40000000 hugepages=2", 2 * MB, GB, "2");
  assert_running ("hugepagesz=1048576K hugepages=2", 2 * MB, GB, "2");
  assert_running ("hugepagesz=16G hugepages=1", 2 * MB, 16 * GB, "1");
  /* sizes the kernel does not take are ignored with their hugepages= */
  assert_running ("hugepagesz=3M hugepages=5", 2 * MB, 3 * MB, "none");
  assert_running ("hugepagesz=4M hugepages=5 hugepagesz=1G hugepages=1", 2 * MB, GB, "1");
  assert_running ("hugepagesz=x hugepages=5", 2 * MB, GB, "none");
  /* hugepages= first is for the default size */
  assert_running ("hugepages=2", GB, GB, "2");
  assert_running ("hugepages=2", 2 * MB, GB, "none");
  assert_running ("hugepages=2", 2 * MB, 2 * MB, "2");
  assert_running ("hugepages=2 hugepagesz=1G hugepages=3", 2 * MB, GB, "3");
  assert_running ("hugepages=2 hugepagesz=1G hugepages=3", 2 * MB, 2 * MB, "2");
  /* ...and wins over a later pair for that size */
  assert_running ("hugepages=3 hugepagesz=1G hugepages=2", GB, GB, "3");
  /* default_hugepagesz= takes the leading pages wherever it comes */
  assert_running ("hugepages=3 default_hugepagesz=1G", 2 * MB, GB, "3");
  assert_running ("hugepages=3 hugepagesz=16G hugepages=1 default_hugepagesz=1G", 2 * MB, GB, "3");
  assert_running ("default_hugepagesz=1G hugepages=4", 2 * MB, GB, "4");
  assert_running ("default_hugepagesz=1G hugepagesz=1G hugepages=4", 2 * MB, GB, "4");
  assert_running ("default_hugepagesz=1G hugepages=2 hugepagesz=1G hugepages=4", 2 * MB, GB, "2");
  /* a size named twice keeps the first; hugepages= twice keeps the first */
  assert_running ("hugepagesz=1G hugepages=2 hugepagesz=1G hugepages=5", 2 * MB, GB, "2");
  assert_running ("hugepagesz=1G hugepages=2 hugepages=5", 2 * MB, GB, "2");
  /* the node form, and what the kernel calls invalid (the pages go) */
  assert_running ("hugepagesz=1G hugepages=0:2,1:2", 2 * MB, GB, "4 0:2,1:2");
  assert_running ("hugepagesz=1G hugepages=1:3", 2 * MB, GB, "3 1:3");
  assert_running ("hugepagesz=1G hugepages=0:2,x", 2 * MB, GB, "0");
  assert_running ("hugepagesz=1G hugepages=0:2,3", 2 * MB, GB, "0");
  assert_running ("hugepagesz=1G hugepages=1024:1", 2 * MB, GB, "0");
  assert_running ("hugepagesz=1G hugepages=x", 2 * MB, GB, "0");
  assert_running ("hugepages=0:1,1:1", GB, GB, "2 0:1,1:1");
  /* a node named twice keeps its last count, and those are the pages the
   * kernel allocates (found by tests/fuzz/libfuzzer/fuzz-cmdline) */
  assert_running ("hugepagesz=1G hugepages=1:2,1:2", 2 * MB, GB, "2 1:2");
  assert_running ("hugepagesz=1G hugepages=0:1,1:3,0:2", 2 * MB, GB, "5 0:2,1:3");
  assert_running ("hugepagesz=1G hugepages=0:5,0:0", 2 * MB, GB, "0 0:0");
  /* leading pages in the node form go to default_hugepagesz=; a later
   * hugepages= in the plain form replaces them, nodes and all */
  assert_running ("hugepages=1:3 default_hugepagesz=1G hugepages=5", 2 * MB, GB, "5");
  assert_running ("hugepages=3 default_hugepagesz=1G hugepages=1:2", 2 * MB, GB, "2 1:2");
  /* the kernel's sscanf stops at the first non-digit */
  assert_running ("hugepagesz=1G hugepages=4x", 2 * MB, GB, "4");
  /* dashes, quotes */
  assert_running ("hugepagesz=1G \"hugepages=2\"", 2 * MB, GB, "2");
  assert_running ("default-hugepagesz=1G hugepages=2", 2 * MB, GB, "2");

  /* the default size the kernel took */
  got = running ("default_hugepagesz=1G", 2 * MB, GB, &chosen);
  g_assert_cmpuint (chosen, ==, GB);
  g_clear_pointer (&got, g_free);
  got = running ("default_hugepagesz=2M default_hugepagesz=1G", GB, GB, &chosen);
  g_assert_cmpuint (chosen, ==, 2 * MB);
  g_clear_pointer (&got, g_free);
  got = running ("default_hugepagesz=4M", GB, GB, &chosen);
  g_assert_cmpuint (chosen, ==, GB);
  g_clear_pointer (&got, g_free);
  got = running ("", 2 * MB, GB, &chosen);
  g_assert_cmpuint (chosen, ==, 2 * MB);
}

/* ---- reboot required ---- */

static gboolean
differ (const char *config_text, const char *cmdline, guint64 default_size)
{
  g_autoptr(GPtrArray) pools = machine (default_size);
  g_autoptr(HpdConfig) config = parse (config_text);
  g_autoptr(HpdBootParams) wanted = hpd_boot_params_from_config (config, pools, default_size, NULL);
  g_autoptr(HpdBootParams) got = hpd_boot_params_from_cmdline (cmdline, pools, default_size);

  return hpd_boot_params_differ (wanted, got);
}

static void
test_reboot_required (void)
{
  const char *one_gb = "[pool 1G]\nminimum = 2\n";
  const char *nodes = "[pool 1G]\nnode0 = 2\nnode1 = 2\n";

  /* the same meaning, however written */
  g_assert_false (differ (one_gb, "hugepagesz=1G hugepages=2", 2 * MB));
  g_assert_false (differ (one_gb, "ro hugepagesz=1GB  hugepages=2 quiet", 2 * MB));
  g_assert_false (differ (one_gb, "hugepagesz=1073741824 \"hugepages=2\"", 2 * MB));
  g_assert_false (differ (one_gb, "hugepages=2", GB));
  g_assert_false (differ (one_gb, "hugepages=2 default_hugepagesz=1G", 2 * MB));
  g_assert_false (differ ("[pool 1G]\nminimum = 2G\n", "hugepagesz=1G hugepages=2", 2 * MB));
  /* other pages */
  g_assert_true (differ (one_gb, "hugepagesz=1G hugepages=3", 2 * MB));
  g_assert_true (differ (one_gb, "", 2 * MB));
  g_assert_true (differ (one_gb, "hugepages=2", 2 * MB));
  g_assert_true (differ (one_gb, "hugepages=5 hugepagesz=1G hugepages=2", GB));
  g_assert_false (differ (one_gb, "hugepagesz=1G hugepages=2 hugepagesz=1G hugepages=7", 2 * MB));
  /* nodes */
  g_assert_false (differ (nodes, "hugepagesz=1G hugepages=0:2,1:2", 2 * MB));
  g_assert_false (differ (nodes, "hugepagesz=1G hugepages=1:2,0:2", 2 * MB));
  g_assert_false (differ ("[pool 1G]\nnode0 = 2\nnode1 = 0\n", "hugepagesz=1G hugepages=0:2", 2 * MB));
  g_assert_false (differ ("[pool 1G]\nnode0 = 2\n", "hugepagesz=1G hugepages=0:2,1:0", 2 * MB));
  g_assert_true (differ (nodes, "hugepagesz=1G hugepages=4", 2 * MB));
  g_assert_true (differ (one_gb, "hugepagesz=1G hugepages=0:1,1:1", 2 * MB));
  g_assert_true (differ (nodes, "hugepagesz=1G hugepages=0:3,1:1", 2 * MB));
  /* 0 pages configured: any pages of that size differ, none do not */
  g_assert_false (differ ("[pool 1G]\nminimum = 0\n", "", 2 * MB));
  g_assert_false (differ ("[pool 1G]\nminimum = 0\n", "hugepagesz=1G", 2 * MB));
  g_assert_true (differ ("[pool 1G]\nminimum = 0\n", "hugepagesz=1G hugepages=1", 2 * MB));
  /* what the configuration leaves alone is not compared */
  g_assert_false (differ ("", "hugepagesz=1G hugepages=4 default_hugepagesz=1G", 2 * MB));
  g_assert_false (differ ("[pool 1G]\nmaximum = 4\n", "hugepagesz=1G hugepages=4", 2 * MB));
  g_assert_false (differ ("[pool 2M]\nminimum = 512\n", "hugepages=4", 2 * MB));
  g_assert_false (differ (one_gb, "hugepagesz=1G hugepages=2 hugepagesz=16G hugepages=1 hugepages=9",
                          2 * MB));
  g_assert_false (differ (one_gb, "hugepagesz=1G hugepages=2 hugetlb_cma=4G", 2 * MB));
  /* the default size, when chosen */
  g_assert_true (differ ("[boot]\ndefault-page-size = 1G\n", "", 2 * MB));
  g_assert_false (differ ("[boot]\ndefault-page-size = 1G\n", "default_hugepagesz=1G", 2 * MB));
  g_assert_false (differ ("[boot]\ndefault-page-size = 1G\n", "", GB));
  g_assert_false (differ ("[boot]\ndefault-page-size = 2M\n", "", 2 * MB));
  g_assert_true (differ ("[boot]\ndefault-page-size = 2M\n", "default_hugepagesz=1G", GB));
  g_assert_false (differ ("", "default_hugepagesz=1G", GB));
  /* DEFAULT follows the chosen default size */
  g_assert_false (differ ("[boot]\ndefault-page-size = 1G\n[pool DEFAULT]\nminimum = 3\n",
                          "default_hugepagesz=1G hugepages=3", 2 * MB));
  g_assert_true (differ ("[boot]\ndefault-page-size = 1G\n[pool DEFAULT]\nminimum = 3\n",
                         "hugepages=3", 2 * MB));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/boot/size-text", test_size_text);
  g_test_add_func ("/boot/config", test_from_config);
  g_test_add_func ("/boot/config/default", test_from_config_default);
  g_test_add_func ("/boot/config/problems", test_from_config_problems);
  g_test_add_func ("/boot/cmdline/subset", test_cmdline_subset);
  g_test_add_func ("/boot/cmdline/split", test_cmdline_split);
  g_test_add_func ("/boot/cmdline/rules", test_cmdline_rules);
  g_test_add_func ("/boot/reboot-required", test_reboot_required);
  return g_test_run ();
}
