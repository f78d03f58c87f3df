/* hugepagesd --apply: make the kernel match the configuration once (at
 * boot, from a oneshot unit) and say, line by line, what was asked and
 * what the kernel gave. Everything that can be applied is, even after a
 * failure; the result is FALSE if anything failed or fell short. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _HpdDaemon HpdDaemon;

gboolean hpd_apply_configuration (HpdDaemon *daemon, GString *report);

G_END_DECLS
