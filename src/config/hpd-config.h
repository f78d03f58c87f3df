/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The configuration file, hugepagesd.conf, and its drop-ins: parsed into
 * typed values, each remembering the file and line it came from. Parsing
 * never fails as a whole: every bad line is one error message
 * ("FILE:LINE: text") and the rest still applies. Pure apart from
 * hpd_config_load, which only reads files. The format is described in
 * docs/hugepagesd.conf.5.scd. */
#pragma once

#include <glib.h>

#include "hpd-hugetlbfs.h"

G_BEGIN_DECLS

/* Lines longer than this are an error (and skipped). */
#define HPD_CONFIG_MAX_LINE 4096
/* Files larger than this are an error (and not read). */
#define HPD_CONFIG_MAX_FILE (16u << 20)
/* More errors than this in one file are summed up in one last message. */
#define HPD_CONFIG_MAX_ERRORS_PER_FILE 1000
/* Overrides listed at most; more are only counted (a file of a million
 * lines that set one key again and again stays small on the bus). */
#define HPD_CONFIG_MAX_OVERRIDES 1000
/* nodeN keys take N below this (the kernel's largest MAX_NUMNODES). */
#define HPD_CONFIG_MAX_NODES 1024

typedef struct {
  const char *file;     /* owned by the HpdConfig; NULL when unset */
  guint line;
} HpdConfigOrigin;

typedef enum {
  HPD_CONFIG_UNSET = 0,
  HPD_CONFIG_NUMBER,        /* a plain number: pages, kB, inodes, mode, 0/1 */
  HPD_CONFIG_BYTES,         /* memory written with a unit ("1G"), in bytes */
  HPD_CONFIG_PERCENT,       /* 1 to 100, of the pool */
  HPD_CONFIG_RECOMMENDED,   /* the keyword "recommended"; value is 0 */
} HpdConfigKind;

typedef struct {
  HpdConfigKind kind;
  guint64 value;
  HpdConfigOrigin origin;
} HpdConfigValue;

typedef struct {
  char *value;          /* NULL when unset */
  HpdConfigOrigin origin;
} HpdConfigString;

/* [pool SIZE] */
typedef struct {
  guint64 page_size;        /* bytes; 0 for [pool DEFAULT] */
  HpdConfigOrigin origin;   /* the first header */
  HpdConfigValue minimum;   /* NUMBER (pages) or BYTES */
  HpdConfigValue maximum;   /* same */
  GTree *nodes;             /* GUINT_TO_POINTER (node) -> HpdConfigValue *, same kinds */
} HpdConfigPool;

/* [mount SCOPE OWNER] */
typedef struct {
  HpdMountScope scope;
  char *owner;              /* user or group name, or decimal id; NULL for system, global */
  HpdConfigOrigin origin;   /* the first header */
  HpdConfigValue page_size; /* BYTES; unset: one mount per page size */
  HpdConfigValue max_size;  /* BYTES or PERCENT */
  HpdConfigValue min_size;  /* BYTES or PERCENT */
  HpdConfigValue max_inodes;/* NUMBER, 1 to 2^31 */
  HpdConfigValue mode;      /* NUMBER, permission and sticky bits only */
} HpdConfigMount;

/* One value set again by a later line, the main file's or a drop-in's:
 * "pool 2MB minimum", "mount system max-size", "thp enabled" as the file
 * spells the value. */
typedef struct {
  char *key;
  char *value;              /* the line that wins */
  HpdConfigOrigin origin;
  char *overridden;         /* the one before it */
  HpdConfigOrigin overridden_origin;
} HpdConfigOverride;

typedef struct {
  GTree *pools;             /* guint64 * page size -> HpdConfigPool *, DEFAULT first */
  GTree *mounts;            /* "system", "user alice", ... -> HpdConfigMount * */
  /* [tunables] */
  HpdConfigValue shmmax;          /* BYTES or RECOMMENDED */
  HpdConfigString shm_group;      /* a group name or a decimal gid */
  HpdConfigValue min_free_kbytes; /* NUMBER or RECOMMENDED */
  HpdConfigValue zone_movable;    /* NUMBER, 0 or 1 */
  /* [thp]: "enabled", "hugepages-64kB/enabled" -> HpdConfigString *; the
   * values are checked against the running kernel when applied */
  GTree *thp;
  /* [boot]: the default huge page size the kernel is to boot with
   * (default_hugepagesz=); BYTES, a power of two, checked against the
   * running kernel's sizes when used */
  HpdConfigValue boot_default_page_size;
  GPtrArray *errors;        /* "FILE:LINE: text", NULL-terminated */
  GPtrArray *overrides;     /* HpdConfigOverride *, in the order read */
  guint overrides_not_listed; /* beyond HPD_CONFIG_MAX_OVERRIDES */
  GHashTable *assigned;     /* key -> HpdConfigOverride * of the last line that set it */
  GPtrArray *files;         /* the names origins point to */
} HpdConfig;

HpdConfig *hpd_config_new (void);
void hpd_config_free (HpdConfig *config);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdConfig, hpd_config_free)

/* Merges @text (@length bytes, or NUL-terminated if -1; NUL bytes in it
 * are errors) into @config, @name standing for the file in messages and
 * origins (as hpd_parse_printable shows it: any bytes may name a file).
 * Later values win per section and key. */
void hpd_config_parse_text (const char *name, const char *text, gssize length,
                            HpdConfig *config);

/* Reads @main_file (if it exists), then every *.conf in @dropin_dirs
 * (NULL-terminated; missing directories are fine), ordered by file name
 * across all of them. A name in a later directory masks the same name in
 * an earlier one (pass /usr/lib's before /etc's), and a file that is
 * /dev/null, or a link to it, masks the name completely. */
HpdConfig *hpd_config_load (const char *main_file, const char *const *dropin_dirs);

/* Where the configuration lives, below the service's root (/ outside tests). */
#define HPD_CONFIG_FILE        "etc/hugepagesd/hugepagesd.conf"
#define HPD_CONFIG_VENDOR_DIR  "usr/lib/hugepagesd/hugepagesd.conf.d"
#define HPD_CONFIG_ADMIN_DIR   "etc/hugepagesd/hugepagesd.conf.d"

/* hpd_config_load of the main file and both drop-in directories under @root. */
HpdConfig *hpd_config_load_root (const char *root);

/* The configuration in canonical form: sections sorted, one key per line,
 * only values the service formats itself. Parses back to an equal one. */
char *hpd_config_to_text (const HpdConfig *config);

/* Edits, for the drop-in the service writes itself (hpd-persist). A missing
 * section or key is no error. */
void hpd_config_unset_pool_minimum (HpdConfig *config, guint64 page_size);
void hpd_config_unset_pool_nodes (HpdConfig *config, guint64 page_size);
/* @key as the section is named: "system", "user alice", "group 1001" */
void hpd_config_remove_mount (HpdConfig *config, const char *key);

/* A value as the file would have it ("512", "2GB", "50%", "recommended");
 * NULL when unset. Modes and yes/no are the caller's to format. */
char *hpd_config_value_to_string (const HpdConfigValue *v);

/* Same settings (origins and errors are not compared). */
gboolean hpd_config_equal (const HpdConfig *a, const HpdConfig *b);

G_END_DECLS
