/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the unit tests share: fixture files and small trees of files in a
 * temporary directory. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The contents of tests/unit/fixtures/@name. */
char *hpd_test_fixture (const char *name);

/* Writes @contents to @root/@relative, making the directories on the way. */
void hpd_test_put (const char *root, const char *relative, const char *contents);

/* Rewrites the existing @root/@relative in place (same inode), as the fake
 * kernel and a shell's `echo N >` do. */
void hpd_test_put_in_place (const char *root, const char *relative, const char *contents);

/* The contents of @root/@relative. */
char *hpd_test_get (const char *root, const char *relative);

/* Removes @path and everything below it. */
void hpd_test_remove (const char *path);

/* The fixture of tests that need only a temporary directory: made by the
 * setup, removed with its contents by the teardown. */
typedef struct {
  char *root;
} HpdTestRoot;

void hpd_test_root_setup (HpdTestRoot *fixture, gconstpointer data);
void hpd_test_root_teardown (HpdTestRoot *fixture, gconstpointer data);

G_END_DECLS
