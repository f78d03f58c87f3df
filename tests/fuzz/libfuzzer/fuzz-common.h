/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* What the libFuzzer harnesses share. Each harness feeds one family of
 * parsers arbitrary bytes and checks what is cheap to check: round trips
 * through the service's own formatting, bounds, and that text which goes
 * onto the bus is valid UTF-8. A failed check aborts, which libFuzzer
 * reports as a crash and saves the input for. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "hpd-boot.h"

G_BEGIN_DECLS

/* libFuzzer's entry points. */
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* Prints the failed check and aborts. */
G_NORETURN void fuzz_fail (const char *file, int line, const char *check,
                           const char *format, ...) G_GNUC_PRINTF (4, 5);

/* Aborts with a message (printf-style, what was being checked) unless
 * @cond holds. */
#define FUZZ_CHECK(cond, ...) \
  G_STMT_START { \
    if (G_UNLIKELY (!(cond))) \
    fuzz_fail (__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } G_STMT_END

/* @data as a C string, as a caller of the C-string API would hold it:
 * the bytes up to the first NUL, NUL-terminated, in an exactly sized heap
 * block (so that AddressSanitizer sees a read past the end). */
char *fuzz_cstring (const uint8_t *data, size_t size);

/* The first @n bytes of @data (fewer if it is shorter) as fuzz_cstring
 * does, advancing @data and @size past them: for harnesses that take
 * more than one input. */
char *fuzz_take (const uint8_t **data, size_t *size, size_t n);

/* Takes a little-endian number from the front of @data (0 once empty). */
guint64 fuzz_take_u64 (const uint8_t **data, size_t *size);

/* Whether @text is valid UTF-8 without control characters other than
 * tab: what may go into a D-Bus string, a log line or a message. */
gboolean fuzz_is_clean_text (const char *text);

/* Whether @text is valid UTF-8 (D-Bus strings must be). */
gboolean fuzz_is_utf8 (const char *text);

/* A machine for the boot parameter code: 64 kB, 2 MB, 32 MB, 1 GB and
 * 16 GB pages (the last three gigantic) on nodes 0 to 3 (16 GB: 0 and 1
 * only). Built once; do not free. */
GPtrArray *fuzz_machine_pools (void);

/* Checks the shape of @params (sizes of @pools, ascending, once each;
 * nodes ascending, once each, below 1024, adding up to the pages) and that
 * its BootParameters string, read back as the kernel reads a command line
 * (with @default_size the running default), gives the same huge pages. */
void fuzz_check_boot_params (const HpdBootParams *params, GPtrArray *pools,
                             guint64 default_size);

/* Whether @text is valid UTF-8 without control characters other than
 * newline and tab: a whole file the service writes. */
gboolean fuzz_is_clean_lines (const char *text);

G_END_DECLS
