// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* What the page's dialogs check as one types, before anything reaches the
 * service (which checks again and says why in its own words). Each returns
 * null when the value is fine, or the sentence saying what is wrong. */

import { _, format } from "./i18n.js";

/* A page count: ASCII digits, as the service's parsers take a count
 * (Number() alone takes " 5", "0x10", "1e3" and "5.0"), at least @min (0
 * or 1). It travels as a JSON number, exact only up to 2^53 - 1: a larger
 * one is refused here rather than rounded. */
export function pagesError(text, min = 0, message = null) {
    if (text === "")
        return _("Enter a number of pages");
    if (!/^[0-9]+$/.test(text) || Number(text) < min)
        return message || (min === 0 ? _("Enter a whole number of pages, 0 or more") : _("Enter a whole number of pages, 1 or more"));
    if (Number(text) > Number.MAX_SAFE_INTEGER)
        return format(_("At most $0"), String(Number.MAX_SAFE_INTEGER));
    return null;
}

/* The service's rule for a consumer's name (hpd_claim_consumer_valid) */
export function consumerError(name) {
    return /^[a-z0-9][a-z0-9._-]{0,63}$/.test(name)
        ? null
        : _("A consumer name is 1 to 64 characters of a-z, 0-9, '.', '_' and '-', such as postgresql");
}

/* hugepagesd's units (src/common/hp-units.c), in any ASCII case; "b" is
 * bytes. tests/units.json holds the vectors this, the C parser and the
 * Ansible collection's are all checked against. */
const SHIFTS = {
    "": 0n, b: 0n,
    k: 10n, kb: 10n, kib: 10n,
    m: 20n, mb: 20n, mib: 20n,
    g: 30n, gb: 30n, gib: 30n,
    t: 40n, tb: 40n, tib: 40n,
};
const UINT64_MAX = 2n ** 64n - 1n;

/* The bytes of "2M", "1G", "2048kB" or a byte count, read exactly as
 * hugepagesctl reads them (hp_parse_size): ASCII digits and a unit, no
 * space, no sign, not zero, at most 2^64 - 1; a BigInt, or null when
 * hugepagesctl would refuse the text. */
export function parseSize(text) {
    const match = /^([0-9]+)([^]*)$/.exec(text);
    /* no u flag: under it the Kelvin sign would fold to a k */
    if (!match || !/^[\x00-\x7f]*$/.test(match[2]))
        return null;
    const shift = Object.prototype.hasOwnProperty.call(SHIFTS, match[2].toLowerCase()) ? SHIFTS[match[2].toLowerCase()] : null;
    const number = BigInt(match[1]);
    if (shift === null || number === 0n || number > UINT64_MAX >> shift)
        return null;
    return number << shift;
}

/* A percentage of the pool as hugepagesctl takes it: 1% to 100%, no
 * leading zero */
function percentOk(text) {
    const match = /^([1-9][0-9]{0,2})%$/.exec(text);
    return Boolean(match) && Number(match[1]) <= 100;
}

/* A mount's size limit: empty (none), a size, or a percentage of the pool.
 * A size travels to the service as a JSON number, exact only up to 2^53 - 1
 * bytes (8 PiB): a larger limit is refused here rather than rounded. */
export function sizeLimitError(text) {
    if (text === "" || percentOk(text))
        return null;
    const bytes = parseSize(text);
    if (bytes !== null && bytes <= BigInt(Number.MAX_SAFE_INTEGER))
        return null;
    return _("The size limit must be a size such as 512M or 2G, or a percentage such as 50%");
}
