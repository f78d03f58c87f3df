/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Names shared by hugepagesd and its clients: the bus contract. */
#pragma once

#define HP_BUS_NAME              "org.hugepages.Manager"
#define HP_MANAGER_PATH          "/org/hugepages/Manager"
#define HP_PAGE_SIZE_PATH_PREFIX HP_MANAGER_PATH "/PageSize/"
#define HP_MANAGER_INTERFACE     "org.hugepages.Manager"
#define HP_PAGE_SIZE_INTERFACE   "org.hugepages.Manager.PageSize"

#define HP_ACTION_CONFIGURE_POOLS    "org.hugepages.manager.configure-pools"
#define HP_ACTION_MANAGE_MOUNTS      "org.hugepages.manager.manage-mounts"
#define HP_ACTION_CONFIGURE_TUNABLES "org.hugepages.manager.configure-tunables"
#define HP_ACTION_CONFIGURE_BOOT     "org.hugepages.manager.configure-boot"
#define HP_ACTION_INSPECT_USAGE      "org.hugepages.manager.inspect-usage"

/* The keys of the options (the a{sv} every method takes last). Which
 * method accepts which, and their types, is the method's row in
 * src/bus/hpd-methods.c; any other key is refused. */
#define HP_OPTION_DRY_RUN            "dry-run"
#define HP_OPTION_PERSIST            "persist"
#define HP_OPTION_HARD               "hard"
#define HP_OPTION_TIMEOUT_MS         "timeout-ms"
#define HP_OPTION_DROP_CACHES        "drop-caches"
#define HP_OPTION_NODE               "node"
#define HP_OPTION_ALLOW_LOWER        "allow-lower"
#define HP_OPTION_IGNORE_UNREADABLE  "ignore-unreadable"
#define HP_OPTION_MAX_SIZE           "max-size"
#define HP_OPTION_MIN_SIZE           "min-size"
#define HP_OPTION_MAX_INODES         "max-inodes"
#define HP_OPTION_MODE               "mode"
#define HP_OPTION_SECURE_DIRECTORIES "secure-directories"
/* All of them, for a check that the table takes each and no other. */
#define HP_OPTION_KEYS \
  HP_OPTION_DRY_RUN, HP_OPTION_PERSIST, HP_OPTION_HARD, HP_OPTION_TIMEOUT_MS, \
  HP_OPTION_DROP_CACHES, HP_OPTION_NODE, HP_OPTION_ALLOW_LOWER, HP_OPTION_IGNORE_UNREADABLE, \
  HP_OPTION_MAX_SIZE, HP_OPTION_MIN_SIZE, HP_OPTION_MAX_INODES, HP_OPTION_MODE, \
  HP_OPTION_SECURE_DIRECTORIES

/* The SetThp settings that take a number (u); every other name takes a
 * string, one of the values ThpSettings lists for it. */
#define HP_THP_NUMERIC_SETTINGS \
  "khugepaged/pages_to_scan", \
  "khugepaged/scan_sleep_millisecs", \
  "khugepaged/alloc_sleep_millisecs"

/* The node of a claim on a whole pool, in the Claims property and in
 * GetClaims (the "node" option of Claim and Release is absent then). */
#define HP_CLAIM_ALL_NODES G_MAXUINT32
