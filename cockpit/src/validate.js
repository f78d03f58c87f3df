// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* What the page's dialogs check as one types, before anything reaches the
 * service (which checks again and says why in its own words). Each returns
 * null when the value is fine, or the sentence saying what is wrong. */

import { _ } from "./i18n.js";

/* A page count: a whole number, at least @min (0 or 1) */
export function pagesError(text, min = 0, message = null) {
    if (text === "")
        return _("Enter a number of pages");
    const n = Number(text);
    if (!Number.isInteger(n) || n < min)
        return message || (min === 0 ? _("Enter a whole number of pages, 0 or more") : _("Enter a whole number of pages, 1 or more"));
    return null;
}

/* The service's rule for a consumer's name (hpd_claim_consumer_valid) */
export function consumerError(name) {
    return /^[a-z0-9][a-z0-9._-]{0,63}$/.test(name)
        ? null
        : _("A consumer name is 1 to 64 characters of a-z, 0-9, '.', '_' and '-', such as postgresql");
}

/* "2M", "1G", "512k" or a byte count, as the mount limits take them */
export function parseBytes(text) {
    const match = /^\s*(\d+)\s*([kKmMgGtT]?)i?[bB]?\s*$/.exec(text);
    if (!match)
        return NaN;
    const shift = { "": 0, k: 10, m: 20, g: 30, t: 40 }[match[2].toLowerCase()];
    return Number(match[1]) * 2 ** shift;
}

/* A mount's size limit: empty (none), a size, or a percentage of the pool */
export function sizeLimitError(text) {
    if (text === "" || /^\d+%$/.test(text) || !Number.isNaN(parseBytes(text)))
        return null;
    return _("The size limit must be a size such as 512M or 2G, or a percentage such as 50%");
}
