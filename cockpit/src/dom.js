// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* A few helpers to build PatternFly markup without a framework. */

/* h("button", { class: "x", onclick: fn }, "text", child, [more]) */
export function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
        if (value === undefined || value === null || value === false)
            continue;
        if (key.startsWith("on") && typeof value === "function")
            el.addEventListener(key.slice(2), value);
        else if (key === "value")
            el.value = value;
        else
            el.setAttribute(key, value === true ? "" : String(value));
    }
    append(el, children);
    return el;
}

function append(el, children) {
    for (const child of children) {
        if (child === undefined || child === null || child === false)
            continue;
        if (Array.isArray(child))
            append(el, child);
        else if (child instanceof Node)
            el.appendChild(child);
        else
            el.appendChild(document.createTextNode(String(child)));
    }
}

export function replaceChildren(el, ...children) {
    el.textContent = "";
    append(el, children);
}

export function button(label, onclick, { variant = "secondary", id, disabled, small, title } = {}) {
    return h("button", {
        type: "button",
        class: `pf-v6-c-button pf-m-${variant}` + (small ? " pf-m-small" : ""),
        id,
        disabled: disabled || undefined,
        title,
        onclick,
    }, h("span", { class: "pf-v6-c-button__text" }, label));
}

const ALERT_ICONS = { danger: "⨂", warning: "⚠", success: "✓", info: "ℹ" };

/* severity: danger, warning, success, info, custom */
export function alert(severity, title, body, { id } = {}) {
    return h("div", {
        class: `pf-v6-c-alert pf-m-inline pf-m-${severity}`,
        role: severity === "danger" ? "alert" : "status",
        id,
        "data-severity": severity,
    },
    h("div", { class: "pf-v6-c-alert__icon", "aria-hidden": "true" }, ALERT_ICONS[severity] || "•"),
    h("p", { class: "pf-v6-c-alert__title" },
      h("span", { class: "pf-v6-screen-reader" }, severity + " alert:"),
      title),
    body ? h("div", { class: "pf-v6-c-alert__description" }, body) : null);
}

/* columns: [label]; rows: [[cell, ...] or { cells, class, attrs }] */
export function table(label, columns, rows, { id, empty = "None" } = {}) {
    const head = h("thead", { class: "pf-v6-c-table__thead" },
                   h("tr", { class: "pf-v6-c-table__tr" },
                     columns.map(c => h("th", { class: "pf-v6-c-table__th", scope: "col" }, c))));
    const body = h("tbody", { class: "pf-v6-c-table__tbody" });
    if (rows.length === 0) {
        body.appendChild(h("tr", { class: "pf-v6-c-table__tr" },
                           h("td", { class: "pf-v6-c-table__td hp-empty", colspan: columns.length }, empty)));
    }
    for (const row of rows) {
        const spec = Array.isArray(row) ? { cells: row } : row;
        body.appendChild(h("tr", { class: "pf-v6-c-table__tr " + (spec.class || ""), ...(spec.attrs || {}) },
                           spec.cells.map((cell, i) => h("td", {
                               class: "pf-v6-c-table__td",
                               "data-label": columns[i],
                           }, cell))));
    }
    return h("table", { class: "pf-v6-c-table pf-m-compact pf-m-grid-md", role: "grid", "aria-label": label, id },
             head, body);
}

export function textInput(attrs) {
    return h("span", { class: "pf-v6-c-form-control" }, h("input", { type: "text", ...attrs }));
}

export function select(attrs, options, current) {
    return h("span", { class: "pf-v6-c-form-control" },
             h("select", attrs,
               options.map(([value, label]) => h("option", { value, selected: value === current }, label))));
}

export function label(text, color) {
    return h("span", { class: "pf-v6-c-label pf-m-compact" + (color ? ` pf-m-${color}` : "") },
             h("span", { class: "pf-v6-c-label__content" }, h("span", { class: "pf-v6-c-label__text" }, text)));
}

export function formatBytes(bytes) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let value = Number(bytes);
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
        value /= 1024;
        unit++;
    }
    const text = Number.isInteger(value) ? String(value) : value.toFixed(1);
    return `${text} ${units[unit]}`;
}
