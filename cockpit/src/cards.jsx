// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* The cards besides the pools: claims, mounts, tunables, checks, usage and
 * configuration. Lists are PatternFly tables with each row's actions in a
 * kebab menu; changes that take more than one value are dialogs checked as
 * you type; the kernel's own lists of allowed values (THP and mTHP modes,
 * page sizes, nodes, mount scopes) are selects and toggle groups. */

import React, { useEffect, useState } from "react";
import { Alert } from "@patternfly/react-core/dist/esm/components/Alert/index.js";
import { Button } from "@patternfly/react-core/dist/esm/components/Button/index.js";
import { Card, CardBody, CardHeader, CardTitle } from "@patternfly/react-core/dist/esm/components/Card/index.js";
import { DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from "@patternfly/react-core/dist/esm/components/DescriptionList/index.js";
import { EmptyState, EmptyStateBody } from "@patternfly/react-core/dist/esm/components/EmptyState/index.js";
import { Form, FormGroup, FormHelperText } from "@patternfly/react-core/dist/esm/components/Form/index.js";
import { FormSelect, FormSelectOption } from "@patternfly/react-core/dist/esm/components/FormSelect/index.js";
import { HelperText, HelperTextItem } from "@patternfly/react-core/dist/esm/components/HelperText/index.js";
import { Label } from "@patternfly/react-core/dist/esm/components/Label/index.js";
import { Modal, ModalBody, ModalFooter, ModalHeader } from "@patternfly/react-core/dist/esm/components/Modal/index.js";
import { Spinner } from "@patternfly/react-core/dist/esm/components/Spinner/index.js";
import { TextInput } from "@patternfly/react-core/dist/esm/components/TextInput/index.js";
import { Title } from "@patternfly/react-core/dist/esm/components/Title/index.js";
import { ToggleGroup, ToggleGroupItem } from "@patternfly/react-core/dist/esm/components/ToggleGroup/index.js";
import { ActionsColumn, Table, Tbody, Td, Th, Thead, Tr } from "@patternfly/react-table/dist/esm/components/Table/index.js";
import EllipsisVIcon from "@patternfly/react-icons/dist/esm/icons/ellipsis-v-icon.js";
import { formatBytes } from "./format.js";
import { planFix } from "./fixes.js";
import { consumerError, pagesError, sizeLimitError } from "./validate.js";
import { _, format } from "./i18n.js";

/* A card of the page: a section named by its title, focusable so that the
 * keyboard can scroll its tables sideways on a phone (WCAG 2.1.1). */
export function HpCard({ name, title, children }) {
    return (
        <Card component="section" id={`hp-card-${name}`} className="hp-card" tabIndex={0}
              aria-labelledby={`hp-card-${name}-title`}>
            <CardHeader>
                <CardTitle><h2 id={`hp-card-${name}-title`} className="pf-v6-c-card__title-text">{title}</h2></CardTitle>
            </CardHeader>
            <CardBody><div id={`hp-${name}`}>{children}</div></CardBody>
        </Card>
    );
}

/* A row's actions: a kebab menu whose toggle says whose actions they are */
export function Kebab({ id, label, items, isDisabled }) {
    return (
        <ActionsColumn items={items} isDisabled={isDisabled} shouldFocusFirstItemOnOpen
                       actionsToggle={({ onToggle, isOpen, isDisabled, toggleRef }) =>
                           <Button ref={toggleRef} variant="plain" id={id} aria-label={label}
                                   aria-expanded={isOpen} isDisabled={isDisabled} onClick={onToggle}
                                   icon={<EllipsisVIcon />} />} />
    );
}

function Empty({ id, title, children }) {
    return (
        <EmptyState titleText={title} headingLevel="h3" id={id} variant="xs">
            {children && <EmptyStateBody>{children}</EmptyStateBody>}
        </EmptyState>
    );
}

/* columns: [name]; rows: [{ key, props, cells: [node] }] */
function SimpleTable({ id, label, columns, rows, actions }) {
    return (
        <Table aria-label={label} id={id} variant="compact" gridBreakPoint="grid-md">
            <Thead>
                <Tr>
                    {columns.map((c, i) => (c ? <Th key={i}>{c}</Th> : <Th key={i} screenReaderText={_("Actions")} />))}
                </Tr>
            </Thead>
            <Tbody>
                {rows.map(row =>
                    <Tr key={row.key} {...(row.props || {})}>
                        {row.cells.map((cell, i) =>
                            (columns[i] || !actions
                                ? <Td key={i} dataLabel={columns[i] || undefined}>{cell}</Td>
                                : <Td key={i} isActionCell>{cell}</Td>))}
                    </Tr>)}
            </Tbody>
        </Table>
    );
}

function Field({ id, label, error, helper, children, isRequired }) {
    return (
        <FormGroup label={label} fieldId={id} isRequired={isRequired}>
            {children}
            {(error || helper) &&
                <FormHelperText>
                    <HelperText id={`${id}-helper`}>
                        <HelperTextItem variant={error ? "error" : "default"}>{error || helper}</HelperTextItem>
                    </HelperText>
                </FormHelperText>}
        </FormGroup>
    );
}

/* A dialog around a form: its primary button submits, disabled while a
 * value is wrong; it closes when the change is sent. */
function FormDialog({ id, title, action, actionId, invalid, disabled, onSubmit, onClose, focus, children }) {
    const submit = event => {
        event.preventDefault();
        if (invalid || disabled)
            return;
        onClose();
        onSubmit();
    };
    return (
        <Modal isOpen variant="small" onClose={onClose} id={id} aria-labelledby={`${id}-title`}
               elementToFocus={focus ? `#${focus}` : undefined}>
            <ModalHeader title={title} labelId={`${id}-title`} />
            <ModalBody>
                <Form id={`${id}-form`} onSubmit={submit}>{children}</Form>
            </ModalBody>
            <ModalFooter>
                <Button variant="primary" type="submit" form={`${id}-form`} id={actionId}
                        isDisabled={invalid || disabled}>{action}</Button>
                <Button variant="link" onClick={onClose}>{_("Cancel")}</Button>
            </ModalFooter>
        </Modal>
    );
}

/* --- claims ------------------------------------------------------------- */

function ClaimDialog({ api, onClose }) {
    const sizes = api.sizeProxies();
    const nodes = api.manager.NumaNodes || [];
    const [consumer, setConsumer] = useState("");
    const [size, setSize] = useState(sizes.length ? sizes[0].Name : "");
    const [pages, setPages] = useState("");
    const [node, setNode] = useState("");
    /* nothing typed yet is no mistake yet */
    const nameError = consumer === "" ? null : consumerError(consumer);
    const countError = pages === "" ? null : pagesError(pages, 1);
    const invalid = consumer === "" || pages === "" || Boolean(nameError || countError) || !size;
    return (
        <FormDialog id="hp-claim-dialog" title={_("Claim huge pages")} action={_("Claim")} actionId="hp-claim-button"
                    invalid={invalid} disabled={api.disabled()} onClose={onClose} focus="hp-claim-consumer"
                    onSubmit={() => api.actions.claim(consumer, size, Number(pages), node)}>
            <Field id="hp-claim-consumer" label={_("Consumer")} isRequired error={nameError}
                   helper={_("The program that needs the pages, such as postgresql")}>
                <TextInput id="hp-claim-consumer" value={consumer} onChange={(_e, v) => setConsumer(v)}
                           validated={nameError ? "error" : "default"} placeholder={_("e.g. postgresql")} />
            </Field>
            <Field id="hp-claim-size" label={_("Page size")}>
                <FormSelect id="hp-claim-size" value={size} onChange={(_e, v) => setSize(v)} aria-label={_("Page size")}>
                    {sizes.map(p => <FormSelectOption key={p.Name} value={p.Name} label={p.Name} />)}
                </FormSelect>
            </Field>
            <Field id="hp-claim-pages" label={_("Pages")} isRequired error={countError}>
                <TextInput id="hp-claim-pages" type="number" min={1} value={pages} onChange={(_e, v) => setPages(v)}
                           validated={countError ? "error" : "default"} />
            </Field>
            <FormGroup label={_("Where")} role="radiogroup" fieldId="hp-claim-node" isInline>
                <ToggleGroup aria-label={_("Where")} id="hp-claim-node">
                    {[["", _("Whole pool")], ...nodes.map(n => [String(n), format(_("Node $0"), n)])].map(([value, text]) =>
                        <ToggleGroupItem key={value} text={text} buttonId={`hp-claim-node-${value || "all"}`}
                                         isSelected={node === value} onChange={() => setNode(value)} />)}
                </ToggleGroup>
            </FormGroup>
        </FormDialog>
    );
}

export function ClaimsCard({ api }) {
    const [open, setOpen] = useState(false);
    const disabled = api.disabled();
    const rows = api.records(api.manager.Claims, ["consumer", "page-size", "pages", "node"]).map(([consumer, size, pages, node]) => {
        const whole = node === undefined;
        const name = api.sizeName(size);
        return {
            key: `${consumer} ${size} ${node}`,
            props: { "data-claim": `${consumer} ${name} ${whole ? "all" : node}` },
            cells: [consumer, name, <span className="hp-claim-pages">{pages}</span>, whole ? _("whole pool") : String(node),
                <Kebab id={`hp-claim-actions-${consumer}-${name}-${whole ? "all" : node}`}
                       label={format(_("Actions of $0's $1 claim"), consumer, name)} isDisabled={disabled}
                       items={[{ title: _("Release"), onClick: () => api.actions.release(consumer, size, node) }]} />],
        };
    });
    return (
        <HpCard name="claims" title={_("Claims")}>
            <p>
                {_("Programs that need huge pages claim their share here (or with hugepagesctl claim); each pool is kept at the administrator's minimum plus every claim, so no consumer overwrites another's pages.")}
            </p>
            {rows.length
                ? <SimpleTable id="hp-claims-table" label={_("Claims")} actions
                               columns={[_("Consumer"), _("Page size"), _("Pages"), _("Node"), ""]} rows={rows} />
                : <Empty id="hp-claims-empty" title={_("No claims")} />}
            <Button variant="secondary" id="hp-claim-open" isDisabled={disabled} onClick={() => setOpen(true)}>
                {_("Claim pages…")}
            </Button>
            {open && <ClaimDialog api={api} onClose={() => setOpen(false)} />}
        </HpCard>
    );
}

/* --- mounts ------------------------------------------------------------- */

function modeText(mode) {
    return "0" + Number(mode).toString(8);
}

const SCOPES = [["system", _("System")], ["user", _("User")], ["group", _("Group")], ["global", _("Everyone")]];

function MountDialog({ api, onClose }) {
    const [scope, setScope] = useState("system");
    const [owner, setOwner] = useState("");
    const [size, setSize] = useState("all");
    const [limit, setLimit] = useState("");
    const needsOwner = scope === "user" || scope === "group";
    const ownerError = needsOwner && owner.trim() === "" ? (scope === "user" ? _("Name the user that owns the mount") : _("Name the group that owns the mount")) : null;
    const limitError = sizeLimitError(limit.trim());
    return (
        <FormDialog id="hp-mount-dialog" title={_("Create a hugetlbfs mount")} action={_("Create")} actionId="hp-mount-submit"
                    invalid={Boolean(ownerError || limitError)} disabled={api.disabled()} onClose={onClose}
                    focus="hp-mount-scope"
                    onSubmit={() => api.actions.createMounts(scope, needsOwner ? owner.trim() : "", size, limit.trim())}>
            <Field id="hp-mount-scope" label={_("Scope")}
                   helper={_("System mounts are for root, user and group mounts for their owner, Everyone's for all")}>
                <FormSelect id="hp-mount-scope" value={scope} onChange={(_e, v) => setScope(v)} aria-label={_("Scope")}>
                    {SCOPES.map(([value, text]) => <FormSelectOption key={value} value={value} label={text} />)}
                </FormSelect>
            </Field>
            {needsOwner &&
                <Field id="hp-mount-owner" label={scope === "user" ? _("User") : _("Group")} isRequired error={ownerError}>
                    <TextInput id="hp-mount-owner" value={owner} onChange={(_e, v) => setOwner(v)}
                               validated={ownerError ? "error" : "default"} />
                </Field>}
            <Field id="hp-mount-size" label={_("Page size")}>
                <FormSelect id="hp-mount-size" value={size} onChange={(_e, v) => setSize(v)} aria-label={_("Page size")}>
                    {[["all", _("Every page size")], ...api.sizeProxies().map(p => [p.Name, p.Name])].map(([value, text]) =>
                        <FormSelectOption key={value} value={value} label={text} />)}
                </FormSelect>
            </Field>
            <Field id="hp-mount-max" label={_("Size limit")} error={limitError} helper={_("Optional: such as 1G, or 50% of the pool")}>
                <TextInput id="hp-mount-max" value={limit} onChange={(_e, v) => setLimit(v)}
                           validated={limitError ? "error" : "default"} placeholder={_("e.g. 1G or 50%")} />
            </Field>
        </FormDialog>
    );
}

export function MountsCard({ api }) {
    const [open, setOpen] = useState(false);
    const disabled = api.disabled();
    const mounts = api.manager.valid ? (api.manager.Mounts || []) : [];
    const rows = mounts.map(([path, attrs]) => {
        const a = name => (attrs[name] ? attrs[name].v : undefined);
        const limits = [
            a("max-size") !== undefined ? format(_("max $0"), formatBytes(a("max-size"))) : null,
            a("min-size") !== undefined ? format(_("min $0"), formatBytes(a("min-size"))) : null,
            a("max-inodes") !== undefined ? format(_("$0 inodes"), a("max-inodes")) : null,
        ].filter(Boolean).join(", ") || _("none");
        /* the root's owner and mode are shown; the mount options' where
         * they differ (hugeadm sets them after mounting) */
        const differ = name => a(`options-${name}`) !== undefined && a(`options-${name}`) !== a(name);
        const optionsSay = [
            differ("uid") ? `uid=${a("options-uid")}` : null,
            differ("gid") ? `gid=${a("options-gid")}` : null,
            differ("mode") ? `mode=${modeText(a("options-mode"))}` : null,
        ].filter(Boolean).join(",");
        return {
            key: path,
            props: { "data-mount": path },
            cells: [<code>{path}</code>, formatBytes(a("page-size")), `${a("uid")}:${a("gid")}`,
                modeText(a("mode")) + (optionsSay ? format(_(" (mount options: $0)"), optionsSay) : ""), limits,
                a("managed") ? <Label isCompact color="green">hugepagesd</Label> : <Label isCompact>{_("other")}</Label>,
                <Kebab id={`hp-mount-actions-${path}`} label={format(_("Actions of $0"), path)} isDisabled={disabled}
                       items={[{ title: _("Unmount"), isDanger: true, onClick: () => api.actions.unmount(path, a("managed")) }]} />],
        };
    });
    return (
        <HpCard name="mounts" title={_("Mounts")}>
            {rows.length
                ? <SimpleTable id="hp-mounts-table" label={_("hugetlbfs mounts")} actions
                               columns={[_("Path"), _("Page size"), _("Owner"), _("Mode"), _("Limits"), _("Made by"), ""]} rows={rows} />
                : <Empty id="hp-mounts-empty" title={_("No hugetlbfs mounts")}>
                    {_("Programs that use files in hugetlbfs (rather than MAP_HUGETLB) need one.")}
                </Empty>}
            <Button variant="secondary" id="hp-mount-create" isDisabled={disabled} onClick={() => setOpen(true)}>
                {_("Create mount…")}
            </Button>
            {open && <MountDialog api={api} onClose={() => setOpen(false)} />}
        </HpCard>
    );
}

/* --- tunables ------------------------------------------------------------ */

/* cockpit's bridge hands 64-bit unsigned values above 2^63 over as negative
 * numbers; the kernel's default shmmax and shmall are that large, meaning
 * "no limit" */
const UNLIMITED = _("unlimited");

function unsignedText(value) {
    const v = value < 0 ? value + 2 ** 64 : value;
    return v >= 2 ** 62 ? UNLIMITED : String(v);
}

function NumberSetting({ id, label, value, disabled, onSet, onRecommended }) {
    const [typed, setTyped] = useState(null);
    const shown = typed ?? (unsignedText(value) === UNLIMITED ? "" : String(value));
    const error = typed === null ? null : pagesError(typed, 0, _("Enter a whole number, 0 or more"));
    return (
        <div className="hp-inline">
            <TextInput id={id} type="number" min={0} aria-label={label} value={shown} isDisabled={disabled}
                       validated={error ? "error" : "default"} onChange={(_e, v) => setTyped(v)}
                       aria-describedby={error ? `${id}-error` : undefined} />
            <Button size="sm" variant="secondary" isDisabled={disabled || Boolean(error) || shown === ""}
                    onClick={() => { onSet(Number(shown)); setTyped(null); }}>{_("Set")}</Button>
            {onRecommended &&
                <Button size="sm" variant="link" isDisabled={disabled} onClick={onRecommended}>{_("Use recommended")}</Button>}
            {error && <HelperText id={`${id}-error`}><HelperTextItem variant="error">{error}</HelperTextItem></HelperText>}
        </div>
    );
}

function ThpSelect({ api, thpKey, showCurrent }) {
    const [current, allowed] = api.manager.ThpSettings[thpKey];
    const [chosen, setChosen] = useState(null);
    const id = "hp-thp-" + thpKey.replace(/[^A-Za-z0-9]/g, "-");
    const value = chosen ?? current;
    const disabled = api.disabled();
    return (
        <div className="hp-inline" data-thp={thpKey}>
            {showCurrent && <span className="hp-thp-current">{current}</span>}
            <FormSelect id={id} aria-label={format(_("THP $0"), thpKey)} value={value} isDisabled={disabled}
                        onChange={(_e, v) => setChosen(v)}>
                {allowed.map(v => <FormSelectOption key={v} value={v} label={v} />)}
            </FormSelect>
            <Button size="sm" variant="secondary" isDisabled={disabled || value === current}
                    onClick={() => { api.actions.setThp(thpKey, value); setChosen(null); }}>{_("Apply")}</Button>
        </div>
    );
}

export function TunablesCard({ api }) {
    const m = api.manager;
    if (!m.valid)
        return <HpCard name="tunables" title={_("Tunables")} />;
    const disabled = api.disabled();
    const set = api.actions.setTunable;
    const rows = [
        [_("kernel.shmmax (bytes)"), <span id="hp-shmmax-value">{unsignedText(m.ShmMax)}</span>, String(m.RecommendedShmMax),
            <NumberSetting id="hp-shmmax" label={_("kernel.shmmax (bytes)")} value={m.ShmMax} disabled={disabled}
                           onSet={v => set("SetShmMax", "ta{sv}", [v], _("Setting kernel.shmmax"))}
                           onRecommended={() => set("SetRecommendedShmMax", "a{sv}", [], _("Setting kernel.shmmax"))} />],
        [_("kernel.shmall (base pages)"), unsignedText(m.ShmAllPages), String(m.RecommendedShmAllPages), _("raised with shmmax")],
        [_("vm.min_free_kbytes"), <span id="hp-min-free-value">{unsignedText(m.MinFreeKbytes)}</span>, String(m.RecommendedMinFreeKbytes),
            <NumberSetting id="hp-min-free" label={_("vm.min_free_kbytes")} value={m.MinFreeKbytes} disabled={disabled}
                           onSet={v => set("SetMinFreeKbytes", "ta{sv}", [v], _("Setting vm.min_free_kbytes"))}
                           onRecommended={() => set("SetRecommendedMinFreeKbytes", "a{sv}", [], _("Setting vm.min_free_kbytes"))} />],
        ["vm.hugetlb_shm_group", String(m.ShmGroup), "", <ShmGroup api={api} />],
        [_("Huge pages from ZONE_MOVABLE"),
            m.ZoneMovableSupported ? (m.ZoneMovable ? _("yes") : _("no")) : _("not supported by this kernel"), "",
            m.ZoneMovableSupported
                ? <Button size="sm" variant="secondary" isDisabled={disabled}
                          onClick={() => set("SetZoneMovable", "ba{sv}", [!m.ZoneMovable], _("Setting zone movable"))}>
                    {m.ZoneMovable ? _("Turn off") : _("Turn on")}
                </Button>
                : ""],
    ].map(cells => ({ key: cells[0], cells }));

    const thp = m.ThpSettings || {};
    /* the system-wide choices, then one row per mTHP size */
    const mthp = /^hugepages-(\d+)kB\/(.+)$/;
    const thpRows = Object.keys(thp).filter(key => !mthp.test(key)).sort().map(key => ({
        key,
        props: { "data-thp": key },
        cells: [key, <span className="hp-thp-current">{thp[key][0]}</span>, <ThpSelect api={api} thpKey={key} />],
    }));
    const sizes = [...new Set(Object.keys(thp).filter(key => mthp.test(key))
            .map(key => Number(mthp.exec(key)[1])))].sort((a, b) => a - b);
    const mthpRows = sizes.map(kb => {
        const cell = name => (thp[`hugepages-${kb}kB/${name}`]
            ? <ThpSelect api={api} thpKey={`hugepages-${kb}kB/${name}`} showCurrent /> : "—");
        return { key: kb, props: { "data-mthp": kb }, cells: [formatBytes(kb * 1024), cell("enabled"), cell("shmem_enabled")] };
    });
    return (
        <HpCard name="tunables" title={_("Tunables")}>
            <SimpleTable id="hp-tunables-table" label={_("Tunables")} columns={[_("Setting"), _("Current"), _("Recommended"), _("Change")]} rows={rows} />
            <Title headingLevel="h3" className="hp-subtitle">{_("Transparent huge pages")}</Title>
            {thpRows.length
                ? <SimpleTable id="hp-thp-table" label={_("Transparent huge pages")} columns={[_("Setting"), _("Current"), _("Change")]} rows={thpRows} />
                : <Empty id="hp-thp-empty" title={_("This kernel has no transparent huge pages")} />}
            {mthpRows.length > 0 &&
                <SimpleTable id="hp-mthp-table" label={_("Multi-size transparent huge pages")}
                             columns={[_("mTHP size"), _("Anonymous memory (enabled)"), _("Shared memory (shmem_enabled)")]} rows={mthpRows} />}
            <p>
                {format(_("khugepaged: $0 pages per scan, sleeps $1 ms between scans and $2 ms after a failed allocation."),
                        m.KhugepagedPagesToScan, m.KhugepagedScanSleepMillisecs, m.KhugepagedAllocSleepMillisecs)}
            </p>
        </HpCard>
    );
}

function ShmGroup({ api }) {
    const [group, setGroup] = useState("");
    const disabled = api.disabled();
    return (
        <div className="hp-inline">
            <TextInput id="hp-shm-group" aria-label={_("Group name or number")} placeholder={_("group")} value={group}
                       isDisabled={disabled} onChange={(_e, v) => setGroup(v)} />
            <Button size="sm" variant="secondary" isDisabled={disabled || group.trim() === ""}
                    onClick={() => api.actions.setTunable("SetShmGroup", "sa{sv}", [group.trim()], _("Setting vm.hugetlb_shm_group"))}>
                {_("Set")}
            </Button>
        </div>
    );
}

/* --- checks -------------------------------------------------------------- */

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 };
const SEVERITY_COLOR = { error: "red", warning: "orange", info: "blue" };
const SEVERITY_TEXT = { error: _("error"), warning: _("warning"), info: _("info") };

export function ExplainCard({ api }) {
    const { state } = api;
    const disabled = api.disabled();
    let body;
    if (state.explainError)
        body = <Alert isInline variant="danger" title={_("The checks could not run")}>{state.explainError}</Alert>;
    else if (!state.explain)
        body = <p><Spinner size="md" aria-label={_("Checking")} /> {_("Checking…")}</p>;
    else if (state.explain.length === 0)
        body = <Empty id="hp-explain-empty" title={_("Nothing to report")} />;
    else {
        const entries = [...state.explain].sort((a, b) => SEVERITY_ORDER[a[0]] - SEVERITY_ORDER[b[0]]);
        const rows = entries.map(entry => {
            const [severity, id, message, fix] = entry;
            const plan = planFix(entry, { sizeByName: api.sizeByName, manager: api.manager });
            return {
                key: id,
                props: { "data-explain": id },
                cells: [<Label isCompact color={SEVERITY_COLOR[severity]}>{SEVERITY_TEXT[severity] || severity}</Label>, message,
                    fix ? <code>{fix}</code> : "",
                    plan
                        ? <Button size="sm" variant="secondary" id={`hp-fix-${id}`} isDisabled={disabled}
                                  onClick={() => api.actions.applyFix(entry)}>{plan.label}</Button>
                        : ""],
            };
        });
        body = <SimpleTable id="hp-explain-table" label={_("Explain")} columns={[_("Severity"), _("Finding"), _("Fix"), _("Action")]} rows={rows} />;
    }
    return (
        <HpCard name="explain" title={_("Checks")}>
            {body}
            <Button variant="link" id="hp-explain-refresh" onClick={api.actions.refreshExplain}>{_("Check again")}</Button>
        </HpCard>
    );
}

/* --- usage ----------------------------------------------------------------- */

/* A process's (or cgroup's, or file's) huge page memory drawn against the
 * largest in its list; the label says it in words */
function Drawn({ bytes, max }) {
    const width = max > 0 ? `${(100 * bytes / max).toFixed(1)}%` : "0";
    return (
        <div className="hp-usage-drawn">
            <span className="hp-usage-bar" role="img" style={{ width }}
                  aria-label={format(_("$0 of huge pages"), formatBytes(bytes))} />
        </div>
    );
}

export function UsageCard({ api }) {
    const { state } = api;
    const u = state.usage;
    const v = key => (u && u[key] ? u[key].v : undefined);
    const f = (entry, key) => (entry[key] ? entry[key].v : "");
    const pagesOf = list => (list || []).map(e =>
        `${formatBytes(f(e, "page-size"))}: ${Number(f(e, "shared") || 0) + Number(f(e, "private") || 0)}`).join(", ");
    const bytesOf = list => (list || []).reduce((sum, e) =>
        sum + (Number(f(e, "shared") || 0) + Number(f(e, "private") || 0)) * Number(f(e, "page-size") || 0), 0);
    const processes = v("processes") || [];
    const processMax = Math.max(0, ...processes.map(p => bytesOf(f(p, "hugetlb"))));
    const cgroups = v("cgroups") || [];
    const cgroupBytes = c => (f(c, "hugetlb") || []).reduce((sum, e) => sum + Number(f(e, "current") || 0), 0);
    const cgroupMax = Math.max(0, ...cgroups.map(cgroupBytes));
    const section = (title, id, label, columns, rows, empty, actions = false) => (
        <>
            <Title headingLevel="h3" className="hp-subtitle">{title}</Title>
            {rows.length
                ? <SimpleTable id={id} label={label} columns={columns} actions={actions}
                               rows={rows.map((cells, i) => ({ key: i, cells }))} />
                : <Empty id={id} title={empty} />}
        </>
    );
    const unattributed = v("unattributed") || [];
    return (
        <HpCard name="usage" title={_("Who uses huge pages")}>
            <Button variant="secondary" id="hp-usage-scan" isDisabled={state.usageRunning} onClick={api.actions.scanUsage}>
                {_("Scan")}
            </Button>
            {state.usageRunning && <p><Spinner size="md" aria-label={_("Scanning")} /> {_("Scanning processes, files and segments…")}</p>}
            {state.usageError && <Alert isInline variant="danger" title={_("The scan failed")}>{state.usageError}</Alert>}
            {u && <>
                {v("restricted") &&
                    <Alert isInline variant="info" title={_("Only your own processes, files and segments are shown")}>
                        {_("Seeing everything needs administrative access.")}
                    </Alert>}
                {section(_("Processes"), "hp-usage-processes", _("Processes"), [_("PID"), _("Command"), _("User"), _("Pages"), _("Memory")],
                         processes.map(p => [String(f(p, "pid")), f(p, "cmdline") || f(p, "command"),
                             f(p, "user"), pagesOf(f(p, "hugetlb")),
                             <Drawn bytes={bytesOf(f(p, "hugetlb"))} max={processMax} />]), _("No process maps huge pages"))}
                {section(_("Control groups"), "hp-usage-cgroups", _("Control groups"), [_("Path"), _("Huge pages"), _("Memory")],
                         cgroups.map(c => [<code>{f(c, "path")}</code>,
                             (f(c, "hugetlb") || []).map(e => (f(e, "max") !== ""
                                 ? format(_("$0 pages: $1 of at most $2"), formatBytes(f(e, "page-size")),
                                          formatBytes(f(e, "current")), formatBytes(f(e, "max")))
                                 : format(_("$0 pages: $1"), formatBytes(f(e, "page-size")), formatBytes(f(e, "current"))))).join(", "),
                             <Drawn bytes={cgroupBytes(c)} max={cgroupMax} />]), _("No control group holds huge pages"))}
                {section(_("Files in hugetlbfs"), "hp-usage-files", _("Files"), [_("Path"), _("Size"), _("Pages"), _("Owner"), _("Mapped by"), ""],
                         (v("files") || []).map(e => [<code>{f(e, "path")}</code>, formatBytes(f(e, "size")),
                             String(f(e, "pages")), f(e, "user"),
                             f(e, "mapped") ? (f(e, "pids") || []).join(", ") : <Label isCompact color="orange">{_("orphan")}</Label>,
                             f(e, "mapped")
                                 ? ""
                                 : <Kebab id={`hp-file-actions-${f(e, "path")}`} label={format(_("Actions of $0"), f(e, "path"))}
                                          isDisabled={api.disabled()}
                                          items={[{ title: _("Remove"), isDanger: true, onClick: () => api.actions.removeOrphan(f(e, "path")) }]} />]),
                         _("No files"), true)}
                {section(_("SysV shared memory"), "hp-usage-sysv", _("SysV segments"), [_("Key"), _("Owner"), _("Size"), _("Backing"), _("Attached")],
                         (v("sysv") || []).map(e => [String(f(e, "key")), f(e, "user"), formatBytes(f(e, "size")),
                             f(e, "backing"), String(f(e, "nattch"))]), _("No segments"))}
                {unattributed.length > 0 &&
                    section(_("Pages nobody accounts for"), "hp-usage-unattributed", _("Unattributed"),
                            [_("Page size"), _("In use"), _("Attributed"), _("Unattributed"), _("Reserved")],
                            unattributed.map(e => [formatBytes(f(e, "page-size")), String(f(e, "in-use")),
                                String(f(e, "in-use-attributed")), String(f(e, "in-use-unattributed")),
                                String(f(e, "reserved"))]), "")}
                {(v("warnings") || []).map((w, i) => <Alert key={i} isInline variant="warning" title={w} />)}
                {(v("truncated") || []).length > 0 &&
                    <Alert isInline variant="warning" title={format(_("The scan stopped early: $0"), v("truncated").join(", "))} />}
            </>}
        </HpCard>
    );
}

/* --- configuration --------------------------------------------------------- */

/* Writing the boot configuration: the dialog shows the parameters and the
 * file a dry run names (or why this system cannot take them) before the
 * real call. */
function BootDialog({ api, onClose }) {
    const params = api.manager.BootParameters || "";
    const [preview, setPreview] = useState(null);
    useEffect(() => {
        let live = true;
        api.actions.previewBoot().then(result => { if (live) setPreview(result); });
        return () => { live = false };
    }, [api]);
    return (
        <FormDialog id="hp-boot-dialog" title={_("Write boot configuration")} action={_("Write")} actionId="hp-boot-write-button"
                    invalid={!preview || Boolean(preview.error)} disabled={api.disabled()} onClose={onClose}
                    onSubmit={api.actions.configureBoot}>
            <p>{params
                ? _("These parameters will be added to the kernel command line of the next boot:")
                : _("The configuration asks for no huge pages at boot: hugepagesd's boot loader file will be removed.")}
            </p>
            {params && <p><code id="hp-boot-dialog-params">{params}</code></p>}
            {!preview && <p><Spinner size="md" aria-label={_("Checking")} /> {_("Checking…")}</p>}
            {preview && preview.path && <p id="hp-boot-dialog-path">{format(_("File: $0"), preview.path)}</p>}
            {preview && preview.error &&
                <Alert isInline variant="warning" id="hp-boot-dialog-error" title={_("The boot configuration cannot be written here")}>
                    {preview.error}
                </Alert>}
            <Alert isInline variant="info" title={_("A reboot is needed")}>
                {_("The running kernel is not changed: the gigantic pages are reserved when the system boots again.")}
            </Alert>
        </FormDialog>
    );
}

/* BootDropIn's fields; the property is absent from a service older than
 * it, and then so is its part of the page */
export function bootDropIn(manager) {
    const d = manager.BootDropIn;
    if (!d || !d.path)
        return null;
    return {
        path: d.path.v,
        text: d.text ? d.text.v : "",
        upToDate: Boolean(d["up-to-date"] && d["up-to-date"].v),
        /* undefined: the service does not show them (a file or directory
         * not every account may read) */
        contents: d.contents ? d.contents.v : undefined,
    };
}

/* Why the drop-in is not what ConfigureBoot would leave: in words, with
 * what a write does about it */
function staleReason(dropIn) {
    if (dropIn.text === "")
        return _("The configuration asks for no huge pages at boot, but the file is still there: writing the boot configuration removes it.");
    if (dropIn.contents === "")
        return _("The configuration asks for huge pages at boot, but the file is missing: writing the boot configuration creates it.");
    return _("The file does not hold the configuration's boot parameters: writing the boot configuration replaces it.");
}

/* The GRUB drop-in ConfigureBoot writes: where, whether it is what the
 * configuration asks for, and what it holds when the service shows that */
function BootDropIn({ dropIn }) {
    let contents;
    if (dropIn.contents === undefined)
        contents = <span id="hp-boot-dropin-hidden">{_("Not shown: the service shows the file only when every account may read it.")}</span>;
    else if (dropIn.contents === "")
        contents = <span id="hp-boot-dropin-none">{_("no file")}</span>;
    else
        contents = <pre id="hp-boot-dropin-contents" className="hp-boot-contents" tabIndex={0}
                        aria-label={_("Boot loader file as it is now")}>{dropIn.contents}</pre>;
    return (
        <>
            <DescriptionListGroup>
                <DescriptionListTerm>{_("Boot loader file")}</DescriptionListTerm>
                <DescriptionListDescription>
                    <code id="hp-boot-dropin-path">{dropIn.path}</code>{" "}
                    <Label isCompact id="hp-boot-dropin-state" color={dropIn.upToDate ? "green" : "orange"}
                           data-up-to-date={dropIn.upToDate ? "yes" : "no"}>
                        {dropIn.upToDate ? _("up to date") : _("not up to date")}
                    </Label>
                    {!dropIn.upToDate && <p id="hp-boot-dropin-why">{staleReason(dropIn)}</p>}
                </DescriptionListDescription>
            </DescriptionListGroup>
            <DescriptionListGroup>
                <DescriptionListTerm>{_("In the boot loader file now")}</DescriptionListTerm>
                <DescriptionListDescription>{contents}</DescriptionListDescription>
            </DescriptionListGroup>
        </>
    );
}

/* The boot section's action, the primary one while the drop-in is not up
 * to date; read only, the reason is said next to it */
function BootWrite({ api, stale }) {
    const [open, setOpen] = useState(false);
    const disabled = api.disabled();
    return (
        <>
            <Button variant={stale ? "primary" : "secondary"} id="hp-boot-write" isDisabled={disabled} onClick={() => setOpen(true)}>
                {_("Write boot configuration…")}
            </Button>
            {api.state.limited &&
                <HelperText id="hp-boot-write-readonly"><HelperTextItem>{api.state.limited}</HelperTextItem></HelperText>}
            {open && <BootDialog api={api} onClose={() => setOpen(false)} />}
        </>
    );
}

export function ConfigCard({ api }) {
    const m = api.manager;
    if (!m.valid)
        return <HpCard name="config" title={_("Configuration")} />;
    const drift = {};
    for (const [key, configured, actual, message] of api.records(m.Drift, ["key", "configured", "actual", "message"]))
        drift[key] = { configured, actual, message };
    const settings = api.records(m.ConfiguredState, ["key", "value", "origin"]);
    const driftCell = d => <span><Label isCompact color="orange">{_("drift")}</Label> {d.message}</span>;
    const rows = settings.map(([key, value, origin]) => {
        const d = drift[key];
        return {
            key,
            props: { className: d ? "hp-drift" : "", "data-config": key, "data-drift": d ? "yes" : "no" },
            cells: [key, value, d ? (d.actual === "" ? _("not on this kernel") : d.actual) : _("as configured"),
                d ? driftCell(d) : "", <code>{origin}</code>],
        };
    });
    /* drift of keys the state does not list (should not happen, but never
     * hide a difference) */
    for (const key of Object.keys(drift)) {
        if (!settings.some(([k]) => k === key))
            rows.push({
                key,
                props: { className: "hp-drift", "data-config": key, "data-drift": "yes" },
                cells: [key, drift[key].configured, drift[key].actual, driftCell(drift[key]), ""],
            });
    }
    const hook = m.ApplyAtBoot || {};
    const hookValue = key => (hook[key] ? hook[key].v : undefined);
    const overrides = api.records(m.ConfigurationOverrides, ["key", "value", "origin", "overridden", "overridden-origin"]);
    const dropIn = bootDropIn(m);
    return (
        <HpCard name="config" title={_("Configuration")}>
            {rows.length
                ? <SimpleTable id="hp-config-table" label={_("Persisted configuration")}
                               columns={[_("Setting"), _("Configured"), _("Kernel now"), _("Difference"), _("Set in")]} rows={rows} />
                : <Empty id="hp-config-empty" title={_("Nothing is configured in /etc/hugepagesd")} />}
            {hookValue("enabled") === false &&
                <Alert isInline variant="warning" title={_("Not applied at boot")} id="hp-apply-at-boot">
                    {format(_("$0. Fix:"), hookValue("message"))} <code>{hookValue("fix")}</code>
                </Alert>}
            {(m.ConfigurationErrors || []).map((error, i) =>
                <Alert key={`e${i}`} isInline variant="danger" title={_("Configuration error")}>{error}</Alert>)}
            {overrides.map(([key, value, origin, overridden, overriddenOrigin]) =>
                <Alert key={`o${key}`} isInline variant="info" title={_("Overridden")}>
                    <span data-override={key}>
                        {key} = {value} (<code>{origin}</code>) {format(_("overrides $0"), overridden)} (<code>{overriddenOrigin}</code>)
                    </span>
                </Alert>)}
            <DescriptionList className="hp-boot" id="hp-boot">
                <DescriptionListGroup>
                    <DescriptionListTerm>{_("Boot parameters from the configuration")}</DescriptionListTerm>
                    <DescriptionListDescription><code>{m.BootParameters || _("none")}</code></DescriptionListDescription>
                </DescriptionListGroup>
                <DescriptionListGroup>
                    <DescriptionListTerm>{_("Running kernel was booted with")}</DescriptionListTerm>
                    <DescriptionListDescription>
                        <code>{m.KernelCommandLine || _("none")}</code>
                        {m.RebootRequired && <> <Label isCompact color="orange" id="hp-reboot-required">{_("reboot required")}</Label></>}
                    </DescriptionListDescription>
                </DescriptionListGroup>
                {dropIn && <BootDropIn dropIn={dropIn} />}
            </DescriptionList>
            <BootWrite api={api} stale={Boolean(dropIn && !dropIn.upToDate)} />
        </HpCard>
    );
}
