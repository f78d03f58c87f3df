/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Named claims: what each consumer of huge pages (a database, a VM manager,
 * a storage daemon) declared it needs, so that several of them share the
 * pools instead of each writing nr_hugepages and the last one winning.
 *
 * A claim is (consumer, page size, node or all, pages, uid). Each consumer
 * has one file per layer, named CONSUMER.conf:
 *
 *   run/hugepagesd/claims.d/       runtime claims: kept across idle exits
 *                                   and restarts of the service, gone at
 *                                   reboot
 *   etc/hugepagesd/claims.d/        persisted claims (the `persist` option),
 *                                   written by the service
 *   usr/lib/hugepagesd/claims.d/    claims packages ship; a file of the
 *                                   same name in etc/ masks it
 *
 * A runtime claim of a (size, node) overrides a persisted one of the same
 * consumer until reboot. The files are key files with one group per claim,
 * "[2MB]" or "[2MB node1]", and the keys pages= and uid=.
 *
 * This module only reads and writes the files; the arithmetic of targets
 * is in hpd-claim-calls. Paths are below the service's root. */
#pragma once

#include <glib.h>

#include "hp-names.h"

G_BEGIN_DECLS

#define HPD_CLAIMS_RUNTIME_DIR "run/hugepagesd/claims.d"
#define HPD_CLAIMS_ADMIN_DIR   "etc/hugepagesd/claims.d"
#define HPD_CLAIMS_VENDOR_DIR  "usr/lib/hugepagesd/claims.d"

/* The node of a claim on the pool as a whole. */
#define HPD_CLAIM_ALL_NODES HP_CLAIM_ALL_NODES

/* Consumer names are at most this long. */
#define HPD_CLAIM_MAX_NAME 64
/* A consumer file holds at most this many claims, and the service at most
 * this many consumers: bounds on what a caller can make the service keep. */
#define HPD_CLAIMS_MAX_PER_CONSUMER 256
#define HPD_CLAIMS_MAX_CONSUMERS 1024

typedef struct {
  char *consumer;
  guint64 page_size;   /* bytes */
  guint32 node;        /* HPD_CLAIM_ALL_NODES: the pool as a whole */
  guint64 pages;
  guint32 uid;         /* who made it; 0 for files a package shipped */
  gboolean persisted;  /* survives a reboot */
} HpdClaim;

void hpd_claim_free (HpdClaim *claim);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdClaim, hpd_claim_free)

/* [a-z0-9][a-z0-9._-]{0,63}: safe as a file name, in a log and in a
 * polkit detail. InvalidArgs otherwise. */
gboolean hpd_claim_consumer_valid (const char *name, GError **error);

/* Every claim in force under @root, ordered by consumer, size and node
 * (the pool as a whole first). Bad files and groups are logged and
 * skipped: a broken file a package shipped must not stop the service. */
GPtrArray *hpd_claims_load (const char *root);

/* The claims in force, read again only when one of the three directories
 * changed: a Manager property read, which shows them, must not cost a read
 * of every claim file (up to HPD_CLAIMS_MAX_CONSUMERS × 2 of them).
 *
 * Valid while stat() of the directories gives what it gave when they were
 * read (hpd-config-cache.h: device, inode, mode, size, modification and
 * change times), trusted only once those times are @settle_us old. Every
 * file is replaced by a rename, as the service, package managers and most
 * editors write, or created or removed, which all change the directory;
 * an edit in place of an existing file (echo >> file) is not seen until
 * the next change of its directory. Thread-safe: the worker reads claims
 * too. The returned array is shared: a reference, never changed. */
typedef struct _HpdClaimsCache HpdClaimsCache;

HpdClaimsCache *hpd_claims_cache_new (const char *root, gint64 settle_us);
void hpd_claims_cache_free (HpdClaimsCache *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HpdClaimsCache, hpd_claims_cache_free)
GPtrArray *hpd_claims_cache_get (HpdClaimsCache *self);
/* For tests: how many calls read the files. */
/* As hpd_config_cache_dup_paths(), for the claims. */
GArray *hpd_claims_cache_dup_paths (HpdClaimsCache *self);
guint64 hpd_claims_cache_get_loads (HpdClaimsCache *self);

/* The claim of @consumer on (@page_size, @node), NULL if none. */
const HpdClaim *hpd_claims_find (GPtrArray *claims, const char *consumer,
                                 guint64 page_size, guint32 node);

/* The pages claimed of @page_size: with HPD_CLAIM_ALL_NODES every claim of
 * the size, else the claims on that node only. Saturates at 2^64-1. */
guint64 hpd_claims_sum (GPtrArray *claims, guint64 page_size, guint32 node);

/* The number of consumers with at least one claim. */
guint hpd_claims_count_consumers (GPtrArray *claims);

/* Whether @consumer may make a claim on (@page_size, @node) besides
 * @claims: one it holds may always change; a new one needs room under
 * HPD_CLAIMS_MAX_CONSUMERS and HPD_CLAIMS_MAX_PER_CONSUMER. LimitExceeded
 * otherwise. Checked when the call arrives and again by the worker against
 * the claims then in force, so that concurrent calls cannot all pass. */
gboolean hpd_claims_check_room (GPtrArray *claims, const char *consumer, guint64 page_size,
                                guint32 node, GError **error);

/* Records @claim, runtime or persisted. Persisting it also drops a runtime
 * claim of the same (size, node), which would hide it. Failed with the
 * reason when a file cannot be written. */
gboolean hpd_claims_store (const char *root, const HpdClaim *claim, gboolean persist,
                           GError **error);

/* Removes the claim of @consumer on (@page_size, @node) from every layer
 * (a shipped claim is masked by a file in etc/ without it). */
gboolean hpd_claims_remove (const char *root, const char *consumer, guint64 page_size,
                            guint32 node, GError **error);

G_END_DECLS
