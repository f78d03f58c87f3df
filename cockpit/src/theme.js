// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* Follows the shell's light or dark style: its switcher keeps "shell:style"
 * (auto, light, dark) in localStorage and announces changes with a
 * "cockpit-style" event; "auto" follows the browser's colour scheme. The
 * class is the one of the PatternFly the page bundles (6). */

const DARK_CLASS = "pf-v6-theme-dark";
const query = window.matchMedia("(prefers-color-scheme: dark)");

function apply(style) {
    style = style || window.localStorage.getItem("shell:style") || "auto";
    const dark = style === "dark" || (style === "auto" && query.matches);
    document.documentElement.classList.toggle(DARK_CLASS, dark);
}

export function followShellTheme() {
    apply();
    window.addEventListener("storage", event => {
        if (event.key === "shell:style")
            apply();
    });
    window.addEventListener("cockpit-style", event => apply(event.detail && event.detail.style));
    query.addEventListener("change", () => apply());
}
