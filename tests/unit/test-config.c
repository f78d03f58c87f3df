/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* hugepagesd.conf and its drop-ins: ordering and masking, later values
 * winning, one exact "FILE:LINE: text" per bad line with the rest applied,
 * strict values, the canonical form parsing back to the same settings, and
 * inputs no one should write. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpd-config.h"

#define MB (G_GUINT64_CONSTANT (1) << 20)
#define GB (G_GUINT64_CONSTANT (1) << 30)

static HpdConfig *
parse (const char *text)
{
  HpdConfig *config = hpd_config_new ();

  hpd_config_parse_text ("t.conf", text, -1, config);
  return config;
}

static void
assert_errors (const HpdConfig *config, const char *const *expected)
{
  guint n = expected ? g_strv_length ((GStrv) expected) : 0;

  for (guint i = 0; i < config->errors->len; i++)
    g_test_message ("error: %s", (const char *) g_ptr_array_index (config->errors, i));
  g_assert_cmpuint (config->errors->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (g_ptr_array_index (config->errors, i), ==, expected[i]);
}

static void
assert_no_errors (const HpdConfig *config)
{
  assert_errors (config, NULL);
}

static HpdConfigPool *
pool (const HpdConfig *config, guint64 size)
{
  return g_tree_lookup (config->pools, &size);
}

static HpdConfigValue *
node (const HpdConfigPool *p, guint n)
{
  return g_tree_lookup (p->nodes, GUINT_TO_POINTER (n));
}

static const char *
thp (const HpdConfig *config, const char *name)
{
  HpdConfigString *s = g_tree_lookup (config->thp, name);
  return s ? s->value : NULL;
}

static void
assert_value (const HpdConfigValue *v, HpdConfigKind kind, guint64 value)
{
  g_assert_nonnull (v);
  g_assert_cmpint (v->kind, ==, kind);
  g_assert_cmpuint (v->value, ==, value);
}

static void
assert_origin (HpdConfigOrigin origin, const char *file_suffix, guint line)
{
  g_assert_nonnull (origin.file);
  if (!g_str_has_suffix (origin.file, file_suffix))
    g_error ("origin %s does not end in %s", origin.file, file_suffix);
  g_assert_cmpuint (origin.line, ==, line);
}

/* ---- the loader ---- */

static void
test_load_order (void)
{
  g_autofree char *main_file = g_test_build_filename (G_TEST_DIST, "fixtures", "config", "etc",
                                                      "hugepagesd", "hugepagesd.conf", NULL);
  g_autofree char *vendor = g_test_build_filename (G_TEST_DIST, "fixtures", "config", "usr", "lib",
                                                   "hugepagesd", "hugepagesd.conf.d", NULL);
  g_autofree char *admin = g_test_build_filename (G_TEST_DIST, "fixtures", "config", "etc",
                                                  "hugepagesd", "hugepagesd.conf.d", NULL);
  const char *dirs[] = { vendor, admin, NULL };
  g_autoptr(HpdConfig) config = hpd_config_load (main_file, dirs);
  HpdConfigPool *p;
  HpdConfigMount *m;

  assert_no_errors (config);

  /* main file, then 10-vendor.conf from /usr/lib, then 20-admin.conf from /etc */
  p = pool (config, 2 * MB);
  g_assert_nonnull (p);
  assert_value (&p->minimum, HPD_CONFIG_NUMBER, 128);
  assert_origin (p->minimum.origin, "usr/lib/hugepagesd/hugepagesd.conf.d/10-vendor.conf", 2);
  assert_value (&p->maximum, HPD_CONFIG_BYTES, GB);
  assert_origin (p->maximum.origin, "etc/hugepagesd/hugepagesd.conf.d/20-admin.conf", 2);
  assert_value (node (p, 0), HPD_CONFIG_NUMBER, 64);
  assert_origin (p->origin, "etc/hugepagesd/hugepagesd.conf", 2);
  g_assert_cmpint (g_tree_nnodes (config->pools), ==, 1);

  /* 90-late.conf from /usr/lib sorts after 20-admin.conf from /etc */
  g_assert_cmpstr (thp (config, "enabled"), ==, "always");
  g_assert_cmpstr (thp (config, "defrag"), ==, "madvise");
  g_assert_cmpint (g_tree_nnodes (config->thp), ==, 2);

  /* 30-override.conf in /etc replaces the one in /usr/lib */
  g_assert_cmpint (config->min_free_kbytes.kind, ==, HPD_CONFIG_UNSET);
  assert_value (&config->zone_movable, HPD_CONFIG_NUMBER, 1);
  /* 50-masked.conf is a link to /dev/null in /etc */
  g_assert_null (config->shm_group.value);
  /* from the main file, untouched by drop-ins */
  assert_value (&config->shmmax, HPD_CONFIG_RECOMMENDED, 0);
  assert_origin (config->shmmax.origin, "etc/hugepagesd/hugepagesd.conf", 7);

  m = g_tree_lookup (config->mounts, "group dba");
  g_assert_nonnull (m);
  g_assert_cmpint (m->scope, ==, HPD_MOUNT_SCOPE_GROUP);
  g_assert_cmpstr (m->owner, ==, "dba");
  assert_value (&m->mode, HPD_CONFIG_NUMBER, 0770);
  g_assert_cmpint (g_tree_nnodes (config->mounts), ==, 1);
  /* README, .hidden.conf and 91-backup.conf~ are not drop-ins */
}

static void
test_load_missing (void)
{
  const char *dirs[] = { "/nonexistent/usr", "/nonexistent/etc", NULL };
  g_autoptr(HpdConfig) config = hpd_config_load ("/nonexistent/hugepagesd.conf", dirs);
  g_autoptr(HpdConfig) none = hpd_config_load (NULL, NULL);
  g_autoptr(HpdConfig) empty = hpd_config_new ();
  g_autofree char *text = hpd_config_to_text (config);

  assert_no_errors (config);
  assert_no_errors (none);
  g_assert_true (hpd_config_equal (config, empty));
  g_assert_cmpstr (text, ==, "");
}

static void
test_load_bad_file (void)
{
  g_autofree char *bad = g_test_build_filename (G_TEST_DIST, "fixtures", "config", "bad.conf", NULL);
  g_autofree char *expected = g_strdup_printf ("%s:2: bad value 'lots' for 'minimum': "
                                               "'lots' does not start with a decimal number", bad);
  const char *errors[] = { expected, NULL };
  g_autoptr(HpdConfig) config = hpd_config_load (bad, NULL);

  assert_errors (config, errors);
  assert_value (&pool (config, 2 * MB)->maximum, HPD_CONFIG_NUMBER, 64);
}

/* Files that are not regular, too large, or a directory that is a file:
 * one error each, the others still read. */
static void
test_load_unreadable (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("hpd-config-XXXXXX", NULL);
  g_autofree char *d1 = g_build_filename (tmp, "d1", NULL);
  g_autofree char *d2 = g_build_filename (tmp, "d2", NULL);
  g_autofree char *dir_conf = g_build_filename (d1, "10-dir.conf", NULL);
  g_autofree char *fifo = g_build_filename (d1, "20-fifo.conf", NULL);
  g_autofree char *large = g_build_filename (d1, "30-large.conf", NULL);
  g_autofree char *good = g_build_filename (d1, "40-good.conf", NULL);
  g_autofree char *masked = g_build_filename (d2, "40-good.conf", NULL);
  g_autofree char *again = g_build_filename (d2, "50-again.conf", NULL);
  g_autofree char *e1 = g_strdup_printf ("%s: cannot read: not a regular file", tmp);
  g_autofree char *e2 = g_strdup_printf ("%s: cannot read: not a regular file", dir_conf);
  g_autofree char *e3 = g_strdup_printf ("%s: cannot read: not a regular file", fifo);
  g_autofree char *e4 = g_strdup_printf ("%s: cannot read: larger than %u bytes", large,
                                         HPD_CONFIG_MAX_FILE);
  const char *errors[] = { e1, e2, e3, e4, NULL };
  const char *dirs[] = { d1, d2, NULL };
  FILE *f;

  g_assert_nonnull (tmp);
  g_assert_cmpint (g_mkdir (d1, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (d2, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (dir_conf, 0755), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  f = fopen (large, "w");
  g_assert_nonnull (f);
  fputs ("[thp]\nenabled = never\n", f);
  g_assert_cmpint (ftruncate (fileno (f), HPD_CONFIG_MAX_FILE + 1), ==, 0);
  fclose (f);
  g_assert_true (g_file_set_contents (good, "[thp]\nenabled = madvise\n", -1, NULL));
  g_assert_cmpint (symlink ("/dev/null", masked), ==, 0);
  g_assert_true (g_file_set_contents (again, "[thp]\ndefrag = never\n", -1, NULL));

  {
    /* the main file is a directory; 40-good.conf is masked in d2 */
    g_autoptr(HpdConfig) config = hpd_config_load (tmp, dirs);

    assert_errors (config, errors);
    g_assert_null (thp (config, "enabled"));
    g_assert_cmpstr (thp (config, "defrag"), ==, "never");
  }

  {
    /* a drop-in "directory" that is a file */
    const char *file_dirs[] = { again, NULL };
    g_autoptr(HpdConfig) config = hpd_config_load (NULL, file_dirs);
    g_autofree char *e = g_strdup_printf ("%s: cannot read: ", again);

    g_assert_cmpuint (config->errors->len, ==, 1);
    g_assert_true (g_str_has_prefix (g_ptr_array_index (config->errors, 0), e));
  }

  g_assert_cmpint (unlink (again), ==, 0);
  g_assert_cmpint (unlink (masked), ==, 0);
  g_assert_cmpint (unlink (good), ==, 0);
  g_assert_cmpint (unlink (large), ==, 0);
  g_assert_cmpint (unlink (fifo), ==, 0);
  g_assert_cmpint (g_rmdir (dir_conf), ==, 0);
  g_assert_cmpint (g_rmdir (d2), ==, 0);
  g_assert_cmpint (g_rmdir (d1), ==, 0);
  g_assert_cmpint (g_rmdir (tmp), ==, 0);
}

/* A file name is bytes, but origins and messages go onto the bus, which
 * takes UTF-8 only (a drop-in named in Latin-1 killed the service; found
 * by tests/fuzz/libfuzzer/fuzz-config): they show such bytes, and control
 * characters, as \xNN. */
static void
test_load_odd_names (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("hpd-config-XXXXXX", NULL);
  g_autofree char *latin1 = g_build_filename (tmp, "caf\xe9.conf", NULL);
  g_autofree char *newline = g_build_filename (tmp, "a\nb.conf", NULL);
  g_autofree char *e1 = g_strdup_printf ("%s/a\\x0ab.conf:2: bad value 'lots' for 'minimum': "
                                         "'lots' does not start with a decimal number", tmp);
  g_autofree char *e2 = g_strdup_printf ("%s/caf\\xe9.conf:2: 'x y' is not a THP setting name", tmp);
  const char *errors[] = { e1, e2, NULL };
  const char *dirs[] = { tmp, NULL };
  g_autoptr(HpdConfig) config = NULL;
  HpdConfigPool *p;

  g_assert_true (g_file_set_contents (newline, "[pool 2MB]\nminimum = lots\nmaximum = 4\n", -1, NULL));
  g_assert_true (g_file_set_contents (latin1, "[thp]\nx y = 1\n", -1, NULL));
  config = hpd_config_load (NULL, dirs);

  assert_errors (config, errors);
  for (guint i = 0; i < config->errors->len; i++)
    g_assert_true (g_utf8_validate (g_ptr_array_index (config->errors, i), -1, NULL));
  p = pool (config, 2 * MB);
  g_assert_nonnull (p);
  assert_origin (p->maximum.origin, "/a\\x0ab.conf", 3);

  g_assert_cmpint (unlink (latin1), ==, 0);
  g_assert_cmpint (unlink (newline), ==, 0);
  g_assert_cmpint (g_rmdir (tmp), ==, 0);
}

/* ---- errors ---- */

static void
test_errors (void)
{
  const char *text =
    "orphan = 1\n"                          /* 1 */
    "[pool 2MB]\n"                          /* 2 */
    "minimum = 10\n"                        /* 3 */
    "colour = blue\n"                       /* 4 */
    "maximum = many\n"                      /* 5 */
    "maximum\n"                             /* 6 */
    "= 5\n"                                 /* 7 */
    "[nonsense]\n"                          /* 8 */
    "anything = goes\n"                     /* 9: skipped with its bad header */
    "[pool 3MB]\n"                          /* 10 */
    "[pool]\n"                              /* 11 */
    "[pool 2MB\n"                           /* 12 */
    "[]\n"                                  /* 13 */
    "[mount user]\n"                        /* 14 */
    "[mount system root]\n"                 /* 15 */
    "[mount user -rf]\n"                    /* 16 */
    "[mount everyone]\n"                    /* 17 */
    "[tunables now]\n"                      /* 18 */
    "[thp] # comment\n"                     /* 19 */
    "[tunables]\n"                          /* 20 */
    "shmmax = huge\n"                       /* 21 */
    "zone-movable = true\n"                 /* 22 */
    "shm-group = no/such\n"                 /* 23 */
    "shm-group = 4294967295\n"              /* 24 */
    "min-free-kbytes = -1\n"                /* 25 */
    "swappiness = 60\n"                     /* 26 */
    "[thp]\n"                               /* 27 */
    "../../etc/passwd = x\n"                /* 28 */
    "enabled = always madvise\n"            /* 29 */
    "[mount global]\n"                      /* 30 */
    "mode = 4755\n"                         /* 31 */
    "mode = 0799\n"                         /* 32 */
    "max-size = 0%\n"                       /* 33 */
    "min-size = 101%\n"                     /* 34 */
    "max-inodes = 0\n"                      /* 35 */
    "page-size = 3M\n"                      /* 36 */
    "owner = root\n"                        /* 37 */
    "tab\there = 1\n"                       /* 38 */
    "bell = \a\n"                           /* 39 */
    "latin1 = caf\xe9\n"                    /* 40 */
    "[pool 2MB]\n"                          /* 41 */
    "node1024 = 1\n"                        /* 42 */
    "node-1 = 1\n"                          /* 43 */
    "maximum = 64\n";                       /* 44: still applies */
  const char *expected[] = {
    "t.conf:1: key 'orphan' outside a section",
    "t.conf:4: unknown key 'colour' in [pool]",
    "t.conf:5: bad value 'many' for 'maximum': 'many' does not start with a decimal number",
    "t.conf:6: expected [section] or key = value",
    "t.conf:7: expected [section] or key = value",
    "t.conf:8: unknown section 'nonsense' (known: pool, mount, tunables, thp, boot)",
    "t.conf:10: bad pool size '3MB': page size '3MB' is not a power of two",
    "t.conf:11: a pool section is [pool SIZE], such as [pool 2MB] or [pool DEFAULT]",
    "t.conf:12: a section header ends with ']'",
    "t.conf:13: empty section header",
    "t.conf:14: [mount user] needs a name",
    "t.conf:15: [mount system] takes no name",
    "t.conf:16: bad user '-rf': a name has 1 to 32 letters, digits, '_', '-' or '.' "
    "and does not start with '-' or '.'",
    "t.conf:17: a mount section is [mount system], [mount global], [mount user NAME] "
    "or [mount group NAME]",
    "t.conf:18: [tunables] takes no argument",
    "t.conf:19: a section header ends with ']'",
    "t.conf:21: bad value 'huge' for 'shmmax': 'huge' does not start with a decimal number",
    "t.conf:22: bad value 'true' for 'zone-movable': use yes or no",
    "t.conf:23: bad value 'no/such' for 'shm-group': a name has 1 to 32 letters, digits, "
    "'_', '-' or '.' and does not start with '-' or '.'",
    "t.conf:24: bad value '4294967295' for 'shm-group': id is out of range (at most 2147483647)",
    "t.conf:25: bad value '-1' for 'min-free-kbytes': '-1' is not a decimal number",
    "t.conf:26: unknown key 'swappiness' in [tunables]",
    "t.conf:28: '../../etc/passwd' is not a THP setting name",
    "t.conf:29: bad value 'always madvise' for 'enabled': a THP value is one word or number",
    "t.conf:31: bad value '4755' for 'mode': only permission bits and the sticky bit may be set "
    "(setuid and setgid are not allowed)",
    "t.conf:32: bad value '0799' for 'mode': a mode is an octal number such as 0770 or 1777",
    "t.conf:33: bad value '0%' for 'max-size': a percentage must be from 1% to 100%",
    "t.conf:34: bad value '101%' for 'min-size': a percentage must be from 1% to 100%",
    "t.conf:35: bad value '0' for 'max-inodes': max-inodes must be from 1 to 2147483648",
    "t.conf:36: bad value '3M' for 'page-size': page size '3M' is not a power of two",
    "t.conf:37: unknown key 'owner' in [mount]",
    "t.conf:38: unknown key 'tab\there' in [mount]",
    "t.conf:39: control character 0x07",
    "t.conf:40: not UTF-8",
    "t.conf:42: node 1024 is out of range (at most 1023)",
    "t.conf:43: unknown key 'node-1' in [pool]",
    NULL,
  };
  g_autoptr(HpdConfig) config = parse (text);
  HpdConfigMount *m = g_tree_lookup (config->mounts, "global");

  assert_errors (config, expected);

  /* what was good still applies */
  assert_value (&pool (config, 2 * MB)->minimum, HPD_CONFIG_NUMBER, 10);
  assert_value (&pool (config, 2 * MB)->maximum, HPD_CONFIG_NUMBER, 64);
  assert_origin (pool (config, 2 * MB)->maximum.origin, "t.conf", 44);
  g_assert_cmpint (g_tree_nnodes (pool (config, 2 * MB)->nodes), ==, 0);
  g_assert_cmpint (g_tree_nnodes (config->pools), ==, 1);
  g_assert_nonnull (m);
  g_assert_cmpint (m->mode.kind, ==, HPD_CONFIG_UNSET);
  g_assert_cmpint (m->max_size.kind, ==, HPD_CONFIG_UNSET);
  g_assert_cmpint (g_tree_nnodes (config->mounts), ==, 1);
  g_assert_cmpint (g_tree_nnodes (config->thp), ==, 0);
  g_assert_cmpint (config->shmmax.kind, ==, HPD_CONFIG_UNSET);
  g_assert_null (config->shm_group.value);
}

/* A bad line keeps what an earlier line or file set; a later good line
 * still wins. */
static void
test_errors_keep_earlier (void)
{
  g_autoptr(HpdConfig) config = hpd_config_new ();
  const char *expected[] = {
    "b.conf:2: bad value '1M' for 'minimum': 1M is not a whole number of 2097152-byte pages",
    "b.conf:3: unknown key 'enabled' in [pool]",
    "b.conf:5: bad value 'never!' for 'enabled': a THP value is one word or number",
    NULL,
  };

  hpd_config_parse_text ("a.conf", "[pool 2MB]\nminimum = 7\n[thp]\nenabled = madvise\n", -1, config);
  hpd_config_parse_text ("b.conf", "[pool 2MB]\nminimum = 1M\nenabled = never!\n[thp]\nenabled = never!\n",
                         -1, config);
  assert_errors (config, expected);

  assert_value (&pool (config, 2 * MB)->minimum, HPD_CONFIG_NUMBER, 7);
  assert_origin (pool (config, 2 * MB)->minimum.origin, "a.conf", 2);
  g_assert_cmpstr (thp (config, "enabled"), ==, "madvise");
}

/* ---- values ---- */

static void
test_later_wins (void)
{
  g_autoptr(HpdConfig) config = parse ("[pool 2MB]\n"
                                       "minimum = 1\n"
                                       "[pool 1G]\n"
                                       "minimum = 2\n"
                                       "[pool 2048kB]\n"      /* the same pool again */
                                       "minimum=3\n"
                                       "  node0 =  4  \n"
                                       "\tnode00\t=\t5\n"     /* node 0 again */
                                       "[thp]\n"
                                       "enabled = never\n"
                                       "enabled = always\n");

  assert_no_errors (config);
  g_assert_cmpint (g_tree_nnodes (config->pools), ==, 2);
  assert_value (&pool (config, 2 * MB)->minimum, HPD_CONFIG_NUMBER, 3);
  assert_origin (pool (config, 2 * MB)->minimum.origin, "t.conf", 6);
  assert_origin (pool (config, 2 * MB)->origin, "t.conf", 1);
  assert_value (node (pool (config, 2 * MB), 0), HPD_CONFIG_NUMBER, 5);
  assert_origin (node (pool (config, 2 * MB), 0)->origin, "t.conf", 8);
  assert_value (&pool (config, GB)->minimum, HPD_CONFIG_NUMBER, 2);
  g_assert_cmpstr (thp (config, "enabled"), ==, "always");
}

static void
test_pool_amounts (void)
{
  static const struct {
    const char *size;
    const char *amount;
    HpdConfigKind kind;     /* UNSET: an error */
    guint64 value;
  } cases[] = {
    { "2MB", "010", HPD_CONFIG_NUMBER, 10 },        /* decimal, never octal */
    { "2MB", "0", HPD_CONFIG_NUMBER, 0 },
    { "2MB", "1G", HPD_CONFIG_BYTES, GB },
    { "2MB", "4M", HPD_CONFIG_BYTES, 4 * MB },
    { "2MB", "2048kB", HPD_CONFIG_BYTES, 2 * MB },
    { "2MB", "0G", HPD_CONFIG_BYTES, 0 },
    { "2MB", "1M", HPD_CONFIG_UNSET, 0 },           /* half a page */
    { "2MB", "3M", HPD_CONFIG_UNSET, 0 },
    { "2MB", "10 pages", HPD_CONFIG_UNSET, 0 },
    { "2MB", "10x", HPD_CONFIG_UNSET, 0 },
    { "2MB", "0x10", HPD_CONFIG_UNSET, 0 },
    { "2MB", "1.5G", HPD_CONFIG_UNSET, 0 },
    { "2MB", "+10", HPD_CONFIG_UNSET, 0 },
    { "2MB", "-10", HPD_CONFIG_UNSET, 0 },
    { "2MB", "", HPD_CONFIG_UNSET, 0 },
    { "2MB", "18446744073709551616", HPD_CONFIG_UNSET, 0 },
    { "2MB", "8796093022208", HPD_CONFIG_UNSET, 0 }, /* 2^43 pages of 2^21 bytes */
    { "2MB", "8796093022207", HPD_CONFIG_NUMBER, G_GUINT64_CONSTANT (8796093022207) },
    { "1GB", "1G", HPD_CONFIG_BYTES, GB },
    { "1GB", "512M", HPD_CONFIG_UNSET, 0 },
    { "DEFAULT", "1M", HPD_CONFIG_BYTES, MB },     /* checked against the size when applied */
    { "DEFAULT", "3", HPD_CONFIG_NUMBER, 3 },
    { "DEFAULT", "3k", HPD_CONFIG_BYTES, 3072 },
    { "default", "1Q", HPD_CONFIG_UNSET, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("[pool %s]\nminimum = %s\nmaximum = %s\nnode3 = %s\n",
                                               cases[i].size, cases[i].amount, cases[i].amount,
                                               cases[i].amount);
      g_autoptr(HpdConfig) config = parse (text);
      HpdConfigPool *p = g_tree_nnodes (config->pools) == 1
                         ? g_tree_node_value (g_tree_node_first (config->pools)) : NULL;

      g_test_message ("[pool %s] %s", cases[i].size, cases[i].amount);
      g_assert_nonnull (p);
      if (cases[i].kind == HPD_CONFIG_UNSET)
        {
          g_assert_cmpuint (config->errors->len, ==, 3);
          g_assert_true (g_str_has_prefix (g_ptr_array_index (config->errors, 0), "t.conf:2: bad value '"));
          g_assert_true (g_str_has_prefix (g_ptr_array_index (config->errors, 2), "t.conf:4: bad value '"));
          g_assert_cmpint (p->minimum.kind, ==, HPD_CONFIG_UNSET);
          g_assert_cmpint (g_tree_nnodes (p->nodes), ==, 0);
        }
      else
        {
          assert_no_errors (config);
          assert_value (&p->minimum, cases[i].kind, cases[i].value);
          assert_value (&p->maximum, cases[i].kind, cases[i].value);
          assert_value (node (p, 3), cases[i].kind, cases[i].value);
        }
    }
}

static void
test_pool_sizes (void)
{
  /* units in any case, as hugepagesctl and hugeadm read them */
  const char *good[] = { "2MB", "2M", "2MiB", "2048kB", "2097152", "1G", "64KB", "16GB", "DEFAULT", "default",
                         "2mb", "2Mb", "2048kb", "1g" };
  const char *bad[] = { "0", "2 MB", "2MBx", "3M", "-2M", "0x200000", "2.0M", "99999999999T", "DEFAULTS",
                        "2mbb", "2ib" };

  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autofree char *text = g_strdup_printf ("[pool %s]\n", good[i]);
      g_autoptr(HpdConfig) config = parse (text);

      assert_no_errors (config);
      g_assert_cmpint (g_tree_nnodes (config->pools), ==, 1);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = g_strdup_printf ("[pool %s]\nminimum = 1\n", bad[i]);
      g_autoptr(HpdConfig) config = parse (text);

      g_test_message ("[pool %s]", bad[i]);
      g_assert_cmpuint (config->errors->len, ==, 1);
      g_assert_true (g_str_has_prefix (g_ptr_array_index (config->errors, 0), "t.conf:1: "));
      g_assert_cmpint (g_tree_nnodes (config->pools), ==, 0);
    }
}

static void
test_mounts (void)
{
  g_autoptr(HpdConfig) config = parse ("[mount system]\n"
                                       "[mount global]\n"
                                       "mode = 1777\n"
                                       "[mount user alice]\n"
                                       "page-size = 2M\n"
                                       "max-size = 50%\n"
                                       "min-size = 1G\n"
                                       "max-inodes = 2147483648\n"
                                       "mode = 0700\n"
                                       "[mount group 0100]\n"
                                       "mode = 00\n"
                                       "[mount user 4294967295]\n");
  const char *errors[] = {
    "t.conf:12: bad user '4294967295': id is out of range (at most 4294967294)",
    NULL,
  };
  HpdConfigMount *m;

  assert_errors (config, errors);
  g_assert_cmpint (g_tree_nnodes (config->mounts), ==, 4);

  m = g_tree_lookup (config->mounts, "system");
  g_assert_nonnull (m);
  g_assert_cmpint (m->scope, ==, HPD_MOUNT_SCOPE_SYSTEM);
  g_assert_null (m->owner);
  g_assert_cmpint (m->mode.kind, ==, HPD_CONFIG_UNSET);
  assert_origin (m->origin, "t.conf", 1);

  m = g_tree_lookup (config->mounts, "global");
  assert_value (&m->mode, HPD_CONFIG_NUMBER, 01777);

  m = g_tree_lookup (config->mounts, "user alice");
  g_assert_cmpint (m->scope, ==, HPD_MOUNT_SCOPE_USER);
  g_assert_cmpstr (m->owner, ==, "alice");
  assert_value (&m->page_size, HPD_CONFIG_BYTES, 2 * MB);
  assert_value (&m->max_size, HPD_CONFIG_PERCENT, 50);
  assert_value (&m->min_size, HPD_CONFIG_BYTES, GB);
  assert_value (&m->max_inodes, HPD_CONFIG_NUMBER, G_GUINT64_CONSTANT (1) << 31);
  assert_value (&m->mode, HPD_CONFIG_NUMBER, 0700);

  /* a decimal gid, canonical */
  m = g_tree_lookup (config->mounts, "group 100");
  g_assert_nonnull (m);
  g_assert_cmpstr (m->owner, ==, "100");
  assert_value (&m->mode, HPD_CONFIG_NUMBER, 0);
}

static void
test_tunables (void)
{
  g_autoptr(HpdConfig) config = parse ("[tunables]\n"
                                       "shmmax = 32G\n"
                                       "shm-group = hugetlb\n"
                                       "min-free-kbytes = recommended\n"
                                       "zone-movable = no\n");
  g_autoptr(HpdConfig) other = parse ("[tunables]\n"
                                      "shmmax = 0\n"                 /* 2 */
                                      "shmmax = Recommended\n"       /* 3 */
                                      "shmmax = 68719476736\n"
                                      "shm-group = 0042\n"
                                      "min-free-kbytes = 0067584\n"
                                      "min-free-kbytes = 64M\n"      /* 7 */
                                      "zone-movable = yes\n");

  assert_no_errors (config);
  assert_value (&config->shmmax, HPD_CONFIG_BYTES, 32 * GB);
  g_assert_cmpstr (config->shm_group.value, ==, "hugetlb");
  assert_origin (config->shm_group.origin, "t.conf", 3);
  assert_value (&config->min_free_kbytes, HPD_CONFIG_RECOMMENDED, 0);
  assert_value (&config->zone_movable, HPD_CONFIG_NUMBER, 0);

  g_assert_cmpuint (other->errors->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (other->errors, 0), ==, "t.conf:2: bad value '0' for 'shmmax': size '0' is zero");
  g_assert_true (g_str_has_prefix (g_ptr_array_index (other->errors, 1), "t.conf:3: "));
  g_assert_true (g_str_has_prefix (g_ptr_array_index (other->errors, 2), "t.conf:7: "));
  assert_value (&other->shmmax, HPD_CONFIG_BYTES, 64 * GB);
  g_assert_cmpstr (other->shm_group.value, ==, "42");
  assert_value (&other->min_free_kbytes, HPD_CONFIG_NUMBER, 67584);
  assert_value (&other->zone_movable, HPD_CONFIG_NUMBER, 1);
}

static void
test_thp (void)
{
  g_autoptr(HpdConfig) config = parse ("[thp]\n"
                                       "enabled = madvise\n"
                                       "shmem_enabled = within_size\n"
                                       "defrag = defer+madvise\n"
                                       "hugepages-64kB/enabled = inherit\n"
                                       "khugepaged/pages_to_scan = 4096\n"
                                       "a/b/c = 1\n"
                                       "/enabled = 1\n"
                                       "enabled/ = 1\n"
                                       "./enabled = 1\n"
                                       "defrag = \n"
                                       "défrag = never\n");

  g_assert_cmpuint (config->errors->len, ==, 6);
  g_assert_cmpstr (g_ptr_array_index (config->errors, 0), ==, "t.conf:7: 'a/b/c' is not a THP setting name");
  g_assert_cmpstr (g_ptr_array_index (config->errors, 4), ==,
                   "t.conf:11: bad value '' for 'defrag': a THP value is one word or number");
  g_assert_cmpstr (g_ptr_array_index (config->errors, 5), ==, "t.conf:12: 'défrag' is not a THP setting name");
  g_assert_cmpint (g_tree_nnodes (config->thp), ==, 5);
  g_assert_cmpstr (thp (config, "defrag"), ==, "defer+madvise");
  g_assert_cmpstr (thp (config, "enabled"), ==, "madvise");
  g_assert_cmpstr (thp (config, "shmem_enabled"), ==, "within_size");
  g_assert_cmpstr (thp (config, "hugepages-64kB/enabled"), ==, "inherit");
  g_assert_cmpstr (thp (config, "khugepaged/pages_to_scan"), ==, "4096");
}

static void
test_overrides (void)
{
  g_autoptr(HpdConfig) config = hpd_config_new ();
  const HpdConfigOverride *o;

  hpd_config_parse_text ("main.conf", "[pool 2MB]\nminimum = 4\nmaximum = 8\n"
                         "[mount user alice]\nmode = 0700\n[thp]\nenabled = never\n", -1, config);
  hpd_config_parse_text ("50-a.conf", "[pool 2M]\nminimum = 6\n[mount user alice]\nmode = 0770\n"
                         "[thp]\nenabled = madvise\n"
                         /* a bad value overrides nothing */
                         "[pool 2MB]\nmaximum = many\n", -1, config);
  hpd_config_parse_text ("90-b.conf", "[pool 2MB]\nminimum = 2G\n", -1, config);

  g_assert_cmpuint (config->overrides->len, ==, 4);
  o = g_ptr_array_index (config->overrides, 0);
  g_assert_cmpstr (o->key, ==, "pool 2MB minimum");
  g_assert_cmpstr (o->value, ==, "6");
  assert_origin (o->origin, "50-a.conf", 2);
  g_assert_cmpstr (o->overridden, ==, "4");
  assert_origin (o->overridden_origin, "main.conf", 2);
  o = g_ptr_array_index (config->overrides, 1);
  g_assert_cmpstr (o->key, ==, "mount user alice mode");
  g_assert_cmpstr (o->overridden, ==, "0700");
  o = g_ptr_array_index (config->overrides, 2);
  g_assert_cmpstr (o->key, ==, "thp enabled");
  o = g_ptr_array_index (config->overrides, 3);
  g_assert_cmpstr (o->key, ==, "pool 2MB minimum");
  g_assert_cmpstr (o->value, ==, "2G");
  g_assert_cmpstr (o->overridden, ==, "6");
  assert_origin (o->overridden_origin, "50-a.conf", 2);
  g_assert_cmpuint (config->errors->len, ==, 1);
}

static void
test_overrides_bounded (void)
{
  g_autoptr(HpdConfig) config = hpd_config_new ();
  g_autoptr(GString) text = g_string_new ("[pool 2MB]\n");

  for (guint i = 0; i < HPD_CONFIG_MAX_OVERRIDES + 6; i++)
    g_string_append_printf (text, "minimum = %u\n", i);
  hpd_config_parse_text ("t.conf", text->str, -1, config);
  g_assert_cmpuint (config->overrides->len, ==, HPD_CONFIG_MAX_OVERRIDES);
  g_assert_cmpuint (config->overrides_not_listed, ==, 5);
  {
    guint64 size = 2 << 20;
    const HpdConfigPool *pool = g_tree_lookup (config->pools, &size);

    g_assert_nonnull (pool);
    g_assert_cmpuint (pool->minimum.value, ==, HPD_CONFIG_MAX_OVERRIDES + 5);
  }
}

static void
test_boot (void)
{
  g_autoptr(HpdConfig) config = parse ("[boot]\n"
                                       "default-page-size = 2M\n"
                                       "[boot]\n"
                                       "default-page-size = 1GB\n");
  g_autoptr(HpdConfig) other = parse ("[boot]\n"
                                      "default-page-size = 16G\n"
                                      "default-page-size = 3M\n"       /* 3 */
                                      "default-page-size = 0\n"        /* 4 */
                                      "default-page-size = DEFAULT\n"  /* 5 */
                                      "default-page-size = \n"         /* 6 */
                                      "default-page-size = 1G 2M\n"    /* 7 */
                                      "default = 1G\n"                 /* 8 */
                                      "[boot 1G]\n"                    /* 9 */
                                      "default-page-size = 2M\n");
  const char *errors[] = {
    "t.conf:3: bad value '3M' for 'default-page-size': page size '3M' is not a power of two",
    "t.conf:4: bad value '0' for 'default-page-size': size '0' is zero",
    NULL,
  };
  g_autoptr(HpdConfig) none = parse ("[pool 1G]\nminimum = 1\n");

  assert_no_errors (config);
  assert_value (&config->boot_default_page_size, HPD_CONFIG_BYTES, GB);
  assert_origin (config->boot_default_page_size.origin, "t.conf", 4);

  /* the later good value stays; the key under the bad header is skipped */
  g_assert_cmpuint (other->errors->len, ==, 7);
  for (guint i = 0; errors[i] != NULL; i++)
    g_assert_cmpstr (g_ptr_array_index (other->errors, i), ==, errors[i]);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (other->errors, 2), "t.conf:5: bad value 'DEFAULT'"));
  g_assert_true (g_str_has_prefix (g_ptr_array_index (other->errors, 3), "t.conf:6: bad value ''"));
  g_assert_true (g_str_has_prefix (g_ptr_array_index (other->errors, 4), "t.conf:7: bad value '1G 2M'"));
  g_assert_cmpstr (g_ptr_array_index (other->errors, 5), ==, "t.conf:8: unknown key 'default' in [boot]");
  g_assert_cmpstr (g_ptr_array_index (other->errors, 6), ==, "t.conf:9: [boot] takes no argument");
  assert_value (&other->boot_default_page_size, HPD_CONFIG_BYTES, 16 * GB);

  g_assert_cmpint (none->boot_default_page_size.kind, ==, HPD_CONFIG_UNSET);
  g_assert_false (hpd_config_equal (config, other));
  g_assert_false (hpd_config_equal (config, none));
}

/* ---- the canonical form ---- */

static void
test_round_trip (void)
{
  const char *text =
    "# written by hand\n"
    "[thp]\n"
    "khugepaged/pages_to_scan = 4096\n"
    "enabled = madvise\n"
    "[mount user 1000]\n"
    "mode = 700\n"
    "max-size = 100%\n"
    "[mount system]\n"
    "[pool 1G]\n"
    "node1 = 2\n"
    "node0 = 2G\n"
    "[pool 2097152]\n"
    "maximum = 4096M\n"
    "minimum = 0010\n"
    "node10 = 1\n"
    "node2 = 1\n"
    "[pool DEFAULT]\n"
    "minimum = 3k\n"
    "[tunables]\n"
    "zone-movable = yes\n"
    "min-free-kbytes = 90112\n"
    "shm-group = 0\n"
    "shmmax = 4097\n"
    "[boot]\n"
    "default-page-size = 1073741824\n"
    "[mount global]\n"
    "page-size = 2097152\n"
    "min-size = 1024\n"
    "max-inodes = 010\n";
  const char *canonical =
    "[pool DEFAULT]\n"
    "minimum = 3KB\n"
    "\n"
    "[pool 2MB]\n"
    "minimum = 10\n"
    "maximum = 4GB\n"
    "node2 = 1\n"
    "node10 = 1\n"
    "\n"
    "[pool 1GB]\n"
    "node0 = 2GB\n"
    "node1 = 2\n"
    "\n"
    "[mount global]\n"
    "page-size = 2MB\n"
    "min-size = 1KB\n"
    "max-inodes = 10\n"
    "\n"
    "[mount system]\n"
    "\n"
    "[mount user 1000]\n"
    "max-size = 100%\n"
    "mode = 0700\n"
    "\n"
    "[tunables]\n"
    "shmmax = 4097B\n"
    "shm-group = 0\n"
    "min-free-kbytes = 90112\n"
    "zone-movable = yes\n"
    "\n"
    "[thp]\n"
    "enabled = madvise\n"
    "khugepaged/pages_to_scan = 4096\n"
    "\n"
    "[boot]\n"
    "default-page-size = 1GB\n";
  g_autoptr(HpdConfig) config = parse (text);
  g_autofree char *written = hpd_config_to_text (config);
  g_autoptr(HpdConfig) again = parse (written);
  g_autofree char *rewritten = hpd_config_to_text (again);
  g_autoptr(HpdConfig) other = parse ("[pool 2MB]\nminimum = 10\n");

  assert_no_errors (config);
  g_assert_cmpstr (written, ==, canonical);
  assert_no_errors (again);
  g_assert_true (hpd_config_equal (config, again));
  g_assert_cmpstr (rewritten, ==, written);

  /* and equality is not trivially true */
  g_assert_false (hpd_config_equal (config, other));
  assert_value (&pool (again, 2 * MB)->maximum, HPD_CONFIG_BYTES, 4 * GB);
  pool (again, 2 * MB)->maximum.kind = HPD_CONFIG_NUMBER;
  g_assert_false (hpd_config_equal (config, again));
}

/* Every value the parser can hold survives the round trip, at the edges. */
static void
test_round_trip_edges (void)
{
  g_autoptr(HpdConfig) config = hpd_config_new ();
  g_autofree char *text = NULL;
  g_autoptr(HpdConfig) again = NULL;
  HpdConfigPool *p;

  hpd_config_parse_text ("t.conf",
                         "[pool 64KB]\n"
                         "minimum = 281474976710655\n"          /* 2^48 - 1 pages of 2^16 */
                         "maximum = 16777215T\n"                /* the largest whole number of 64K pages */
                         "node1023 = 0G\n"
                         "[pool DEFAULT]\n"
                         "maximum = 1B\n"
                         "[tunables]\n"
                         "shmmax = 18446744073709551615\n"
                         "min-free-kbytes = 18446744073709551615\n"
                         "shm-group = 2147483647\n"
                         "[mount group a.b-c_d]\n"
                         "mode = 0\n"
                         "max-size = 1%\n"
                         "min-size = 16383P\n", -1, config);
  /* "16383P" has a unit hp_parse_size does not know: that line is the only error */
  g_assert_cmpuint (config->errors->len, ==, 1);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (config->errors, 0), "t.conf:14: "));

  p = pool (config, 64 * 1024);
  assert_value (&p->maximum, HPD_CONFIG_BYTES, G_GUINT64_CONSTANT (16777215) << 40);
  text = hpd_config_to_text (config);
  again = parse (text);
  assert_no_errors (again);
  g_assert_true (hpd_config_equal (config, again));
}

/* The example in the man page, docs/hugepagesd.conf.5.scd, is valid and
 * round-trips. */
static void
test_doc_example (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "..", "docs", "hugepagesd.conf.5.scd", NULL);
  g_autofree char *doc = NULL;
  const char *start, *end;
  g_autofree char *example = NULL;
  g_autoptr(HpdConfig) config = NULL;
  g_autofree char *text = NULL;
  g_autoptr(HpdConfig) again = NULL;

  g_assert_true (g_file_get_contents (path, &doc, NULL, NULL));
  start = strstr (doc, "\n# EXAMPLE\n");
  g_assert_nonnull (start);
  start = strstr (start, "```\n");
  g_assert_nonnull (start);
  start += strlen ("```\n");
  end = strstr (start, "```");
  g_assert_nonnull (end);
  example = g_strndup (start, (gsize) (end - start));

  config = parse (example);
  assert_no_errors (config);
  assert_value (&pool (config, 2 * MB)->maximum, HPD_CONFIG_BYTES, 2 * GB);
  assert_value (node (pool (config, GB), 1), HPD_CONFIG_NUMBER, 4);
  g_assert_cmpint (g_tree_nnodes (config->mounts), ==, 2);
  g_assert_cmpstr (thp (config, "defrag"), ==, "defer+madvise");
  text = hpd_config_to_text (config);
  again = parse (text);
  g_assert_true (hpd_config_equal (config, again));
}

/* ---- hostile input ---- */

static void
test_huge_inputs (void)
{
  /* a 1 MB line between good ones */
  {
    g_autoptr(GString) text = g_string_new ("[thp]\nenabled = never\n# ");
    g_autoptr(HpdConfig) config = NULL;
    const char *errors[] = { "t.conf:3: line too long (1048578 bytes, at most 4096)", NULL };

    for (guint i = 0; i < 1024 * 1024; i++)
      g_string_append_c (text, 'x');
    g_string_append (text, "\ndefrag = never\n");
    config = parse (text->str);
    assert_errors (config, errors);
    g_assert_cmpstr (thp (config, "enabled"), ==, "never");
    g_assert_cmpstr (thp (config, "defrag"), ==, "never");
  }

  /* a line of exactly the limit is fine; one byte more is not */
  {
    g_autofree char *ok = g_strnfill (HPD_CONFIG_MAX_LINE - 2, 'y');
    g_autofree char *text = g_strdup_printf ("# %s\n#%s\n", ok, ok + 1);
    g_autofree char *longer = g_strdup_printf ("# %sy\n", ok);
    g_autoptr(HpdConfig) a = parse (text);
    g_autoptr(HpdConfig) b = parse (longer);

    assert_no_errors (a);
    g_assert_cmpuint (b->errors->len, ==, 1);
  }

  /* NUL bytes: an error for their line only */
  {
    static const char text[] = "[thp]\nenabled = ne\0ver\ndefrag = never\n\0\n";
    const char *errors[] = { "t.conf:2: control character 0x00", "t.conf:4: control character 0x00", NULL };
    g_autoptr(HpdConfig) config = hpd_config_new ();

    hpd_config_parse_text ("t.conf", text, sizeof text - 1, config);
    assert_errors (config, errors);
    g_assert_null (thp (config, "enabled"));
    g_assert_cmpstr (thp (config, "defrag"), ==, "never");
  }

  /* 10,000 sections, some of them repeated */
  {
    g_autoptr(GString) text = g_string_new (NULL);
    g_autoptr(HpdConfig) config = NULL;
    g_autofree char *written = NULL;
    g_autoptr(HpdConfig) again = NULL;

    for (guint i = 0; i < 10000; i++)
      if (i % 2 == 0)
        g_string_append_printf (text, "[mount user u%u]\nmax-inodes = %u\n", i, i + 1);
      else
        g_string_append_printf (text, "[pool 2MB]\nnode%u = %u\n", i % HPD_CONFIG_MAX_NODES, i);
    config = parse (text->str);
    assert_no_errors (config);
    g_assert_cmpint (g_tree_nnodes (config->mounts), ==, 5000);
    g_assert_cmpint (g_tree_nnodes (pool (config, 2 * MB)->nodes), ==, 512);
    assert_value (node (pool (config, 2 * MB), 1), HPD_CONFIG_NUMBER, 9217);
    written = hpd_config_to_text (config);
    again = parse (written);
    g_assert_true (hpd_config_equal (config, again));
  }

  /* errors are counted, not all kept */
  {
    g_autoptr(GString) text = g_string_new (NULL);
    g_autoptr(HpdConfig) config = NULL;
    g_autofree char *last = g_strdup_printf ("t.conf: %u more errors not shown",
                                             5000 - HPD_CONFIG_MAX_ERRORS_PER_FILE);

    for (guint i = 0; i < 5000; i++)
      g_string_append (text, "junk\n");
    g_string_append (text, "[thp]\nenabled = never");    /* no final newline */
    config = parse (text->str);
    g_assert_cmpuint (config->errors->len, ==, HPD_CONFIG_MAX_ERRORS_PER_FILE + 1);
    g_assert_cmpstr (g_ptr_array_index (config->errors, 0), ==, "t.conf:1: expected [section] or key = value");
    g_assert_cmpstr (g_ptr_array_index (config->errors, HPD_CONFIG_MAX_ERRORS_PER_FILE), ==, last);
    g_assert_cmpstr (thp (config, "enabled"), ==, "never");
  }
}

static void
test_odd_inputs (void)
{
  /* CRLF, blanks, comments, ';' and tabs */
  {
    g_autoptr(HpdConfig) config = parse ("\r\n; a comment\r\n  # another\r\n\t[ thp\t]\r\n"
                                         "enabled\t=\tnever\r\n\r\n");
    assert_no_errors (config);
    g_assert_cmpstr (thp (config, "enabled"), ==, "never");
  }

  /* a long bad value is shortened in the message */
  {
    g_autofree char *value = g_strnfill (1000, '9');
    g_autofree char *text = g_strdup_printf ("[mount system]\nmode = %s\n", value);
    g_autoptr(HpdConfig) config = parse (text);
    const char *message;

    g_assert_cmpuint (config->errors->len, ==, 1);
    message = g_ptr_array_index (config->errors, 0);
    g_assert_cmpuint (strlen (message), <, 200);
    g_assert_nonnull (strstr (message, "999..."));
  }

  /* the empty text, and text without a newline */
  {
    g_autoptr(HpdConfig) a = parse ("");
    g_autoptr(HpdConfig) b = parse ("[tunables]\nzone-movable = yes");
    assert_no_errors (a);
    assert_no_errors (b);
    assert_value (&b->zone_movable, HPD_CONFIG_NUMBER, 1);
  }

  /* '=' in a value, and a header with '=' in it */
  {
    g_autoptr(HpdConfig) config = parse ("[thp]\nenabled = a=b\n[a=b]\n");
    g_assert_cmpuint (config->errors->len, ==, 2);
    g_assert_true (g_str_has_prefix (g_ptr_array_index (config->errors, 0), "t.conf:2: bad value 'a=b'"));
    g_assert_cmpstr (g_ptr_array_index (config->errors, 1), ==,
                     "t.conf:3: unknown section 'a=b' (known: pool, mount, tunables, thp, boot)");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/config/load/order", test_load_order);
  g_test_add_func ("/config/load/missing", test_load_missing);
  g_test_add_func ("/config/load/bad-file", test_load_bad_file);
  g_test_add_func ("/config/load/unreadable", test_load_unreadable);
  g_test_add_func ("/config/load/odd-names", test_load_odd_names);
  g_test_add_func ("/config/errors", test_errors);
  g_test_add_func ("/config/errors/keep-earlier", test_errors_keep_earlier);
  g_test_add_func ("/config/later-wins", test_later_wins);
  g_test_add_func ("/config/pool/amounts", test_pool_amounts);
  g_test_add_func ("/config/pool/sizes", test_pool_sizes);
  g_test_add_func ("/config/mounts", test_mounts);
  g_test_add_func ("/config/tunables", test_tunables);
  g_test_add_func ("/config/thp", test_thp);
  g_test_add_func ("/config/boot", test_boot);
  g_test_add_func ("/config/overrides", test_overrides);
  g_test_add_func ("/config/overrides/bounded", test_overrides_bounded);
  g_test_add_func ("/config/round-trip", test_round_trip);
  g_test_add_func ("/config/round-trip/edges", test_round_trip_edges);
  g_test_add_func ("/config/doc-example", test_doc_example);
  g_test_add_func ("/config/huge-inputs", test_huge_inputs);
  g_test_add_func ("/config/odd-inputs", test_odd_inputs);

  return g_test_run ();
}
