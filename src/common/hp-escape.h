/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Text from callers and from files, made safe for one line of a log.
 *
 * Every local account can put text into the service's log: a consumer name
 * is checked, but paths, mount options, file contents and GLib's own
 * messages about a peer are not. Such text must not be able to start a
 * line that looks like the service's own (a newline, U+2028, U+2029, NEL),
 * reorder what a reader sees (the bidirectional controls U+202A to U+202E,
 * U+2066 to U+2069, U+200E, U+200F, U+061C), hide text (zero-width
 * characters, soft hyphen) or drive a terminal (escape sequences). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @text (@length bytes, or up to the NUL with -1) as valid UTF-8 without
 * any control, format, line or paragraph separator character: each of
 * those becomes \uXXXX (\UXXXXXXXX above the BMP), each byte that is not
 * part of valid UTF-8 (and a NUL within @length) \xNN, and a backslash
 * \\, so that nothing in the result can pass for an escape the function
 * made. */
char *hp_escape_log_text (const char *text, gssize length);

G_END_DECLS
