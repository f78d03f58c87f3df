// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* The page's strings go through cockpit.gettext: po.js (the bridge serves
 * po.LANG.js of the session's language, built from cockpit/po/LANG.po by
 * build.mjs) fills its catalog. A marked string is one plain double-quoted
 * literal as the argument of _() (or the first two of ngettext()), so that
 * build.mjs can collect them; values go in as $0, $1 through format().
 * Outside Cockpit (node --test) the strings stay English. */

const shell = () => (typeof cockpit !== "undefined" && cockpit.gettext ? cockpit : null);

export function _(text) {
    return shell() ? shell().gettext(text) : text;
}

/* format("$0 of $1 pages", 3, 4) -> "3 of 4 pages" */
export function format(text, ...args) {
    return text.replace(/\$(\d+)/g, (match, i) => (args[Number(i)] === undefined ? match : String(args[Number(i)])));
}

/* ngettext("$0 claim", "$0 claims", n), with n as $0 */
export function ngettext(one, many, n) {
    return format(shell() ? shell().ngettext(one, many, n) : (n === 1 ? one : many), n);
}
