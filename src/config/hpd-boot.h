/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Huge pages on the kernel command line: the parameters the configuration
 * asks for, the ones the running kernel got, and whether the two differ in
 * meaning. Gigantic pages (1 GiB on x86-64) need contiguous memory that a
 * running system rarely has, so they are reliably reserved only at boot.
 * Pure functions: hpd-boot-grub.c reads and writes the boot loader's
 * files, hpd-boot-calls.c is the bus side. */
#pragma once

#include <glib.h>

#include "hpd-config.h"
#include "hpd-pool.h"

G_BEGIN_DECLS

/* Parameters of the kernel command line that concern hugetlb pages, in
 * the kernel's spelling (it takes '-' for '_' as well). KernelCommandLine
 * lists these and nothing else. */
#define HPD_BOOT_PARAMETER_NAMES \
  "hugepagesz", "hugepages", "default_hugepagesz", "hugetlb_cma", "hugetlb_cma_only", \
  "hugetlb_free_vmemmap", "hugepage_alloc_threads"

typedef struct {
  guint node;
  guint64 pages;
} HpdBootNode;

/* The boot-time pages of one size. */
typedef struct {
  guint64 size;       /* bytes */
  guint64 pages;      /* all of them: in the node form, the sum of the nodes */
  GArray *nodes;      /* HpdBootNode, ascending node; NULL: the plain form */
} HpdBootPool;

HpdBootPool *hpd_boot_pool_new (guint64 size);
void hpd_boot_pool_free (HpdBootPool *pool);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdBootPool, hpd_boot_pool_free)

/* Sets @node's pages (replacing what it had), keeping the nodes ascending;
 * makes @pool use the node form. Does not change pool->pages. */
void hpd_boot_pool_set_node (HpdBootPool *pool, guint node, guint64 pages);

typedef struct {
  guint64 default_size; /* default_hugepagesz= in bytes; 0: not chosen */
  GPtrArray *pools;     /* HpdBootPool *, ascending size, at most one per size */
} HpdBootParams;

HpdBootParams *hpd_boot_params_new (void);
void hpd_boot_params_free (HpdBootParams *params);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdBootParams, hpd_boot_params_free)

/* "1G", "2M", "16G", "64K": a size as the kernel command line takes it. */
char *hpd_boot_size_text (guint64 bytes);

/* What @config asks for at boot on this machine (@pools: HpdPool * as
 * probed; @default_size: the running kernel's default size):
 * - [boot] default-page-size, if it is one of @pools' sizes;
 * - every GIGANTIC pool of @pools that a [pool] section gives a minimum
 *   or node keys: the plain form with the minimum, or the node form with
 *   the nodes when there are node keys (with both, the nodes win, as
 *   --apply applies them after the minimum; nodes without a key get no
 *   boot-time pages). [pool DEFAULT] is the default size the kernel will
 *   have: default-page-size if set, else @default_size; a section that
 *   names the same size wins key by key. Amounts in bytes become pages.
 *   Pools of sizes the machine lacks are left to --apply to report.
 * A pool configured with 0 pages is kept (it differs from a kernel that
 * got pages of that size) but writes nothing. What cannot be used (a
 * default size the kernel lacks, an amount that is not whole pages, a
 * node without a pool of that size) is left out and described in
 * @problems ("FILE:LINE: text"), when not NULL. */
HpdBootParams *hpd_boot_params_from_config (const HpdConfig *config, GPtrArray *pools,
                                            guint64 default_size, GPtrArray *problems);

/* "default_hugepagesz=1G hugepagesz=1G hugepages=4 hugepagesz=16G
 * hugepages=0:1,1:1": only integers and fixed words; "" when there is
 * nothing to ask for. Pools with 0 pages are left out. */
char *hpd_boot_params_to_string (const HpdBootParams *params);

typedef struct {
  char *name;         /* as written */
  char *value;        /* NULL for a parameter without '=' */
} HpdBootArg;

void hpd_boot_arg_free (HpdBootArg *arg);

/* The kernel's parameters in @cmdline (/proc/cmdline), split as the kernel
 * does (lib/cmdline.c next_arg): blanks separate them, double quotes
 * protect blanks and are removed, "--" ends them (the rest is init's). */
GPtrArray *hpd_boot_cmdline_split (const char *cmdline);

/* The parameters of @cmdline named in HPD_BOOT_PARAMETER_NAMES, in their
 * order, as "name=value" joined by one space; a value with blanks is put
 * back in quotes. Bytes of a value that are not UTF-8 text, and control
 * characters, are shown as \xNN: the result is valid UTF-8 (a bus
 * string). "" when there are none. */
char *hpd_boot_cmdline_huge_pages (const char *cmdline);

/* The hugetlb pages @cmdline gives the kernel, by the kernel's own rules
 * (mm/hugetlb.c): a size must be one of @pools' sizes to count, with the
 * hugepages= after it; hugepages= before any hugepagesz= or
 * default_hugepagesz= is for the default size (default_hugepagesz=, else
 * @default_size) and overrides a later pair for that size; a second
 * hugepagesz= for a size is ignored with its hugepages=. Sizes are
 * memparse()d, so 1G, 1GB and 1073741824 are the same. default_size of
 * the result is the default the kernel took: default_hugepagesz= or
 * @default_size. Which nodes are online is not checked. */
HpdBootParams *hpd_boot_params_from_cmdline (const char *cmdline, GPtrArray *pools,
                                             guint64 default_size);

/* Whether booting with @wanted (from the configuration) would give the
 * kernel other huge pages than @running (from the command line) did: per
 * size that @wanted has, the number of pages, and where either uses the
 * node form, the pages per node; the default size if @wanted chooses one.
 * Sizes the configuration leaves alone are not compared. */
gboolean hpd_boot_params_differ (const HpdBootParams *wanted, const HpdBootParams *running);

G_END_DECLS
