/* hugepagesd --apply: make the kernel match the configuration once (at
 * boot, from a oneshot unit) and say, line by line, what was asked and
 * what the kernel gave. Everything that can be applied is, even after a
 * failure; the result is FALSE if anything failed or fell short. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

/* Where the configuration lives, below the service's root. */
#define HPD_CONFIG_FILE        "etc/hugepagesd/hugepagesd.conf"
#define HPD_CONFIG_VENDOR_DIR  "usr/lib/hugepagesd/hugepagesd.conf.d"
#define HPD_CONFIG_ADMIN_DIR   "etc/hugepagesd/hugepagesd.conf.d"

gboolean hpd_apply_configuration (HpdDaemon *daemon, GString *report);

G_END_DECLS
